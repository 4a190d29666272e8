// Browser (e2e) test helpers: the real JupyterLab 4.6.4 (`jupyter lab` on jupyter_server 2.21.1,
// pip-installed into the system lane's venv with this checkout's wheel: see
// test/helpers/real-stack.ts) with the real jupyter-server-proxy 4.4.0 (vendored in
// ../shared/vendor/python, on PYTHONPATH as if pip-installed), driven in Debian's Chromium through
// playwright-core. Nothing is downloaded: no browser build, no Python package.
//
// Every server gets fresh temporary config, data, runtime, workspaces, settings, root, home and
// temporary (TMPDIR) directories and a random token, and is stopped by its process group (so the
// backends the proxy launched go too). Each browser gets a fresh profile.
import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  BrowserContext,
  chromium,
  ConsoleMessage,
  Frame,
  Page,
  Request
} from 'playwright-core';
import { starvedServe } from '../../helpers/cli';
import {
  realStack,
  RealStack,
  realStackServerEnv
} from '../../helpers/real-stack';
import { delay } from '../../helpers/wait';

export const REPO_ROOT = path.resolve(__dirname, '..', '..', '..');
export const E2E_DIR = __dirname;
export const ARTIFACTS = path.join(REPO_ROOT, 'test-artifacts', 'e2e');
export const PYTHON = '/usr/bin/python3';
export const CHROMIUM = '/usr/bin/chromium';
export const BIN = path.join(REPO_ROOT, 'bin', 'project-startup.js');
/** The project's prebuilt extension, written by `npm run build:labextension`. */
export const PROJECT_LABEXTENSION = path.join(
  REPO_ROOT,
  'jupyterlab_project_startup',
  'labextension'
);

/** The built labextension files (under static/) whose text holds `text`. */
function builtFilesWith(text: string): string[] {
  const dir = path.join(PROJECT_LABEXTENSION, 'static');
  return fs
    .readdirSync(dir)
    .filter(
      f =>
        f.endsWith('.js') &&
        fs.readFileSync(path.join(dir, f), 'utf8').includes(text)
    );
}

/**
 * The panel's chunk (panel.tsx: its toolbar's name) and the chunk of the panel's content
 * (src/components/: the log hint); webpack may put both in one. Plain errors when either is not
 * exactly one file, so the benches can call it too.
 */
export function lazyChunks(): { panel: string; components: string } {
  const one = (what: string, text: string): string => {
    const files = builtFilesWith(text);
    if (files.length !== 1) {
      throw new Error(
        `expected one built file with the ${what}, found ${files.length}: ${files.join(', ')}`
      );
    }
    return files[0];
  };
  return {
    panel: one("panel's toolbar", 'Project Startup toolbar'),
    components: one(
      "content's log hint",
      "The service's log is in the Jupyter server's log"
    )
  };
}
/**
 * The real jupyter-server-proxy 4.4.0 and simpervisor, vendored beside the clone (CI clones the
 * repository with ../shared next to it); used only where the Python has none installed.
 */
export const VENDORED_SERVER_PROXY = path.resolve(
  REPO_ROOT,
  '..',
  'shared',
  'vendor',
  'python'
);
/** A loopback port that refuses connections, so the sidecar's runtime probes fail fast. */
export { CLOSED_URL } from '../../helpers/real-stack';

const APT_STEP =
  'run the apt step of .ci/run (as root: apt-get update && apt-get install -y python3-jupyter-server ' +
  'python3-jupyterlab-server chromium python3-nbclient python3-ipykernel), or all of `bash .ci/run`';

/**
 * Throws, with what to do, when something the browser tests need is missing: Chromium, the
 * real stack's venv (the system lane's globalSetup makes it) and the vendored
 * jupyter-server-proxy. Called from beforeAll: the tests then fail (never skip) with this message.
 */
export function checkPrerequisites(): void {
  const missing: string[] = [];
  if (!fs.existsSync(CHROMIUM)) {
    missing.push(`Chromium (${CHROMIUM}) is not installed (${APT_STEP})`);
  }
  if (
    !fs.existsSync(path.join(VENDORED_SERVER_PROXY, 'jupyter_server_proxy'))
  ) {
    missing.push(
      `the vendored jupyter-server-proxy (${VENDORED_SERVER_PROXY}) is missing: clone the repository with ../shared beside it`
    );
  }
  if (missing.length > 0) {
    throw new Error(`Browser tests cannot run: ${missing.join('; ')}.`);
  }
  const stack = realStack();
  if (!fs.existsSync(path.join(stack.bin, 'jupyter-lab'))) {
    throw new Error(
      `${stack.bin}/jupyter-lab is missing: run \`bash .ci/python-env.sh\` (it pip-installs JupyterLab into ${stack.venv}).`
    );
  }
}

export interface ServerProxyLocation {
  /** The PYTHONPATH `python` needs to import it: '' when it has one installed, else the vendored copy. */
  pythonPath: string;
  /** Its `__version__`, e.g. 4.4.0. */
  version: string;
  /** Where it was imported from. */
  file: string;
}

