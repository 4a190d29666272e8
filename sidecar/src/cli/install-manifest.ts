// The install manifest: every file, directory and entry an install wrote, with content hashes,
// so that uninstall removes only what is ours and unchanged. (Installs before the manifest kept
// only a record of the directories they created.)
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readJsonObject } from './install-changes';
import {
  escapeProxyTemplate,
  isObject,
  JsonObject,
  labextensionPackageManager,
  ours,
  PROXY_ENTRY,
  RUNTIME_FILES
} from './install-package';

/** In the sidecar's home: every file, directory and entry install wrote, with content hashes. */
export const MANIFEST_FILE = 'install-manifest.json';
/** What installs before the manifest kept there: only the directories they created. */
export const LEGACY_RECORD_FILE = 'install-record.json';

export function sha256(content: string | Buffer): string {
  return createHash('sha256').update(content).digest('hex');
}

/** The hash a manifest keeps of a proxy entry (as JSON.parse gives it back: same key order). */
export function entryHash(entry: unknown): string {
  return sha256(JSON.stringify(entry));
}

/** What install wrote, as its manifest lists it. */
export interface InstallManifest {
  version: string;
  /** Every regular file written, with the sha256 of its content. */
  files: { path: string; sha256: string }[];
  /** Every directory written or created (the created parents included): removed when empty. */
  directories: string[];
  /** Our `project` entry merged into jupyter_server_config.json, by hash. */
  entry?: { file: string; sha256: string };
  /** Files that did not exist before the install (removed again when nothing else is in them). */
  createdFiles: string[];
}

export function manifestPath(home: string): string {
  return path.join(home, MANIFEST_FILE);
}

/** The manifest an install left, or undefined (none, or not one: then nothing is ours by it). */
export function readManifest(home: string): InstallManifest | undefined {
  let value: unknown;
  try {
    value = JSON.parse(fs.readFileSync(manifestPath(home), 'utf8'));
  } catch {
    return undefined;
  }
  if (!isObject(value) || !Array.isArray(value.files)) {
    return undefined;
  }
  const strings = (list: unknown) =>
    Array.isArray(list)
      ? list.filter(
          (d): d is string => typeof d === 'string' && path.isAbsolute(d)
        )
      : [];
  const entry = value.entry;
  return {
    version: String(value.version),
    files: value.files.filter(
      (f): f is { path: string; sha256: string } =>
        isObject(f) &&
        typeof f.path === 'string' &&
        path.isAbsolute(f.path) &&
        typeof f.sha256 === 'string'
    ),
    directories: strings(value.directories),
    entry:
      isObject(entry) &&
      typeof entry.file === 'string' &&
      typeof entry.sha256 === 'string'
        ? { file: entry.file, sha256: entry.sha256 }
        : undefined,
    createdFiles: strings(value.createdFiles)
  };
}

/**
 * Whether `entry` is the one the install at `home` wrote: by the manifest's hash, or (an install
 * made before the manifest) by naming that install's sidecar copy as the script to run.
 */
export function isInstalledEntry(
  entry: unknown,
  home: string,
  manifest: InstallManifest | undefined
): boolean {
  if (manifest?.entry) {
    return entryHash(entry) === manifest.entry.sha256;
  }
  const bin = path.join(home, 'node', RUNTIME_FILES.bin[0]);
  return (
    isObject(entry) &&
    Array.isArray(entry.command) &&
    (entry.command[1] === bin || entry.command[1] === escapeProxyTemplate(bin))
  );
}

/** The directories an install before the manifest recorded as created by it (none without a record). */
export function legacyCreatedDirectories(home: string): string[] {
  let record: JsonObject | undefined;
  try {
    record = ours.sidecar(home)
      ? readJsonObject(path.join(home, LEGACY_RECORD_FILE))
      : undefined;
  } catch {
    record = undefined; // a damaged record: keep every directory
  }
  const dirs = record?.createdDirectories;
  return Array.isArray(dirs)
    ? dirs.filter(
        (d): d is string => typeof d === 'string' && path.isAbsolute(d)
      )
    : [];
}

/** Our `project` entry taken out of a jupyter_server_config.json object (and emptied containers). */
export function withoutEntry(main: JsonObject): JsonObject {
  const serverProxy = main.ServerProxy as JsonObject;
  const { [PROXY_ENTRY]: _ours, ...otherServers } =
    serverProxy.servers as JsonObject;
  void _ours;
  const { servers: _servers, ...otherProxy } = serverProxy;
  void _servers;
  const nextProxy =
    Object.keys(otherServers).length > 0
      ? { ...otherProxy, servers: otherServers }
      : otherProxy;
  const { ServerProxy: _proxy, ...rest } = main;
  void _proxy;
  return Object.keys(nextProxy).length > 0
    ? { ...rest, ServerProxy: nextProxy }
    : rest;
}

/**
 * What an install made before the manifest seems to have left: reported, never removed (nothing
 * proves which files it wrote, or that they are unchanged).
 */
export function legacyInstall(
  labextension: string,
  home: string,
  configD: string,
  mainFile: string,
  mainEntry: unknown
): { path: string; reason: string }[] {
  const found: string[] = [];
  if (
    ours.labextension(labextension) &&
    labextensionPackageManager(labextension) === 'npm'
  ) {
    found.push(labextension);
  }
  if (ours.sidecar(home)) {
    found.push(home);
  }
  const configDEntry = (() => {
    try {
      const value = readJsonObject(configD);
      return isObject(value?.ServerProxy) && isObject(value.ServerProxy.servers)
        ? value.ServerProxy.servers[PROXY_ENTRY]
        : undefined;
    } catch {
      return undefined;
    }
  })();
  if (isInstalledEntry(configDEntry, home, undefined)) {
    found.push(configD);
  }
  if (isInstalledEntry(mainEntry, home, undefined)) {
    found.push(`${mainFile} (ServerProxy.servers.${PROXY_ENTRY})`);
  }
  return found.map(p => ({
    path: p,
    reason:
      'written by an earlier version of `project-startup jupyter install`, which kept no manifest of what it wrote. To remove it: run `project-startup jupyter install` with the same scope, then uninstall again; or delete it by hand'
  }));
}
