// The real Jupyter stack of the system lane, as test/helpers/system-setup.js prepared it: the venv
// of .ci/python-env.sh holding JupyterLab 4.6.4, Notebook 7.6.3 and jupyter_server 2.21.1 from
// pip, with this checkout's wheel pip-installed into it. The real jupyter-server-proxy is not on any index here: put
// VENDORED_SERVER_PROXY (or VENDORED_SERVER_PROXY_4_1) on PYTHONPATH.
import * as fs from 'node:fs';
import * as path from 'node:path';

export interface RealStack {
  /** The venv: the stack's packages plus the wheel. */
  venv: string;
  /** Its python. */
  python: string;
  /** Its bin directory (`jupyter`, `jupyter-lab`, `jupyter-notebook`, `project-startup`). */
  bin: string;
  /** The wheel that was installed. */
  wheel: string;
  versions: {
    jupyterlab: string;
    notebook: string;
    jupyter_server: string;
    python: string;
  };
}

const REPO_ROOT = path.resolve(__dirname, '..', '..');
/** Written by real-stack-setup.js (the same path). */
const STACK_FILE = path.join(
  REPO_ROOT,
  'test-artifacts',
  'stack',
  'stack.json'
);
/** jupyter-server-proxy 4.4.0 and simpervisor 1.0, vendored beside the clone (../shared). */
export const VENDORED_SERVER_PROXY = path.resolve(
  REPO_ROOT,
  '..',
  'shared',
  'vendor',
  'python'
);
/** jupyter-server-proxy 4.1.2, the lowest the project claims (needs simpervisor from the above). */
export const VENDORED_SERVER_PROXY_4_1 = path.resolve(
  REPO_ROOT,
  '..',
  'shared',
  'vendor',
  'python-jsp-4.1'
);

/** The stack; throws with what to run when the system lane's setup has not made it. */
export function realStack(): RealStack {
  if (!fs.existsSync(STACK_FILE)) {
    throw new Error(
      `${STACK_FILE} is missing: the system lane's globalSetup (test/helpers/system-setup.js) makes it. ` +
        'Run the suite through jest (npx jest test/system/...), after `bash .ci/python-env.sh`.'
    );
  }
  return JSON.parse(fs.readFileSync(STACK_FILE, 'utf8')) as RealStack;
}

/** The directories a real-stack Jupyter server gets fresh (each test's own). */
export interface RealStackServerDirs {
  home: string;
  /** Its TMPDIR: the proxy makes its Unix socket directories there. */
  tmp: string;
  config: string;
  data: string;
  runtime: string;
  /** PROJECT_STARTUP_RUNTIME_DIR of the sidecar the proxy launches; its default when absent. */
  sidecarRuntime?: string;
}

/** A loopback port that refuses connections, so the sidecar's runtime probes fail fast. */
export const CLOSED_URL = 'http://127.0.0.1:9/';

/**
 * The environment of a Jupyter server of the real stack, the one the browser, Notebook 7 and
 * matrix suites start: the venv's bin first on PATH (as in an activated venv), fresh Jupyter
 * directories, the token, jupyter-server-proxy from `pythonPath` (the vendored copy), and, for
 * the sidecar the proxy launches (it inherits all this), no runtime to discover: both runtime
 * URLs at CLOSED_URL, unless `runtimeUrls` is false (nobody set them, as on an ordinary machine:
 * the sidecar probes its default endpoints, where nothing listens here).
 */
export function realStackServerEnv(
  stack: RealStack,
  dirs: RealStackServerDirs,
  options: {
    token: string;
    pythonPath?: string;
    configPath?: string;
    runtimeUrls?: boolean;
  }
): Record<string, string> {
  return {
    PATH: `${stack.bin}:/usr/bin:/bin`,
    HOME: dirs.home,
    LANG: 'C.UTF-8',
    PYTHONDONTWRITEBYTECODE: '1',
    ...(options.pythonPath ? { PYTHONPATH: options.pythonPath } : {}),
    TMPDIR: dirs.tmp,
    // ipykernel's kernelspec imports debugpy, which warns about frozen modules on Python 3.11.
    PYDEVD_DISABLE_FILE_VALIDATION: '1',
    JUPYTER_TOKEN: options.token,
    JUPYTER_CONFIG_DIR: dirs.config,
    ...(options.configPath ? { JUPYTER_CONFIG_PATH: options.configPath } : {}),
    JUPYTER_DATA_DIR: dirs.data,
    JUPYTER_RUNTIME_DIR: dirs.runtime,
    JUPYTER_PLATFORM_DIRS: '0',
    ...(dirs.sidecarRuntime
      ? { PROJECT_STARTUP_RUNTIME_DIR: dirs.sidecarRuntime }
      : {}),
    ...(options.runtimeUrls === false
      ? {}
      : {
          PROJECT_STARTUP_LOCAL_RUNTIME_URL: CLOSED_URL,
          PROJECT_STARTUP_SERVING_RUNTIME_URL: CLOSED_URL
        })
  };
}
