// Bad bytes from outside do not break the server extension: a `node` whose
// `--version` prints bytes that are not UTF-8 (a STAND-IN on PATH). Debian's real jupyter_server
// loads this checkout's server extension (on PYTHONPATH, enabled the way the wheel's
// jupyter_server_config.d file enables it) and its `project` proxy entry, beside the real
// jupyter-server-proxy; the diagnostics
// route must answer 200 with a clear problem, the launch a clear 500, and no traceback anywhere.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { httpRequest } from '../e2e/helpers';
import { tempRoot } from '../../helpers/harness';
import {
  logged,
  PYTHON,
  REPO_ROOT,
  serverProxyPath,
  startJupyter,
  stopAllJupyters
} from './python';

let root = '';
afterAll(async () => {
  await stopAllJupyters();
  if (root) {
    fs.rmSync(root, { recursive: true, force: true });
  }
}, 60000);

it('`node --version` printing bytes that are not UTF-8: the diagnostics route answers the problem; no traceback', async () => {
  root = tempRoot('ps-bad-bytes-');
  const bin = path.join(root, 'bin');
  const config = path.join(root, 'config');
  fs.mkdirSync(bin);
  fs.mkdirSync(path.join(config, 'jupyter_server_config.d'), {
    recursive: true
  });
  // The file the wheel installs as etc/jupyter/jupyter_server_config.d/ (pyproject.toml).
  fs.copyFileSync(
    path.join(
      REPO_ROOT,
      'jupyter-config',
      'server-config',
      'jupyterlab_project_startup.json'
    ),
    path.join(
      config,
      'jupyter_server_config.d',
      'jupyterlab_project_startup.json'
    )
  );
  // The wheel's `project` entry point (installed, jupyter-server-proxy finds it by itself).
  fs.writeFileSync(
    path.join(config, 'jupyter_server_config.py'),
    'from jupyterlab_project_startup import setup_project_startup\n' +
      'c.ServerProxy.servers = {"project": setup_project_startup()}\n'
  );
  fs.writeFileSync(
    path.join(config, 'jupyter_server_config.d', 'jupyter-server-proxy.json'),
    JSON.stringify({
      ServerApp: { jpserver_extensions: { jupyter_server_proxy: true } }
    })
  );
  // A STAND-IN for a broken node: its version line is Latin-1 bytes, exit 0.
  fs.writeFileSync(
    path.join(bin, 'node'),
    "#!/bin/sh\nprintf 'v\\377\\376\\351 twenty\\n'\n",
    { mode: 0o755 }
  );
  const j = await startJupyter({
    python: PYTHON,
    label: 'node-bad-bytes',
    path: `${bin}:/usr/bin:/bin`,
    // Both extensions enabled by the config.d files above (as installed packages enable them).
    serverProxy: false,
    pythonPath: [REPO_ROOT, ...serverProxyPath(PYTHON)],
    env: { JUPYTER_CONFIG_DIR: config }
  });
  const auth = { authorization: `token ${j.token}` };

  const report = await httpRequest(`${j.base}api/project-startup/diagnostics`, {
    headers: auth
  });
  expect(report.status).toBe(200);
  const json = report.json as {
    problems: { code: string; title: string; detail: string; fix: string }[];
  };
  expect(json.problems).toEqual([
    expect.objectContaining({
      code: 'node-missing',
      title: 'Node.js does not run',
      detail: expect.stringContaining('did not print a Node.js version'),
      fix: expect.stringContaining('Node.js 20 or newer')
    })
  ]);
  const launch = await httpRequest(
    `${j.base}project/startup?interface=notebook`,
    { headers: auth }
  );
  expect(launch.status).toBe(500);
  expect(
    await logged(
      j,
      /500 GET \/user\/alice\/project\/startup.*Node\.js does not run/
    )
  ).not.toMatch(/Traceback|UnicodeDecodeError/);
  // The server log says the same at start, the bytes shown as replacement characters.
  expect(
    await logged(j, /jupyterlab-project-startup: Node\.js does not run\./)
  ).toMatch(/did not print a Node\.js version \(exit 0, printed 'v\uFFFD/);
}, 90000);
