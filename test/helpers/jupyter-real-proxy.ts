// A real Jupyter server behind the REAL jupyter-server-proxy 4.4.0 (vendored in
// ../shared/vendor/python, or PROJECT_STARTUP_VENDOR_PYTHON) on Debian's jupyter_server, whose
// `project` entry launches this repository's sidecar with `--ingress notebook-server-proxy`, on
// a Unix socket or a TCP port. Jupyter listens on 127.0.0.1 with base_url /user/alice/, a fixed
// token and allow_remote_access (as behind a hub or in a container), in fresh directories; it
// runs in its own process group, so the sidecar the proxy launches stops with it.
import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import { SIDECAR_SERVE_ARGS } from '../system/e2e/helpers';
import { delay } from './wait';
import { BIN, REPO_ROOT } from './cli';
import { CLOSED_URL, freePort, tempRoot } from './harness';

const PYTHON = '/usr/bin/python3';
const VENDOR =
  process.env.PROJECT_STARTUP_VENDOR_PYTHON ??
  path.resolve(REPO_ROOT, '..', 'shared', 'vendor', 'python');
const available =
  fs.existsSync(path.join(VENDOR, 'jupyter_server_proxy')) &&
  spawnSync(PYTHON, ['-c', 'import jupyter_server'], { encoding: 'utf8' })
    .status === 0;

/**
 * `describe` where the vendored proxy and Debian's jupyter_server are present; else a warning
 * naming `suite` and `describe.skip` (such a suite cannot run without them).
 */
export function describeWithRealProxy(suite: string): jest.Describe {
  if (!available) {
    console.warn(
      `${suite}: skipped, needs ${VENDOR}/jupyter_server_proxy and python3-jupyter-server`
    );
  }
  return available ? describe : describe.skip;
}

export interface JupyterAnswer {
  status: number;
  setCookie: string[];
  body: string;
}

/** One request to Jupyter on loopback, on its own connection, bounded in time (status 0 on an error). */
export function jupyterRequest(
  port: number,
  method: string,
  target: string,
  headers: Record<string, string>,
  body?: string
): Promise<JupyterAnswer> {
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

export interface JupyterBehindRealProxy {
  /** Jupyter's port on 127.0.0.1, once beforeAll has started it. */
  readonly port: number;
  /** JUPYTER_TOKEN. */
  readonly token: string;
  /** A directory of the server: config, data, runtime, home, project, sidecar-run (the sidecar's runtime files). */
  dir(name: string): string;
  /** What Jupyter (and the sidecar it launched) wrote on stdout and stderr so far. */
  log(): string;
  get(target: string, headers: Record<string, string>): Promise<JupyterAnswer>;
}

/**
 * For a describe (from describeWithRealProxy): beforeAll starts Jupyter and waits (up to 30 s)
 * until `GET /user/alice/api/status` with the token answers 200; afterAll stops its process
 * group (SIGTERM, SIGKILL after 10 s) and removes its directories. `listen`: the sidecar on the
 * proxy's Unix socket (the entry `jupyter install` writes) or on a TCP port the proxy picks
 * (`--allow-unauthenticated-tcp --port {port}`).
 */
export function jupyterBehindRealProxy(
  rootPrefix: string,
  listen: 'unix-socket' | 'tcp'
): JupyterBehindRealProxy {
  const root = available ? tempRoot(rootPrefix) : '';
  const dir = (name: string) => path.join(root, name);
  const token = 'jupyter-token-0123456789abcdef0123456789abcdef';
  let jupyter: ChildProcess | undefined;
  let port = 0;
  let log = '';
  const get = (target: string, headers: Record<string, string>) =>
    jupyterRequest(port, 'GET', target, headers);

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
    const serveArgs =
      listen === 'unix-socket'
        ? SIDECAR_SERVE_ARGS
        : [
            'serve',
            '--ingress',
            'notebook-server-proxy',
            '--allow-unauthenticated-tcp',
            '--port',
            '{port}',
            '--base-url',
            '{base_url}'
          ];
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
                ...serveArgs,
                '--project-dir',
                dir('project')
              ],
              ...(listen === 'unix-socket' ? { unix_socket: true } : {}),
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
          await get('/user/alice/api/status', {
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

  return {
    get port() {
      return port;
    },
    token,
    dir,
    log: () => log,
    get
  };
}