const serverProxyLocations = new Map<string, ServerProxyLocation>();

/**
 * Where `python` gets the real jupyter-server-proxy: the installed one when it can import one,
 * else the vendored copy (VENDORED_SERVER_PROXY on PYTHONPATH, with PYTHONDONTWRITEBYTECODE=1 so
 * nothing is written there). Throws, saying what to do, when there is neither or it is not 4.x.
 */
export function serverProxyLocation(
  python: string = PYTHON
): ServerProxyLocation {
  const known = serverProxyLocations.get(python);
  if (known) {
    return known;
  }
  const probe = (pythonPath: string) =>
    spawnSync(
      python,
      [
        '-c',
        'import jupyter_server_proxy as j; print(j.__version__); print(j.__file__)'
      ],
      {
        encoding: 'utf8',
        timeout: 20000,
        env: {
          PATH: '/usr/bin:/bin',
          PYTHONDONTWRITEBYTECODE: '1',
          ...(pythonPath ? { PYTHONPATH: pythonPath } : {})
        }
      }
    );
  let pythonPath = '';
  let result = probe(pythonPath);
  if (
    result.status !== 0 &&
    fs.existsSync(path.join(VENDORED_SERVER_PROXY, 'jupyter_server_proxy'))
  ) {
    pythonPath = VENDORED_SERVER_PROXY;
    result = probe(pythonPath);
  }
  if (result.status !== 0) {
    throw new Error(
      `${python} cannot import jupyter_server_proxy, and ${VENDORED_SERVER_PROXY} does not provide it ` +
        `(${(result.stderr || '').trim().split('\n').pop()}). To fix: install jupyter-server-proxy 4.x for ${python}, ` +
        'or clone the repository with ../shared (holding vendor/python) beside it.'
    );
  }
  const [version, file] = result.stdout.trim().split('\n');
  if (!version.startsWith('4.')) {
    throw new Error(
      `${python} has jupyter_server_proxy ${version} (${file}); these tests need 4.x (4.1 or newer).`
    );
  }
  const location = { pythonPath, version, file };
  serverProxyLocations.set(python, location);
  return location;
}

export interface LabServerOptions {
  /** Jupyter's base_url (default /lab-e2e/). */
  baseUrl?: string;
  /** `ServerProxy.servers`, written to jupyter_server_config.json in the config directory. */
  serverProxy?: Record<string, unknown>;
  /** Prebuilt extension directories (holding package.json), copied to $JUPYTER_DATA_DIR/labextensions/<name>/. */
  labextensions?: string[];
  /** Extra environment for the server (and so for the backends it launches). */
  env?: Record<string, string>;
  /**
   * False: no runtime URL in the environment, as on an ordinary machine where nobody configured
   * a runtime (default: both at CLOSED_URL; realStackServerEnv).
   */
  runtimeUrls?: boolean;
  /** Name for the server log in test-artifacts/e2e/ (default "lab-server"). */
  label?: string;
  /**
   * How long to wait for the server to answer (default 60 s: the real `jupyter lab` answered
   * after 12-19 s on a loaded 2-core machine).
   */
  timeoutMs?: number;
  /** Enable JupyterLab terminals (terminado), off by default. */
  terminals?: boolean;
  /**
   * JupyterLab plugins disabled in the fresh config dir's labconfig/page_config.json, as an
   * operator disables them (default: the announcements plugin, whose news question would
   * otherwise be a toast in every fresh profile and which would fetch news from the network).
   */
  disabledExtensions?: string[];
  /**
   * Whether the project's wheel is installed (default true: the real stack's venv as
   * real-stack-setup.js made it). False runs the same JupyterLab from a view of that venv without
   * the wheel (no labextension, proxy entry point, server extension or `project-startup`): the
   * stack of someone who installs the npm package instead, or has not installed the project.
   */
  wheel?: boolean;
  /**
   * Runs once the server's directories exist and before it starts (after `serverProxy` and
   * `labextensions` are in place), e.g. to run `project-startup jupyter install --user` into
   * them (see jupyterInstall). What it returns is added to the server's environment last.
   */
  prepare?: (dirs: LabServer['dirs']) => Record<string, string> | void;
  /**
   * The server's working directory (default the project directory, which is also its
   * ServerApp.root_dir): another one shows what follows root_dir and what follows the cwd.
   */
  workingDir?: (dirs: LabServer['dirs']) => string;
}

