// `project-startup jupyter install|uninstall`: puts the prebuilt labextension, a runnable copy of
// the sidecar and the notebook-server proxy entry where Jupyter looks, and takes them away again.
// Only our own files and our own `project` entry are ever touched: install writes a manifest of
// every file and the entry with their sha256, and uninstall removes only what it lists, unchanged.
//
// Nothing written points into the package this runs from (a checkout or npm's global prefix may
// move or go): the sidecar is copied next to the labextension in Jupyter's data directory, laid
// out like the wheel's `node/` directory, and the proxy entry runs that copy. An install either
// completes or leaves everything as it was: every target is checked first, and each change is
// undone if a later one fails.
//
// The parts: jupyter-paths.ts (where Jupyter looks), install-node.ts (the Node the entry runs),
// install-package.ts (what is installed, the proxy entry), install-checks.ts (the checks before
// writing), install-changes.ts (writing with undo), install-manifest.ts (what was written),
// jupyter-uninstall.ts (taking it away).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Changes, walk, writeFailure } from './install-changes';
import {
  checkInstallTargets,
  checkServerProxy,
  InstallTargets
} from './install-checks';
import {
  entryHash,
  InstallManifest,
  LEGACY_RECORD_FILE,
  manifestPath,
  sha256
} from './install-manifest';
import { nodeForEntry } from './install-node';
import {
  checkBuilt,
  copySidecar,
  installJson,
  isObject,
  JsonObject,
  LABEXTENSION_BUILD,
  packageVersion,
  PROXY_ENTRY,
  proxyEntry,
  RUNTIME_FILES
} from './install-package';
import { locateJupyter } from './jupyter-paths';
import type { Env } from '../core/env';
import type { InstallScope, JupyterPaths } from './jupyter-paths';

export { PACKAGE_NAME, PROXY_ENTRY } from './install-package';
export {
  MIN_SERVER_PROXY,
  parseProbe,
  serverProxyProblem,
  userJupyterPaths
} from './jupyter-paths';
export type { InstallScope, JupyterPaths } from './jupyter-paths';
export { findOnPath, nodeForEntry } from './install-node';
export { uninstallJupyter } from './jupyter-uninstall';
export type { UninstallReport } from './jupyter-uninstall';

export interface InstallOptions {
  /** Install even when the Jupyter's Python has no (or too old a) jupyter-server-proxy. */
  skipProxyCheck?: boolean;
}

export interface InstallReport {
  paths: JupyterPaths;
  labextension: string;
  /** The sidecar copy the proxy entry runs (`<data>/jupyterlab-project-startup/node`). */
  sidecar: string;
  configFiles: string[];
  /** What the operator still has to do. */
  remaining: string[];
}

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

/** jupyter_server_config.json's object with `entry` as our `project` server, all else kept. */
function withEntry(main: JsonObject, entry: JsonObject): JsonObject {
  const serverProxy = isObject(main.ServerProxy) ? main.ServerProxy : {};
  const servers = isObject(serverProxy.servers) ? serverProxy.servers : {};
  return {
    ...main,
    ServerProxy: {
      ...serverProxy,
      servers: { ...servers, [PROXY_ENTRY]: entry }
    }
  };
}

/**
 * What uninstall may take away again: each file by the hash of what was written here, the entry
 * by its hash, the directories (an earlier install's included) when empty.
 */
function manifestOf(
  targets: InstallTargets,
  sidecar: string,
  created: readonly string[],
  entry: JsonObject
): InstallManifest {
  const { labextension, home, configD, mainFile } = targets;
  const trees = [walk(labextension), walk(sidecar)];
  return {
    version: packageVersion(),
    files: [...trees.flatMap(tree => tree.files), configD].map(file => ({
      path: file,
      sha256: sha256(fs.readFileSync(file))
    })),
    directories: [
      ...new Set([
        ...targets.earlierCreated,
        ...created,
        home,
        ...trees.flatMap(tree => tree.directories)
      ])
    ],
    entry: { file: mainFile, sha256: entryHash(entry) },
    createdFiles: targets.mainFileCreated ? [mainFile] : []
  };
}

/** Writes every part of the install and its manifest; all of it, or (rolled back) none. */
function writeInstall(
  scope: InstallScope,
  targets: InstallTargets,
  sidecar: string,
  entry: JsonObject
): void {
  const changes = new Changes();
  try {
    changes.replaceDir(targets.labextension, dir => {
      fs.cpSync(LABEXTENSION_BUILD, dir, { recursive: true });
      fs.writeFileSync(path.join(dir, 'install.json'), installJson(scope), {
        mode: 0o644
      });
    });
    changes.replaceDir(sidecar, copySidecar);
    changes.writeFile(
      targets.configD,
      json({ ServerProxy: { servers: { [PROXY_ENTRY]: entry } } })
    );
    changes.writeFile(targets.mainFile, json(withEntry(targets.main, entry)));
    changes.writeFile(
      manifestPath(targets.home),
      json(manifestOf(targets, sidecar, changes.created, entry))
    );
  } catch (error) {
    changes.rollback();
    throw writeFailure(error);
  }
  changes.commit();
  // An install before the manifest kept only this record; the manifest now says it all.
  fs.rmSync(path.join(targets.home, LEGACY_RECORD_FILE), { force: true });
}

export function installJupyter(
  scope: InstallScope,
  env: Env,
  options: InstallOptions = {}
): InstallReport {
  checkBuilt();
  const { paths, probe } = locateJupyter(scope, env, true);
  const remaining = checkServerProxy(
    paths.python,
    probe,
    options.skipProxyCheck === true
  );
  const node = nodeForEntry(env);
  // Read and check everything before changing anything.
  const targets = checkInstallTargets(paths);
  const sidecar = path.join(targets.home, 'node');
  const entry = proxyEntry(node, path.join(sidecar, RUNTIME_FILES.bin[0]));
  writeInstall(scope, targets, sidecar, entry);
  remaining.push(
    'Restart the Jupyter server (for JupyterHub: restart the single-user servers) to load the extension and the proxy entry.'
  );
  return {
    paths,
    labextension: targets.labextension,
    sidecar,
    configFiles: [targets.configD, targets.mainFile],
    remaining
  };
}
