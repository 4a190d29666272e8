// Runs the real `project-startup` command (bin/project-startup.js -> sidecar/dist/cli/main.js) as
// child processes with an explicit environment: nothing of the developer's environment is
// inherited. Every child is tracked so a test's afterEach can kill what a failure left behind.
import { ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CLOSED_URL, tempRoot } from './harness';

export const REPO_ROOT = path.resolve(__dirname, '..', '..');
export const BIN = path.join(REPO_ROOT, 'bin', 'project-startup.js');

/** A temporary root with a home, an (empty) bin directory, a runtime directory and a project. */
export interface CliSandbox {
  root: string;
  home: string;
  /** An empty directory used as PATH: no scheduler client (squeue, qstat...) can be found. */
  bin: string;
  runtimeDir: string;
  projectDir: string;
  /** HOME, PATH, PROJECT_STARTUP_RUNTIME_DIR and both runtime URLs pointing at CLOSED_URL. */
  env: Record<string, string>;
  remove(): void;
}

export function makeSandbox(projectName = 'project'): CliSandbox {
  const root = tempRoot('ps-cli-');
  const home = path.join(root, 'home');
  const bin = path.join(root, 'bin');
  const runtimeDir = path.join(root, 'run');
  const projectDir = path.join(root, projectName);
  fs.mkdirSync(home);
  fs.mkdirSync(bin);
  fs.mkdirSync(projectDir, { recursive: true });
  return {
    root,
    home,
    bin,
    runtimeDir,
    projectDir,
    env: {
      HOME: home,
      PATH: bin,
      PROJECT_STARTUP_RUNTIME_DIR: runtimeDir,
      PROJECT_STARTUP_LOCAL_RUNTIME_URL: CLOSED_URL,
      PROJECT_STARTUP_SERVING_RUNTIME_URL: CLOSED_URL
    },
    remove: () => fs.rmSync(root, { recursive: true, force: true })
  };
}

export interface RunResult {
  /** Exit code, or null when the child was killed by a signal. */
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** True when the kill timeout fired. */
  timedOut: boolean;
}

export interface RunOptions {
  env: Record<string, string>;
  cwd: string;
  /** Written to stdin, which is then closed. Default: stdin is closed at once (end of input). */
  input?: string;
  /** SIGKILL after this long (default 10 s). */
  timeoutMs?: number;
}

const live = new Set<ChildProcess>();

function track(
  child: ChildProcess
): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  live.add(child);
  return new Promise(resolve => {
    child.once('close', (code, signal) => {
      live.delete(child);
      resolve({ code, signal });
    });
    child.once('error', () => {
      live.delete(child);
      resolve({ code: null, signal: null });
    });
  });
}

/** Runs any executable to completion with piped stdio and a kill timeout. */
export async function runProcess(
  file: string,
  args: readonly string[],
  options: RunOptions
): Promise<RunResult> {
  const child = spawn(file, args, {
    cwd: options.cwd,
    env: options.env,
    stdio: ['pipe', 'pipe', 'pipe']
  });
  const exited = track(child);
  let stdout = '';
  let stderr = '';
  child.stdout
    ?.setEncoding('utf8')
    .on('data', (chunk: string) => (stdout += chunk));
  child.stderr
    ?.setEncoding('utf8')
    .on('data', (chunk: string) => (stderr += chunk));
  child.stdin?.on('error', () => undefined); // the child may exit before reading
  child.stdin?.end(options.input);
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, options.timeoutMs ?? 10000);
  const { code, signal } = await exited;
  clearTimeout(timer);
  return { code, signal, stdout, stderr, timedOut };
}

/** The helper that gives a command a pseudo-terminal as stdin (see tty-stdin.py). */
export const TTY_STDIN = path.join(__dirname, 'tty-stdin.py');

/**
 * Runs `project-startup ...args` with its stdin a TTY, `input` typed into it, as a person at a
 * terminal answers (stdout and stderr stay separate pipes).
 */
export function runCliInTty(
  args: readonly string[],
  options: RunOptions
): Promise<RunResult> {
  return runProcess(
    '/usr/bin/python3',
    [TTY_STDIN, process.execPath, BIN, ...args],
    {
      ...options,
      env: { PYTHONDONTWRITEBYTECODE: '1', ...options.env }
    }
  );
}

/** Runs `project-startup ...args` with node to completion. */
export function runCli(
  args: readonly string[],
  options: RunOptions
): Promise<RunResult> {
  return runProcess(process.execPath, [BIN, ...args], options);
}

