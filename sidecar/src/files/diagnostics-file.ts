// The sidecar's report to the Jupyter server extension of the Python package: when
// PROJECT_STARTUP_DIAGNOSTICS_FILE is set (the jupyter-server-proxy entry point sets it),
// `serve` writes there whether it is running, or why start-up failed with its last stderr
// lines. The server extension's diagnostics route reads it, so the panel can show the real
// cause of a failed start instead of the proxy's bare 500. `socket` is the Unix socket the
// service answers on (behind jupyter-server-proxy): the server extension's fleet reporter reads
// the startup projection there, beside the proxy, so its reads are nobody's activity.
import { writePrivateFile } from './private-file';

export const DIAGNOSTICS_FILE_ENV = 'PROJECT_STARTUP_DIAGNOSTICS_FILE';
export const LOG_TAIL_LINES = 20;

/** The site configuration file the service read, or none and where it looked. */
export interface SiteConfigReport {
  file: string | null;
  looked: string[];
}

export type DiagnosticsRecord =
  | {
      state: 'running';
      pid: number;
      at: string;
      siteConfig?: SiteConfigReport;
      socket?: string;
    }
  | {
      state: 'failed';
      at: string;
      /** Where a misconfigured service keeps answering its problem (absent when it exited). */
      socket?: string;
      pid?: number;
      exitCode: number;
      lastError: string;
      logTail: string[];
    };

/**
 * Writes the record as a private file (private-file.ts: random temporary name, O_EXCL and
 * O_NOFOLLOW, mode 0600, then rename): the file lives in Jupyter's runtime directory, which
 * this service does not choose, so a link planted there must not redirect the write.
 */
export function writeDiagnosticsFile(
  file: string,
  record: DiagnosticsRecord
): void {
  try {
    writePrivateFile(file, `${JSON.stringify(record)}\n`);
  } catch {
    // The report is a help for diagnosis only: never a reason for the service to fail.
  }
}

/**
 * Keeps the last lines written to a stream (the sidecar's stderr: JSON log lines and the
 * start-up error), passing every write through unchanged.
 */
export class StderrTail {
  constructor(target: NodeJS.WritableStream) {
    const tap = (chunk: unknown, ...rest: unknown[]): boolean => {
      this._record(
        typeof chunk === 'string'
          ? chunk
          : Buffer.isBuffer(chunk)
            ? chunk.toString('utf8')
            : String(chunk)
      );
      return (target.write as (...args: unknown[]) => boolean).call(
        target,
        chunk,
        ...rest
      );
    };
    this.stream = new Proxy(target, {
      get(object, property) {
        if (property === 'write') {
          return tap;
        }
        const value: unknown = Reflect.get(object, property, object);
        return typeof value === 'function'
          ? (value as (...args: unknown[]) => unknown).bind(object)
          : value;
      }
    });
  }

  /** The stream to write to instead of the target. */
  readonly stream: NodeJS.WritableStream;

  /** Number of complete lines written so far. */
  get count(): number {
    return this._count;
  }

  /** The last complete lines (at most LOG_TAIL_LINES), plus an unfinished one. */
  lines(): string[] {
    return [...this._lines, ...(this._partial ? [this._partial] : [])].slice(
      -LOG_TAIL_LINES
    );
  }

  /** The lines written after the count was `mark` (those still kept), plus an unfinished one. */
  linesSince(mark: number): string[] {
    const kept = this._lines.slice(
      Math.max(0, this._lines.length - (this._count - mark))
    );
    return [...kept, ...(this._partial ? [this._partial] : [])];
  }

  private _record(text: string): void {
    const pieces = (this._partial + text).split('\n');
    this._partial = pieces.pop() ?? '';
    for (const line of pieces) {
      this._lines.push(line);
      this._count += 1;
    }
    if (this._lines.length > LOG_TAIL_LINES) {
      this._lines.splice(0, this._lines.length - LOG_TAIL_LINES);
    }
  }

  private _lines: string[] = [];
  private _partial = '';
  private _count = 0;
}
