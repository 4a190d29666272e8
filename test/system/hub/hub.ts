// A real JupyterHub for the hosted-notebook tests, on one of two stacks (HubStack):
// - 'debian-12': Debian 12's jupyterhub 3.0.0 with its configurable-http-proxy and jupyter_server
//   1.23, the project installed with its own command (`project-startup jupyter install --user`);
// - 'debian-13': Debian 13's jupyterhub 5.2 on jupyter_server 2.15 and Python 3.13, in the root of
//   .ci/trixie-root.sh (../matrix/trixie.ts), the project installed as an operator installs the
//   wheel (pip, into a venv the single-user server runs from).
// On 127.0.0.1, everything in one temporary directory (database, cookie secret, PID files,
// generated jupyterhub_config.py, the single-user servers' Jupyter config and data directories,
// alice's home), shared with the Debian 13 root at the same path. Nothing of the developer's
// environment is inherited.
//
// What is real: the hub, its proxy, its DummyAuthenticator login, SimpleLocalProcessSpawner,
// Debian's jupyterhub-singleuser (jupyter_server 1.23 with the hub's OAuth), the hub's API and
// tokens, and the operator's install command (`project-startup jupyter install --user`).
// The real jupyter-server-proxy 4.x too: an installed one, else the vendored copy in
// ../shared/vendor/python on the single-user server's PYTHONPATH (see serverProxyLocation in
// ../e2e/helpers.ts), enabled as a server extension the way its own install enables itself (a
// jupyter_server_config.d file); it reads the `project` entry the install command wrote to
// jupyter_server_config.json.
//
// Process handling: the hub runs in a process group of its own; the proxy and the single-user
// server start their own sessions (start_new_session in JupyterHub), so stop() ends each group by
// its recorded PID: SIGTERM to the hub first (it stops its servers and proxy), then SIGKILL to
// anything of the three groups still there.
import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  BIN,
  CLOSED_URL,
  httpRequest,
  HttpAnswer,
  PROJECT_LABEXTENSION,
  PYTHON,
  REPO_ROOT,
  serverProxyLocation
} from '../e2e/helpers';
import { alive } from '../../helpers/processes';
import { delay } from '../../helpers/wait';
import { realStack, VENDORED_SERVER_PROXY } from '../../helpers/real-stack';
import {
  forgetShared,
  inTrixie,
  trixieRoot,
  trixieVenv
} from '../matrix/trixie';

export const HUB_ARTIFACTS = path.join(REPO_ROOT, 'test-artifacts', 'hub');
export const JUPYTERHUB = '/usr/bin/jupyterhub';
export const SINGLEUSER = '/usr/bin/jupyterhub-singleuser';
export const CHP = '/usr/bin/configurable-http-proxy';
/** Debian's configurable-http-proxy needs its modules from here with this machine's Node. */
export const DEBIAN_NODE_PATH = '/usr/share/nodejs';
export const SIDECAR_CLI = path.join(
  REPO_ROOT,
  'sidecar',
  'dist',
  'cli',
  'main.js'
);

/** Which JupyterHub, jupyter_server and Python the hub runs on, and how the project is installed. */
export type HubStack = 'debian-12' | 'debian-13';

/** What ran, for the record and for the checks that differ by install route. */
export interface HubStackInfo {
  stack: HubStack;
  /** `command`: `project-startup jupyter install --user`; `wheel`: pip-installed into the single-user server's venv. */
  install: 'command' | 'wheel';
  versions: {
    python: string;
    jupyter_server: string;
    jupyterhub: string;
    node: string;
  };
  /** The Python that runs the single-user server (for 'wheel', the venv's, inside the root). */
  python: string;
  /** The Debian 13 root the processes run in ('' for Debian 12: the machine itself). */
  root: string;
}

/** How one stack installs the project and runs the hub's commands. */
interface StackRun extends HubStackInfo {
  installOutput: string;
  singleUserCmd: string[];
  /** PATH of the hub, so of the single-user server, its terminals and the sidecar. */
  path: string;
  /** More of the single-user server's environment. */
  spawnerEnv: Record<string, string>;
  /** PYTHONPATH giving the single-user server the real jupyter-server-proxy ('' when installed). */
  serverProxyPythonPath: string;
  command(argv: string[]): { command: string; args: string[] };
  release(): void;
}

