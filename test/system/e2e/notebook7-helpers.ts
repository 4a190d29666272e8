// Helpers for the Notebook 7 browser tests: Notebook 7.6.3's own `jupyter notebook` (on
// jupyter_server 2.21.1) from the system lane's real stack (test/helpers/real-stack.ts), with this
// checkout's wheel pip-installed into that venv (its labextension, server extension and proxy
// entry point, as a user has them) and the real jupyter-server-proxy (vendored, on PYTHONPATH),
// driven in Debian's Chromium (./helpers.ts does the rest). Every server gets fresh config, data,
// runtime, settings, workspaces, root, home and TMPDIR directories, a random token, loopback only,
// and is stopped by its process group.
import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { starvedServe } from '../../helpers/cli';
import {
  realStack,
  RealStack,
  realStackServerEnv,
  VENDORED_SERVER_PROXY
} from '../../helpers/real-stack';
import {
  ARTIFACTS,
  CHROMIUM,
  LabServer,
  PageProblem,
  ServerProxyLocation
} from './helpers';

/**
 * The one page error Notebook 7.6.3's tree page raises by itself, with no extension at all
 * (measured, /work/shared/spec/jupyter-environment.md): JupyterLab's shortcuts-extension reads
 * `registry.plugins[id].schema` before that plugin's settings are loaded. Nothing of this project
 * is involved.
 */
export function isNotebook7HostRace(problem: PageProblem): boolean {
  return (
    problem.kind === 'page-error' &&
    problem.text ===
      "page error: Cannot read properties of undefined (reading 'schema')"
  );
}

/** The versions of the real stack the Notebook 7 suites run. */
export interface Notebook7BuildInfo {
  notebook: string;
  jupyterlab: string;
}

/**
 * Throws, with what to do, when the real stack (or Chromium, or the vendored proxy) is missing;
 * returns the stack's Notebook and JupyterLab versions.
 */
export function checkNotebook7Built(): Notebook7BuildInfo {
  const stack = realStack();
  const missing = [
    path.join(stack.bin, 'jupyter-notebook'),
    CHROMIUM,
    path.join(VENDORED_SERVER_PROXY, 'jupyter_server_proxy')
  ].filter(file => !fs.existsSync(file));
  if (missing.length > 0) {
    throw new Error(
      `The Notebook 7 tests cannot run: missing ${missing.join(', ')} ` +
        "(`bash .ci/python-env.sh` makes the venv; Chromium is Debian's package; ../shared/vendor/python holds the proxy)."
    );
  }
  return {
    notebook: stack.versions.notebook,
    jupyterlab: stack.versions.jupyterlab
  };
}

/** A Notebook 7 server: the lab server's directories and process, with the tree page's address. */
export interface Notebook7Server extends LabServer {
  /** {base}tree, without the token. */
  treeUrl: string;
  stack: RealStack;
}

export interface Notebook7ServerOptions {
  /** Jupyter's base_url (default /nb-e2e/). */
  baseUrl?: string;
  /** Name for the server log in test-artifacts/e2e/ (default "notebook7-server"). */
  label?: string;
  /** Extra environment for the server (and so for the sidecar the proxy launches). */
  env?: Record<string, string>;
  /** False: no runtime URL in the environment (LabServerOptions.runtimeUrls). */
  runtimeUrls?: boolean;
  /** How long to wait for the server to answer (default 60 s). */
  timeoutMs?: number;
  /**
   * Whether jupyter-server-proxy's server extension is enabled (default true), as
   * `pip install jupyter-server-proxy` enables it; false: the proxy is importable but not enabled,
   * so nothing answers at {base_url}project/.
   */
  serverProxyEnabled?: boolean;
  /** Runs once the directories exist, before the server starts; what it returns is added to the environment. */
  prepare?: (dirs: LabServer['dirs']) => Record<string, string> | void;
}

