// Writing an install so that it completes or leaves everything as it was: every target checked
// first, each change kept with its undo.
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ConfigError } from '../config/config';
import { isObject, JsonObject, PACKAGE_NAME } from './install-package';

/** Regular files and directories below `dir` (not following links), with `dir` itself. */
export function walk(dir: string): { files: string[]; directories: string[] } {
  const files: string[] = [];
  const directories: string[] = [];
  const visit = (d: string) => {
    directories.push(d);
    for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
      const full = path.join(d, entry.name);
      if (entry.isDirectory()) {
        visit(full);
      } else {
        files.push(full);
      }
    }
  };
  if (fs.existsSync(dir)) {
    visit(dir);
  }
  return { files, directories };
}

export function readJsonObject(file: string): JsonObject | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ConfigError(
      `${file} is not valid JSON; fix or move it, then run the command again (nothing was changed).`
    );
  }
  if (!isObject(value)) {
    throw new ConfigError(
      `${file} does not hold a JSON object; fix or move it, then run the command again (nothing was changed).`
    );
  }
  return value;
}

const WRITE_FIX =
  'Nothing was changed. Run the command as a user who may write there (for a system-wide Jupyter, e.g. with sudo), or install for yourself with --user, or choose a --prefix you own.';

/** Throws when `target` could not be created or replaced: its nearest existing ancestor must be a writable directory. */
export function checkWritable(target: string): void {
  let dir = path.dirname(target);
  while (!fs.existsSync(dir)) {
    const parent = path.dirname(dir);
    if (parent === dir) {
      break;
    }
    dir = parent;
  }
  if (!fs.statSync(dir).isDirectory()) {
    throw new ConfigError(
      `Cannot create ${target}: ${dir} is not a directory. ${WRITE_FIX}`
    );
  }
  try {
    // access() asks the kernel with this process's credentials (root passes; a read-only
    // mount still fails later, and is then rolled back).
    fs.accessSync(dir, fs.constants.W_OK | fs.constants.X_OK);
    if (fs.existsSync(target) && fs.statSync(target).isDirectory()) {
      fs.accessSync(target, fs.constants.W_OK | fs.constants.X_OK);
    }
  } catch {
    throw new ConfigError(
      `Cannot write to ${fs.existsSync(target) ? target : dir} (permission denied), so ${PACKAGE_NAME} cannot be installed there. ${WRITE_FIX}`
    );
  }
}

/** Where writing `file` goes: the file itself, or the target of the symbolic link it is. */
export function writeTarget(file: string): string {
  let isLink = false;
  try {
    isLink = fs.lstatSync(file).isSymbolicLink();
  } catch {
    return file; // not there yet
  }
  if (!isLink) {
    return file;
  }
  try {
    return fs.realpathSync(file);
  } catch {
    throw new ConfigError(
      `${file} is a symbolic link to a file that does not exist; point it at an existing file or remove it, then run the command again (nothing was changed).`
    );
  }
}

/** Changes made so far, each with its undo, so a failed install leaves everything as it was. */
export class Changes {
  private readonly undo: (() => void)[] = [];
  private readonly leftovers: string[] = [];
  /** The directories created, parents first: uninstall removes them again when they are empty. */
  readonly created: string[] = [];

  /** Creates `dir` and the missing directories above it. */
  mkdirs(dir: string): void {
    const missing: string[] = [];
    for (let d = dir; !fs.existsSync(d); d = path.dirname(d)) {
      missing.unshift(d);
    }
    for (const d of missing) {
      fs.mkdirSync(d, { mode: 0o755 });
      this.created.push(d);
      this.undo.push(() => fs.rmdirSync(d));
    }
  }

  /** Puts a directory filled by `fill` at `target`, replacing what was there. */
  replaceDir(target: string, fill: (dir: string) => void): void {
    this.mkdirs(path.dirname(target));
    const suffix = randomBytes(6).toString('hex');
    const staged = `${target}.${suffix}.new`;
    this.undo.push(() => fs.rmSync(staged, { recursive: true, force: true }));
    fs.mkdirSync(staged, { mode: 0o755 });
    fill(staged);
    if (fs.existsSync(target)) {
      const old = `${target}.${suffix}.old`;
      fs.renameSync(target, old);
      this.undo.push(() => fs.renameSync(old, target));
      this.leftovers.push(old);
    }
    fs.renameSync(staged, target);
    this.undo.push(() => fs.rmSync(target, { recursive: true, force: true }));
  }

  /**
   * Writes `file` (temporary file, then rename), keeping its old content for the undo. A symbolic
   * link (a config file kept elsewhere, e.g. in a dotfiles repository) stays a link: its target
   * is written in place.
   */
  writeFile(link: string, text: string): void {
    const file = writeTarget(link);
    this.mkdirs(path.dirname(file));
    let before: { text: Buffer; mode: number } | undefined;
    try {
      before = {
        text: fs.readFileSync(file),
        mode: fs.statSync(file).mode & 0o7777
      };
    } catch {
      before = undefined;
    }
    const temporary = `${file}.${randomBytes(6).toString('hex')}.tmp`;
    this.undo.push(() => fs.rmSync(temporary, { force: true }));
    fs.writeFileSync(temporary, text, { mode: before?.mode ?? 0o644 });
    fs.renameSync(temporary, file);
    this.undo.push(() =>
      before
        ? fs.writeFileSync(file, before.text)
        : fs.rmSync(file, { force: true })
    );
  }

  rollback(): void {
    for (const step of this.undo.reverse()) {
      try {
        step();
      } catch {
        // keep undoing the rest
      }
    }
  }

  commit(): void {
    for (const old of this.leftovers) {
      fs.rmSync(old, { recursive: true, force: true });
    }
  }
}

export function writeFailure(error: unknown): Error {
  if (error instanceof ConfigError) {
    return error;
  }
  const e = error as NodeJS.ErrnoException & { dest?: string };
  const where = e.dest ?? e.path ?? '';
  if (e.code === 'EACCES' || e.code === 'EPERM' || e.code === 'EROFS') {
    return new ConfigError(
      `Cannot write to ${where} (${e.code === 'EROFS' ? 'read-only file system' : 'permission denied'}). ${WRITE_FIX}`
    );
  }
  return new ConfigError(
    `Writing ${where || 'the install'} failed (${e.code ?? e.message}). Nothing was changed; fix that and run the command again.`
  );
}