export interface LabServer {
  /** http://127.0.0.1:PORT */
  origin: string;
  port: number;
  baseUrl: string;
  /** origin + baseUrl */
  base: string;
  /** The JupyterLab page, without the token. */
  labUrl: string;
  token: string;
  pid: number;
  /** Milliseconds from spawn until the server answered. */
  startMs: number;
  dirs: {
    root: string;
    config: string;
    data: string;
    runtime: string;
    workspaces: string;
    settings: string;
    project: string;
    home: string;
    sidecarRuntime: string;
    /** The server's TMPDIR, where the proxy makes its Unix socket directories. */
    tmp: string;
  };
  /** Where the server's jupyter-server-proxy comes from. */
  serverProxy: ServerProxyLocation;
  /** The real stack it runs on. */
  stack: RealStack;
  logs(): string;
  /** Whether the server process is still running. */
  running(): boolean;
  /** SIGTERM to the server's process group, SIGKILL after the timeout; then removes the directories. */
  stop(timeoutMs?: number): Promise<{
    code: number | null;
    signal: NodeJS.Signals | null;
    forced: boolean;
  }>;
}

function tempRoot(prefix: string): string {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
}

/** One GET on loopback that resolves with the status (0 on a connection error). */
export function status(
  url: string,
  headers: Record<string, string> = {}
): Promise<number> {
  return new Promise(resolve => {
    const req = http.get(url, { headers, timeout: 2000, agent: false }, res => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(0));
  });
}

const started = new Set<LabServer>();

/** The plugins disabled unless a test says otherwise (see LabServerOptions.disabledExtensions). */
export const DEFAULT_DISABLED_EXTENSIONS: readonly string[] = [
  '@jupyterlab/apputils-extension:announcements'
];

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

/**
 * What `pip install jupyter-server-proxy` would put in its prefix's etc/jupyter, for the vendored
 * copy on PYTHONPATH: the file enabling its server extension. Written to a directory of its own on
 * JUPYTER_CONFIG_PATH, apart from the config dir the tests (and `jupyter install`) rewrite.
 */
function writeServerProxyEnabled(dir: string): void {
  fs.mkdirSync(path.join(dir, 'jupyter_server_config.d'), { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'jupyter_server_config.d', 'jupyter_server_proxy.json'),
    JSON.stringify(
      { ServerApp: { jpserver_extensions: { jupyter_server_proxy: true } } },
      null,
      2
    )
  );
}

/** Symlinks in `to` to every entry of `from` but those `skip` names. */
function linkAllBut(from: string, to: string, skip: (name: string) => boolean) {
  fs.mkdirSync(to, { recursive: true });
  for (const name of fs.readdirSync(from)) {
    if (!skip(name)) {
      fs.symlinkSync(path.join(from, name), path.join(to, name));
    }
  }
}

/**
 * The real stack's venv without the project's wheel, as a venv of symlinks in `dir` (its own
 * pyvenv.cfg, so Python takes `dir` as sys.prefix): every package, labextension and
 * jupyter_server_config.d file of the venv but the wheel's.
 */
export function venvWithoutWheel(stack: RealStack, dir: string): RealStack {
  const lib = `python${stack.versions.python.split('.').slice(0, 2).join('.')}`;
  fs.mkdirSync(path.join(dir, 'bin'), { recursive: true });
  fs.copyFileSync(
    path.join(stack.venv, 'pyvenv.cfg'),
    path.join(dir, 'pyvenv.cfg')
  );
  fs.symlinkSync(
    fs.realpathSync(stack.python),
    path.join(dir, 'bin', 'python')
  );
  linkAllBut(
    path.join(stack.venv, 'lib', lib, 'site-packages'),
    path.join(dir, 'lib', lib, 'site-packages'),
    name => name.startsWith('jupyterlab_project_startup')
  );
  const share = path.join(stack.venv, 'share', 'jupyter');
  linkAllBut(
    share,
    path.join(dir, 'share', 'jupyter'),
    name => name === 'labextensions'
  );
  linkAllBut(
    path.join(share, 'labextensions'),
    path.join(dir, 'share', 'jupyter', 'labextensions'),
    name => name === 'jupyterlab-project-startup'
  );
  const etc = path.join(stack.venv, 'etc', 'jupyter');
  linkAllBut(
    etc,
    path.join(dir, 'etc', 'jupyter'),
    name => name === 'jupyter_server_config.d'
  );
  linkAllBut(
    path.join(etc, 'jupyter_server_config.d'),
    path.join(dir, 'etc', 'jupyter', 'jupyter_server_config.d'),
    name => name.startsWith('jupyterlab_project_startup')
  );
  return {
    ...stack,
    venv: dir,
    python: path.join(dir, 'bin', 'python'),
    bin: path.join(dir, 'bin')
  };
}

/** The command line of the real `jupyter lab` for these directories. */
async function realLabCommand(
  stack: RealStack,
  options: LabServerOptions,
  baseUrl: string,
  dirs: LabServer['dirs']
): Promise<string[]> {
  const asRoot = process.getuid?.() === 0;
  return [
    stack.python,
    '-m',
    'jupyterlab',
    '--no-browser',
    '--ServerApp.ip=127.0.0.1',
    `--ServerApp.port=${await freePort()}`,
    '--ServerApp.port_retries=50',
    `--ServerApp.base_url=${baseUrl}`,
    `--ServerApp.root_dir=${dirs.project}`,
    `--ServerApp.terminals_enabled=${options.terminals ? 'True' : 'False'}`,
    `--LabApp.user_settings_dir=${dirs.settings}`,
    `--LabApp.workspaces_dir=${dirs.workspaces}`,
    // window.jupyterapp: openLab waits on jupyterapp.restored and tests run its commands.
    '--LabApp.expose_app_in_browser=True',
    // No request to PyPI for a newer JupyterLab (the machine has no route to it).
    '--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate',
    ...(asRoot ? ['--ServerApp.allow_root=True'] : [])
  ];
}