/** A free loopback port (Jupyter retries the next ones if another process takes it first). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

function freshDirs(): LabServer['dirs'] {
  const root = fs.realpathSync(
    fs.mkdtempSync(path.join(os.tmpdir(), 'ps-nb7-'))
  );
  const dirs = {
    root,
    config: path.join(root, 'config'),
    data: path.join(root, 'data'),
    runtime: path.join(root, 'runtime'),
    workspaces: path.join(root, 'workspaces'),
    settings: path.join(root, 'settings'),
    project: path.join(root, 'project'),
    home: path.join(root, 'home'),
    sidecarRuntime: path.join(root, 'sidecar-runtime'),
    tmp: path.join(root, 'tmp')
  };
  for (const dir of Object.values(dirs)) {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  }
  return dirs;
}

/**
 * What `pip install jupyter-server-proxy` puts in its prefix's etc/jupyter (the file enabling its
 * server extension), for the vendored copy: in a directory of its own on JUPYTER_CONFIG_PATH.
 */
function writeServerProxyEnabled(dir: string): void {
  fs.mkdirSync(path.join(dir, 'jupyter_server_config.d'), { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'jupyter_server_config.d', 'jupyter_server_proxy.json'),
    JSON.stringify({
      ServerApp: { jpserver_extensions: { jupyter_server_proxy: true } }
    })
  );
}

/** `jupyter notebook`'s command line for these directories. */
function notebookCommand(
  stack: RealStack,
  baseUrl: string,
  port: number,
  dirs: LabServer['dirs']
): string[] {
  return [
    ...starvedServe(),
    path.join(stack.bin, 'jupyter-notebook'),
    '--no-browser',
    '--ServerApp.ip=127.0.0.1',
    `--ServerApp.port=${port}`,
    '--ServerApp.port_retries=50',
    `--ServerApp.base_url=${baseUrl}`,
    `--ServerApp.root_dir=${dirs.project}`,
    // With JupyterLab installed beside Notebook 7, {base_url}lab/api/settings and workspaces are
    // LabApp's handlers (measured: the settings API ignored JupyterNotebookApp's directory), so
    // both apps get the fresh directories.
    `--JupyterNotebookApp.user_settings_dir=${dirs.settings}`,
    `--JupyterNotebookApp.workspaces_dir=${dirs.workspaces}`,
    `--LabApp.user_settings_dir=${dirs.settings}`,
    `--LabApp.workspaces_dir=${dirs.workspaces}`,
    // window.jupyterapp: openNotebookTree waits on jupyterapp.restored; tests run its commands.
    '--JupyterNotebookApp.expose_app_in_browser=True',
    ...(process.getuid?.() === 0 ? ['--ServerApp.allow_root=True'] : [])
  ];
}

function delay(ms: number): Promise<void> {
  return new Promise(resolve => setTimeout(resolve, ms));
}

/** One GET on loopback that resolves with the status (0 on a connection error). */
function status(url: string, token: string): Promise<number> {
  return new Promise(resolve => {
    const req = http.get(
      url,
      {
        headers: { authorization: `token ${token}` },
        timeout: 2000,
        agent: false
      },
      res => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      }
    );
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(0));
  });
}

/**
 * The vendored jupyter-server-proxy the stack's venv runs with (pip cannot install it here), read
 * from its _version.py rather than by importing it (an import probe can take over its 20 s on a
 * busy machine).
 */
function vendoredServerProxy(): ServerProxyLocation {
  const file = path.join(
    VENDORED_SERVER_PROXY,
    'jupyter_server_proxy',
    '_version.py'
  );
  const version = /__version__ = "([^"]+)"/.exec(
    fs.readFileSync(file, 'utf8')
  )?.[1];
  if (!version?.startsWith('4.')) {
    throw new Error(`${file} names no jupyter-server-proxy 4.x version`);
  }
  return { pythonPath: VENDORED_SERVER_PROXY, version, file };
}

