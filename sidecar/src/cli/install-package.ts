// What an install puts in place, read from the package this runs from: the prebuilt
// labextension, the runnable sidecar (copied, laid out like the wheel's `node/` directory) and
// the notebook-server proxy entry that runs that copy.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ConfigError } from '../config/config';
import {
  InstallScope,
  isObject,
  JsonObject,
  JupyterPaths,
  PROXY_ENTRY
} from './jupyter-paths';

export { isObject, PROXY_ENTRY };
export type { JsonObject };

export const PACKAGE_NAME = 'jupyterlab-project-startup';
export const PACKAGE_ROOT = packageRoot(__dirname);
export const LABEXTENSION_BUILD = path.join(
  PACKAGE_ROOT,
  'jupyterlab_project_startup',
  'labextension'
);
const CONFIG_TEMPLATE = path.join(
  PACKAGE_ROOT,
  'jupyter-config',
  'jupyter_server_config.d',
  `${PACKAGE_NAME}.json`
);
export const CONFIG_D_FILE = path.join(
  'jupyter_server_config.d',
  `${PACKAGE_NAME}.json`
);
export const CONFIG_FILE = 'jupyter_server_config.json';
/** The runnable sidecar, relative to the package root: what `bin/project-startup.js` needs with no node_modules. */
export const RUNTIME_FILES = {
  bin: ['bin/project-startup.js'],
  bundle: [
    'sidecar/dist/bundle/project-startup.js',
    'sidecar/dist/bundle/project-startup.cache',
    'sidecar/dist/bundle/listen-first.js'
  ],
  dirs: ['sidecar/static', 'sidecar/schemas', 'sidecar/dist/api-docs']
};

/**
 * The package's root: the nearest directory at or above `start` whose package.json is ours.
 * The compiled code (sidecar/dist), the production bundle (sidecar/dist/bundle) and the sources
 * under test (sidecar/src) sit at different depths below it.
 */
function packageRoot(start: string): string {
  for (let dir = start, i = 0; i < 6; i++, dir = path.dirname(dir)) {
    try {
      if (
        (
          JSON.parse(
            fs.readFileSync(path.join(dir, 'package.json'), 'utf8')
          ) as { name?: string }
        ).name === PACKAGE_NAME
      ) {
        return dir;
      }
    } catch {
      // not here: look one level up
    }
  }
  return path.join(start, '..', '..');
}

/**
 * `text` as a literal inside a jupyter-server-proxy command: the proxy formats every string
 * with Python's str.format ({port}, {unix_socket}, {base_url}), so a brace in a path would
 * fail the launch or be replaced. (The Python package's twin is escape_template.)
 */
export function escapeProxyTemplate(text: string): string {
  return text.replace(/[{}]/g, brace => brace + brace);
}

/** The proxy entry running `bin` with `node` (both literal paths, escaped here). */
export function proxyEntry(node: string, bin: string): JsonObject {
  const template = JSON.parse(fs.readFileSync(CONFIG_TEMPLATE, 'utf8')) as {
    ServerProxy: { servers: JsonObject };
  };
  const entry = template.ServerProxy.servers[PROXY_ENTRY] as JsonObject & {
    command: string[];
  };
  return {
    ...entry,
    command: [
      escapeProxyTemplate(node),
      escapeProxyTemplate(bin),
      ...entry.command.slice(1)
    ]
  };
}

/** The package manager an installed labextension's install.json names (pip's says "python"). */
export function labextensionPackageManager(dir: string): string | undefined {
  try {
    const value: unknown = JSON.parse(
      fs.readFileSync(path.join(dir, 'install.json'), 'utf8')
    );
    return isObject(value) && typeof value.packageManager === 'string'
      ? value.packageManager
      : undefined;
  } catch {
    return undefined;
  }
}

export function packageNameAt(file: string): string | undefined {
  try {
    return (JSON.parse(fs.readFileSync(file, 'utf8')) as { name?: string })
      .name;
  } catch {
    return undefined;
  }
}

export function labextensionTarget(paths: JupyterPaths): string {
  return path.join(paths.data, 'labextensions', PACKAGE_NAME);
}

/** `<data>/jupyterlab-project-startup/`, holding `node/`: the sidecar copy the proxy entry runs. */
export function sidecarHome(paths: JupyterPaths): string {
  return path.join(paths.data, PACKAGE_NAME);
}

export const ours = {
  labextension: (dir: string) =>
    packageNameAt(path.join(dir, 'package.json')) === PACKAGE_NAME,
  sidecar: (home: string) =>
    packageNameAt(path.join(home, 'node', 'package.json')) === PACKAGE_NAME
};

export function checkBuilt(): void {
  if (
    packageNameAt(path.join(LABEXTENSION_BUILD, 'package.json')) !==
      PACKAGE_NAME ||
    !fs.existsSync(path.join(LABEXTENSION_BUILD, 'static'))
  ) {
    throw new ConfigError(
      `The prebuilt labextension is missing from ${PACKAGE_ROOT}: in a checkout, run \`npm run build\` first; from npm, reinstall the package.`
    );
  }
  for (const file of [
    ...RUNTIME_FILES.bin,
    ...RUNTIME_FILES.bundle,
    ...RUNTIME_FILES.dirs
  ]) {
    if (!fs.existsSync(path.join(PACKAGE_ROOT, file))) {
      throw new ConfigError(
        `${file} is missing from ${PACKAGE_ROOT}: in a checkout, run \`npm run build\` first; from npm, reinstall the package.`
      );
    }
  }
}

export function packageVersion(): string {
  return (
    JSON.parse(
      fs.readFileSync(path.join(PACKAGE_ROOT, 'package.json'), 'utf8')
    ) as { version: string }
  ).version;
}

/** Fills `dir` with the runnable sidecar: the layout of the wheel's `node/` directory. */
export function copySidecar(dir: string): void {
  fs.writeFileSync(
    path.join(dir, 'package.json'),
    `${JSON.stringify({ name: PACKAGE_NAME, version: packageVersion(), private: true }, null, 2)}\n`,
    {
      mode: 0o644
    }
  );
  for (const file of [...RUNTIME_FILES.bin, ...RUNTIME_FILES.bundle]) {
    fs.mkdirSync(path.join(dir, path.dirname(file)), {
      recursive: true,
      mode: 0o755
    });
    fs.copyFileSync(path.join(PACKAGE_ROOT, file), path.join(dir, file));
  }
  fs.chmodSync(path.join(dir, RUNTIME_FILES.bin[0]), 0o755);
  for (const sub of RUNTIME_FILES.dirs) {
    fs.cpSync(path.join(PACKAGE_ROOT, sub), path.join(dir, sub), {
      recursive: true
    });
  }
}

export function installJson(scope: InstallScope): string {
  const option =
    scope.kind === 'prefix' ? `--prefix ${scope.prefix}` : `--${scope.kind}`;
  return `${JSON.stringify(
    {
      packageManager: 'npm',
      packageName: PACKAGE_NAME,
      uninstallInstructions: `Run \`project-startup jupyter uninstall ${option}\`, then \`npm uninstall -g ${PACKAGE_NAME}\``
    },
    null,
    2
  )}\n`;
}