/**
 * Starts the real `jupyter lab` of realStack() and resolves once Jupyter answers
 * `GET {base_url}api/status` with 200.
 */
export async function startLabServer(
  options: LabServerOptions = {}
): Promise<LabServer> {
  checkPrerequisites();
  const baseUrl = options.baseUrl ?? '/lab-e2e/';
  const root = tempRoot('ps-e2e-');
  const stack =
    options.wheel === false
      ? venvWithoutWheel(realStack(), path.join(root, 'venv-without-wheel'))
      : realStack();
  const serverProxy = serverProxyLocation(stack.python);
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
    // TMPDIR of the server: the proxy makes its socket directory (jupyter-server-proxy-*) here.
    tmp: path.join(root, 'tmp')
  };
  for (const dir of Object.values(dirs)) {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  }
  fs.mkdirSync(path.join(dirs.data, 'labextensions'));
  if (options.serverProxy) {
    fs.writeFileSync(
      path.join(dirs.config, 'jupyter_server_config.json'),
      JSON.stringify({ ServerProxy: { servers: options.serverProxy } }, null, 2)
    );
  }
  const disabled = options.disabledExtensions ?? DEFAULT_DISABLED_EXTENSIONS;
  if (disabled.length > 0) {
    fs.mkdirSync(path.join(dirs.config, 'labconfig'));
    fs.writeFileSync(
      path.join(dirs.config, 'labconfig', 'page_config.json'),
      JSON.stringify(
        {
          disabledExtensions: Object.fromEntries(disabled.map(id => [id, true]))
        },
        null,
        2
      )
    );
  }
  const proxyConfig = path.join(root, 'server-proxy-config');
  if (serverProxy.pythonPath) {
    writeServerProxyEnabled(proxyConfig);
  }
  for (const source of options.labextensions ?? []) {
    const name = (
      JSON.parse(
        fs.readFileSync(path.join(source, 'package.json'), 'utf8')
      ) as { name: string }
    ).name;
    fs.cpSync(source, path.join(dirs.data, 'labextensions', name), {
      recursive: true
    });
  }

  const prepared = options.prepare?.(dirs) ?? {};

  const token = randomBytes(24).toString('hex');
  const env: Record<string, string> = {
    ...realStackServerEnv(stack, dirs, {
      token,
      pythonPath: serverProxy.pythonPath,
      runtimeUrls: options.runtimeUrls
    }),
    ...options.env,
    ...prepared
  };
  if (fs.existsSync(proxyConfig)) {
    env.JUPYTER_CONFIG_PATH = [env.JUPYTER_CONFIG_PATH, proxyConfig]
      .filter(Boolean)
      .join(':');
  }
  const spawnedAt = Date.now();
  const [command, ...commandArgs] = [
    ...starvedServe(),
    ...(await realLabCommand(stack, options, baseUrl, dirs))
  ];
  const child: ChildProcess = spawn(command, commandArgs, {
    cwd: options.workingDir?.(dirs) ?? dirs.project,
    env,
    detached: true, // its own process group: stop() ends the backends with it
    stdio: ['ignore', 'pipe', 'pipe']
  });
  let log = '';
  const append = (chunk: Buffer) => {
    log += chunk.toString('utf8');
    if (log.length > 2_000_000) {
      log = log.slice(-1_000_000);
    }
  };
  child.stdout?.on('data', append);
  child.stderr?.on('data', append);
  let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  const exited = new Promise<{
    code: number | null;
    signal: NodeJS.Signals | null;
  }>(resolve => {
    child.once('exit', (code, signal) => {
      exit = { code, signal };
      resolve(exit);
    });
  });
  const pid = child.pid as number;
  const label = options.label ?? 'lab-server';

  const killGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-pid, signal);
    } catch {
      // already gone
    }
  };
  let stopped = false;
  const server: LabServer = {
    origin: '',
    port: 0,
    baseUrl,
    base: '',
    labUrl: '',
    token,
    pid,
    startMs: 0,
    dirs,
    serverProxy,
    stack,
    logs: () => log,
    running: () => exit === undefined,
    stop: async (timeoutMs = 10000) => {
      let forced = false;
      if (!stopped) {
        stopped = true;
        started.delete(server);
        if (exit === undefined) {
          killGroup('SIGTERM');
          let timer: NodeJS.Timeout | undefined;
          const timedOut = new Promise<undefined>(resolve => {
            timer = setTimeout(() => resolve(undefined), timeoutMs);
          });
          const result = await Promise.race([exited, timedOut]);
          clearTimeout(timer);
          if (result === undefined) {
            forced = true;
            killGroup('SIGKILL');
            await exited;
          }
        }
        // Anything left in the group (a backend that ignored SIGTERM) goes now.
        killGroup('SIGKILL');
        fs.mkdirSync(ARTIFACTS, { recursive: true });
        fs.writeFileSync(
          path.join(ARTIFACTS, `${label}.log`),
          `# jupyter-lab pid ${pid}, answered after ${server.startMs} ms\n${log}`
        );
        fs.rmSync(root, { recursive: true, force: true });
      }
      const result = await exited;
      return { ...result, forced };
    }
  };
  started.add(server);

  const startTimeoutMs = options.timeoutMs ?? 60000;
  const deadline = spawnedAt + startTimeoutMs;
  const failStart = async (why: string): Promise<never> => {
    await server.stop(2000);
    throw new Error(
      `jupyter-lab ${why}.\n--- server log (tail) ---\n${log.slice(-4000)}`
    );
  };
  // The server writes jpserver-<pid>.json (with the port it bound) once it listens.
  const infoFile = path.join(dirs.runtime, `jpserver-${pid}.json`);
  let port = 0;
  while (port === 0) {
    if (exit !== undefined) {
      return failStart(
        `exited (code ${exit.code}, signal ${exit.signal}) before listening`
      );
    }
    if (Date.now() > deadline) {
      return failStart(`did not listen within ${startTimeoutMs} ms`);
    }
    try {
      port = (JSON.parse(fs.readFileSync(infoFile, 'utf8')) as { port: number })
        .port;
    } catch {
      await delay(50);
    }
  }
  server.port = port;
  server.origin = `http://127.0.0.1:${port}`;
  server.base = `${server.origin}${baseUrl}`;
  server.labUrl = `${server.base}lab`;
  while (
    (await status(`${server.base}api/status`, {
      authorization: `token ${token}`
    })) !== 200
  ) {
    if (exit !== undefined) {
      return failStart(
        `exited (code ${exit.code}, signal ${exit.signal}) before answering`
      );
    }
    if (Date.now() > deadline) {
      return failStart(
        `did not answer ${server.base}api/status within ${startTimeoutMs} ms`
      );
    }
    await delay(50);
  }
  server.startMs = Date.now() - spawnedAt;
  return server;
}