/** The server's environment: fresh Jupyter directories, the token, the venv's bin first on PATH. */
function serverEnv(
  stack: RealStack,
  dirs: LabServer['dirs'],
  token: string,
  options: Notebook7ServerOptions
): Record<string, string> {
  const proxyConfig = path.join(dirs.root, 'server-proxy-config');
  if (options.serverProxyEnabled ?? true) {
    writeServerProxyEnabled(proxyConfig);
  }
  const { pythonPath } = vendoredServerProxy();
  return {
    ...realStackServerEnv(stack, dirs, {
      token,
      pythonPath,
      configPath: proxyConfig,
      runtimeUrls: options.runtimeUrls
    }),
    ...options.env
  };
}

/** Follows a spawned server: its log, its exit, and a stop by process group. */
function follow(
  child: ChildProcess,
  dirs: LabServer['dirs'],
  label: string,
  startMs: () => number
): Pick<LabServer, 'logs' | 'running' | 'stop'> {
  let log = '';
  const append = (chunk: Buffer) => {
    log = (log + chunk.toString('utf8')).slice(-1_000_000);
  };
  child.stdout?.on('data', append);
  child.stderr?.on('data', append);
  let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  const exited = new Promise<NonNullable<typeof exit>>(resolve =>
    child.once('exit', (code, signal) => resolve((exit = { code, signal })))
  );
  const pid = child.pid as number;
  const killGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-pid, signal);
    } catch {
      // already gone
    }
  };
  let stopping: ReturnType<LabServer['stop']> | undefined;
  const stop = async (timeoutMs: number) => {
    let forced = false;
    if (exit === undefined) {
      killGroup('SIGTERM');
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<undefined>(resolve => {
        timer = setTimeout(() => resolve(undefined), timeoutMs);
      });
      forced = (await Promise.race([exited, timedOut])) === undefined;
      clearTimeout(timer);
    }
    killGroup('SIGKILL'); // anything left in the group (the sidecar) goes now
    const result = await exited;
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    fs.writeFileSync(
      path.join(ARTIFACTS, `${label}.log`),
      `# jupyter notebook pid ${pid}, answered after ${startMs()} ms\n${log}`
    );
    fs.rmSync(dirs.root, { recursive: true, force: true });
    return { ...result, forced };
  };
  return {
    logs: () => log,
    running: () => exit === undefined,
    stop: (timeoutMs = 10000) => (stopping ??= stop(timeoutMs))
  };
}

const started = new Set<Notebook7Server>();

/**
 * Starts Notebook 7's own `jupyter notebook` from the real stack and resolves once it answers
 * `GET {base_url}api/status` with 200.
 */
export async function startNotebook7Server(
  options: Notebook7ServerOptions = {}
): Promise<Notebook7Server> {
  checkNotebook7Built();
  const stack = realStack();
  const baseUrl = options.baseUrl ?? '/nb-e2e/';
  const label = options.label ?? 'notebook7-server';
  const dirs = freshDirs();
  const token = randomBytes(24).toString('hex');
  const env = { ...serverEnv(stack, dirs, token, options) };
  Object.assign(env, options.prepare?.(dirs) ?? {});
  const port = await freePort();
  const [command, ...args] = notebookCommand(stack, baseUrl, port, dirs);
  const spawnedAt = Date.now();
  const child = spawn(command, args, {
    cwd: dirs.project,
    env,
    detached: true, // its own process group: stop() ends the sidecar with it
    stdio: ['ignore', 'pipe', 'pipe']
  });
  const origin = `http://127.0.0.1:${port}`;
  const server: Notebook7Server = {
    origin,
    port,
    baseUrl,
    base: `${origin}${baseUrl}`,
    labUrl: `${origin}${baseUrl}lab`,
    treeUrl: `${origin}${baseUrl}tree`,
    token,
    pid: child.pid as number,
    startMs: 0,
    dirs,
    serverProxy: vendoredServerProxy(),
    stack,
    ...follow(child, dirs, label, () => server.startMs)
  };
  started.add(server);
  await waitForAnswer(server, spawnedAt + (options.timeoutMs ?? 60000));
  server.startMs = Date.now() - spawnedAt;
  return server;
}

