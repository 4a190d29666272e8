// The package's Python side (jupyterlab_project_startup, from this checkout) in Debian's python3,
// with an explicit environment: nothing of the developer's environment is inherited.
import { spawnSync, SpawnSyncReturns } from 'node:child_process';
import { REPO_ROOT } from './cli';

/**
 * Runs `/usr/bin/python3 -c code` with the package importable (PYTHONPATH is the checkout), no
 * bytecode written, PATH /usr/bin:/bin and HOME /nonexistent; `env` adds to or replaces those.
 * In `cwd` (default: the checkout). Answers what spawnSync answers, stdout and stderr as text.
 */
export function runPackagePython(
  code: string,
  options: { timeoutMs: number; cwd?: string; env?: Record<string, string> }
): SpawnSyncReturns<string> {
  return spawnSync('/usr/bin/python3', ['-c', code], {
    encoding: 'utf8',
    timeout: options.timeoutMs,
    cwd: options.cwd ?? REPO_ROOT,
    env: {
      PATH: '/usr/bin:/bin',
      PYTHONPATH: REPO_ROOT,
      PYTHONDONTWRITEBYTECODE: '1',
      HOME: '/nonexistent',
      ...options.env
    }
  });
}
