// Private files (the runtime file, the diagnostics report): one writer and one reader, so
// every such file is made and read by the same rule. Written whole or not at all, mode 0600,
// never through a symbolic link; read only when it is a regular file of this user that nobody
// else can read or write. The directory may be one that others can write (the diagnostics
// report lives in Jupyter's runtime directory, which the service does not choose): a link
// planted at either name must neither redirect the write nor be read back as ours.
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readCheckedFile } from '../observe/checked-read';

/** Larger than any file the service writes; a bigger one is not ours. */
const MAX_PRIVATE_FILE_BYTES = 1024 * 1024;

/**
 * Writes `contents` to `file` atomically: a temporary file with an unpredictable name in the
 * same directory, created with O_EXCL|O_NOFOLLOW (an existing name or link there is never
 * opened), mode 0600 whatever the umask, flushed, then renamed over `file` (rename replaces a
 * link at `file` itself, never its target) and the directory flushed. Throws what failed.
 */
export function writePrivateFile(file: string, contents: string): void {
  const dir = path.dirname(file);
  const temporary = path.join(
    dir,
    `.${path.basename(file)}.${randomBytes(8).toString('hex')}.tmp`
  );
  const fd = fs.openSync(
    temporary,
    fs.constants.O_WRONLY |
      fs.constants.O_CREAT |
      fs.constants.O_EXCL |
      fs.constants.O_NOFOLLOW,
    0o600
  );
  try {
    try {
      fs.fchmodSync(fd, 0o600); // the umask may have taken the owner's bits away
      fs.writeFileSync(fd, contents);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(temporary, file);
  } catch (error) {
    fs.rmSync(temporary, { force: true });
    throw error;
  }
  fsyncDirectory(dir);
}

/** Makes the rename durable. Best effort: some systems cannot open or flush a directory. */
function fsyncDirectory(dir: string): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync(dir, fs.constants.O_RDONLY);
    fs.fsyncSync(fd);
  } catch {
    // Windows cannot open a directory; the file itself was flushed before the rename.
  } finally {
    if (fd !== undefined) {
      fs.closeSync(fd);
    }
  }
}

/**
 * The contents of `file` if it is a private file of this user: a regular file (a link is
 * refused by O_NOFOLLOW, a FIFO does not block thanks to O_NONBLOCK), owned by this uid where
 * the system has uids, with no permission for group or others, at most 1 MiB. Undefined
 * otherwise, or when it cannot be read.
 */
export function readPrivateFile(file: string): string | undefined {
  const uid = process.getuid?.();
  const read = readCheckedFile(file, stat =>
    !stat.isFile() ||
    (stat.mode & 0o077) !== 0 ||
    (uid !== undefined && stat.uid !== uid) ||
    stat.size > MAX_PRIVATE_FILE_BYTES
      ? 'not a private file of this user'
      : undefined
  );
  return read.kind === 'read' ? read.text : undefined;
}
