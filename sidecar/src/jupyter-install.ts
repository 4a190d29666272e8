// `project-startup jupyter install|uninstall`: puts the prebuilt labextension and the
// notebook-server proxy entry where Jupyter looks (the paths `jupyter --paths` reports), and
// takes them away again. Only our own files and our own `project` entry are ever touched.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ConfigError } from './config';
import { CREDENTIAL_NAME } from './probes';

export const PACKAGE_NAME = 'jupyterlab-project-startup';
export const PROXY_ENTRY = 'project';
const PACKAGE_ROOT = packageRoot(__dirname);
const LABEXTENSION_BUILD = path.join(PACKAGE_ROOT, 'jupyterlab_project_startup', 'labextension');
const CONFIG_TEMPLATE = path.join(PACKAGE_ROOT, 'jupyter-config', 'jupyter_server_config.d', `${PACKAGE_NAME}.json`);
const BIN = path.join(PACKAGE_ROOT, 'bin', 'project-startup.js');
const CONFIG_D_FILE = path.join('jupyter_server_config.d', `${PACKAGE_NAME}.json`);
const CONFIG_FILE = 'jupyter_server_config.json';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * The package's root: the nearest directory at or above `start` whose package.json is ours.
 * The compiled code (sidecar/dist), the production bundle (sidecar/dist/bundle) and the sources
 * under test (sidecar/src) sit at different depths below it.
 */
function packageRoot(start: string): string {
  for (let dir = start, i = 0; i < 6; i++, dir = path.dirname(dir)) {
    try {
      if ((JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: string }).name === PACKAGE_NAME) {
        return dir;
      }
    } catch {
      // not here: look one level up
    }
  }
  return path.join(start, '..', '..');
}

export type InstallScope = { kind: 'user' } | { kind: 'sys-prefix' } | { kind: 'prefix'; prefix: string };

export interface JupyterPaths {
  data: string;
  config: string;
  /** The Python that runs Jupyter, where it could be found. */
  python?: string;
}

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The interpreter of the `jupyter` command on PATH, else python3: the Python Jupyter runs on. */
export function findJupyterPython(env: Env): string | undefined {
  if (env.PROJECT_STARTUP_PYTHON) {
    return env.PROJECT_STARTUP_PYTHON;
  }
  for (const dir of (env.PATH ?? '').split(':').filter(Boolean)) {
    const jupyter = path.join(dir, 'jupyter');
    try {
      const first = fs.readFileSync(jupyter, 'utf8').split('\n', 1)[0];
      const match = /^#!\s*(\S+)(?:\s+(\S+))?/.exec(first);
      if (match) {
        return match[1].endsWith('/env') && match[2] ? match[2] : match[1];
      }
    } catch {
      // not here
    }
  }
  return undefined;
}

/**
 * What the Python asked about sys.prefix and jupyter_server_proxy needs of the environment: its
 * search paths and virtual environment, the locale, Jupyter's own path variables; never a
 * credential (names as probes.ts recognises them).
 */
const PYTHON_ENV = /^(PATH|HOME|USER|LANG|LANGUAGE|TMPDIR|VIRTUAL_ENV|LD_LIBRARY_PATH|LC_.*|PYTHON.*|CONDA_.*|JUPYTER_.*|XDG_.*)$/;

function askPython(python: string, code: string, env: Env): string {
  const childEnv: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && PYTHON_ENV.test(name) && !CREDENTIAL_NAME.test(name)) {
      childEnv[name] = value;
    }
  }
  return execFileSync(python, ['-c', code], { env: childEnv, timeout: 15000, encoding: 'utf8' }).trim();
}

export function resolveJupyterPaths(scope: InstallScope, env: Env): JupyterPaths {
  const python = findJupyterPython(env);
  switch (scope.kind) {
    case 'user': {
      const home = env.HOME ?? os.homedir();
      const dataHome = env.XDG_DATA_HOME || path.join(home, '.local', 'share');
      return {
        data: path.resolve(env.JUPYTER_DATA_DIR || path.join(dataHome, 'jupyter')),
        config: path.resolve(env.JUPYTER_CONFIG_DIR || path.join(home, '.jupyter')),
        python
      };
    }
    case 'prefix':
      return { data: path.resolve(scope.prefix, 'share', 'jupyter'), config: path.resolve(scope.prefix, 'etc', 'jupyter'), python };
    case 'sys-prefix': {
      if (!python) {
        throw new ConfigError(
          '--sys-prefix needs the Python that runs Jupyter: put `jupyter` on PATH, set PROJECT_STARTUP_PYTHON, or use --prefix.'
        );
      }
      let prefix: string;
      try {
        prefix = askPython(python, 'import sys; print(sys.prefix)', env);
      } catch {
        throw new ConfigError(`Could not ask ${python} for its sys.prefix; set PROJECT_STARTUP_PYTHON or use --prefix.`);
      }
      return { data: path.join(prefix, 'share', 'jupyter'), config: path.join(prefix, 'etc', 'jupyter'), python };
    }
  }
}

/** The proxy entry with the command pinned to this Node and this package's command line. */
export function proxyEntry(): JsonObject {
  const template = JSON.parse(fs.readFileSync(CONFIG_TEMPLATE, 'utf8')) as { ServerProxy: { servers: JsonObject } };
  const entry = template.ServerProxy.servers[PROXY_ENTRY] as JsonObject & { command: string[] };
  return { ...entry, command: [process.execPath, BIN, ...entry.command.slice(1)] };
}