/** Stops every server still running (for afterAll after a failure). */
export async function stopAllLabServers(): Promise<void> {
  await Promise.all([...started].map(s => s.stop()));
}

/** The flags every browser gets (Debian's Chromium, no network beyond loopback use). */
export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync'
];

export interface Browser {
  context: BrowserContext;
  userDataDir: string;
  newPage(): Promise<Page>;
  close(): Promise<void>;
}

/** Debian's /usr/bin/chromium through playwright-core, with a fresh profile directory. */
export async function launchBrowser(): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM)) {
    throw new Error(
      `Browser tests cannot run: Chromium (${CHROMIUM}) is not installed. To fix: ${APT_STEP}.`
    );
  }
  const userDataDir = tempRoot('ps-e2e-chromium-');
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_FLAGS,
    viewport: { width: 1280, height: 800 },
    timeout: 60000,
    env: { PATH: '/usr/bin:/bin', HOME: userDataDir, LANG: 'C.UTF-8' }
  });
  context.setDefaultTimeout(20000);
  context.setDefaultNavigationTimeout(30000);
  return {
    context,
    userDataDir,
    newPage: () => context.newPage(),
    close: async () => {
      await context.close().catch(() => undefined);
      fs.rmSync(userDataDir, { recursive: true, force: true });
    }
  };
}

/** One thing that went wrong in a page. */
export interface PageProblem {
  kind: 'page-error' | 'console-error' | 'http' | 'request-failed';
  /** One line for a human: what, and where (the path) when the message does not say. */
  text: string;
  /** The URL concerned (a console error's source, a response's or request's URL), or ''. */
  url: string;
  /** Its path ('' when there is no URL). */
  path: string;
  /** The HTTP status, for responses and for "Failed to load resource" console errors. */
  status?: number;
}

/** The frame a request was made for (undefined for one without a frame: a worker's). */
function frameOf(request: Request): Frame | undefined {
  try {
    return request.frame();
  } catch {
    return undefined;
  }
}

/**
 * What went wrong in a page: uncaught errors, console errors, responses with status >= 400 and
 * failed requests. Only a request aborted because its page navigated on is set aside (in
 * `ignored`); a test that expects more (a page's own 401, Chromium's /favicon.ico on a server
 * without one) says so with `unexpected()`.
 */
export class PageProblems {
  /** Every problem, as text. */
  readonly problems: string[] = [];
  /** The same, structured. */
  readonly entries: PageProblem[] = [];
  /** Requests aborted by a navigation of their frame, as text: no problem. */
  readonly ignored: string[] = [];

