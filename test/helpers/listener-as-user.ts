// A real listener of the security suites' impostors and recorders: a /usr/bin/python3 script run
// as a chosen uid through setpriv (needs root, as CI runs): uid 65534 is another user, 0 is
// this one. The script appends every request it receives to a log file and prints one line
// (its port, or that it listens) once it listens.
import { ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** Another user than the one running the tests (nobody). */
export const OTHER_UID = 65534;

/** `/usr/bin/python3 -c script ...args` as `uid` (its group, no supplementary groups), in /, with PATH only. */
export function spawnPythonAs(
  uid: number,
  script: string,
  args: string[]
): ChildProcess {
  return spawn(
    '/usr/bin/setpriv',
    [
      '--reuid',
      String(uid),
      '--regid',
      String(uid),
      '--clear-groups',
      '/usr/bin/python3',
      '-c',
      script,
      ...args
    ],
    {
      cwd: '/',
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: '/usr/bin:/bin' }
    }
  );
}

/** For a test file: spawnPythonAs, and every listener it started is killed (SIGKILL) after each test. */
export function trackedPythonAs(): typeof spawnPythonAs {
  const started: ChildProcess[] = [];
  afterEach(() => {
    for (const child of started.splice(0)) {
      child.kill('SIGKILL');
    }
  });
  return (uid, script, args) => {
    const child = spawnPythonAs(uid, script, args);
    started.push(child);
    return child;
  };
}

/**
 * What a listener prints first (on stdout), once it listens. Rejects when it exits first (with
 * its stderr) or says nothing within 10 s; `what` names it in the error.
 */
export function firstOutput(
  child: ChildProcess,
  what: string
): Promise<string> {
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${what} did not listen within 10 s`)),
      10000
    );
    child.stdout?.once('data', (chunk: Buffer) => {
      clearTimeout(timer);
      resolve(chunk.toString().trim());
    });
    child.once('exit', code => {
      clearTimeout(timer);
      reject(new Error(`${what} exited (${code}): ${stderr}`));
    });
  });
}

/**
 * For a test file's listeners: a maker of log files, each `received.log` (0600, owned by the uid
 * given) in a fresh temporary directory `prefix`XXXXXX (0755, so that uid reaches it). The
 * directories (each with a file another user may own) are removed after the file (afterAll).
 */
export function trackedListenerLogs(prefix: string): (uid: number) => string {
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs.splice(0)) {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
  return uid => {
    const logDir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
    dirs.push(logDir);
    fs.chmodSync(logDir, 0o755);
    const log = path.join(logDir, 'received.log');
    fs.writeFileSync(log, '', { mode: 0o600 });
    fs.chownSync(log, uid, uid);
    return log;
  };
}
