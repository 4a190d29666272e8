// Where each platform keeps a project's private state, as data: the adapters place state by it,
// and scripts/platform-rules.js writes it (with the platform signals and rules) to the file the
// Python client reads, so the notebook client looks where the service writes.
import { createHash } from 'node:crypto';
import * as path from 'node:path';
import type { PlatformId } from '../vocabulary';
import type { StatePlacement } from './types';

/** The state directory's name. */
export const STATE_DIR = '.project-startup';

/**
 * `in-project`: `<project>/.project-startup`. `under-home`: `<home>/.project-startup/projects/
 * <name>-<hash>`, for platforms whose project directories are often shared or ephemeral while
 * the person's home persists (the project directory stands in for a missing home).
 */
export type StatePlacementRule = 'in-project' | 'under-home';

export const STATE_PLACEMENT: Readonly<Record<PlatformId, StatePlacementRule>> =
  {
    generic: 'in-project',
    'hosted-notebook': 'under-home',
    cluster: 'in-project'
  };

/** Where `platform` keeps the state of the project at `projectPath`. */
export function placeStateOn(
  platform: PlatformId,
  projectPath: string,
  homeDir: string | undefined
): StatePlacement {
  if (STATE_PLACEMENT[platform] === 'in-project') {
    return {
      statePath: path.join(projectPath, STATE_DIR),
      parentsToCreate: []
    };
  }
  const root = path.join(homeDir ?? projectPath, STATE_DIR);
  const projects = path.join(root, 'projects');
  return {
    statePath: path.join(projects, stateDirName(projectPath)),
    parentsToCreate: [root, projects]
  };
}

/** `<name>-<first 12 hex of sha256(project path)>`, the name kept to safe characters. */
export function stateDirName(projectPath: string): string {
  const base = path
    .basename(projectPath)
    .replace(/[^A-Za-z0-9._-]/g, '_')
    .replace(/^\.+/, '_');
  const digest = createHash('sha256')
    .update(projectPath)
    .digest('hex')
    .slice(0, 12);
  return `${base.slice(0, 64) || 'project'}-${digest}`;
}