  constructor(page: Page) {
    page.on('pageerror', error =>
      this.add({
        kind: 'page-error',
        what: `page error: ${error.message}`,
        url: ''
      })
    );
    page.on('console', message => this.onConsole(message));
    page.on('response', response => {
      if (response.status() >= 400) {
        this.add({
          kind: 'http',
          what: `HTTP ${response.status()} ${response.request().method()} ${pathOf(response.url())}`,
          url: response.url(),
          status: response.status()
        });
      }
    });
    // A request the browser aborts because its page navigated on (a favicon still loading when
    // a link is followed) is no failure: it is the one aborted after a navigation of its frame
    // began. Navigations are counted per frame, as their requests are sent. A request the old
    // document sends while a navigation is on its way (a poll of the page being reloaded) counts
    // as sent before it: it belongs to the document that navigation replaces.
    const navigations = new WeakMap<Frame, number>();
    const navigating = new WeakSet<Frame>();
    const navigationsAtRequest = new WeakMap<Request, number>();
    page.on('framenavigated', frame => navigating.delete(frame));
    page.on('request', request => {
      const frame = frameOf(request);
      if (frame === undefined) {
        return;
      }
      const count = navigations.get(frame) ?? 0;
      if (request.isNavigationRequest()) {
        navigations.set(frame, count + 1);
        navigating.add(frame);
      } else {
        navigationsAtRequest.set(
          request,
          navigating.has(frame) ? count - 1 : count
        );
      }
    });
    page.on('requestfailed', request => {
      const frame = frameOf(request);
      const before = navigationsAtRequest.get(request);
      if (
        request.failure()?.errorText === 'net::ERR_ABORTED' &&
        frame !== undefined &&
        before !== undefined &&
        (navigations.get(frame) ?? 0) > before
      ) {
        this.ignored.push(
          `request aborted by a navigation: ${request.method()} ${pathOf(request.url())}`
        );
        return;
      }
      this.add({
        kind: 'request-failed',
        what: `request failed: ${request.method()} ${pathOf(request.url())} (${request.failure()?.errorText})`,
        url: request.url()
      });
    });
  }

  /** The problems left once `allowed` has accepted what this test expects; as text. */
  unexpected(
    allowed: (problem: PageProblem) => boolean = () => false
  ): string[] {
    return this.entries
      .filter(problem => !allowed(problem))
      .map(problem => problem.text);
  }

  private onConsole(message: ConsoleMessage): void {
    if (message.type() !== 'error') {
      return;
    }
    const text = message.text();
    const status = /status of (\d{3})/.exec(text);
    this.add({
      kind: 'console-error',
      what: `console error: ${text}`,
      url: message.location().url ?? '',
      status: status ? Number(status[1]) : undefined
    });
  }

  private add(found: {
    kind: PageProblem['kind'];
    what: string;
    url: string;
    status?: number;
  }): void {
    const where = pathOf(found.url);
    const text =
      where && !found.what.includes(where)
        ? `${found.what} [${where}]`
        : found.what;
    this.problems.push(text);
    this.entries.push({
      kind: found.kind,
      text,
      url: found.url,
      path: where,
      status: found.status
    });
  }
}

/**
 * The noise jupyter_server 1.x makes for a JupyterLab 4 front end (no such APIs before
 * jupyter_server 2): `GET /api/me` 404 and the `/api/events/subscribe` websocket's failures.
 * Not filtered by PageProblems (the real stack has both APIs); a suite still on jupyter_server
 * 1.x admits it with `unexpected(jupyterServer1Noise)` or pageSuite's alwaysAllowed.
 */
export function jupyterServer1Noise(problem: PageProblem): boolean {
  if (/\/api\/me$/.test(problem.path) && problem.status === 404) {
    return true;
  }
  const events =
    /\/api\/events\/subscribe$/.test(problem.path) ||
    /\/api\/events\/subscribe\b/.test(problem.text);
  return (
    events &&
    (/WebSocket/i.test(problem.text) ||
      problem.status === 404 ||
      problem.status === undefined)
  );
}

function pathOf(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return '';
  }
}

/** A PNG of the page in test-artifacts/e2e/<name>.png; returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  const file = path.join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path: file });
  return file;
}

/** Waits (bounded) until JupyterLab's splash screen (shown at start and while a theme loads) is gone. */
export async function waitForSplashGone(
  page: Page,
  timeoutMs = 20000
): Promise<void> {
  await page
    .locator('#jupyterlab-splash')
    .waitFor({ state: 'detached', timeout: timeoutMs });
}

/**
 * Waits (bounded) until JupyterLab's app (window.jupyterapp, exposed by
 * `--LabApp.expose_app_in_browser`) has restored its layout.
 */
