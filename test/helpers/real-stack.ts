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
