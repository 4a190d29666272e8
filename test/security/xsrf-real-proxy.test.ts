// Issue 20, item 6, behind the REAL jupyter-server-proxy 4.4.0 (../shared/vendor/python) on
// Debian's jupyter_server: the proxy checks no XSRF token (its handler's check_xsrf_cookie defers
// to the proxied app), so a cookie-carried POST without X-XSRFToken reached the sidecar and was
// recorded as JupyterLab's dialog. Now the record says `jupyterlab-dialog` only when the request
// carried X-XSRFToken equal to Jupyter's `_xsrf` cookie, as JupyterLab sends it; anything else
// carried by Jupyter's cookie is recorded as what it is, a plain call (`http-api`).
import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import { BIN, REPO_ROOT } from '../helpers/cli';
import { CLOSED_URL, freePort, tempRoot } from '../helpers/harness';
import { delay } from '../reliability/support';

const PYTHON = '/usr/bin/python3';
const VENDOR =
  process.env.PROJECT_STARTUP_VENDOR_PYTHON ??
  path.resolve(REPO_ROOT, '..', 'shared', 'vendor', 'python');
const available =
  fs.existsSync(path.join(VENDOR, 'jupyter_server_proxy')) &&
  spawnSync(PYTHON, ['-c', 'import jupyter_server'], { encoding: 'utf8' })
    .status === 0;
// Without the vendored proxy or Debian's jupyter_server this suite cannot run: say so, skip.
const describeWithProxy = available ? describe : describe.skip;
if (!available) {
  console.warn(
    `xsrf-real-proxy: skipped, needs ${VENDOR}/jupyter_server_proxy and python3-jupyter-server`
  );
}

interface Answer {
  status: number;
  setCookie: string[];
  body: string;
}

/** One request to Jupyter on loopback, on its own connection, bounded in time. */
function call(
  port: number,
  method: string,
  target: string,
  headers: Record<string, string>,
  body?: string
): Promise<Answer> {
  return new Promise(resolve => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path: target,
        method,
        headers,
        agent: false,
        timeout: 20000
      },
      res => {
        let text = '';
        res.setEncoding('utf8').on('data', (c: string) => (text += c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            setCookie: res.headers['set-cookie'] ?? [],
            body: text
          })
        );
      }
    );
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve({ status: 0, setCookie: [], body: '' }));
    req.end(body);
  });
}

function get(
  port: number,
  target: string,
  headers: Record<string, string>
): Promise<Answer> {
  return call(port, 'GET', target, headers);
}

