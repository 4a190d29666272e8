// Reads a file the configuration names (the site file, the trusted proxy's secret) or looks at a
// directory it names (the secrets directory), gathering what core/operator-files.ts needs to
// decide whether only the operator could have written it: every directory and link on the way,
// each link resolved here one step at a time, and the file itself as the open descriptor shows it.
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  operatorFileProblem,
  OperatorFileProblem,
  PathEntry
} from '../core/operator-files';
import { readCheckedFile } from './checked-read';

/** As the kernel's own limit on links followed in one path. */
const MAX_LINKS = 40;

function serviceUid(): number | undefined {
  return typeof process.getuid === 'function' ? process.getuid() : undefined;
}

function kindOf(stat: fs.Stats): PathEntry['kind'] {
  return stat.isSymbolicLink()
    ? 'link'
    : stat.isDirectory()
      ? 'directory'
      : stat.isFile()
        ? 'file'
        : 'other';
}

/** Whether `at` is on a read-only file system: asked only of an entry with a write bit set. */
function onReadOnlyMount(at: string, mode: number): boolean {
  if ((mode & 0o022) === 0) {
    return false;
  }
  try {
    fs.accessSync(at, fs.constants.W_OK);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EROFS';
  }
}

function entryOf(at: string, stat: fs.Stats): PathEntry {
  return {
    path: at,
    kind: kindOf(stat),
    uid: stat.uid,
    mode: stat.mode,
    readOnly: onReadOnlyMount(at, stat.mode)
  };
}

export class PathWalkError extends Error {
  constructor(readonly code: string) {
    super(code);
  }
}

/**
 * Every directory and link from / to `target` (absolute), links resolved one at a time, and the
 * real path reached. The last entry is that real path's own (lstat). Throws PathWalkError
 * (ENOENT, ENOTDIR, ELOOP, EACCES...).
 */
export function pathEntries(target: string): {
  entries: PathEntry[];
  real: string;
} {
  const entries: PathEntry[] = [];
  const lstat = (at: string): fs.Stats => {
    try {
      return fs.lstatSync(at);
    } catch (error) {
      throw new PathWalkError((error as NodeJS.ErrnoException).code ?? 'EIO');
    }
  };
  const root = path.parse(path.resolve(target)).root;
  entries.push(entryOf(root, lstat(root)));
  let at = root;
  let rest = path.resolve(target).slice(root.length).split(path.sep);
  let links = 0;
  while (rest.length > 0) {
    const [part, ...remaining] = rest;
    rest = remaining;
    if (part === '' || part === '.') {
      continue;
    }
    if (part === '..') {
      at = path.dirname(at); // `at` is already real: no link to climb back through
      continue;
    }
    const next = path.join(at, part);
    const stat = lstat(next);
    entries.push(entryOf(next, stat));
    if (stat.isSymbolicLink()) {
      if (++links > MAX_LINKS) {
        throw new PathWalkError('ELOOP');
      }
      const link = fs.readlinkSync(next);
      if (path.isAbsolute(link)) {
        at = path.parse(link).root;
      }
      rest = [...link.split(/[\\/]/), ...rest];
      continue;
    }
    if (rest.some(p => p !== '' && p !== '.') && !stat.isDirectory()) {
      throw new PathWalkError('ENOTDIR');
    }
    at = next;
  }
  return { entries, real: at };
}

export type OperatorFileRead =
  | { kind: 'read'; text: string; stat: fs.Stats; real: string }
  | { kind: 'missing' }
  | { kind: 'refused'; problem: OperatorFileProblem }
  | { kind: 'failed'; code: string };

/**
 * The text of `file` when only the operator could have written it (core/operator-files.ts):
 * the way to it walked, then the real file opened once without following links and checked
 * through its descriptor, and read from it. `secret`: it must be readable by its owner only.
 */
export function readOperatorFile(
  file: string,
  options: { secret: boolean; maxBytes: number }
): OperatorFileRead {
  let walked: { entries: PathEntry[]; real: string };
  try {
    walked = pathEntries(file);
  } catch (error) {
    const code = (error as PathWalkError).code;
    return code === 'ENOENT' ? { kind: 'missing' } : { kind: 'failed', code };
  }
  const uid = serviceUid();
  let problem: OperatorFileProblem | undefined;
  const read = readCheckedFile(walked.real, stat => {
    if (!stat.isFile()) {
      return 'not a regular file';
    }
    // The file as opened, not as lstat saw it a moment before.
    const entries = [
      ...walked.entries.slice(0, -1),
      entryOf(walked.real, stat)
    ];
    problem = operatorFileProblem(entries, uid, options.secret);
    if (problem !== undefined) {
      return problem.message;
    }
    return stat.size > options.maxBytes
      ? `the file is ${stat.size} bytes, more than ${options.maxBytes}`
      : undefined;
  });
  if (read.kind === 'read') {
    return {
      kind: 'read',
      text: read.text,
      stat: read.stat,
      real: walked.real
    };
  }
  if (read.kind === 'failed') {
    return read.code === 'ENOENT'
      ? { kind: 'missing' }
      : { kind: 'failed', code: read.code };
  }
  return {
    kind: 'refused',
    problem: problem ?? {
      path: walked.real,
      message: read.reason,
      fix:
        read.reason === 'not a regular file'
          ? 'Point it at a regular file.'
          : 'Point it at the right file.'
    }
  };
}

/** Why directory `dir` may not be believed (the same rule as for a file), or undefined. */
export function operatorDirectoryProblem(
  dir: string
): OperatorFileProblem | { code: string } | undefined {
  try {
    const { entries } = pathEntries(dir);
    return operatorFileProblem(entries, serviceUid(), false);
  } catch (error) {
    return { code: (error as PathWalkError).code };
  }
}
