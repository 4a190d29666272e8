// The Python package as an operator installs it: the wheel built from this checkout
// (scripts/build-wheel.js), `python3 -m venv --system-site-packages`, `pip install --no-index
// --no-deps <wheel>` (or the real stack's venv, where real-stack-setup.js installed it), then
// `python -m jupyter_server` started from that venv's python with no configuration other than
// enabling jupyter-server-proxy. The real jupyter-server-proxy 4.x
// comes from an installed one where the python has it, else from ../shared/vendor/python (on
// PYTHONPATH, with PYTHONDONTWRITEBYTECODE=1 so nothing is written there): serverProxyLocation.
import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { serverProxyLocation, status } from '../e2e/helpers';
import { freePort, tempRoot } from '../../helpers/harness';
import { delay } from '../../helpers/wait';

export const REPO_ROOT = path.resolve(__dirname, '..', '..', '..');
export const PYTHON = '/usr/bin/python3';
export const ARTIFACTS = path.join(REPO_ROOT, 'test-artifacts', 'install');
export const PACKAGE_VERSION = (
  JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
    version: string;
  }
).version;
export const CLOSED_URL = 'http://127.0.0.1:9/';

/** What the tests need from the machine, with what to do when it is missing. */
export function checkPrerequisites(): void {
  const probe = spawnSync(
    PYTHON,
    ['-c', 'import jupyter_server, jupyterlab_server, build, hatchling, venv'],
    { encoding: 'utf8' }
  );
  if (probe.status !== 0) {
    throw new Error(
      `${PYTHON} lacks Jupyter or the Python build tools (${(probe.stderr || '').trim().split('\n').pop()}). Install the Debian packages with the apt step of .ci/run (python3-jupyter-server python3-jupyterlab-server python3-build python3-hatchling python3-pip python3-venv).`
    );
  }
  for (const built of [
    'jupyterlab_project_startup/labextension/package.json',
    'sidecar/dist/bundle/project-startup.js'
  ]) {
    if (!fs.existsSync(path.join(REPO_ROOT, built))) {
      throw new Error(
        `${built} is missing: run \`npm run build\` first (npm test does).`
      );
    }
  }
}

/** PYTHONPATH entries for the real jupyter-server-proxy: none when the python has one installed. */
export function serverProxyPath(python: string): string[] {
  const { pythonPath } = serverProxyLocation(python);
  return pythonPath ? [pythonPath] : [];
}

function run(
  command: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs: number }
): string {
  const result = spawnSync(command, args, {
    cwd: options.cwd ?? REPO_ROOT,
    env: options.env ?? { ...process.env, PYTHONDONTWRITEBYTECODE: '1' },
    encoding: 'utf8',
    timeout: options.timeoutMs
  });
  if (result.status !== 0) {
    throw new Error(
      `${command} ${args.join(' ')} failed (${result.error ? result.error.message : `exit ${result.status}`}):\n${result.stdout}\n${result.stderr}`
    );
  }
  return `${result.stdout}${result.stderr}`;
}

/** Builds the wheel from this checkout (npm's build must have run) into outDir; its path. */
export function buildWheel(outDir: string): string {
  const out = run(
    process.execPath,
    [
      path.join(REPO_ROOT, 'scripts', 'build-wheel.js'),
      '--skip-npm-build',
      '--python',
      PYTHON,
      '--out-dir',
      outDir
    ],
    {
      timeoutMs: 180000
    }
  );
  const wheel = out.trim().split('\n').pop() ?? '';
  if (!wheel.endsWith('.whl') || !fs.existsSync(wheel)) {
    throw new Error(`build-wheel.js did not print the wheel's path:\n${out}`);
  }
  return wheel;
}

/** The names in a wheel (a zip), read with Python's zipfile. */
export function wheelNames(wheel: string): string[] {
  return run(
    PYTHON,
    [
      '-c',
      'import sys, zipfile; print("\\n".join(zipfile.ZipFile(sys.argv[1]).namelist()))',
      wheel
    ],
    { timeoutMs: 30000 }
  )
    .trim()
    .split('\n');
}

