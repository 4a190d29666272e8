// `project-startup jupyter uninstall`: removes what the install manifest lists, each file only
// when unchanged and the proxy entry only when it is the one written; reports what it keeps, and
// why. pip's copy of the labextension is pip's to remove.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ConfigError } from '../config/config';
import {
  Changes,
  checkWritable,
  readJsonObject,
  walk,
  writeTarget
} from './install-changes';
import { serverProxyEntry } from './install-checks';
import {
  entryHash,
  InstallManifest,
  legacyInstall,
  manifestPath,
  readManifest,
  sha256,
  withoutEntry
} from './install-manifest';
import {
  CONFIG_D_FILE,
  CONFIG_FILE,
  JsonObject,
  labextensionPackageManager,
  labextensionTarget,
  PACKAGE_NAME,
  PROXY_ENTRY,
  sidecarHome
} from './install-package';
import { InstallScope, JupyterPaths, locateJupyter } from './jupyter-paths';
import type { Env } from '../core/env';

type Kept = { path: string; reason: string };

export interface UninstallReport {
  paths: JupyterPaths;
  removed: string[];
  /** What was left in place, each with why: uninstall removes only what the manifest lists, unchanged. */
  kept: Kept[];
}

/** What is installed where uninstall looks, and whether pip's labextension sits at ours. */
interface Installed {
  labextension: string;
  home: string;
  configD: string;
  mainFile: string;
  main: JsonObject | undefined;
  mainEntry: unknown;
  pipsLabextension: boolean;
}

const inside = (dir: string, file: string) =>
  file === dir || file.startsWith(dir + path.sep);

