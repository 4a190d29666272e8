// The project directory as the service names it: its real path, refused when that name is not
// UTF-8 (the service could not name it exactly in JSON or on the setup page). Behind
// jupyter-server-proxy, unnamed, it is the Jupyter server's root directory (jupyterRootProject).
import { isUtf8 } from 'node:buffer';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ConfigError } from './errors';
import { jupyterServerRootDir } from '../observe/jupyter-runtime';
import type { Env } from '../core/env';

/**
 * The project when jupyter-server-proxy launched the service (--ingress notebook-server-proxy)
 * and neither --project-dir nor PROJECT_STARTUP_PROJECT_DIR names one: the root directory of the
 * Jupyter server that launched it (its parent; ServerApp.root_dir, --notebook-dir, Zero to
 * JupyterHub's notebookDir), from that server's jpserver-<pid>.json. So the panel offers what
 * the file browser shows, whichever package installed the proxy entry. Undefined elsewhere, or
 * when the file is not there: the working directory then, as before. (The wheel's server
 * extension passes the same root_dir as PROJECT_STARTUP_PROJECT_DIR: sidecar_environment.)
 */
export function jupyterRootProject(
  ingress: string | undefined,
  env: Env,
  parentPid = process.ppid
): string | undefined {
  return ingress === 'notebook-server-proxy'
    ? jupyterServerRootDir(env, parentPid)
    : undefined;
}

/** The real path where the directory exists; otherwise the absolute path, checked later. */
export function realOrResolved(p: string, cwd = process.cwd()): string {
  const absolute = path.resolve(cwd, p);
  try {
    return fs.realpathSync.native(absolute);
  } catch {
    return absolute;
  }
}

export function resolveProjectDir(p: string, cwd: string): string {
  const resolved = realOrResolved(p, cwd);
  const undecodable = undecodableComponent(resolved);
  if (undecodable !== undefined) {
    throw new ConfigError(
      `The project directory ${undecodable} has a name that is not valid UTF-8. The service names the project in JSON, on the setup page and in its record, all UTF-8 text, so it cannot name this directory exactly (a look-alike name would point somewhere else). Rename it to a UTF-8 name, for example with \`mv\` in a shell, or start the service in another directory.`
    );
  }
  return resolved;
}

/**
 * Node decodes the working directory, arguments and variables as UTF-8, replacing bytes that
 * are not (U+FFFD): a project directory whose real name is not UTF-8 then looks missing. When
 * `p` does not exist, finds the first component that does not, and looks in its parent (by
 * bytes) for the entry whose name decodes to it; returns the path so far with the offending
 * bytes shown as \xNN, or undefined when no such entry is the reason.
 */
function undecodableComponent(p: string): string | undefined {
  if (!p.includes('\ufffd') || fs.existsSync(p)) {
    return undefined;
  }
  const parts = p.split(path.sep);
  let parent = parts[0] === '' ? path.sep : parts[0];
  for (const part of parts.slice(1)) {
    const next = path.join(parent, part);
    if (fs.existsSync(next)) {
      parent = next;
      continue;
    }
    let entries: Buffer[];
    try {
      entries = fs.readdirSync(parent, { encoding: 'buffer' });
    } catch {
      return undefined;
    }
    const raw = entries.find(
      name => !isUtf8(name) && name.toString('utf8') === part
    );
    return raw === undefined ? undefined : path.join(parent, showBytes(raw));
  }
  return undefined;
}

/** The name with its valid UTF-8 characters as they are and every other byte as \xNN. */
function showBytes(bytes: Buffer): string {
  let out = '';
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i];
    const length =
      b < 0x80
        ? 1
        : b >= 0xc2 && b <= 0xdf
          ? 2
          : b >= 0xe0 && b <= 0xef
            ? 3
            : b >= 0xf0 && b <= 0xf4
              ? 4
              : 0;
    const sequence = bytes.subarray(i, i + length);
    if (length > 0 && sequence.length === length && isUtf8(sequence)) {
      out += sequence.toString('utf8');
      i += length;
    } else {
      out += `\\x${b.toString(16).padStart(2, '0')}`;
      i += 1;
    }
  }
  return out;
}