/** A fresh venv over Debian's site-packages with the wheel installed as an operator would. */
export function installInVenv(wheel: string, venv: string): string {
  run(PYTHON, ['-m', 'venv', '--system-site-packages', venv], {
    timeoutMs: 120000
  });
  const python = path.join(venv, 'bin', 'python');
  run(
    python,
    [
      '-m',
      'pip',
      'install',
      '--no-index',
      '--no-deps',
      '--disable-pip-version-check',
      wheel
    ],
    { timeoutMs: 120000 }
  );
  return python;
}

export interface JupyterDirs {
  root: string;
  config: string;
  data: string;
  runtime: string;
  home: string;
  project: string;
  sidecarRuntime: string;
}

export interface Jupyter {
  base: string;
  baseUrl: string;
  token: string;
  pid: number;
  dirs: JupyterDirs;
  logs(): string;
  stop(): Promise<void>;
}

export interface JupyterOptions {
  python: string;
  baseUrl?: string;
  /** Enable jupyter-server-proxy and put it on PYTHONPATH (default true). */
  serverProxy?: boolean;
  /** PYTHONPATH entries instead of the proxy's. */
  pythonPath?: string[];
  /** PATH of the server (default /usr/bin:/bin, which has node). */
  path?: string;
  env?: Record<string, string>;
  label: string;
}

const running = new Set<Jupyter>();