export async function waitForRestored(
  page: Page,
  timeoutMs = 60000
): Promise<void> {
  await page.waitForFunction(
    () =>
      (globalThis as unknown as { jupyterapp?: unknown }).jupyterapp !==
      undefined,
    undefined,
    { timeout: timeoutMs, polling: 100 }
  );
  await page.evaluate(
    ms =>
      Promise.race([
        (
          globalThis as unknown as {
            jupyterapp: { restored: Promise<void> };
          }
        ).jupyterapp.restored.then(() => true),
        new Promise<boolean>((_, reject) =>
          setTimeout(
            () => reject(new Error(`JupyterLab not restored in ${ms} ms`)),
            ms
          )
        )
      ]),
    timeoutMs
  );
}

/**
 * Opens JupyterLab signed in with the token and waits (bounded) until the app is restored. Each
 * call uses a workspace of its own (a fresh name) unless one is given: a layout restored from an
 * earlier page would otherwise drop widgets the test adds.
 */
export async function openLab(
  page: Page,
  server: LabServer,
  options: { workspace?: string; timeoutMs?: number } = {}
): Promise<void> {
  const timeoutMs = options.timeoutMs ?? 60000;
  const workspace =
    options.workspace ?? `e2e-${randomBytes(6).toString('hex')}`;
  await page.goto(
    `${server.labUrl}/workspaces/${workspace}?token=${server.token}`,
    { waitUntil: 'domcontentloaded', timeout: timeoutMs }
  );
  await waitForRestored(page, timeoutMs);
  await waitForSplashGone(page, timeoutMs);
}

/**
 * The sidecar's arguments (after Node and its command line) in the proxy entry that
 * `project-startup jupyter install` writes for jupyter-server-proxy.
 */
export const SIDECAR_SERVE_ARGS: readonly string[] = [
  'serve',
  '--ingress',
  'notebook-server-proxy',
  '--unix-socket',
  '{unix_socket}',
  '--base-url',
  '{base_url}'
];

/** The sidecar command line the proxy launches, as an operator would configure it. */
export function sidecarServerEntry(
  extra: Record<string, unknown> = {}
): Record<string, unknown> {
  return {
    command: [process.execPath, BIN, ...SIDECAR_SERVE_ARGS],
    unix_socket: true,
    absolute_url: true,
    launcher_entry: { enabled: false },
    ...extra
  };
}

/**
 * The operator's install step, `project-startup jupyter install --user`, run with Jupyter's
 * config and data directories set to a lab server's (use it from LabServerOptions.prepare):
 * it copies the prebuilt labextension and writes the `project` proxy entry. Throws with the
 * command's output when it fails; returns its stdout.
 */
export function jupyterInstall(
  dirs: LabServer['dirs'],
  timeoutMs = 30000
): string {
  const result = spawnSync(
    process.execPath,
    [BIN, 'jupyter', 'install', '--user'],
    {
      cwd: dirs.project,
      encoding: 'utf8',
      timeout: timeoutMs,
      env: {
        PATH: '/usr/bin:/bin',
        HOME: dirs.home,
        LANG: 'C.UTF-8',
        JUPYTER_CONFIG_DIR: dirs.config,
        JUPYTER_DATA_DIR: dirs.data
      }
    }
  );
  if (result.status !== 0) {
    throw new Error(
      `project-startup jupyter install --user failed (status ${result.status}, signal ${result.signal}):\n${result.stdout}\n${result.stderr}`
    );
  }
  return result.stdout;
}

export interface HttpAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: any;
}

/**
 * A window of Jupyter's log without Jupyter's own late start-up lines (the language servers it
 * skipped, …), which may land in any window: a line of Jupyter's format that is neither a
 * request's nor about this service. Every other line stays, header dumps included.
 */
export function withoutJupyterStartUpLines(lines: string[]): string[] {
  return lines.filter(
    line =>
      !/^\[[DIWEC] [^\]]*\] (?!\d{3} )/.test(line) ||
      /project|ProjectStartup/i.test(line)
  );
}

/**
 * The lines `server` logs while `during` runs, without Jupyter's own late start-up lines. A 404
 * to a marker path brackets the window: once the marker's line is in the log (waited for,
 * bounded), every line logged before it is too.
 */
export function logWindow(
  server: { readonly base: string; logs(): string },
  headers: Record<string, string>
): (during: () => Promise<unknown>) => Promise<string[]> {
  let marks = 0;
  const mark = async (): Promise<string> => {
    const marker = `project-startup-log-mark-${++marks}`;
    const answer = await httpRequest(`${server.base}${marker}`, { headers });
    if (answer.status !== 404) {
      throw new Error(
        `the log marker ${marker} answered ${answer.status}, not 404`
      );
    }
    for (let i = 0; i < 200 && !server.logs().includes(marker); i++) {
      await delay(25);
    }
    if (!server.logs().includes(marker)) {
      throw new Error(
        `the log marker ${marker} never reached the server's log`
      );
    }
    return marker;
  };
  return async during => {
    await mark(); // also past any one-time line the server's first error page logs
    const from = server.logs().length;
    await during();
    const marker = await mark();
    const lines = server.logs().slice(from).trimEnd().split('\n');
    return withoutJupyterStartUpLines(
      lines.slice(
        0,
        lines.findIndex(line => line.includes(marker))
      )
    );
  };
}

