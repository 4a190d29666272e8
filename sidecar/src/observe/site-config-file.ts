// Finds and reads the site configuration file: the first of the candidates that exists
// (core/site-config-rules.ts orders them), read only when only the operator could have written it
// (observe/operator-file.ts: the way to it checked, the file opened once and checked through
// its descriptor). The rules over what it saw are core's; this only looks.
import * as fs from 'node:fs';
import { readOperatorFile } from './operator-file';
import {
  SITE_CONFIG_MAX_BYTES,
  SiteConfigCandidate,
  SiteFileFacts,
  SiteProblem
} from '../core/site-config-rules';

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
  const read = readOperatorFile(candidate.path, {
    secret: false,
    maxBytes: SITE_CONFIG_MAX_BYTES
  });
  switch (read.kind) {
    case 'read':
      return {
        kind: 'read',
        candidate,
        text: read.text,
        facts: {
          path: candidate.path,
          viaSymlink,
          ownerUid: read.stat.uid,
          mode: read.stat.mode,
          processUid: processUid()
        }
      };
    case 'missing':
      return refused(
        candidate,
        'the file is gone (a dangling symbolic link, or removed while it was read)',
        'Correct or remove the link, or name an existing file.'
      );
    case 'refused': {
      const { message, fix } = read.problem;
      return refused(
        candidate,
        `not read: ${message} (a site configuration is read only when nobody but the operator could have written it)`,
        fix
      );
    }
    case 'failed':
      return refused(
        candidate,
        `the file cannot be read (${read.code})`,
        read.code === 'EACCES'
          ? 'Make it readable by the user the service runs as (chmod a+r for a file without secrets), or remove it.'
          : 'Correct or remove the file.'
      );
  }
}