export interface ServeHandle {
  child: ChildProcess;
  /** The address after "Listening:" (http://127.0.0.1:PORT/project/); '' on a Unix socket. */
  url: string;
  /** NaN on a Unix socket. */
  port: number;
  /** The socket path after "Listening: unix socket", when serving on one. */
  socket?: string;
  stdout(): string;
  stderr(): string;
  /** SIGTERM, then wait for the exit (SIGKILL after the timeout). */
  stop(timeoutMs?: number): Promise<{
    code: number | null;
    signal: NodeJS.Signals | null;
    timedOut: boolean;
  }>;
}

export interface ServeOptions {
  env: Record<string, string>;
  cwd: string;
  /** How long to wait for the "Listening:" line (default 10 s). */
  timeoutMs?: number;
  /**
   * A command that runs the node command line given as its arguments, e.g.
   * ['bash', '-c', 'ulimit -n 256 && exec "$0" "$@"'] (it must exec, keeping the process id).
   */
  wrapper?: readonly string[];
  /**
   * What node runs in place of `bin/project-startup.js serve`, e.g. [CRASH_AT_STEP, 'serve', step] (the
   * crash-safety tests' entry, which runs serve itself); the args follow it.
   */
  program?: readonly string[];
}

/** The crash-safety tests' entry: `serve` or `init` with a hook that SIGKILLs the process at a step. */
export const CRASH_AT_STEP = path.join(__dirname, 'crash-at-step.js');

/**
 * A stress knob for finding timing assumptions in the tests: PROJECT_STARTUP_TEST_SERVE_NICE=19
 * runs every service the helpers start (startServe here, the Jupyter server of the browser
 * suites) at that niceness, so on a busy machine it lags behind the test that drives it (as it
 * may on a loaded CI machine). Off by default. A prefix for the command line: nice execs it.
 */
export function starvedServe(): string[] {
  const nice = process.env.PROJECT_STARTUP_TEST_SERVE_NICE;
  return nice !== undefined &&
    /^\d{1,2}$/.test(nice) &&
    fs.existsSync('/usr/bin/nice')
    ? ['/usr/bin/nice', '-n', nice]
    : [];
}

/**
 * How long startServe waits for "Listening:": a bound for a hung start, not an expectation. A
 * start takes a fraction of a second, but a service at niceness 19 beside busy processes (the
 * knob above, or a loaded CI machine) can wait many seconds for the CPU.
 */
const SERVE_START_BOUND_MS = 60000;

/** Starts `project-startup serve ...args` and resolves once it prints its "Listening:" line. */
export function startServe(
  args: readonly string[],
  options: ServeOptions
): Promise<ServeHandle> {
  const [file, ...fileArgs] = [
    ...starvedServe(),
    ...(options.wrapper ?? []),
    process.execPath,
    ...(options.program ?? [BIN, 'serve']),
    ...args
  ];
  const child = spawn(file, fileArgs, {
    cwd: options.cwd,
    env: options.env,
    stdio: ['pipe', 'pipe', 'pipe']
  });
  const exited = track(child);
  let stdout = '';
  let stderr = '';
  child.stdout
    ?.setEncoding('utf8')
    .on('data', (chunk: string) => (stdout += chunk));
  child.stderr
    ?.setEncoding('utf8')
    .on('data', (chunk: string) => (stderr += chunk));
  child.stdin?.on('error', () => undefined);

  const stop: ServeHandle['stop'] = async (timeoutMs = 10000) => {
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
    }
    const result = await exited;
    clearTimeout(timer);
    return { ...result, timedOut };
  };

  return new Promise<ServeHandle>((resolve, reject) => {
    let settled = false;
    const finish = (error?: Error, handle?: ServeHandle) => {
      if (settled) {
        return;
      }
      settled = true;
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      if (error) {
        reject(error);
      } else {
        resolve(handle as ServeHandle);
      }
    };
    const onData = () => {
      const match =
        /^(?:\[I [^\]]* ProjectStartup\] )?Listening: (?:(http:\/\/[^\s]+)|unix socket (.+))$/m.exec(
          stdout
        );
      if (match) {
        const url = match[1] ?? '';
        finish(undefined, {
          child,
          url,
          port: match[1] === undefined ? NaN : Number(new URL(url).port),
          ...(match[2] === undefined ? {} : { socket: match[2] }),
          stdout: () => stdout,
          stderr: () => stderr,
          stop
        });
      }
    };
    child.stdout?.on('data', onData);
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      finish(
        new Error(
          `serve printed no "Listening:" line within ${options.timeoutMs ?? SERVE_START_BOUND_MS} ms\nstdout: ${stdout}\nstderr: ${stderr}`
        )
      );
    }, options.timeoutMs ?? SERVE_START_BOUND_MS);
    void exited.then(({ code, signal }) =>
      finish(
        new Error(
          `serve exited (code ${code}, signal ${signal}) before listening\nstdout: ${stdout}\nstderr: ${stderr}`
        )
      )
    );
  });
}

