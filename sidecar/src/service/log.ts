// One JSON line per event on stderr. Callers pass only fields they chose; request headers,
// query strings, tokens and cookies are never handed to the logger.
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

export function createLogger(
  level: LogLevel,
  write: (line: string) => void = line => process.stderr.write(line)
): Logger {
  const threshold = ORDER[level];
  const emit = (
    at: LogLevel,
    message: string,
    fields?: Record<string, unknown>
  ) => {
    if (ORDER[at] <= threshold) {
      write(
        `${JSON.stringify({ time: new Date().toISOString(), level: at, message, ...fields })}\n`
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
