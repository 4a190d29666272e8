// The notebook client (`from jupyterlab_project_startup import client`)
// is importable only where the wheel is installed, and a kernel often runs in another environment
// than the Jupyter server. What a user there sees, and the route that works: the client is
// standard library only, so `%pip install --no-deps <the package or its wheel>` in the kernel's
// environment is enough (nothing of Jupyter is pulled in), and the client then reaches the
// server's sidecar through Notebook 7.6.3's `jupyter notebook` of the real stack.
//
// "Another environment" is a venv of its own (made with the stack's Python, without its packages);
// the wheel is the one the system lane installed into the stack (realStack().wheel).
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { tempRoot } from '../../helpers/harness';
import { realStack } from '../../helpers/real-stack';
import {
  Notebook7Server,
  startNotebook7Server,
  stopAllNotebook7Servers
} from '../e2e/notebook7-helpers';

const IMPORT_CLIENT = 'from jupyterlab_project_startup import client';

function run(command: string, args: string[], env: Record<string, string>) {
  return spawnSync(command, args, {
    // Not the checkout: `python -c` puts the working directory first on sys.path.
    cwd: env.HOME ?? '/',
    encoding: 'utf8',
    timeout: 120000,
    env: { PATH: '/usr/bin:/bin', LANG: 'C.UTF-8', ...env }
  });
}

describe('the notebook client in a kernel of another environment', () => {
  let root = '';
  let python = '';
  let server: Notebook7Server | undefined;
  beforeAll(() => {
    root = tempRoot('ps-kernel-env-');
    const venv = path.join(root, 'kernel-venv');
    const made = run(realStack().python, ['-m', 'venv', venv], {});
    expect(made.stderr).toBe('');
    python = path.join(venv, 'bin', 'python');
  }, 180000);
  afterAll(async () => {
    await server?.stop();
    await stopAllNotebook7Servers();
    fs.rmSync(root, { recursive: true, force: true });
  }, 60000);

  it("before: `import` fails with Python's ModuleNotFoundError naming the package", () => {
    const result = run(python, ['-c', IMPORT_CLIENT], { HOME: root });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(
      "ModuleNotFoundError: No module named 'jupyterlab_project_startup'"
    );
  });

  it('the documented route, `%pip install --no-deps`: the client imports, with nothing of Jupyter installed', () => {
    const pip = run(
      python,
      [
        '-m',
        'pip',
        'install',
        '--no-index',
        '--no-deps',
        '--disable-pip-version-check',
        realStack().wheel
      ],
      { HOME: root }
    );
    expect(pip.status).toBe(0);
    const imported = run(
      python,
      [
        '-c',
        `${IMPORT_CLIENT}; import sys; print(sorted(m for m in sys.modules if m.split(".")[0] in ("jupyter_server", "tornado", "jupyter_server_proxy")))`
      ],
      { HOME: root }
    );
    expect({ status: imported.status, stderr: imported.stderr }).toEqual({
      status: 0,
      stderr: ''
    });
    expect(imported.stdout.trim()).toBe('[]');
    const listed = run(python, ['-m', 'pip', 'list', '--format=json'], {
      HOME: root
    });
    const names = (JSON.parse(listed.stdout) as { name: string }[]).map(p =>
      p.name.toLowerCase()
    );
    expect(names).toContain('jupyterlab-project-startup');
    expect(names.filter(n => n.startsWith('jupyter'))).toEqual([
      'jupyterlab-project-startup'
    ]);
  }, 180000);

  it("then reaches the sidecar through Notebook 7's server, as a kernel started by it would", async () => {
    server = await startNotebook7Server({ label: 'kernel-environment-server' });
    const script = [IMPORT_CLIENT, 'print(client.startup()["phase"])'].join(
      '\n'
    );
    const result = run(python, ['-c', script], {
      HOME: root,
      PROJECT_STARTUP_JUPYTER_URL: server.base,
      PROJECT_STARTUP_JUPYTER_TOKEN: server.token
    });
    expect({ status: result.status, stderr: result.stderr }).toEqual({
      status: 0,
      stderr: ''
    });
    expect(result.stdout.trim()).toBe('awaiting-confirmation');
  }, 180000);
});