/** One HTTP request with full control of the headers (Node's http; no cookie jar, no redirects). */
export function httpRequest(
  url: string,
  options: {
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    timeoutMs?: number;
  } = {}
): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const headers = { ...options.headers };
    if (options.body !== undefined) {
      headers['content-length'] = String(Buffer.byteLength(options.body));
    }
    const req = http.request(
      url,
      {
        method: options.method ?? 'GET',
        headers,
        agent: false,
        timeout: options.timeoutMs ?? 15000
      },
      res => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = text ? JSON.parse(text) : undefined;
          } catch {
            json = undefined;
          }
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text,
            json
          });
        });
      }
    );
    req.on('timeout', () =>
      req.destroy(new Error(`request to ${url} timed out`))
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/** Jupyter's login cookie (and _xsrf), as a browser would get them by opening the lab with ?token=. */
export async function jupyterCookies(server: LabServer): Promise<string> {
  const answer = await httpRequest(`${server.labUrl}?token=${server.token}`);
  const setCookie = answer.headers['set-cookie'] ?? [];
  const cookies = setCookie.map(c => c.split(';')[0]);
  if (!cookies.some(c => c.startsWith('username-'))) {
    throw new Error(
      `no login cookie from ${server.labUrl} (status ${answer.status})`
    );
  }
  return cookies.join('; ');
}

export const THROWAWAY_NAME = 'e2e-throwaway-extension';
export const THROWAWAY_PLUGIN = 'e2e-throwaway-extension:plugin';
export const THROWAWAY_COMMAND = 'e2e-throwaway:hello';

/**
 * Builds a tiny prebuilt (federated) extension with JupyterLab's own builder, against
 * @jupyterlab/core-meta's core.package.json (what `jupyter labextension build` does), in
 * test-artifacts/e2e/throwaway-extension (below the repository, so its imports resolve from the
 * project's node_modules). It uses the host's apputils (a shared singleton: a command-palette
 * command that shows a dialog) and brings a stylesheet. Returns the built labextension directory.
 */
export function buildThrowawayExtension(timeoutMs = 120000): string {
  const dir = path.join(ARTIFACTS, 'throwaway-extension');
  const corePath = path.join(ARTIFACTS, 'core-path');
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(path.join(dir, 'style'), { recursive: true });
  fs.mkdirSync(corePath, { recursive: true });
  fs.copyFileSync(
    require.resolve('@jupyterlab/core-meta/core.package.json'),
    path.join(corePath, 'package.json')
  );
  const apputils = (
    JSON.parse(
      fs.readFileSync(
        require.resolve('@jupyterlab/apputils/package.json'),
        'utf8'
      )
    ) as { version: string }
  ).version;
  fs.writeFileSync(
    path.join(dir, 'package.json'),
    JSON.stringify(
      {
        name: THROWAWAY_NAME,
        version: '0.0.1',
        private: true,
        main: 'index.js',
        style: 'style/index.css',
        dependencies: { '@jupyterlab/apputils': apputils },
        jupyterlab: { extension: true, outputDir: 'labextension' }
      },
      null,
      2
    )
  );
  fs.writeFileSync(
    path.join(dir, 'index.js'),
    `import { Dialog, ICommandPalette, showDialog } from '@jupyterlab/apputils';

export default {
  id: '${THROWAWAY_PLUGIN}',
  description: 'A throwaway federated extension built by the e2e tests.',
  autoStart: true,
  requires: [ICommandPalette],
  activate: (app, palette) => {
    app.commands.addCommand('${THROWAWAY_COMMAND}', {
      label: 'Say hello (e2e throwaway extension)',
      execute: () =>
        showDialog({
          title: 'Hello from a federated extension',
          body: 'This dialog comes from the host app\\'s @jupyterlab/apputils.',
          buttons: [Dialog.okButton()]
        })
    });
    palette.addItem({ command: '${THROWAWAY_COMMAND}', category: 'E2E' });
    document.body.dataset.e2eThrowaway = 'activated';
  }
};
`
  );
  fs.writeFileSync(
    path.join(dir, 'style', 'index.css'),
    'body {\n  --e2e-throwaway-marker: loaded;\n}\n'
  );
  const builder = path.join(
    path.dirname(require.resolve('@jupyterlab/builder/package.json')),
    'lib',
    'build-labextension.js'
  );
  const result = spawnSync(
    process.execPath,
    [builder, '--development', '--core-path', corePath, dir],
    {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      timeout: timeoutMs
    }
  );
  const out = path.join(dir, 'labextension');
  if (result.status !== 0 || !fs.existsSync(path.join(out, 'package.json'))) {
    throw new Error(
      `build-labextension of the throwaway extension failed (status ${result.status}, signal ${result.signal}):\n${result.stdout}\n${result.stderr}`.slice(
        0,
        6000
      )
    );
  }
  return out;
}
