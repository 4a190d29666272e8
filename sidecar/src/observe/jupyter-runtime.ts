// Jupyter's runtime files (`jpserver-<pid>.json`: url, token, pid, root_dir), where jupyter_core
// puts them. Read by the command line to find a terminal's server (cli/jupyter-discovery.ts) and
// by `serve` behind jupyter-server-proxy to take its server's root directory as the project
// (project-dir.ts): one reading of the file for both.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Env } from '../core/env';

function truthy(value: string | undefined): boolean {
  // jupyter_core's envset(): set and not one of its "false" words.
  return (
    value !== undefined &&
    !['', 'no', 'n', 'false', 'off', '0', '0.0'].includes(value.toLowerCase())
  );
}

/** platformdirs' user directory for Jupyter: `xdg` (or `~/<xdgDefault>`) on Linux and the like. */
function platformDir(
  env: Env,
  platform: NodeJS.Platform,
  home: string,
  xdg: string | undefined,
  xdgDefault: readonly string[]
): string {
  if (platform === 'darwin') {
    return path.join(home, 'Library', 'Application Support', 'jupyter');
  }
  if (platform === 'win32') {
    return path.join(
      env.LOCALAPPDATA || path.join(home, 'AppData', 'Local'),
      'jupyter'
    );
  }
  return path.join(xdg || path.join(home, ...xdgDefault), 'jupyter');
}

/**
 * jupyter_core's rules for the user's data and config directories
 * (jupyter_core.paths.jupyter_data_dir / jupyter_config_dir, with JUPYTER_PLATFORM_DIRS as
 * platformdirs applies it); the Python twin is _runtime_dir in jupyterlab_project_startup/discovery.py.
 */
export function jupyterUserDirs(
  env: Env,
  platform: NodeJS.Platform,
  home: string
): { data: string; config: string } {
  const platformDirs = truthy(env.JUPYTER_PLATFORM_DIRS);
  let config: string;
  if (env.JUPYTER_CONFIG_DIR) {
    config = env.JUPYTER_CONFIG_DIR;
  } else if (platformDirs) {
    config = platformDir(env, platform, home, env.XDG_CONFIG_HOME, ['.config']);
  } else {
    config = path.join(home, '.jupyter');
  }
  let data: string;
  if (env.JUPYTER_DATA_DIR) {
    data = env.JUPYTER_DATA_DIR;
  } else if (platformDirs) {
    data = platformDir(env, platform, home, env.XDG_DATA_HOME, [
      '.local',
      'share'
    ]);
  } else if (platform === 'darwin') {
    data = path.join(home, 'Library', 'Jupyter');
  } else if (platform === 'win32') {
    data = env.APPDATA
      ? path.join(env.APPDATA, 'jupyter')
      : path.join(config, 'data');
  } else {
    data = path.join(
      env.XDG_DATA_HOME || path.join(home, '.local', 'share'),
      'jupyter'
    );
  }
  return { data, config };
}

/** Jupyter's runtime directory, by jupyter_core's rules (JUPYTER_RUNTIME_DIR, then the data dir). */
export function jupyterRuntimeDir(
  env: Env,
  home = env.HOME || os.homedir(),
  platform = process.platform
): string {
  return (
    env.JUPYTER_RUNTIME_DIR ||
    path.join(jupyterUserDirs(env, platform, home).data, 'runtime')
  );
}

export interface OwnRuntimeFile {
  info: Record<string, unknown>;
  /** Its modification time (ms), to tell it from a reused pid's older file. */
  mtimeMs: number;
}

/**
 * A runtime file this user wrote and nobody else can change, parsed; undefined for any other
 * (another owner, group- or world-writable, over 64 KiB, not a JSON object, unreadable).
 */
export function readOwnRuntimeFile(file: string): OwnRuntimeFile | undefined {
  const uid =
    typeof process.getuid === 'function' ? process.getuid() : undefined;
  try {
    const stat = fs.statSync(file);
    if (
      (uid !== undefined && stat.uid !== uid) ||
      (stat.mode & 0o022) !== 0 ||
      stat.size > 64 * 1024
    ) {
      return undefined;
    }
    const info: unknown = JSON.parse(fs.readFileSync(file, 'utf8'));
    return typeof info === 'object' && info !== null && !Array.isArray(info)
      ? { info: info as Record<string, unknown>, mtimeMs: stat.mtimeMs }
      : undefined;
  } catch {
    return undefined;
  }
}

/** The server's root directory: root_dir (jupyter_server), else notebook_dir (the classic server). */
export function runtimeRootDir(
  info: Record<string, unknown>
): string | undefined {
  const root =
    typeof info.root_dir === 'string' ? info.root_dir : info.notebook_dir;
  return typeof root === 'string' && root !== '' ? root : undefined;
}

/**
 * The root directory of the Jupyter server with process id `pid`, from its own runtime file in
 * the runtime directory of `env` (the server's, which its children inherit); undefined when
 * there is no such file of this user's naming that pid.
 */
export function jupyterServerRootDir(
  env: Env,
  pid: number
): string | undefined {
  const file = readOwnRuntimeFile(
    path.join(jupyterRuntimeDir(env), `jpserver-${pid}.json`)
  );
  return file !== undefined && Number(file.info.pid) === pid
    ? runtimeRootDir(file.info)
    : undefined;
}
