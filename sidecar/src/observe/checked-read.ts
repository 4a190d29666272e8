// One way to read a file whose kind, owner or mode decides whether it is believed: opened once,
// checked through the open descriptor, read from it. Used by the private files (private-file.ts)
// and by the files the configuration names (operator-file.ts).
import * as fs from 'node:fs';

/** What readCheckedFile found: the text, or why not (a refusal of `check`, or the error's code). */
export type CheckedRead =
  | { kind: 'read'; text: string; stat: fs.Stats }
  | { kind: 'refused'; reason: string; stat: fs.Stats }
  | { kind: 'failed'; code: string };

/**
 * Opens `file` once, without following a link at its name (O_NOFOLLOW) and without blocking on
 * a FIFO (O_NONBLOCK), asks `check` about the open file (fstat) and reads it from that same
 * descriptor: what was checked is what is read, so it cannot be swapped in between.
 */
export function readCheckedFile(
  file: string,
  check: (stat: fs.Stats) => string | undefined
): CheckedRead {
  let fd: number;
  try {
    fd = fs.openSync(
      file,
      fs.constants.O_RDONLY |
        fs.constants.O_NOFOLLOW |
        (fs.constants.O_NONBLOCK ?? 0)
    );
  } catch (error) {
    return { kind: 'failed', code: errorCode(error) };
  }
  try {
    const stat = fs.fstatSync(fd);
    const reason = check(stat);
    if (reason !== undefined) {
      return { kind: 'refused', reason, stat };
    }
    return { kind: 'read', text: fs.readFileSync(fd, 'utf8'), stat };
  } catch (error) {
    return { kind: 'failed', code: errorCode(error) };
  } finally {
    fs.closeSync(fd);
  }
}

function errorCode(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? (error as Error).message;
}
