// Where the Jupyter that would load the extension looks: its Python (asked through jupyter_core),
// else jupyter_core's own rules; and whether that Python has a jupyter-server-proxy the entry
// can run under.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ConfigError } from '../config/config';
import { jupyterUserDirs } from '../observe/jupyter-runtime';
import { CREDENTIAL_NAME } from '../observe/probes';
import type { Env } from '../core/env';

/** jupyter-server-proxy releases before this lack what the entry needs (`unix_socket`, callables). */
export const MIN_SERVER_PROXY = [4, 1] as const;

/** The jupyter-server-proxy entry's name: the sidecar is served at {base_url}project/. */
export const PROXY_ENTRY = 'project';

export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export type InstallScope =
  | { kind: 'user' }
  | { kind: 'sys-prefix' }
  | { kind: 'prefix'; prefix: string };

export interface JupyterPaths {
  data: string;
  config: string;
  /** The Python that runs Jupyter, where it could be found. */
  python?: string;
  /** How the paths were found, for the report. */
  source: 'jupyter' | 'rules' | 'prefix';
}

/** What the Jupyter's Python says about itself (see PROBE). */
export interface PythonProbe {
  prefix: string;
  /** jupyter_core's user and sys.prefix directories; absent when jupyter_core cannot be imported. */
  userData?: string;
  userConfig?: string;
  envData?: string;
  envConfig?: string;
  /** jupyter-server-proxy's version, null when it is not installed. */
  serverProxy: string | null;
}

/**
 * Asks the Jupyter's own jupyter_core where it looks (the directories `jupyter --paths` lists
 * first for the user and for sys.prefix) and which jupyter-server-proxy it has: the installed
 * distribution's metadata, else the module's `__version__` (a copy on PYTHONPATH has no
 * metadata). Python 3.8+ standard library only.
 */
const PROBE = `
import json, sys
out = {"prefix": sys.prefix, "serverProxy": None}
try:
    from jupyter_core import paths
    out.update(userData=paths.jupyter_data_dir(), userConfig=paths.jupyter_config_dir(),
               envData=paths.ENV_JUPYTER_PATH[0], envConfig=paths.ENV_CONFIG_PATH[0])
except Exception:
    pass
try:
    from importlib.metadata import version
    out["serverProxy"] = version("jupyter-server-proxy")
except Exception:
    try:
        import jupyter_server_proxy
        out["serverProxy"] = str(getattr(jupyter_server_proxy, "__version__", "0"))
    except Exception:
        pass
print(json.dumps(out))
`;

/** Reads PROBE's output; throws when it is not what PROBE prints. */
export function parseProbe(stdout: string): PythonProbe {
  const value: unknown = JSON.parse(stdout.trim().split('\n').pop() ?? '');
  if (!isObject(value) || typeof value.prefix !== 'string') {
    throw new Error('unexpected answer');
  }
  const text = (key: string) =>
    typeof value[key] === 'string' ? (value[key] as string) : undefined;
  return {
    prefix: value.prefix,
    userData: text('userData'),
    userConfig: text('userConfig'),
    envData: text('envData'),
    envConfig: text('envConfig'),
    serverProxy: text('serverProxy') ?? null
  };
}

/**
 * The interpreter that runs Jupyter: $PROJECT_STARTUP_PYTHON, else the one named in the `#!`
 * line of the first `jupyter`, `jupyter-server` or `jupyter-lab` on PATH. (Not any python3 on
 * PATH: that one need not be the Jupyter's.)
 */
export function findJupyterPython(env: Env): string | undefined {
  if (env.PROJECT_STARTUP_PYTHON) {
    return env.PROJECT_STARTUP_PYTHON;
  }
  for (const dir of (env.PATH ?? '').split(path.delimiter).filter(Boolean)) {
    for (const command of ['jupyter', 'jupyter-server', 'jupyter-lab']) {
      try {
        const first = fs
          .readFileSync(path.join(dir, command), 'utf8')
          .split('\n', 1)[0];
        const match = /^#!\s*(\S+)(?:\s+(\S+))?/.exec(first);
        if (match) {
          return match[1].endsWith('/env') && match[2] ? match[2] : match[1];
        }
      } catch {
        // not here
      }
    }
  }
  return undefined;
}

/**
 * What the Python asked about Jupyter's paths and jupyter_server_proxy needs of the environment:
 * its search paths and virtual environment, the locale, Jupyter's own path variables; never a
 * credential (names as probes.ts recognises them).
 */
const PYTHON_ENV =
  /^(PATH|HOME|USER|LANG|LANGUAGE|TMPDIR|VIRTUAL_ENV|LD_LIBRARY_PATH|LC_.*|PYTHON.*|CONDA_.*|JUPYTER_.*|XDG_.*)$/;

