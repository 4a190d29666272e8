// Finds and reads the site configuration file: the first of the candidates that exists
// (core/site-config.ts orders them), opened without following a last symbolic link it did not
// resolve itself (O_NOFOLLOW), so what is checked is what is read. The rules over what it saw
// are core's (fileTrustProblems); this only looks.
import * as fs from 'node:fs';
import {
  SITE_CONFIG_MAX_BYTES,
  SiteConfigCandidate,
  SiteFileFacts,
  SiteProblem
} from '../core/site-config';

export type SiteFileRead =
  | { kind: 'none'; looked: readonly SiteConfigCandidate[] }
  | {
      kind: 'read';
      candidate: SiteConfigCandidate;
      text: string;
      facts: SiteFileFacts;
    }
  | { kind: 'refused'; candidate: SiteConfigCandidate; problem: SiteProblem };

function processUid(): number {
  return typeof process.getuid === 'function' ? process.getuid() : -1;
}

function refused(
  candidate: SiteConfigCandidate,
  message: string,
  fix: string
): SiteFileRead {
  return {
    kind: 'refused',
    candidate,
    problem: { file: candidate.path, key: '', message, fix }
  };
}

/** Reads the first candidate that exists; an explicit one must exist. */
export function readSiteConfigFile(
  candidates: readonly SiteConfigCandidate[]
): SiteFileRead {
  for (const candidate of candidates) {
    let link: fs.Stats;
    try {
      link = fs.lstatSync(candidate.path);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (
        (code === 'ENOENT' || code === 'ENOTDIR') &&
        candidate.scope !== 'explicit'
      ) {
        continue;
      }
      return refused(
        candidate,
        code === 'ENOENT'
          ? 'the file does not exist'
          : `the file cannot be looked at (${code})`,
        'Name an existing file with --config or PROJECT_STARTUP_CONFIG (an absolute path), or unset it to use the Jupyter config directories.'
      );
    }
    return readCandidate(candidate, link.isSymbolicLink());
  }
  return { kind: 'none', looked: candidates };
}

function readCandidate(
  candidate: SiteConfigCandidate,
  viaSymlink: boolean
): SiteFileRead {
  let target: string;
  let fd: number;
  try {
    // A link is resolved here, once; the file opened is that target, never a link again.
    target = viaSymlink ? fs.realpathSync(candidate.path) : candidate.path;
    fd = fs.openSync(
      target,
      fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK
    );
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return refused(
      candidate,
      code === 'ELOOP'
        ? 'the file was replaced by a symbolic link while it was read'
        : `the file cannot be read (${code ?? (error as Error).message})`,
      code === 'EACCES'
        ? 'Make it readable by the user the service runs as (chmod a+r for a file without secrets), or remove it.'
        : 'Correct or remove the file (a dangling symbolic link names a file that is gone).'
    );
  }
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) {
      return refused(
        candidate,
        'not a regular file',
        'Point it at a regular JSON file.'
      );
    }
    if (stat.size > SITE_CONFIG_MAX_BYTES) {
      return refused(
        candidate,
        `the file is ${stat.size} bytes, more than ${SITE_CONFIG_MAX_BYTES}`,
        'A site configuration is a few hundred bytes: point at the right file.'
      );
    }
    const text = fs.readFileSync(fd, 'utf8');
    return {
      kind: 'read',
      candidate,
      text,
      facts: {
        path: candidate.path,
        viaSymlink,
        ownerUid: stat.uid,
        mode: stat.mode,
        processUid: processUid()
      }
    };
  } catch (error) {
    return refused(
      candidate,
      `the file cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
      'Correct or remove the file.'
    );
  } finally {
    fs.closeSync(fd);
  }
}