export const HUB_APT_PACKAGES = ['jupyterhub', 'node-configurable-http-proxy'];

const APT_STEP =
  'run the apt step of .ci/run (as root: apt-get update && apt-get install -y --no-install-recommends ' +
  `${HUB_APT_PACKAGES.join(' ')} python3-jupyter-server python3-jupyterlab-server)`;

/** Throws, with what to do, when something the hub tests need is missing (they fail, never skip). */
export function checkHubPrerequisites(): void {
  const missing: string[] = [];
  for (const [file, what] of [
    [JUPYTERHUB, 'jupyterhub (Debian package jupyterhub)'],
    [SINGLEUSER, 'jupyterhub-singleuser (Debian package jupyterhub)'],
    [
      CHP,
      'configurable-http-proxy (Debian package node-configurable-http-proxy)'
    ],
    [DEBIAN_NODE_PATH, "Debian's Node modules"],
    [PYTHON, 'Debian Python']
  ] as const) {
    if (!fs.existsSync(file)) {
      missing.push(`${what}: ${file} is missing`);
    }
  }
  if (missing.length === 0) {
    const probe = spawnSync(
      PYTHON,
      [
        '-c',
        'import jupyterhub, jupyter_server; print(jupyterhub.__version__, jupyter_server.__version__)'
      ],
      {
        encoding: 'utf8',
        timeout: 20000,
        env: { PATH: '/usr/bin:/bin', PYTHONDONTWRITEBYTECODE: '1' }
      }
    );
    if (probe.status !== 0) {
      missing.push(
        `${PYTHON} cannot import jupyterhub and jupyter_server (${(probe.stderr || '').trim().split('\n').pop()})`
      );
    }
  }
  if (missing.length > 0) {
    throw new Error(
      `JupyterHub tests cannot run: ${missing.join('; ')}. To fix: ${APT_STEP}.`
    );
  }
  if (!fs.existsSync(SIDECAR_CLI)) {
    throw new Error(
      `The sidecar is not built (${SIDECAR_CLI} is missing): run \`npm run build:sidecar\`.`
    );
  }
  if (!fs.existsSync(path.join(PROJECT_LABEXTENSION, 'package.json'))) {
    throw new Error(
      `The prebuilt labextension is missing (${PROJECT_LABEXTENSION}): run \`npm run build\`.`
    );
  }
}

/** Waits for `promise`, at most `ms` (the timer is cleared either way, so Jest can exit). */
async function within(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    promise,
    new Promise(resolve => (timer = setTimeout(resolve, ms)))
  ]);
  clearTimeout(timer);
}

/** Distinct free loopback ports (held open together so they differ, then released). */
export async function freePorts(count: number): Promise<number[]> {
  const servers: net.Server[] = [];
  try {
    const ports: number[] = [];
    for (let i = 0; i < count; i += 1) {
      const server = net.createServer();
      servers.push(server);
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(0, '127.0.0.1', () => resolve());
      });
      ports.push((server.address() as net.AddressInfo).port);
    }
    return ports;
  } finally {
    await Promise.all(
      servers.map(
        server => new Promise<void>(resolve => server.close(() => resolve()))
      )
    );
  }
}

function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (!pid) {
    return;
  }
  try {
    process.kill(-pid, signal);
  } catch {
    // gone already
  }
}

/** The environment of a running process, from /proc (as root: any process). */
export function processEnvironment(pid: number): Record<string, string> {
  const raw = fs.readFileSync(`/proc/${pid}/environ`, 'utf8');
  const env: Record<string, string> = {};
  for (const entry of raw.split('\0')) {
    const eq = entry.indexOf('=');
    if (eq > 0) {
      env[entry.slice(0, eq)] = entry.slice(eq + 1);
    }
  }
  return env;
}

/** A Python string literal (JSON's string syntax is valid Python for these ASCII paths). */
function py(value: string): string {
  return JSON.stringify(value);
}

export interface HubTimings {
  /** `project-startup jupyter install --user`. */
  installMs: number;
  /** From spawning jupyterhub until its API answered through the public proxy. */
  hubUpMs: number;
  /** From POST /hub/api/users/alice/server until /user/alice/api/status answered 200. */
  spawnMs: number;
}

