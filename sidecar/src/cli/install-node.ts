// The Node.js the proxy entry runs: an absolute path, checked to be new enough.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ConfigError } from '../config/config';
import type { Env } from '../core/env';

const MIN_NODE_MAJOR = 20;

/**
 * The absolute path of the executable `name` on `searchPath`, or undefined. Only absolute PATH
 * entries count: an empty or relative one (`PATH=:/usr/bin`, `.`) means "the current directory",
 * which is whatever directory the command happens to run in, perhaps one anyone can write to.
 * (The Python package's twin is checks.find_on_path.)
 */
export function findOnPath(
  name: string,
  searchPath: string | undefined
): string | undefined {
  for (const dir of (searchPath ?? '').split(path.delimiter)) {
    if (!path.isAbsolute(dir)) {
      continue;
    }
    // Windows finds `node` as node.exe (X_OK there only tests existence).
    const names =
      process.platform === 'win32' && !path.extname(name)
        ? [`${name}.exe`, `${name}.cmd`, name]
        : [name];
    for (const candidate of names.map(n => path.join(dir, n))) {
      try {
        if (fs.statSync(candidate).isFile()) {
          fs.accessSync(candidate, fs.constants.X_OK);
          return candidate;
        }
      } catch {
        // not here, or not executable: look further
      }
    }
  }
  return undefined;
}

/**
 * The Node the proxy entry runs, as an absolute path: $PROJECT_STARTUP_NODE or this one. A bare
 * name is looked up on PATH (absolute entries only); a relative path is refused, since the entry
 * would run whatever sits at that path below the Jupyter server's working directory. The version
 * is checked on the very file the entry will name.
 */
export function nodeForEntry(env: Env): string {
  const chosen = env.PROJECT_STARTUP_NODE;
  if (!chosen) {
    return process.execPath;
  }
  let node: string;
  if (path.isAbsolute(chosen)) {
    node = chosen;
  } else if (chosen.includes('/') || chosen.includes(path.sep)) {
    throw new ConfigError(
      `PROJECT_STARTUP_NODE=${chosen} is a relative path; the proxy entry would run whatever is at that path below the Jupyter server's working directory. Set it to an absolute path (such as /usr/bin/node) or a command name on PATH, or unset it to use this Node.`
    );
  } else {
    const found = findOnPath(chosen, env.PATH);
    if (found === undefined) {
      throw new ConfigError(
        `PROJECT_STARTUP_NODE=${chosen} is not an executable in any absolute directory on PATH (empty and relative PATH entries are not searched); set it to the absolute path of a Node.js ${MIN_NODE_MAJOR} or newer, or unset it to use this Node.`
      );
    }
    node = found;
  }
  let version = '';
  try {
    version = execFileSync(node, ['--version'], {
      encoding: 'utf8',
      timeout: 15000,
      stdio: ['ignore', 'pipe', 'ignore']
    }).trim();
  } catch {
    throw new ConfigError(
      `PROJECT_STARTUP_NODE=${chosen} does not run; set it to a Node.js ${MIN_NODE_MAJOR} or newer, or unset it to use this Node.`
    );
  }
  const major = Number(/^v(\d+)\./.exec(version)?.[1] ?? 0);
  if (major < MIN_NODE_MAJOR) {
    throw new ConfigError(
      `PROJECT_STARTUP_NODE=${chosen} is Node ${version || '(unknown)'}; Node.js ${MIN_NODE_MAJOR} or newer is needed. Point it at a newer Node, or unset it.`
    );
  }
  return node;
}