function pythonEnvironment(env: Env): NodeJS.ProcessEnv {
  const childEnv: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (
      value !== undefined &&
      PYTHON_ENV.test(name) &&
      !CREDENTIAL_NAME.test(name)
    ) {
      childEnv[name] = value;
    }
  }
  return childEnv;
}

export function probePython(python: string, env: Env): PythonProbe {
  let stdout: string;
  try {
    stdout = execFileSync(python, ['-c', PROBE], {
      env: { ...pythonEnvironment(env), PYTHONDONTWRITEBYTECODE: '1' },
      timeout: 30000,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe']
    });
  } catch (error) {
    const reason =
      (error as NodeJS.ErrnoException).code === 'ENOENT'
        ? 'it does not exist'
        : 'it failed';
    throw new ConfigError(
      `Could not ask the Jupyter's Python (${python}) where Jupyter looks: ${reason}. Set PROJECT_STARTUP_PYTHON to the python that runs Jupyter, or use --prefix.`
    );
  }
  try {
    return parseProbe(stdout);
  } catch {
    throw new ConfigError(
      `${python} gave an unexpected answer; set PROJECT_STARTUP_PYTHON to the python that runs Jupyter, or use --prefix.`
    );
  }
}

/**
 * jupyter_core's rules for the user's data and config directories, for when no Jupyter can be
 * asked (observe/jupyter-runtime.ts holds them, for the runtime directory too), resolved.
 */
export function userJupyterPaths(
  env: Env,
  platform: NodeJS.Platform,
  home: string
): { data: string; config: string } {
  const { data, config } = jupyterUserDirs(env, platform, home);
  return { data: path.resolve(data), config: path.resolve(config) };
}

/** Where the install goes, from the scope and (when there is one) the Jupyter's own answer. */
export function jupyterPaths(
  scope: InstallScope,
  probe: PythonProbe | undefined,
  env: Env,
  platform: NodeJS.Platform,
  home: string
): JupyterPaths {
  switch (scope.kind) {
    case 'prefix':
      return {
        data: path.resolve(scope.prefix, 'share', 'jupyter'),
        config: path.resolve(scope.prefix, 'etc', 'jupyter'),
        source: 'prefix'
      };
    case 'user':
      if (probe?.userData && probe.userConfig) {
        return {
          data: probe.userData,
          config: probe.userConfig,
          source: 'jupyter'
        };
      }
      return { ...userJupyterPaths(env, platform, home), source: 'rules' };
    case 'sys-prefix':
      if (!probe) {
        throw new ConfigError(
          '--sys-prefix needs the Python that runs Jupyter: put `jupyter` on PATH or set PROJECT_STARTUP_PYTHON to that python, or use --prefix.'
        );
      }
      if (probe.envData && probe.envConfig) {
        return {
          data: probe.envData,
          config: probe.envConfig,
          source: 'jupyter'
        };
      }
      return {
        data: path.join(probe.prefix, 'share', 'jupyter'),
        config: path.join(probe.prefix, 'etc', 'jupyter'),
        source: 'rules'
      };
  }
}

/** Why this jupyter-server-proxy version cannot serve the entry, and the fix; undefined when it can. */
export function serverProxyProblem(
  version: string | null,
  python: string
): { problem: string; fix: string } | undefined {
  const fix = `Install it into the Python that runs Jupyter: \`${python} -m pip install 'jupyter-server-proxy>=${MIN_SERVER_PROXY.join('.')}'\` (or \`conda install -c conda-forge jupyter-server-proxy\`).`;
  if (version === null) {
    return {
      problem: `jupyter-server-proxy is not installed for ${python}, so Jupyter would answer 404 at {base_url}${PROXY_ENTRY}/.`,
      fix
    };
  }
  const match = /^(\d+)\.(\d+)/.exec(version);
  const [major, minor] = match ? [Number(match[1]), Number(match[2])] : [0, 0];
  if (
    major < MIN_SERVER_PROXY[0] ||
    (major === MIN_SERVER_PROXY[0] && minor < MIN_SERVER_PROXY[1])
  ) {
    return {
      problem: `jupyter-server-proxy ${version} (for ${python}) is too old: the entry needs ${MIN_SERVER_PROXY.join('.')} or newer (Unix sockets).`,
      fix
    };
  }
  return undefined;
}

/**
 * Where install and uninstall work for `scope`: the Jupyter's Python is asked where Jupyter
 * looks (not for --prefix when `askForPrefix` is false: a prefix names its directories itself).
 */
export function locateJupyter(
  scope: InstallScope,
  env: Env,
  askForPrefix: boolean
): { paths: JupyterPaths; probe: PythonProbe | undefined } {
  const python = findJupyterPython(env);
  const probe =
    python && (askForPrefix || scope.kind !== 'prefix')
      ? probePython(python, env)
      : undefined;
  const found = jupyterPaths(
    scope,
    probe,
    env,
    process.platform,
    env.HOME || os.homedir()
  );
  return { paths: { ...found, python }, probe };
}