export interface Hub {
  /** http://127.0.0.1:PUBLIC_PORT (the hub's public proxy). */
  publicUrl: string;
  ports: { public: number; proxyApi: number; hub: number };
  user: string;
  /** The single-user server's base URL, /user/alice/. */
  userBase: string;
  /** alice's API token (created through the hub API); send as `Authorization: token ...`. */
  userToken: string;
  /** The admin-scoped service token the test uses for the hub API. */
  serviceToken: string;
  /** alice's DummyAuthenticator password. */
  password: string;
  dirs: {
    root: string;
    hub: string;
    homes: string;
    home: string;
    jupyterConfig: string;
    jupyterData: string;
  };
  pids: { hub: number; proxy?: number; singleUser?: number };
  timings: HubTimings;
  /** The stack it ran on, its versions and the install route. */
  stackInfo: HubStackInfo;
  /** The install command's output, for the record. */
  installOutput: string;
  /** Everything the hub, its proxy, the single-user server, jupyter-server-proxy and the sidecar wrote (stdout and stderr). */
  logs(): string;
  /** One request to the hub API (through the public proxy) with the service token. */
  api(method: string, apiPath: string, body?: unknown): Promise<HttpAnswer>;
  /** SIGTERM to the hub, then SIGKILL to every group left; keeps the log; removes the directories. */
  stop(): Promise<void>;
}

const running = new Set<Hub>();

export interface HubOptions {
  user?: string;
  /** Extra Spawner.environment entries. */
  spawnerEnv?: Record<string, string>;
  /** Name of the log kept in test-artifacts/hub/ (default "hub"). */
  label?: string;
  /** Default 'debian-12'. */
  stack?: HubStack;
  /** Bound for the hub to come up and for the spawn (each; default 30 s). */
  timeoutMs?: number;
  /** More users the hub allows (spawned by the test, not here). */
  otherUsers?: string[];
  /** Python appended to jupyterhub_config.py, given what the stack runs (its Python, its root). */
  extraConfig?: (stack: HubStackInfo, dirs: Hub['dirs']) => string;
}

function hubConfig(options: {
  ports: { public: number; proxyApi: number; hub: number };
  dirs: Hub['dirs'];
  user: string;
  otherUsers: string[];
  spawnerEnv: Record<string, string>;
  singleUserCmd: string[];
  extraConfig: string;
}): string {
  const { ports, dirs, user, spawnerEnv, singleUserCmd } = options;
  const env = Object.entries(spawnerEnv)
    .map(([k, v]) => `    ${py(k)}: ${py(v)},`)
    .join('\n');
  return `# Generated by test/system/hub/hub.ts for one test run: a real JupyterHub on loopback.
import os

c = get_config()  # noqa

c.JupyterHub.ip = "127.0.0.1"
c.JupyterHub.port = ${ports.public}
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = ${ports.hub}
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:${ports.proxyApi}"
c.ConfigurableHTTPProxy.pid_file = ${py(path.join(dirs.hub, 'jupyterhub-proxy.pid'))}
c.ConfigurableHTTPProxy.command = [${py(CHP)}]
c.JupyterHub.db_url = ${py(`sqlite:///${path.join(dirs.hub, 'jupyterhub.sqlite')}`)}
c.JupyterHub.cookie_secret_file = ${py(path.join(dirs.hub, 'jupyterhub_cookie_secret'))}
c.JupyterHub.pid_file = ${py(path.join(dirs.hub, 'jupyterhub.pid'))}
c.JupyterHub.cleanup_servers = True
c.JupyterHub.cleanup_proxy = True
c.JupyterHub.last_activity_interval = 3600

c.JupyterHub.authenticator_class = "dummy"
c.DummyAuthenticator.password = os.environ["HUB_TEST_PASSWORD"]
c.Authenticator.allowed_users = {${[user, ...options.otherUsers].map(py).join(', ')}}

c.JupyterHub.spawner_class = "simple"
c.SimpleLocalProcessSpawner.home_dir_template = ${py(path.join(dirs.homes, '{username}'))}
c.Spawner.cmd = [${singleUserCmd.map(py).join(', ')}]
c.Spawner.args = ["--allow-root"]
c.Spawner.start_timeout = 30
c.Spawner.http_timeout = 30
c.Spawner.environment = {
${env}
}

c.JupyterHub.services = [
    {"name": "project-startup-test", "api_token": os.environ["HUB_TEST_SERVICE_TOKEN"]},
]
c.JupyterHub.load_roles = [
    {"name": "admin", "services": ["project-startup-test"]},
]
${options.extraConfig}`;
}

/** Debian 12's hub, jupyter_server 1.23 and Python; the operator's install command writes the proxy entry. */
function debian12Stack(root: string, dirs: Hub['dirs']): StackRun {
  const install = spawnSync(
    process.execPath,
    [BIN, 'jupyter', 'install', '--user'],
    {
      cwd: root,
      env: {
        PATH: '/usr/bin:/bin',
        HOME: path.join(root, 'operator-home'),
        LANG: 'C.UTF-8',
        JUPYTER_CONFIG_DIR: dirs.jupyterConfig,
        JUPYTER_DATA_DIR: dirs.jupyterData,
        PYTHONDONTWRITEBYTECODE: '1'
      },
      encoding: 'utf8',
      timeout: 30000
    }
  );
  const installOutput = `${install.stdout}${install.stderr}`;
  if (install.status !== 0) {
    throw new Error(
      `\`project-startup jupyter install --user\` failed (status ${install.status}, signal ${install.signal}):\n${installOutput}`
    );
  }
  const probe = spawnSync(
    PYTHON,
    [
      '-c',
      'import json, platform, jupyter_server, jupyterhub; print(json.dumps({"python": platform.python_version(), "jupyter_server": jupyter_server.__version__, "jupyterhub": jupyterhub.__version__}))'
    ],
    { encoding: 'utf8', timeout: 20000, env: { PATH: '/usr/bin:/bin' } }
  );
  return {
    stack: 'debian-12',
    install: 'command',
    versions: {
      ...(JSON.parse(probe.stdout) as Omit<HubStackInfo['versions'], 'node'>),
      node: process.versions.node
    },
    python: PYTHON,
    root: '',
    installOutput,
    singleUserCmd: [SINGLEUSER],
    path: '/usr/bin:/bin',
    serverProxyPythonPath: serverProxyLocation(PYTHON).pythonPath,
    spawnerEnv: {},
    command: argv => ({ command: argv[0], args: argv.slice(1) }),
    release: () => {}
  };
}

