// `jupyter lab` from the real stack's venv (test/helpers/real-stack.ts: JupyterLab 4.6.4 on
// jupyter_server 2.21.1 with this checkout's wheel) with a chosen jupyter-server-proxy on
// PYTHONPATH, for the version-matrix tests. Fresh config, data, runtime, workspaces, settings,
// root and home directories, a random token, 127.0.0.1 only, stopped by its process group.
import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { RealStack, realStackServerEnv } from '../../helpers/real-stack';
import { httpRequest } from '../e2e/helpers';

const REPO_ROOT = path.resolve(__dirname, '..', '..', '..');
export const MATRIX_ARTIFACTS = path.join(
  REPO_ROOT,
  'test-artifacts',
  'matrix'
);

export interface Jupyter {
  origin: string;
  /** Jupyter's base_url, e.g. /matrix/. */
  base: string;
  token: string;
  pid: number;
  dirs: Record<
    'root' | 'config' | 'data' | 'runtime' | 'home' | 'project' | 'tmp',
    string
  >;
  logs(): string;
  /** GET or POST {base}`rest` with the token. */
  request(
    rest: string,
    init?: { method?: string; headers?: Record<string, string>; body?: string }
  ): Promise<{ status: number; text: string; json: unknown }>;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>(resolve => server.close(() => resolve()));
  return port;
}

function delay(ms: number): Promise<void> {
  return new Promise(resolve => setTimeout(resolve, ms));
}

/** The jupyter_server_proxy version `python` imports with `pythonPath`. */
export function serverProxyVersion(python: string, pythonPath: string): string {
  const probe = spawnSync(
    python,
    ['-c', 'import jupyter_server_proxy as j; print(j.__version__)'],
    {
      encoding: 'utf8',
      timeout: 20000,
      env: {
        PATH: '/usr/bin:/bin',
        PYTHONPATH: pythonPath,
        PYTHONDONTWRITEBYTECODE: '1'
      }
    }
  );
  if (probe.status !== 0) {
    throw new Error(
      `cannot import jupyter_server_proxy from ${pythonPath}: ${probe.stderr}`
    );
  }
  return probe.stdout.trim();
}

/** `jupyter lab` of `stack`, jupyter-server-proxy from `serverProxyPath` (PYTHONPATH), enabled as its install enables it. */
export async function startJupyter(options: {
  stack: RealStack;
  serverProxyPath: string;
  label: string;
  timeoutMs?: number;
}): Promise<Jupyter> {
  const root = fs.realpathSync(
    fs.mkdtempSync(path.join(os.tmpdir(), 'ps-matrix-'))
  );
  const dirs = {
    root,
    config: path.join(root, 'config'),
    data: path.join(root, 'data'),
    runtime: path.join(root, 'runtime'),
    home: path.join(root, 'home'),
    project: path.join(root, 'project'),
    tmp: path.join(root, 'tmp'),
    workspaces: path.join(root, 'workspaces'),
    settings: path.join(root, 'settings')
  };
  for (const dir of Object.values(dirs)) {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  }
  fs.mkdirSync(path.join(dirs.config, 'jupyter_server_config.d'));
  fs.writeFileSync(
    path.join(
      dirs.config,
      'jupyter_server_config.d',
      'jupyter_server_proxy.json'
    ),
    JSON.stringify({
      ServerApp: { jpserver_extensions: { jupyter_server_proxy: true } }
    })
  );
  const port = await freePort();
  const token = randomBytes(24).toString('hex');
  const base = '/matrix/';
  let log = '';
  const child: ChildProcess = spawn(
    path.join(options.stack.bin, 'jupyter-lab'),
    [
      '--no-browser',
      '--allow-root',
      '--ServerApp.ip=127.0.0.1',
      `--ServerApp.port=${port}`,
      '--ServerApp.port_retries=0',
      `--ServerApp.base_url=${base}`,
      `--ServerApp.root_dir=${dirs.project}`,
      `--LabApp.workspaces_dir=${dirs.workspaces}`,
      `--LabApp.user_settings_dir=${dirs.settings}`
    ],
    {
      cwd: dirs.project,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...realStackServerEnv(options.stack, dirs, {
          token,
          pythonPath: options.serverProxyPath
        }),
        PROJECT_STARTUP_LOG_LEVEL: 'debug'
      }
    }
  );
  const append = (chunk: Buffer) => {
    log += chunk.toString('utf8');
  };
  child.stdout?.on('data', append);
  child.stderr?.on('data', append);
  let exited = false;
  const ended = new Promise<void>(resolve =>
    child.once('exit', () => {
      exited = true;
      resolve();
    })
  );
  const origin = `http://127.0.0.1:${port}`;
  // Node's http without an agent (no keep-alive socket outlives the test).
  const request: Jupyter['request'] = (rest, init = {}) =>
    httpRequest(`${origin}${base}${rest}`, {
      method: init.method ?? 'GET',
      headers: { authorization: `token ${token}`, ...init.headers },
      body: init.body,
      timeoutMs: 20000
    });
  const stop = async () => {
    if (!exited) {
      try {
        process.kill(-(child.pid as number), 'SIGTERM');
      } catch {
        // gone
      }
      await Promise.race([ended, delay(10000)]);
    }
    try {
      process.kill(-(child.pid as number), 'SIGKILL');
    } catch {
      // gone
    }
    fs.mkdirSync(MATRIX_ARTIFACTS, { recursive: true });
    fs.writeFileSync(path.join(MATRIX_ARTIFACTS, `${options.label}.log`), log);
    fs.rmSync(root, { recursive: true, force: true });
  };
  const jupyter: Jupyter = {
    origin,
    base,
    token,
    pid: child.pid as number,
    dirs,
    logs: () => log,
    request,
    stop
  };
  const deadline = Date.now() + (options.timeoutMs ?? 60000);
  for (;;) {
    if (exited || Date.now() > deadline) {
      await stop();
      throw new Error(
        `jupyter lab ${exited ? 'exited' : 'did not answer'} before ${base}api/status did:\n${log.slice(-4000)}`
      );
    }
    const status = await request('api/status').catch(() => undefined);
    if (status?.status === 200) {
      return jupyter;
    }
    await delay(200);
  }
}
