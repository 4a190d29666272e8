// The notebook-server proxy ingress on a TCP port behind the REAL jupyter-server-proxy 4.4.0
// (from ../shared/vendor/python) on Debian's jupyter_server: the Host check that stops DNS
// rebinding (rebinding-notebook.test.ts) must not stop what the proxy forwards. The proxy
// passes the browser's Host through to the sidecar (a hub's public name, or Jupyter's own
// host:port), never one naming the sidecar's port; a page rebound onto the sidecar's port is
// refused. Jupyter runs with allow_remote_access, as behind a hub or in a container.
import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import { BIN, REPO_ROOT } from '../helpers/cli';
import { CLOSED_URL, freePort, tempRoot } from '../helpers/harness';
import { delay, exchange, rawHttp } from '../reliability/support';
import { expectProblemAnswer, JSON_TYPE } from './support';

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
    `rebinding-real-proxy: skipped, needs ${VENDOR}/jupyter_server_proxy and python3-jupyter-server`
  );
}

function get(
  port: number,
  target: string,
  headers: Record<string, string>
): Promise<{ status: number; body: string }> {
  return new Promise(resolve => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path: target,
        method: 'GET',
        headers,
        agent: false,
        timeout: 20000
      },
      res => {
        let body = '';
        res.setEncoding('utf8').on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      }
    );
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve({ status: 0, body: '' }));
    req.end();
  });
}

describeWithProxy('behind the real jupyter-server-proxy, on a TCP port', () => {
  const root = available ? tempRoot('ps-real-proxy-') : '';
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
                '--allow-unauthenticated-tcp',
                '--port',
                '{port}',
                '--base-url',
                '{base_url}',
                '--project-dir',
                dir('project')
              ],
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

  /** The sidecar's own TCP port, from the runtime file it writes. */
  function sidecarPort(): number {
    const [file] = fs.readdirSync(dir('sidecar-run'));
    return Number(
      new URL(
        (
          JSON.parse(
            fs.readFileSync(path.join(dir('sidecar-run'), file), 'utf8')
          ) as { url: string }
        ).url
      ).port
    );
  }

  it("what the proxy forwards is served: a hub's public Host, Jupyter's own host:port; a JupyterLab-style POST initializes", async () => {
    for (const host of [
      'hub.example.org',
      'hub.example.org:443',
      `127.0.0.1:${port}`,
      `localhost:${port}`
    ]) {
      const r = await get(
        port,
        '/user/alice/project/startup?interface=notebook',
        { host, authorization: `token ${token}` }
      );
      expect([host, r.status]).toEqual([host, 200]);
      expect(JSON.parse(r.body).interface).toBe('notebook');
    }
    const p = JSON.parse(
      (
        await get(port, '/user/alice/project/startup?interface=notebook', {
          authorization: `token ${token}`
        })
      ).body
    );
    const body = JSON.stringify(p.nextAction.request.body);
    const post = await exchange(
      { port },
      rawHttp(
        'POST',
        '/user/alice/project/initialize',
        [
          ['Host', 'hub.example.org'],
          ['Origin', 'https://hub.example.org'],
          ['Authorization', `token ${token}`],
          JSON_TYPE,
          ['Content-Length', String(Buffer.byteLength(body))],
          ['Connection', 'close']
        ],
        body
      )
    );
    expect(post.status).toBe(201);
    expect(
      fs.existsSync(
        path.join(dir('project'), '.project-startup', 'initialization.json')
      )
    ).toBe(true);
  });

  it("a page rebound onto the sidecar's own port is 403 forbidden-host; rebound onto Jupyter's port it meets Jupyter's login", async () => {
    const sidecar = sidecarPort();
    expect(sidecar).not.toBe(port);
    const evil = `rebind.evil.example:${sidecar}`;
    const direct = await exchange(
      { port: sidecar },
      rawHttp('GET', '/user/alice/project/startup?interface=notebook', [
        ['Host', evil],
        ['Origin', `http://${evil}`],
        ['Connection', 'close']
      ])
    );
    expectProblemAnswer(direct, 403, 'forbidden-host');
    // The same page on Jupyter's port has no Jupyter credentials: Jupyter stops it first.
    const viaJupyter = await get(
      port,
      '/user/alice/project/startup?interface=notebook',
      { host: `rebind.evil.example:${port}` }
    );
    expect([302, 401, 403]).toContain(viaJupyter.status);
  });
});