/**
 * Debian 13's hub 5.2, jupyter_server 2.15, Python 3.13 and Node 20 in the root of
 * .ci/trixie-root.sh; the single-user server runs from a venv holding this checkout's wheel,
 * whose entry point gives the proxy its `project` server. `root` is shared with the Debian 13
 * root at its own path, and so is the vendored jupyter-server-proxy 4.4.0.
 */
function debian13Stack(root: string): StackRun {
  const trixie = trixieRoot();
  const venv = trixieVenv(trixie, realStack().wheel);
  const shared = [root, VENDORED_SERVER_PROXY];
  const tmp = path.join(root, 'tmp');
  fs.mkdirSync(tmp, { mode: 0o700 });
  return {
    stack: 'debian-13',
    install: 'wheel',
    versions: venv.versions,
    python: venv.python,
    root: trixie,
    installOutput: venv.installOutput,
    singleUserCmd: [venv.python, '-m', 'jupyterhub.singleuser'],
    path: `${venv.bin}:/usr/bin:/bin`,
    serverProxyPythonPath: VENDORED_SERVER_PROXY,
    // The proxy's socket directories and the kernels' files go with the hub's directory, not
    // into the shared root's /tmp.
    spawnerEnv: { TMPDIR: tmp },
    command: argv => inTrixie(trixie, argv, shared),
    // Only the per-hub directory: the vendored one may be a mount point of another hub running now.
    release: () => forgetShared(trixie, [root])
  };
}

