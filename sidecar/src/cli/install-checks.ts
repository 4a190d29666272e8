// The checks `project-startup jupyter install` makes before it changes anything: that the
// Jupyter has a jupyter-server-proxy the entry can run under, and that every target is either
// absent or this package's own, and writable. Any refusal leaves everything as it was.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ConfigError } from '../config/config';
import { checkWritable, readJsonObject, writeTarget } from './install-changes';
import {
  InstallManifest,
  isInstalledEntry,
  legacyCreatedDirectories,
  readManifest
} from './install-manifest';
import {
  CONFIG_D_FILE,
  CONFIG_FILE,
  isObject,
  JsonObject,
  labextensionPackageManager,
  labextensionTarget,
  ours,
  PACKAGE_NAME,
  PROXY_ENTRY,
  sidecarHome
} from './install-package';
import {
  JupyterPaths,
  MIN_SERVER_PROXY,
  PythonProbe,
  serverProxyProblem
} from './jupyter-paths';

/**
 * What the operator must still see to about jupyter-server-proxy; throws (nothing changed) when
 * the Jupyter's Python has none, or too old a one, unless `skipProxyCheck`.
 */
export function checkServerProxy(
  python: string | undefined,
  probe: PythonProbe | undefined,
  skipProxyCheck: boolean
): string[] {
  if (!python || !probe) {
    return [
      `No Jupyter was found to check (no \`jupyter\` on PATH, no PROJECT_STARTUP_PYTHON): make sure jupyter-server-proxy ${MIN_SERVER_PROXY.join('.')} or newer is installed where Jupyter runs.`
    ];
  }
  const found = serverProxyProblem(probe.serverProxy, python);
  if (found && !skipProxyCheck) {
    throw new ConfigError(
      `${found.problem} Nothing was changed. ${found.fix} Then run this command again. If Jupyter runs from another Python, set PROJECT_STARTUP_PYTHON to it; to install anyway (the proxy comes later, e.g. in an image build), add --skip-proxy-check.`
    );
  }
  return found ? [`${found.problem} ${found.fix}`] : [];
}

/** Everything an install reads before writing: where each part goes and what is there now. */
export interface InstallTargets {
  /** jupyter_server_config.json (jupyter_server 1.x reads the entry there) and its object. */
  mainFile: string;
  main: JsonObject;
  /** The entry's own file in jupyter_server_config.d (jupyter_server 2.x). */
  configD: string;
  labextension: string;
  /** The sidecar's home; the copy the entry runs is its `node/`. */
  home: string;
  manifest: InstallManifest | undefined;
  /** Directories an earlier install created, still there (uninstall may remove them). */
  earlierCreated: string[];
  /** Whether jupyter_server_config.json is the install's own creation (now or earlier). */
  mainFileCreated: boolean;
}

/** The entry named PROXY_ENTRY in a jupyter_server_config object, if any. */
export function serverProxyEntry(config: JsonObject | undefined): unknown {
  return config &&
    isObject(config.ServerProxy) &&
    isObject(config.ServerProxy.servers)
    ? config.ServerProxy.servers[PROXY_ENTRY]
    : undefined;
}

/** Throws unless the labextension and the sidecar's home are absent or this command's own. */
function checkOwnership(labextension: string, home: string): void {
  if (fs.existsSync(labextension) && !ours.labextension(labextension)) {
    throw new ConfigError(
      `${labextension} exists and is not this package's labextension; move it aside first (nothing was changed).`
    );
  }
  const manager = fs.existsSync(labextension)
    ? labextensionPackageManager(labextension)
    : undefined;
  if (manager !== undefined && manager !== 'npm') {
    throw new ConfigError(
      `${labextension} was installed by ${manager === 'python' ? 'pip (the wheel of this package)' : manager} (its install.json says packageManager "${manager}"), not by this command. Use one way, not both: remove that one first (for pip: \`pip uninstall ${PACKAGE_NAME}\`), or install into another scope (nothing was changed).`
    );
  }
  if (fs.existsSync(home) && !ours.sidecar(home)) {
    throw new ConfigError(
      `${home} exists and was not written by this command; move it aside first (nothing was changed).`
    );
  }
}

/** Reads and checks every target of an install at `paths`; throws (nothing changed) on a conflict. */
export function checkInstallTargets(paths: JupyterPaths): InstallTargets {
  const mainFile = path.join(paths.config, CONFIG_FILE);
  const main = readJsonObject(mainFile) ?? {};
  const configD = path.join(paths.config, CONFIG_D_FILE);
  const labextension = labextensionTarget(paths);
  const home = sidecarHome(paths);
  const manifest = readManifest(home);
  checkOwnership(labextension, home);
  const existingEntry = serverProxyEntry(main);
  if (
    existingEntry !== undefined &&
    !isInstalledEntry(existingEntry, home, manifest)
  ) {
    throw new ConfigError(
      `${mainFile} already has a different ServerProxy.servers.${PROXY_ENTRY} entry; remove or rename it, then run the command again (nothing was changed).`
    );
  }
  for (const target of [
    labextension,
    path.join(home, 'node'),
    configD,
    writeTarget(mainFile)
  ]) {
    checkWritable(target);
  }
  const earlierCreated = (
    manifest?.directories ?? legacyCreatedDirectories(home)
  ).filter(dir => fs.existsSync(dir));
  const mainFileCreated =
    !fs.existsSync(mainFile) ||
    (manifest?.createdFiles.includes(mainFile) ?? false);
  return {
    mainFile,
    main,
    configD,
    labextension,
    home,
    manifest,
    earlierCreated,
    mainFileCreated
  };
}
