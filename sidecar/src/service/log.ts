// One line per event on stderr: JSON, or, when the sidecar runs inside a Jupyter server (launched
// by jupyter-server-proxy, whose stderr is the server's log), a line in Jupyter's own format
// with the fields as JSON after the message. Callers pass only fields they chose; request
// headers, query strings, tokens and cookies are never handed to the logger.
import type { LogLevel } from '../config/config';

const ORDER: Readonly<Record<LogLevel, number>> = {
  error: 0,
  warn: 1,
  info: 2,
  debug: 3
};

export interface Logger {
  error(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  debug(message: string, fields?: Record<string, unknown>): void;
  enabled(level: LogLevel): boolean;
}

/** JSON lines, or lines that read as the Jupyter server's own, beside which they are written. */
export type LogFormat = 'json' | 'jupyter';

const two = (n: number) => String(n).padStart(2, '0');

/** `[I 2026-11-29 02:11:04.123 ProjectStartup] message {"field":…}`, in local time as Jupyter's. */
export function jupyterLine(
  at: LogLevel,
  message: string,
  fields: Record<string, unknown> | undefined,
  now: Date = new Date()
): string {
  const stamp =
    `${now.getFullYear()}-${two(now.getMonth() + 1)}-${two(now.getDate())} ` +
    `${two(now.getHours())}:${two(now.getMinutes())}:${two(now.getSeconds())}.` +
    String(now.getMilliseconds()).padStart(3, '0');
  const tail =
    fields !== undefined && Object.keys(fields).length > 0
      ? ` ${JSON.stringify(fields)}`
      : '';
  return `[${at[0].toUpperCase()} ${stamp} ProjectStartup] ${message.replace(/\s*\n\s*/g, ' ')}${tail}\n`;
}

export function createLogger(
  level: LogLevel,
  write: (line: string) => void = line => process.stderr.write(line),
  format: LogFormat = 'json'
): Logger {
  const threshold = ORDER[level];
  const emit = (
    at: LogLevel,
    message: string,
    fields?: Record<string, unknown>
  ) => {
    if (ORDER[at] <= threshold) {
      write(
        format === 'jupyter'
          ? jupyterLine(at, message, fields)
          : `${JSON.stringify({ time: new Date().toISOString(), level: at, message, ...fields })}\n`
      );
    }
  };
  return {
    error: (m, f) => emit('error', m, f),
    warn: (m, f) => emit('warn', m, f),
    info: (m, f) => emit('info', m, f),
    debug: (m, f) => emit('debug', m, f),
    enabled: at => ORDER[at] <= threshold
  };
}
