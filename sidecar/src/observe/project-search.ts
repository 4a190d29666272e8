// The looks core/project-search.ts decides over: which platform places the state (the setting
// resolveConfig checked, else the environment's evidence, as the service finds it), one lstat
// per directory, and the state inspection.
import * as fs from 'node:fs';
import { adapterFor } from '../core/platforms';
import { selectPlatform } from '../core/platforms/rules';
import type { PlatformId } from '../core/vocabulary';
import { findProjectDir, StateMarkerLook } from '../core/project-search';
import { gatherPlatformEvidence } from './evidence';
import { StateInspector } from './state';
import type { Env } from '../core/env';

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
 * `platform`: the platform setting as resolveConfig checked it (the variable's, else the site
 * file's), undefined to select from evidence.
 */
export function findInitializedProject(
  workingDir: string,
  homeDir: string | undefined,
  env: Env,
  platform: PlatformId | undefined
): string {
  const adapter = adapterFor(
    selectPlatform({
      ...gatherPlatformEvidence(env),
      operatorSetting: platform
    }).platform
  );
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