describeWithProxy(
  'the JupyterLab dialog behind the real jupyter-server-proxy',
  () => {
    const root = available ? tempRoot('ps-xsrf-proxy-') : '';
    const dir = (name: string) => path.join(root, name);
    const token = 'jupyter-token-0123456789abcdef0123456789abcdef';
    let jupyter: ChildProcess | undefined;
    let port = 0;
    let log = '';

    beforeAll(async () => {
      for (const name of [
        'config',
        'data',
        'runtime',
        'home',
        'project',
        'sidecar-run'
      ]) {
        fs.mkdirSync(dir(name), { mode: 0o700 });
      }
      port = await freePort();
      fs.writeFileSync(
        path.join(dir('config'), 'jupyter_server_config.json'),
        JSON.stringify({
          ServerApp: {
            jpserver_extensions: { jupyter_server_proxy: true },
            allow_remote_access: true,
            open_browser: false
          },
          ServerProxy: {
            servers: {
              project: {
                command: [
                  process.execPath,
                  BIN,
                  'serve',
                  '--ingress',
                  'notebook-server-proxy',
                  '--unix-socket',
                  '{unix_socket}',
                  '--base-url',
                  '{base_url}',
                  '--project-dir',
                  dir('project')
                ],
                unix_socket: true,
                absolute_url: true,
                timeout: 20,
                launcher_entry: { enabled: false }
              }
            }
          }
        })
      );
      jupyter = spawn(
        PYTHON,
        [
          '-m',
          'jupyter_server',
          '--ServerApp.ip=127.0.0.1',
          `--ServerApp.port=${port}`,
          '--ServerApp.port_retries=0',
          '--allow-root',
          '--ServerApp.base_url=/user/alice/',
          `--ServerApp.root_dir=${dir('project')}`
        ],
        {
          cwd: dir('project'),
          detached: true, // its own process group: the sidecar it launches goes with it
          stdio: ['ignore', 'pipe', 'pipe'],
          env: {
            PATH: '/usr/bin:/bin',
            HOME: dir('home'),
            LANG: 'C.UTF-8',
            PYTHONPATH: VENDOR,
            PYTHONDONTWRITEBYTECODE: '1',
            JUPYTER_TOKEN: token,
            JUPYTER_CONFIG_DIR: dir('config'),
            JUPYTER_DATA_DIR: dir('data'),
            JUPYTER_RUNTIME_DIR: dir('runtime'),
            JUPYTER_PLATFORM_DIRS: '0',
            PROJECT_STARTUP_RUNTIME_DIR: dir('sidecar-run'),
            PROJECT_STARTUP_LOCAL_RUNTIME_URL: CLOSED_URL,
            PROJECT_STARTUP_SERVING_RUNTIME_URL: CLOSED_URL
          }
        }
      );
      jupyter.stdout?.on('data', (c: Buffer) => (log += c.toString('utf8')));
      jupyter.stderr?.on('data', (c: Buffer) => (log += c.toString('utf8')));
      for (let i = 0; i < 300 && jupyter.exitCode === null; i++) {
        if (
          (
            await get(port, '/user/alice/api/status', {
              authorization: `token ${token}`
            })
          ).status === 200
        ) {
          return;
        }
        await delay(100);
      }
      throw new Error(
        `Jupyter did not answer within 30 s (exit code ${jupyter.exitCode}):\n${log.slice(-3000)}`
      );
    }, 40000);

    afterAll(async () => {
      if (jupyter?.pid !== undefined && jupyter.exitCode === null) {
        const exited = new Promise(resolve => jupyter?.once('exit', resolve));
        process.kill(-jupyter.pid, 'SIGTERM');
        await Promise.race([exited, delay(10000)]);
        try {
          process.kill(-jupyter.pid, 'SIGKILL');
        } catch {
          // the group is gone
        }
      }
      if (root) {
        fs.rmSync(root, { recursive: true, force: true });
      }
    });

    const stateDir = () => path.join(dir('project'), '.project-startup');
    const record = () =>
      JSON.parse(
        fs.readFileSync(path.join(stateDir(), 'initialization.json'), 'utf8')
      ) as { confirmation: { method: string; interface: string } };

    /** A browser's cookies for Jupyter: the login cookie (from ?token=) and Jupyter's _xsrf. */
    async function browserCookies(): Promise<{ login: string; xsrf: string }> {
      const signIn = await get(
        port,
        `/user/alice/api/status?token=${token}`,
        {}
      );
      const login = signIn.setCookie
        .map(c => c.split(';')[0])
        .find(c => c.startsWith('username-'));
      const page = await get(port, '/user/alice/login', {});
      const xsrf = page.setCookie
        .map(c => c.split(';')[0])
        .find(c => c.startsWith('_xsrf='));
      if (login === undefined || xsrf === undefined) {
        throw new Error(
          `no Jupyter cookies (${signIn.status}, ${page.status}):\n${log.slice(-2000)}`
        );
      }
      return { login, xsrf };
    }

    /** POST initialize for the notebook interface as a same-origin page of Jupyter's would. */
    async function confirmNotebook(headers: Record<string, string>) {
      const p = JSON.parse(
        (
          await get(port, '/user/alice/project/startup?interface=notebook', {
            authorization: `token ${token}`
          })
        ).body
      ) as { projectPath: string; statePath: string };
      const body = JSON.stringify({
        interface: 'notebook',
        method: 'jupyterlab-dialog',
        confirm: { projectPath: p.projectPath, statePath: p.statePath }
      });
      return call(
        port,
        'POST',
        '/user/alice/project/initialize',
        {
          host: `127.0.0.1:${port}`,
          origin: `http://127.0.0.1:${port}`,
          'sec-fetch-site': 'same-origin',
          'content-type': 'application/json',
          ...headers
        },
        body
      );
    }

    it("a cookie-only POST without X-XSRFToken is recorded as a plain call, not as JupyterLab's dialog", async () => {
      const { login, xsrf } = await browserCookies();
      const attack = await confirmNotebook({ cookie: `${login}; ${xsrf}` });
      expect(attack.status).toBe(201);
      expect(record().confirmation).toMatchObject({
        interface: 'notebook',
        method: 'http-api'
      });
      fs.rmSync(stateDir(), { recursive: true, force: true });
      // An X-XSRFToken that is not the cookie's: the same.
      const forged = await confirmNotebook({
        cookie: `${login}; ${xsrf}`,
        'x-xsrftoken': 'not-the-cookie'
      });
      expect(forged.status).toBe(201);
      expect(record().confirmation.method).toBe('http-api');
      fs.rmSync(stateDir(), { recursive: true, force: true });
    });

    it("JupyterLab's request (X-XSRFToken from the _xsrf cookie) is recorded as the dialog", async () => {
      const { login, xsrf } = await browserCookies();
      const dialog = await confirmNotebook({
        cookie: `${login}; ${xsrf}`,
        'x-xsrftoken': xsrf.slice('_xsrf='.length)
      });
      expect(dialog.status).toBe(201);
      expect(record().confirmation).toMatchObject({
        interface: 'notebook',
        method: 'jupyterlab-dialog'
      });
    });
  }
);