/** Brings up the hub, installs the project for the single-user servers, spawns the user's server. */
export async function startHub(options: HubOptions = {}): Promise<Hub> {
  const stack = options.stack ?? 'debian-12';
  if (stack === 'debian-12') {
    checkHubPrerequisites();
  }
  let release = () => {};
  const user = options.user ?? 'alice';
  const timeoutMs = options.timeoutMs ?? 30000;
  const label = options.label ?? 'hub';
  const root = fs.realpathSync(
    fs.mkdtempSync(path.join(os.tmpdir(), 'ps-hub-'))
  );
  const dirs = {
    root,
    hub: path.join(root, 'hub'),
    homes: path.join(root, 'home'),
    home: path.join(root, 'home', user),
    jupyterConfig: path.join(root, 'jupyter-config'),
    jupyterData: path.join(root, 'jupyter-data')
  };
  for (const dir of [
    dirs.hub,
    dirs.homes,
    dirs.jupyterConfig,
    dirs.jupyterData
  ]) {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  }
  let log = '';
  let stopped = false;
  let child: ChildProcess | undefined;
  let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  let exited: Promise<unknown> = Promise.resolve();
  const pids: Hub['pids'] = { hub: 0 };
  // Read through a function: the exit handler sets it, which TypeScript's narrowing cannot see.
  const exitState = () => exit;

  const readPid = (file: string): number | undefined => {
    try {
      const pid = Number(fs.readFileSync(file, 'utf8').trim());
      return Number.isInteger(pid) && pid > 0 ? pid : undefined;
    } catch {
      return undefined;
    }
  };

  const stop = async (): Promise<void> => {
    if (stopped) {
      return;
    }
    stopped = true;
    running.delete(hub);
    pids.proxy =
      pids.proxy ?? readPid(path.join(dirs.hub, 'jupyterhub-proxy.pid'));
    if (
      child &&
      exit === undefined &&
      pids.singleUser === undefined &&
      hub.publicUrl
    ) {
      // A start that failed half-way: learn the single-user server's PID while the hub can say.
      const model = await hub
        .api('GET', `users/${user}`)
        .catch(() => undefined);
      const pid = model?.json?.servers?.['']?.state?.pid;
      pids.singleUser = typeof pid === 'number' && pid > 0 ? pid : undefined;
    }
    if (child && exit === undefined) {
      // The hub stops its single-user servers and its proxy on SIGTERM (cleanup_servers/proxy).
      killGroup(pids.hub, 'SIGTERM');
      await within(exited, 10000);
    }
    // Whatever is left of the three process groups goes now (also after a failed start).
    for (const pid of [pids.hub, pids.singleUser, pids.proxy]) {
      killGroup(pid, 'SIGKILL');
    }
    if (child && exit === undefined) {
      await within(exited, 5000);
    }
    const deadline = Date.now() + 5000;
    while ([pids.singleUser, pids.proxy].some(alive) && Date.now() < deadline) {
      await delay(50);
    }
    fs.mkdirSync(HUB_ARTIFACTS, { recursive: true });
    fs.writeFileSync(
      path.join(HUB_ARTIFACTS, `${label}.log`),
      `# jupyterhub pid ${pids.hub}, proxy pid ${pids.proxy}, single-user pid ${pids.singleUser}; timings ${JSON.stringify(hub.timings)}\n${log}`
    );
    release();
    fs.rmSync(root, { recursive: true, force: true });
  };

  const hub: Hub = {
    publicUrl: '',
    ports: { public: 0, proxyApi: 0, hub: 0 },
    user,
    userBase: `/user/${user}/`,
    userToken: '',
    serviceToken: randomBytes(32).toString('hex'),
    password: randomBytes(16).toString('hex'),
    dirs,
    pids,
    timings: { installMs: 0, hubUpMs: 0, spawnMs: 0 },
    stackInfo: {
      stack,
      install: stack === 'debian-13' ? 'wheel' : 'command',
      versions: { python: '', jupyter_server: '', jupyterhub: '', node: '' },
      python: PYTHON,
      root: ''
    },
    installOutput: '',
    logs: () => log,
    api: (method, apiPath, body) =>
      httpRequest(`${hub.publicUrl}/hub/api/${apiPath}`, {
        method,
        headers: {
          authorization: `token ${hub.serviceToken}`,
          ...(body !== undefined ? { 'content-type': 'application/json' } : {})
        },
        body: body === undefined ? undefined : JSON.stringify(body)
      }),
    stop
  };
  running.add(hub);

  const fail = async (why: string): Promise<never> => {
    await stop();
    throw new Error(
      `JupyterHub ${why}.\n--- hub log (tail) ---\n${log.slice(-6000)}`
    );
  };

  try {
    // 1. The project, installed for the single-user servers the stack's way.
    const installStart = Date.now();
    const run =
      stack === 'debian-13' ? debian13Stack(root) : debian12Stack(root, dirs);
    release = run.release;
    hub.timings.installMs = Date.now() - installStart;
    hub.installOutput = run.installOutput;
    hub.stackInfo = {
      stack: run.stack,
      install: run.install,
      versions: run.versions,
      python: run.python,
      root: run.root
    };
    // 2. jupyter-server-proxy, enabled the way its own install enables it (the file its wheel ships).
    fs.mkdirSync(path.join(dirs.jupyterConfig, 'jupyter_server_config.d'), {
      recursive: true
    });
    fs.writeFileSync(
      path.join(
        dirs.jupyterConfig,
        'jupyter_server_config.d',
        'jupyter_server_proxy.json'
      ),
      `${JSON.stringify({ ServerApp: { jpserver_extensions: { jupyter_server_proxy: true } } }, null, 2)}\n`
    );

    // 3. The hub's configuration.
    const [publicPort, proxyApiPort, hubPort] = await freePorts(3);
    hub.ports = { public: publicPort, proxyApi: proxyApiPort, hub: hubPort };
    hub.publicUrl = `http://127.0.0.1:${publicPort}`;
    const spawnerEnv: Record<string, string> = {
      JUPYTER_CONFIG_DIR: dirs.jupyterConfig,
      JUPYTER_DATA_DIR: dirs.jupyterData,
      JUPYTER_PLATFORM_DIRS: '0',
      // Where jupyter-server-proxy is imported from when it is not installed (the vendored copy).
      ...(run.serverProxyPythonPath
        ? { PYTHONPATH: run.serverProxyPythonPath }
        : {}),
      PYTHONDONTWRITEBYTECODE: '1',
      // The sidecar inherits the single-user server's environment through the proxy.
      PROJECT_STARTUP_LOG_LEVEL: 'debug',
      PROJECT_STARTUP_LOCAL_RUNTIME_URL: CLOSED_URL,
      PROJECT_STARTUP_SERVING_RUNTIME_URL: CLOSED_URL,
      ...run.spawnerEnv,
      ...options.spawnerEnv
    };
    const configFile = path.join(dirs.hub, 'jupyterhub_config.py');
    fs.writeFileSync(
      configFile,
      hubConfig({
        ports: hub.ports,
        dirs,
        user,
        otherUsers: options.otherUsers ?? [],
        spawnerEnv,
        singleUserCmd: run.singleUserCmd,
        extraConfig: options.extraConfig?.(hub.stackInfo, dirs) ?? ''
      })
    );

    // 4. The hub, in its own process group; secrets reach it through its environment only.
    const env: Record<string, string> = {
      PATH: run.path,
      HOME: dirs.hub,
      LANG: 'C.UTF-8',
      NODE_PATH: DEBIAN_NODE_PATH,
      PYTHONDONTWRITEBYTECODE: '1',
      HUB_TEST_SERVICE_TOKEN: hub.serviceToken,
      HUB_TEST_PASSWORD: hub.password
    };
    const spawnedAt = Date.now();
    const hubCommand = run.command([PYTHON, JUPYTERHUB, '-f', configFile]);
    child = spawn(hubCommand.command, hubCommand.args, {
      cwd: dirs.hub,
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe']
    });
    pids.hub = child.pid as number;
    const append = (chunk: Buffer) => {
      log += chunk.toString('utf8');
      if (log.length > 4_000_000) {
        log = log.slice(-2_000_000);
      }
    };
    child.stdout?.on('data', append);
    child.stderr?.on('data', append);
    exited = new Promise(resolve => {
      (child as ChildProcess).once('exit', (code, signal) => {
        exit = { code, signal };
        resolve(exit);
      });
    });

    // 5. Up: the hub API answers through the public proxy (so the proxy has the hub's route).
    const upDeadline = spawnedAt + timeoutMs;
    for (;;) {
      const ended = exitState();
      if (ended !== undefined) {
        return await fail(
          `exited (code ${ended.code}, signal ${ended.signal}) before answering`
        );
      }
      if (Date.now() > upDeadline) {
        return await fail(
          `did not answer ${hub.publicUrl}/hub/api/ within ${timeoutMs} ms`
        );
      }
      const answer = await httpRequest(`${hub.publicUrl}/hub/api/`, {
        timeoutMs: 2000
      }).catch(() => undefined);
      if (answer?.status === 200 && typeof answer.json?.version === 'string') {
        break;
      }
      await delay(100);
    }
    hub.timings.hubUpMs = Date.now() - spawnedAt;
    pids.proxy = readPid(path.join(dirs.hub, 'jupyterhub-proxy.pid'));

    // 6. A user token for alice, through the hub API (the service is an admin).
    const created = await hub.api('POST', `users/${user}/tokens`, {
      note: 'project-startup hub test',
      expires_in: 3600
    });
    if (created.status !== 201 || typeof created.json?.token !== 'string') {
      return await fail(
        `did not create a token for ${user} (HTTP ${created.status}: ${created.text.slice(0, 500)})`
      );
    }
    hub.userToken = created.json.token as string;

    // 7. Spawn alice's server and wait until Jupyter answers through the hub's proxy.
    const spawnStart = Date.now();
    const spawned = await hub.api('POST', `users/${user}/server`);
    if (spawned.status !== 201 && spawned.status !== 202) {
      return await fail(
        `did not spawn ${user}'s server (HTTP ${spawned.status}: ${spawned.text.slice(0, 500)})`
      );
    }
    const spawnDeadline = spawnStart + timeoutMs;
    for (;;) {
      const ended = exitState();
      if (ended !== undefined) {
        return await fail(
          `exited (code ${ended.code}, signal ${ended.signal}) while spawning`
        );
      }
      if (Date.now() > spawnDeadline) {
        return await fail(
          `${user}'s server did not answer ${hub.userBase}api/status within ${timeoutMs} ms`
        );
      }
      const status = await httpRequest(
        `${hub.publicUrl}${hub.userBase}api/status`,
        {
          headers: { authorization: `token ${hub.userToken}` },
          timeoutMs: 2000
        }
      ).catch(() => undefined);
      if (status?.status === 200 && status.json?.started !== undefined) {
        break;
      }
      await delay(100);
    }
    hub.timings.spawnMs = Date.now() - spawnStart;

    // 8. The single-user server's PID, from the spawner's state (admin:server_state).
    const model = await hub.api('GET', `users/${user}`);
    const pid = model.json?.servers?.['']?.state?.pid;
    if (typeof pid !== 'number') {
      return await fail(
        `did not report the PID of ${user}'s server (HTTP ${model.status}: ${model.text.slice(0, 500)})`
      );
    }
    pids.singleUser = pid;
    return hub;
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * Another user of the same hub, with a server of their own on the same origin: created through
 * the hub API (an existing user may sign in with the DummyAuthenticator's password), the server
 * spawned and waited for (bounded). The hub stops it with the rest; `stop` stops it sooner.
 */
export async function spawnAnotherUser(
  hub: Hub,
  name: string,
  timeoutMs = 30000
): Promise<{ stop(): Promise<void> }> {
  const created = await hub.api('POST', `users/${name}`);
  if (created.status !== 201 && created.status !== 409) {
    throw new Error(
      `the hub did not create ${name} (HTTP ${created.status}: ${created.text.slice(0, 500)})`
    );
  }
  const spawned = await hub.api('POST', `users/${name}/server`);
  if (spawned.status !== 201 && spawned.status !== 202) {
    throw new Error(
      `the hub did not spawn ${name}'s server (HTTP ${spawned.status}: ${spawned.text.slice(0, 500)})`
    );
  }
  const stop = async () => {
    await hub.api('DELETE', `users/${name}/server`).catch(() => undefined);
  };
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const model = await hub.api('GET', `users/${name}`);
    if (model.json?.servers?.['']?.ready === true) {
      return { stop };
    }
    await delay(200);
  }
  await stop();
  throw new Error(`${name}'s server was not ready within ${timeoutMs} ms`);
}

export interface BrowserSession {
  /** name -> value, as a browser would hold them (paths ignored: one user, one test). */
  cookies: Map<string, string>;
  /** The Cookie header for a request. */
  header(): string;
  /** The Cookie header a browser sends to `requestPath`: only the cookies whose Path covers it. */
  headerFor(requestPath: string): string;
  /** The value of the cookie `name` set with a Path covering `requestPath`, the longest Path first. */
  cookieFor(name: string, requestPath: string): string | undefined;
  /** A navigation to `path` on the hub, following redirects, keeping the cookies it sets. */
  open(path: string): Promise<HttpAnswer>;
  /** Every redirect followed, for the record ("STATUS PATH"). */
  trail: string[];
}

/**
 * Signs in as a browser does: the hub's login form (DummyAuthenticator with its password), then
 * `target` (a path under the user's server), following the hub's OAuth redirects
 * (authorize -> oauth_callback) with a cookie jar, until an answer that is not a redirect.
 */
export async function browserLogin(
  hub: Hub,
  target: string
): Promise<{ session: BrowserSession; answer: HttpAnswer }> {
  const cookies = new Map<string, string>();
  /** `${path} ${name}` -> value: the jar as a browser keys it (one host here). */
  const jar = new Map<string, { name: string; path: string; value: string }>();
  const covering = (requestPath: string) =>
    [...jar.values()]
      .filter(
        c =>
          requestPath === c.path ||
          requestPath.startsWith(c.path.endsWith('/') ? c.path : `${c.path}/`)
      )
      .sort((a, b) => b.path.length - a.path.length);
  const session: BrowserSession = {
    cookies,
    header: () => [...cookies].map(([k, v]) => `${k}=${v}`).join('; '),
    headerFor: requestPath =>
      covering(requestPath)
        .map(c => `${c.name}=${c.value}`)
        .join('; '),
    cookieFor: (name, requestPath) =>
      covering(requestPath).find(c => c.name === name)?.value,
    open: () => Promise.reject(new Error('not signed in yet')),
    trail: []
  };
  const keep = (answer: HttpAnswer) => {
    for (const line of answer.headers['set-cookie'] ?? []) {
      const [pair, ...attributes] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired =
        attributes.some(a => /^\s*expires=Thu, 01 Jan 1970/i.test(a)) ||
        attributes.some(a => /^\s*max-age=0\s*$/i.test(a)) ||
        value === '' ||
        value === '""';
      const cookiePath =
        attributes
          .map(a => /^\s*path=(.*)$/i.exec(a)?.[1].trim())
          .find(a => a !== undefined) ?? '/';
      if (expired) {
        cookies.delete(name);
        jar.delete(`${cookiePath} ${name}`);
      } else {
        cookies.set(name, value);
        jar.set(`${cookiePath} ${name}`, { name, path: cookiePath, value });
      }
    }
  };
  // The form first, as a browser loads it: JupyterHub 4.1 and later refuse a login POST without
  // the form's _xsrf field and cookie (3.0 has neither and ignores them).
  const form = await httpRequest(`${hub.publicUrl}/hub/login`);
  keep(form);
  session.trail.push(`${form.status} GET /hub/login`);
  const xsrf = /name="_xsrf" value="([^"]+)"/.exec(form.text)?.[1];
  const login = await httpRequest(`${hub.publicUrl}/hub/login`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(cookies.size > 0 ? { cookie: session.header() } : {})
    },
    body: new URLSearchParams({
      username: hub.user,
      password: hub.password,
      ...(xsrf ? { _xsrf: xsrf } : {})
    }).toString()
  });
  keep(login);
  session.trail.push(`${login.status} POST /hub/login`);
  if (
    login.status !== 302 ||
    ![...cookies.keys()].some(name => name.startsWith('jupyterhub-hub-login'))
  ) {
    throw new Error(
      `the hub's login form did not sign ${hub.user} in (HTTP ${login.status})`
    );
  }
  session.open = async (path: string): Promise<HttpAnswer> => {
    let next = `${hub.publicUrl}${path}`;
    for (let hop = 0; hop < 10; hop += 1) {
      const answer = await httpRequest(next, {
        headers: { cookie: session.header() }
      });
      keep(answer);
      session.trail.push(`${answer.status} ${new URL(next).pathname}`);
      if (
        answer.status < 300 ||
        answer.status >= 400 ||
        !answer.headers.location
      ) {
        return answer;
      }
      next = new URL(answer.headers.location, next).toString();
    }
    throw new Error(`too many redirects: ${session.trail.join(' -> ')}`);
  };
  return { session, answer: await session.open(target) };
}

/** Stops every hub still running (for afterAll after a failure). */
export async function stopAllHubs(): Promise<void> {
  await Promise.all([...running].map(hub => hub.stop()));
}