/** Kills every child still running (for afterEach/afterAll) and waits for them to go. */
export async function killAllChildren(): Promise<void> {
  const children = [...live];
  await Promise.all(
    children.map(
      child =>
        new Promise<void>(resolve => {
          if (child.exitCode !== null || child.signalCode !== null) {
            live.delete(child);
            resolve();
            return;
          }
          const timer = setTimeout(resolve, 5000);
          child.once('close', () => {
            clearTimeout(timer);
            resolve();
          });
          child.kill('SIGKILL');
        })
    )
  );
}

/**
 * Sandboxes for the test file (or describe block) this is called in: returns a function that
 * makes one, and registers an afterEach that kills every child still running and then removes
 * the sandboxes made during the test, and an afterAll that kills any child left.
 */
export function trackedSandboxes(): (projectName?: string) => CliSandbox {
  const made: CliSandbox[] = [];
  afterEach(async () => {
    await killAllChildren();
    for (const s of made.splice(0)) {
      s.remove();
    }
  });
  afterAll(killAllChildren);
  return projectName => {
    const s = makeSandbox(projectName);
    made.push(s);
    return s;
  };
}

/** Every regular file below `dir` (not following links), path -> content. */
export function readAllFiles(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (p: string) => {
    let stat: fs.Stats;
    try {
      stat = fs.lstatSync(p);
    } catch {
      return;
    }
    if (stat.isDirectory()) {
      for (const name of fs.readdirSync(p).sort()) {
        walk(path.join(p, name));
      }
    } else if (stat.isFile()) {
      out[p] = fs.readFileSync(p, 'utf8');
    }
  };
  walk(dir);
  return out;
}

/**
 * Every path below `dir` (relative, sorted; "/" after directories, "@" after symbolic links,
 * which are not followed), for "nothing was created" checks. An empty directory gives [].
 */
export function listTree(dir: string): string[] {
  const out: string[] = [];
  const walk = (p: string) => {
    let stat: fs.Stats;
    try {
      stat = fs.lstatSync(p);
    } catch {
      return;
    }
    const rel = path.relative(dir, p);
    if (rel !== '') {
      out.push(
        stat.isDirectory() ? `${rel}/` : stat.isSymbolicLink() ? `${rel}@` : rel
      );
    }
    if (stat.isDirectory()) {
      for (const name of fs.readdirSync(p).sort()) {
        walk(path.join(p, name));
      }
    }
  };
  walk(dir);
  return out;
}

/** Signs of a JavaScript stack trace or of the tool's own source paths in output. */
export function looksLikeStack(text: string): boolean {
  return (
    /\n\s+at\s/.test(text) ||
    /sidecar\/(dist|src)\//.test(text) ||
    /node:internal/.test(text)
  );
}

/**
 * The log a test's PATH shim or stand-in writes: one `start <pid>` line when a run begins and
 * one `end <pid>` line when it ends (`echo "start $$" >> LOG`). Created empty.
 */
export interface RunLog {
  file: string;
  /** Runs begun so far. */
  starts(): number;
  /** Runs ended so far. */
  ends(): number;
  /** The most runs at the same time, from the order of the lines. */
  mostAtOnce(): number;
}

export function runLog(file: string): RunLog {
  fs.writeFileSync(file, '');
  const lines = () => fs.readFileSync(file, 'utf8').split('\n').filter(Boolean);
  return {
    file,
    starts: () => lines().filter(l => l.startsWith('start ')).length,
    ends: () => lines().filter(l => l.startsWith('end ')).length,
    mostAtOnce: () => {
      let now = 0;
      let most = 0;
      for (const line of lines()) {
        now += line.startsWith('start ') ? 1 : -1;
        most = Math.max(most, now);
      }
      return most;
    }
  };
}
