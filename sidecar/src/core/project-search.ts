// Which directory is the project when none was named: as git finds its repository, the nearest
// directory from the working directory upward that holds this project's initialized state, else
// the working directory itself. Pure: the looks are passed in (observe/project-search.ts).
import * as path from 'node:path';
import type { IngressMode } from './vocabulary';
import type { StateInspection } from './observations';

/** One lstat of where a candidate's state directory would be (never followed if a link). */
export type StateMarkerLook =
  | { kind: 'absent' }
  | {
      kind: 'entry';
      isDirectory: boolean;
      isSymbolicLink: boolean;
      uid: number;
      mode: number;
    };

export interface ProjectSearch {
  /** The working directory's real path. */
  workingDir: string;
  homeDir: string | undefined;
  /** This process's uid, or -1 where there are none. */
  userUid: number;
  /** Where `candidate`'s state directory would be, for the platform in use. */
  statePathOf(candidate: string): string;
  lookAtMarker(statePath: string): StateMarkerLook;
  /** The full read-only inspection, asked only where the marker may be ours. */
  inspect(candidate: string): StateInspection;
}

/**
 * Whether `serve` looks upward too: a service of one's own (direct loopback) started in a
 * subdirectory serves the project its command line finds. Behind a proxy the launch names the
 * project (Jupyter's directory, the operator's), so it is taken as it is.
 */
export function searchesUpward(ingress: string | undefined): boolean {
  return (
    ingress === undefined ||
    ingress === ('direct-loopback' satisfies IngressMode)
  );
}

/**
 * The directories looked at, nearest first: the working directory and its parents, stopping
 * below the filesystem root and below the home directory's parent (another user's tree).
 */
export function searchCandidates(
  workingDir: string,
  homeDir: string | undefined
): string[] {
  const ceiling = homeDir === undefined ? undefined : path.dirname(homeDir);
  const candidates = [workingDir];
  let dir = workingDir;
  for (;;) {
    const parent = path.dirname(dir);
    if (
      parent === dir ||
      parent === path.parse(parent).root ||
      parent === ceiling
    ) {
      return candidates;
    }
    candidates.push(parent);
    dir = parent;
  }
}

/** Whether a marker may be this user's state: a real, private directory of theirs. */
export function markerMayBeOurs(
  look: StateMarkerLook,
  userUid: number
): boolean {
  return (
    look.kind === 'entry' &&
    look.isDirectory &&
    !look.isSymbolicLink &&
    (userUid === -1 || look.uid === userUid) &&
    (look.mode & 0o077) === 0
  );
}

/**
 * The project directory: the nearest candidate whose state is initialized for that very
 * directory (the record names it), else the working directory. One lstat per level; the full
 * inspection only where a private directory of ours stands.
 */
export function findProjectDir(search: ProjectSearch): string {
  for (const candidate of searchCandidates(search.workingDir, search.homeDir)) {
    const look = search.lookAtMarker(search.statePathOf(candidate));
    if (
      markerMayBeOurs(look, search.userUid) &&
      search.inspect(candidate).kind === 'initialized'
    ) {
      return candidate;
    }
  }
  return search.workingDir;
}