function isOurEntry(value: unknown): boolean {
  return isObject(value) && Array.isArray(value.command) && value.command.some(part => String(part).includes('project-startup'));
}

function writeJsonAtomically(file: string, value: unknown): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const temporary = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  fs.writeFileSync(temporary, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o644 });
  fs.renameSync(temporary, file);
}

function readJsonObject(file: string): JsonObject | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ConfigError(`${file} is not valid JSON; fix or move it, then run the command again (nothing was changed).`);
  }
  if (!isObject(value)) {
    throw new ConfigError(`${file} does not hold a JSON object; fix or move it, then run the command again (nothing was changed).`);
  }
  return value;
}

export interface InstallReport {
  paths: JupyterPaths;
  labextension: string;
  configFiles: string[];
  /** What the operator still has to do. */
  remaining: string[];
}

function labextensionTarget(paths: JupyterPaths): string {
  return path.join(paths.data, 'labextensions', PACKAGE_NAME);
}

function ownLabextension(dir: string): boolean {
  try {
    return (JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: string }).name === PACKAGE_NAME;
  } catch {
    return false;
  }
}

function serverProxyInstalled(python: string | undefined, env: Env): boolean | undefined {
  if (!python) {
    return undefined;
  }
  try {
    askPython(python, 'import jupyter_server_proxy', env);
    return true;
  } catch {
    return false;
  }
}

export function installJupyter(scope: InstallScope, env: Env): InstallReport {
  if (!ownLabextension(LABEXTENSION_BUILD) || !fs.existsSync(path.join(LABEXTENSION_BUILD, 'static'))) {
    throw new ConfigError(`The prebuilt labextension is missing: run \`npm run build:labextension\` in ${PACKAGE_ROOT} first.`);
  }
  const paths = resolveJupyterPaths(scope, env);
  // Read the 1.x file before changing anything, so a broken one stops the whole install.
  const mainFile = path.join(paths.config, CONFIG_FILE);
  const main = readJsonObject(mainFile) ?? {};

  const target = labextensionTarget(paths);
  if (fs.existsSync(target)) {
    if (!ownLabextension(target)) {
      throw new ConfigError(`${target} exists and is not this package's labextension; move it aside first.`);
    }
    fs.rmSync(target, { recursive: true, force: true });
  }
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.cpSync(LABEXTENSION_BUILD, target, { recursive: true });

  const entry = proxyEntry();
  const configD = path.join(paths.config, CONFIG_D_FILE);
  writeJsonAtomically(configD, { ServerProxy: { servers: { [PROXY_ENTRY]: entry } } });
  const serverProxy = isObject(main.ServerProxy) ? main.ServerProxy : {};
  const servers = isObject(serverProxy.servers) ? serverProxy.servers : {};
  writeJsonAtomically(mainFile, { ...main, ServerProxy: { ...serverProxy, servers: { ...servers, [PROXY_ENTRY]: entry } } });

  const remaining: string[] = [];
  const proxy = serverProxyInstalled(paths.python, env);
  if (proxy === false) {
    remaining.push(
      `Install jupyter-server-proxy for ${paths.python} (for example \`${paths.python} -m pip install jupyter-server-proxy\`, or your distribution's package); without it Jupyter answers 404 at {base_url}project/.`
    );
  } else if (proxy === undefined) {
    remaining.push('Make sure jupyter-server-proxy is installed where Jupyter runs (`pip install jupyter-server-proxy`); it could not be checked from here.');
  }
  remaining.push('Restart the Jupyter server (for JupyterHub: restart the single-user servers) to load the extension and the proxy entry.');
  return { paths, labextension: target, configFiles: [configD, mainFile], remaining };
}

export interface UninstallReport {
  paths: JupyterPaths;
  removed: string[];
}

export function uninstallJupyter(scope: InstallScope, env: Env): UninstallReport {
  const paths = resolveJupyterPaths(scope, env);
  const removed: string[] = [];
  const target = labextensionTarget(paths);
  if (ownLabextension(target)) {
    fs.rmSync(target, { recursive: true, force: true });
    removed.push(target);
  }
  const configD = path.join(paths.config, CONFIG_D_FILE);
  if (fs.existsSync(configD)) {
    fs.rmSync(configD, { force: true });
    removed.push(configD);
  }
  const mainFile = path.join(paths.config, CONFIG_FILE);
  const main = readJsonObject(mainFile);
  const serverProxy = main && isObject(main.ServerProxy) ? main.ServerProxy : undefined;
  const servers = serverProxy && isObject(serverProxy.servers) ? serverProxy.servers : undefined;
  if (main && serverProxy && servers && isOurEntry(servers[PROXY_ENTRY])) {
    const { [PROXY_ENTRY]: _ours, ...otherServers } = servers;
    void _ours;
    const { servers: _servers, ...otherProxy } = serverProxy;
    void _servers;
    const nextProxy = Object.keys(otherServers).length > 0 ? { ...otherProxy, servers: otherServers } : otherProxy;
    const { ServerProxy: _proxy, ...rest } = main;
    void _proxy;
    const next = Object.keys(nextProxy).length > 0 ? { ...rest, ServerProxy: nextProxy } : rest;
    if (Object.keys(next).length === 0) {
      fs.rmSync(mainFile, { force: true });
    } else {
      writeJsonAtomically(mainFile, next);
    }
    removed.push(`${mainFile} (ServerProxy.servers.${PROXY_ENTRY})`);
  }
  return { paths, removed };
}