/** Waits (bounded) for the port Jupyter bound (its jpserver-<pid>.json) and a 200 from api/status. */
async function waitForAnswer(
  server: Notebook7Server,
  deadline: number
): Promise<void> {
  const infoFile = path.join(
    server.dirs.runtime,
    `jpserver-${server.pid}.json`
  );
  for (;;) {
    if (!server.running() || Date.now() > deadline) {
      const why = server.running() ? 'did not answer in time' : 'exited';
      await server.stop(2000);
      throw new Error(
        `jupyter notebook ${why}.\n--- server log (tail) ---\n${server.logs().slice(-4000)}`
      );
    }
    // port_retries may have moved it off the probed port.
    try {
      const { port } = JSON.parse(fs.readFileSync(infoFile, 'utf8')) as {
        port: number;
      };
      if (port !== server.port) {
        Object.assign(server, {
          port,
          origin: `http://127.0.0.1:${port}`,
          base: `http://127.0.0.1:${port}${server.baseUrl}`,
          labUrl: `http://127.0.0.1:${port}${server.baseUrl}lab`,
          treeUrl: `http://127.0.0.1:${port}${server.baseUrl}tree`
        });
      }
      if ((await status(`${server.base}api/status`, server.token)) === 200) {
        return;
      }
    } catch {
      // not written yet
    }
    await delay(100);
  }
}

/** Stops every Notebook 7 server still running (for afterAll after a failure). */
export async function stopAllNotebook7Servers(): Promise<void> {
  await Promise.all([...started].map(s => s.stop()));
  started.clear();
}

/** What the tree page says about itself once restored. */
export interface Notebook7Host {
  /** appVersion of the page config. */
  notebook: string;
  /** notebookPage of the page config ("tree", "notebooks", ...). */
  page: string;
  /** The federated (prebuilt) extensions the page config lists. */
  federated: string[];
  /** Extensions the page config disables. */
  disabled: string[];
  /** Page errors while it loaded, minus Notebook 7's own (isNotebook7HostRace). */
  errors: string[];
}

/**
 * Opens Notebook 7's tree page signed in with the token and waits (bounded) until the app is
 * restored; throws with the page errors when it does not.
 */
export async function openNotebookTree(
  page: Page,
  server: Pick<Notebook7Server, 'treeUrl' | 'token'>,
  timeoutMs = 60000
): Promise<Notebook7Host> {
  const errors: string[] = [];
  const onError = (error: Error) => {
    const text = `page error: ${error.message}`;
    if (!isNotebook7HostRace({ kind: 'page-error', text, url: '', path: '' })) {
      errors.push(text);
    }
  };
  page.on('pageerror', onError);
  try {
    await page.goto(`${server.treeUrl}?token=${server.token}`, {
      waitUntil: 'domcontentloaded',
      timeout: timeoutMs
    });
    await page
      .waitForFunction(
        () =>
          (globalThis as unknown as { jupyterapp?: unknown }).jupyterapp !==
          undefined,
        undefined,
        { timeout: timeoutMs, polling: 100 }
      )
      .catch((error: Error) => {
        throw new Error(`${error.message}\npage errors: ${errors.join('\n')}`);
      });
    await page.evaluate(
      () =>
        (globalThis as unknown as { jupyterapp: { restored: Promise<void> } })
          .jupyterapp.restored
    );
    const config = await page.evaluate(() => {
      const node = document.getElementById('jupyter-config-data');
      return JSON.parse(node?.textContent ?? '{}') as {
        appVersion?: string;
        notebookPage?: string;
        federated_extensions?: { name: string }[];
        disabledExtensions?: string[];
      };
    });
    return {
      notebook: config.appVersion ?? '',
      page: config.notebookPage ?? '',
      federated: (config.federated_extensions ?? []).map(e => e.name).sort(),
      disabled: config.disabledExtensions ?? [],
      errors
    };
  } finally {
    page.off('pageerror', onError);
  }
}
