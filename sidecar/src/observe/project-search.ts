// The looks core/project-search.ts decides over: which platform places the state (from the
// environment, as the service finds it), one lstat per directory, and the state inspection.
import * as fs from 'node:fs';
import { adapterFor } from '../core/platforms';
import {
  InvalidPlatformSetting,
  selectPlatform
} from '../core/platforms/rules';
import { findProjectDir, StateMarkerLook } from '../core/project-search';
import { gatherPlatformEvidence } from './evidence';
import { StateInspector } from './state';

type Env = Readonly<Record<string, string | undefined>>;

function lookAtMarker(statePath: string): StateMarkerLook {
  let stat: fs.Stats | undefined;
  try {
    stat = fs.lstatSync(statePath, { throwIfNoEntry: false });
  } catch {
    stat = undefined; // unreadable on the way (EACCES, ENOTDIR): nothing of ours there
  }
  return stat === undefined
    ? { kind: 'absent' }
    : {
        kind: 'entry',
        isDirectory: stat.isDirectory(),
        isSymbolicLink: stat.isSymbolicLink(),
        uid: stat.uid,
        mode: stat.mode
      };
}

/**
 * The nearest initialized project at or above `workingDir` (a real path), else `workingDir`.
 * With a platform setting the service would refuse, nothing is searched: the service reports
 * that setting when it starts.
 */
export function findInitializedProject(
  workingDir: string,
  homeDir: string | undefined,
  env: Env
): string {
  let adapter;
  try {
    adapter = adapterFor(selectPlatform(gatherPlatformEvidence(env)).platform);
  } catch (error) {
    if (error instanceof InvalidPlatformSetting) {
      return workingDir;
    }
    throw error;
  }
  const placementOf = (candidate: string) =>
    adapter.placeState(candidate, homeDir);
  return findProjectDir({
    workingDir,
    homeDir,
    userUid: typeof process.getuid === 'function' ? process.getuid() : -1,
    statePathOf: candidate => placementOf(candidate).statePath,
    lookAtMarker,
    inspect: candidate =>
      new StateInspector(placementOf(candidate), candidate).inspect()
  });
}
