// The 0600 file through which a running service tells the command line where it listens.
// A token taken from PROJECT_STARTUP_TOKEN is never copied into it.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ConfigError } from '../config/config';
import { readPrivateFile, writePrivateFile } from './private-file';

export interface RuntimeInfo {
  url?: string;
  socket?: string;
  baseUrl: string;
  pid: number;
  instanceId: string;
  projectPath: string;
  version: string;
  ingress: string;
  /** The selected platform (absent in files of older versions). */
  platform?: string;
  /** Present only for a generated token; with `environment` the client reads PROJECT_STARTUP_TOKEN. */
  token?: string;
  tokenSource: 'generated' | 'environment' | 'none';
  /** Sent by `project-startup init` after a person answered its prompt on a TTY. */
  promptKey?: string;
}

export function runtimeFilePath(
  runtimeDir: string,
  projectPath: string
): string {
  const digest = createHash('sha256')
    .update(projectPath)
    .digest('hex')
    .slice(0, 12);
  return path.join(runtimeDir, `server-${digest}.json`);
}

/**
 * Creates the runtime directory (and its missing parents) if needed, and refuses one that others
 * could read. What it creates is made 0700 explicitly: mkdir's mode passes through the umask, and
 * under a umask such as 0277 the directory would be born without write permission for its owner,
 * so every later start failed to write the runtime file.
 */
export function ensureRuntimeDir(dir: string): void {
  const missing: string[] = [];
  for (let at = path.resolve(dir); !fs.existsSync(at); at = path.dirname(at)) {
    missing.unshift(at);
    if (path.dirname(at) === at) {
      break;
    }
  }
  for (const created of missing) {
    try {
      fs.mkdirSync(created, { mode: 0o700 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw error;
      }
      continue; // made meanwhile by someone else: checked below like any existing directory
    }
    fs.chmodSync(created, 0o700);
  }
  const stat = fs.lstatSync(dir);
  if (!stat.isDirectory() || (stat.mode & 0o077) !== 0) {
    throw new ConfigError(
      `The runtime directory ${dir} must be private (mode 0700, only you can use it): run \`chmod 700 ${dir}\` or set PROJECT_STARTUP_RUNTIME_DIR.`
    );
  }
  try {
    fs.accessSync(dir, fs.constants.W_OK | fs.constants.X_OK);
  } catch {
    throw new ConfigError(
      `The runtime directory ${dir} is not writable by you (made under a restrictive umask?): run \`chmod 700 ${dir}\` or set PROJECT_STARTUP_RUNTIME_DIR.`
    );
  }
}

export function writeRuntimeFile(file: string, info: RuntimeInfo): void {
  ensureRuntimeDir(path.dirname(file));
  writePrivateFile(file, `${JSON.stringify(info, null, 2)}\n`);
}

export function readRuntimeFile(file: string): RuntimeInfo | undefined {
  const text = readPrivateFile(file);
  if (text === undefined) {
    return undefined;
  }
  try {
    return JSON.parse(text) as RuntimeInfo;
  } catch {
    return undefined;
  }
}

/** Removes the file only if it still describes this instance (a newer server may own it). */
export function removeRuntimeFile(file: string, instanceId: string): void {
  if (readRuntimeFile(file)?.instanceId === instanceId) {
    fs.rmSync(file, { force: true });
  }
}