/** Starts `<venv python> -m jupyter_server`; resolves once {base_url}api/status answers 200. */
export async function startJupyter(options: JupyterOptions): Promise<Jupyter> {
  const baseUrl = options.baseUrl ?? '/user/alice/';
  const root = tempRoot('ps-install-');
  const dirs: JupyterDirs = {
    root,
    config: path.join(root, 'config'),
    data: path.join(root, 'data'),
    runtime: path.join(root, 'runtime'),
    home: path.join(root, 'home'),
    project: path.join(root, 'project'),
    sidecarRuntime: path.join(root, 'sidecar-runtime')
  };
  for (const dir of Object.values(dirs)) {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  }
  const token = randomBytes(24).toString('hex');
  const serverProxy = options.serverProxy ?? true;
  const pythonPath =
    options.pythonPath ?? (serverProxy ? serverProxyPath(options.python) : []);
  const env: Record<string, string> = {
    PATH: options.path ?? '/usr/bin:/bin',
    HOME: dirs.home,
    LANG: 'C.UTF-8',
    PYTHONDONTWRITEBYTECODE: '1',
    ...(pythonPath.length > 0
      ? { PYTHONPATH: pythonPath.join(path.delimiter) }
      : {}),
    JUPYTER_TOKEN: token,
    JUPYTER_CONFIG_DIR: dirs.config,
    JUPYTER_DATA_DIR: dirs.data,
    JUPYTER_RUNTIME_DIR: dirs.runtime,
    JUPYTER_PLATFORM_DIRS: '0',
    // For the sidecar the proxy launches (it inherits the server's environment).
    PROJECT_STARTUP_RUNTIME_DIR: dirs.sidecarRuntime,
    PROJECT_STARTUP_LOCAL_RUNTIME_URL: CLOSED_URL,
    PROJECT_STARTUP_SERVING_RUNTIME_URL: CLOSED_URL,
    ...options.env
  };
  const port = await freePort();
  const args = [
    '-m',
    'jupyter_server',
    '--ServerApp.ip=127.0.0.1',
    `--ServerApp.port=${port}`,
    '--ServerApp.port_retries=50',
    '--ServerApp.allow_root=True',
    '--ServerApp.open_browser=False',
    `--ServerApp.base_url=${baseUrl}`,
    `--ServerApp.root_dir=${dirs.project}`,
    // The only configuration: enable jupyter-server-proxy (its own wheel ships this as a file).
    ...(serverProxy
      ? ['--ServerApp.jpserver_extensions=jupyter_server_proxy=True']
      : [])
  ];
  const child: ChildProcess = spawn(options.python, args, {
    cwd: dirs.project,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe']
  });
  let log = '';
  const append = (chunk: Buffer) => {
    log = (log + chunk.toString('utf8')).slice(-1_000_000);
  };
  child.stdout?.on('data', append);
  child.stderr?.on('data', append);
  let exited = false;
  const exit = new Promise<void>(resolve =>
    child.once('exit', () => ((exited = true), resolve()))
  );
  const pid = child.pid as number;
  const killGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-pid, signal);
    } catch {
      // already gone
    }
  };
  let stopped = false;
  const jupyter: Jupyter = {
    base: '',
    baseUrl,
    token,
    pid,
    dirs,
    logs: () => log,
    stop: async () => {
      if (stopped) {
        return exit;
      }
      stopped = true;
      running.delete(jupyter);
      killGroup('SIGTERM');
      const timer = setTimeout(() => killGroup('SIGKILL'), 10000);
      await exit;
      clearTimeout(timer);
      killGroup('SIGKILL'); // anything the server left in its group
      fs.mkdirSync(ARTIFACTS, { recursive: true });
      fs.writeFileSync(path.join(ARTIFACTS, `${options.label}.log`), log);
      fs.rmSync(root, { recursive: true, force: true });
    }
  };
  running.add(jupyter);
  const deadline = Date.now() + 30000;
  const infoFile = path.join(dirs.runtime, `jpserver-${pid}.json`);
  let bound = 0;
  while (bound === 0) {
    if (exited || Date.now() > deadline) {
      await jupyter.stop();
      throw new Error(
        `the Jupyter server ${exited ? 'exited' : 'did not listen within 30 s'}:\n${log.slice(-4000)}`
      );
    }
    try {
      bound = (
        JSON.parse(fs.readFileSync(infoFile, 'utf8')) as { port: number }
      ).port;
    } catch {
      await delay(50);
    }
  }
  jupyter.base = `http://127.0.0.1:${bound}${baseUrl}`;
  // jupyter_server 2 writes jpserver-<pid>.json before it listens (it binds in a callback of the
  // IO loop that starts after the file is written), so a request sent as soon as the file is
  // there can be refused: it answers once api/status does (what startLabServer waits for too).
  while (
    (await status(`${jupyter.base}api/status`, {
      authorization: `token ${token}`
    })) !== 200
  ) {
    if (exited || Date.now() > deadline) {
      await jupyter.stop();
      throw new Error(
        `the Jupyter server ${exited ? 'exited' : `did not answer ${jupyter.base}api/status within 30 s`}:\n${log.slice(-4000)}`
      );
    }
    await delay(50);
  }
  return jupyter;
}

/**
 * Waits (at most timeoutMs) until the server's output matches: a line logged before the server
 * listens may still be in the pipe when the test reads the log.
 */
export async function logged(
  j: Jupyter,
  pattern: RegExp | string,
  timeoutMs = 5000
): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  const matches = () =>
    typeof pattern === 'string'
      ? j.logs().includes(pattern)
      : pattern.test(j.logs());
  while (!matches() && Date.now() < deadline) {
    await delay(50);
  }
  return j.logs();
}

export async function stopAllJupyters(): Promise<void> {
  await Promise.all([...running].map(j => j.stop()));
}

/** Runs the venv's python with the server's environment (for `jupyter server extension list`). */
export function runPython(
  python: string,
  args: string[],
  env: Record<string, string>
): { status: number | null; output: string } {
  const result = spawnSync(python, args, {
    env,
    encoding: 'utf8',
    timeout: 60000,
    cwd: REPO_ROOT
  });
  // ANSI colours (the extension list's green "enabled") are dropped.
  // eslint-disable-next-line no-control-regex -- ESC starts every ANSI colour sequence
  const ansiColour = /\u001b\[[0-9;]*m/g;
  return {
    status: result.status,
    output: `${result.stdout}${result.stderr}`.replace(ansiColour, '')
  };
}