/** Where the install would be, and the one "kept" line for pip's labextension when it is there. */
function findInstalled(paths: JupyterPaths): {
  installed: Installed;
  kept: Kept[];
} {
  const labextension = labextensionTarget(paths);
  const mainFile = path.join(paths.config, CONFIG_FILE);
  const main = readJsonObject(mainFile);
  // pip's copy of this labextension (same name, same place with --sys-prefix) is pip's to remove.
  const manager = labextensionPackageManager(labextension);
  const pipsLabextension =
    fs.existsSync(labextension) && manager !== undefined && manager !== 'npm';
  const kept: Kept[] = pipsLabextension
    ? [
        {
          path: labextension,
          reason: `installed by ${manager === 'python' ? 'pip' : manager} (install.json says packageManager "${manager}"), not by this command${manager === 'python' ? `: remove it with \`pip uninstall ${PACKAGE_NAME}\`` : ''}`
        }
      ]
    : [];
  const installed = {
    labextension,
    home: sidecarHome(paths),
    configD: path.join(paths.config, CONFIG_D_FILE),
    mainFile,
    main,
    mainEntry: serverProxyEntry(main),
    pipsLabextension
  };
  return { installed, kept };
}

/** The listed files that are unchanged (to remove) and whether the entry is the one written. */
function planRemoval(
  installed: Installed,
  manifest: InstallManifest,
  kept: Kept[]
): { toRemove: string[]; entryIsOurs: boolean } {
  const { labextension, mainFile, mainEntry } = installed;
  const toRemove: string[] = [];
  for (const file of manifest.files) {
    if (installed.pipsLabextension && inside(labextension, file.path)) {
      continue;
    }
    let content: Buffer;
    try {
      content = fs.readFileSync(file.path);
    } catch {
      continue; // already gone
    }
    if (sha256(content) === file.sha256) {
      toRemove.push(file.path);
    } else {
      kept.push({ path: file.path, reason: 'changed since the install' });
    }
  }
  const entryIsOurs =
    mainEntry !== undefined &&
    manifest.entry !== undefined &&
    manifest.entry.file === mainFile &&
    entryHash(mainEntry) === manifest.entry.sha256;
  if (mainEntry !== undefined && !entryIsOurs) {
    kept.push({
      path: `${mainFile} (ServerProxy.servers.${PROXY_ENTRY})`,
      reason:
        "not the entry the install wrote (changed since, or another app's)"
    });
  }
  return { toRemove, entryIsOurs };
}

/** Takes our entry out of jupyter_server_config.json (the file too, when install made it for it alone). */
function removeEntry(installed: Installed, manifest: InstallManifest): void {
  const { main, mainFile } = installed;
  const next = withoutEntry(main ?? {});
  if (
    Object.keys(next).length === 0 &&
    manifest.createdFiles.includes(mainFile) &&
    writeTarget(mainFile) === mainFile
  ) {
    fs.rmSync(mainFile, { force: true });
  } else {
    new Changes().writeFile(mainFile, `${JSON.stringify(next, null, 2)}\n`);
  }
}

/** Removes the entry (when ours) and the unchanged files; the entry line is the first removed. */
function removeListed(
  installed: Installed,
  manifest: InstallManifest,
  toRemove: readonly string[],
  entryIsOurs: boolean
): string[] {
  const removed: string[] = [];
  try {
    if (entryIsOurs && installed.main) {
      removeEntry(installed, manifest);
      removed.push(
        `${installed.mainFile} (ServerProxy.servers.${PROXY_ENTRY})`
      );
    }
    for (const file of toRemove) {
      fs.rmSync(file, { force: true });
    }
  } catch (error) {
    const e = error as NodeJS.ErrnoException;
    throw new ConfigError(
      `Removing ${e.path ?? 'the install'} failed (${e.code ?? e.message})${removed.length > 0 ? `; already removed: ${removed.join(', ')}` : ''}. Fix that (permissions?) and run the command again.`
    );
  }
  return removed;
}

/** Clears what the install left behind: the manifest when nothing is kept, then empty directories. */
function tidyUp(
  installed: Installed,
  manifest: InstallManifest,
  kept: Kept[]
): void {
  const { labextension, home, pipsLabextension } = installed;
  // What sits in our directories that the install did not write, and is left there.
  const listed = new Set(manifest.files.map(f => f.path));
  for (const root of pipsLabextension ? [home] : [labextension, home]) {
    for (const file of walk(root).files) {
      if (!listed.has(file) && file !== manifestPath(home)) {
        kept.push({ path: file, reason: 'not written by the install' });
      }
    }
  }
  // The manifest stays while anything it lists is left, so a later run says the same.
  if (kept.length === (pipsLabextension ? 1 : 0)) {
    fs.rmSync(manifestPath(home), { force: true });
  }
  // The directories install wrote or created, when nothing else is in them now (deepest first).
  for (const dir of [...manifest.directories].sort(
    (a, b) => b.length - a.length
  )) {
    if (pipsLabextension && inside(labextension, dir)) {
      continue;
    }
    try {
      fs.rmdirSync(dir);
    } catch {
      // not empty (something else lives there) or already gone: keep it
    }
  }
}

export function uninstallJupyter(
  scope: InstallScope,
  env: Env
): UninstallReport {
  // --prefix needs no Python; the others ask it where Jupyter looks, as install did.
  const { paths } = locateJupyter(scope, env, false);
  const { installed, kept } = findInstalled(paths);
  const { labextension, home, configD, mainFile } = installed;
  const manifest = readManifest(home);
  if (!manifest) {
    kept.push(
      ...legacyInstall(
        labextension,
        home,
        configD,
        mainFile,
        installed.mainEntry
      )
    );
    return { paths, removed: [], kept };
  }
  const { toRemove, entryIsOurs } = planRemoval(installed, manifest, kept);
  const mainTarget = writeTarget(mainFile);
  for (const target of [
    ...toRemove,
    ...(entryIsOurs ? [mainTarget] : []),
    manifestPath(home)
  ]) {
    checkWritable(target);
  }
  const removed = removeListed(installed, manifest, toRemove, entryIsOurs);
  tidyUp(installed, manifest, kept);
  // Each tree as one line when all of it went, else the files removed from it.
  for (const root of [labextension, home]) {
    const removedHere = toRemove.filter(f => inside(root, f));
    if (removedHere.length > 0) {
      removed.push(...(fs.existsSync(root) ? removedHere : [root]));
    }
  }
  if (toRemove.includes(configD)) {
    removed.push(configD);
  }
  return { paths, removed, kept };
}
