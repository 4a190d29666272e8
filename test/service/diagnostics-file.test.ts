// `project-startup serve` reporting to PROJECT_STARTUP_DIAGNOSTICS_FILE, which the Python
// package's proxy entry sets and its diagnostics route reads: "running" with the pid once
// listening; "failed" with the message it printed, the exit code and its last stderr lines when
// start-up fails; written atomically with mode 0600; nothing written when the variable is unset.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  BIN,
  killAllChildren,
  makeSandbox,
  runCli,
  startServe,
  CliSandbox
} from '../helpers/cli';
import { delay } from '../helpers/wait';
import {
  LOG_TAIL_LINES,
  StderrTail
} from '../../sidecar/src/files/diagnostics-file';

let box: CliSandbox;

beforeEach(() => {
  box = makeSandbox();
});

afterEach(async () => {
  await killAllChildren();
  box.remove();
});

function readReport(file: string): Record<string, unknown> {
  expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  return JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
}

it('running: the pid and time once listening, in a 0600 file with no temporary left', async () => {
  const file = path.join(box.root, 'diag', 'project-startup-1.json');
  fs.mkdirSync(path.dirname(file));
  const served = await startServe(['--port', '0'], {
    cwd: box.projectDir,
    env: { ...box.env, PROJECT_STARTUP_DIAGNOSTICS_FILE: file }
  });
  const report = readReport(file);
  expect(report).toEqual({
    state: 'running',
    pid: served.child.pid,
    at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    // The site file in use, or none and where the service looked (the diagnostics route says so).
    siteConfig: {
      file: null,
      looked: expect.arrayContaining([
        path.join(box.home, '.jupyter', 'project-startup.json'),
        '/etc/jupyter/project-startup.json'
      ])
    }
  });
  expect(fs.readdirSync(path.dirname(file))).toEqual([
    'project-startup-1.json'
  ]);
  expect((await served.stop()).code).toBe(0);
});

it('failed: a setting that stops start-up gives its own message, the exit code and the stderr lines', async () => {
  const file = path.join(box.root, 'report.json');
  const result = await runCli(['serve', '--port', '0'], {
    cwd: box.projectDir,
    env: {
      ...box.env,
      PROJECT_STARTUP_DIAGNOSTICS_FILE: file,
      PROJECT_STARTUP_PLATFORM: 'nonsense'
    }
  });
  expect(result.code).toBe(2);
  const message =
    'PROJECT_STARTUP_PLATFORM must be one of generic, hosted-notebook, cluster; it is set to an unknown value. Unset it to select the platform from evidence.';
  expect(result.stderr).toBe(`project-startup: ${message}\n`);
  expect(readReport(file)).toEqual({
    state: 'failed',
    at: expect.any(String),
    exitCode: 2,
    lastError: message,
    logTail: [`project-startup: ${message}`]
  });
});

it('failed: a wrong option is reported with its usage hint; a socket that cannot be made, with the log lines before it', async () => {
  const file = path.join(box.root, 'report.json');
  const usage = await runCli(['serve', '--no-such-option'], {
    cwd: box.projectDir,
    env: { ...box.env, PROJECT_STARTUP_DIAGNOSTICS_FILE: file }
  });
  expect(usage.code).toBe(2);
  const first = readReport(file);
  expect(first).toMatchObject({ state: 'failed', exitCode: 2 });
  expect(first.lastError).toMatch(
    /no-such-option[\s\S]*Run `project-startup --help` for usage\./
  );

  const socket = path.join(box.root, 'no-such-dir', 'deeper', 'socket');
  const failed = await runCli(['serve', '--unix-socket', socket], {
    cwd: box.projectDir,
    env: { ...box.env, PROJECT_STARTUP_DIAGNOSTICS_FILE: file }
  });
  expect(failed.code).not.toBe(0);
  const second = readReport(file);
  expect(second).toMatchObject({ state: 'failed', exitCode: failed.code });
  expect(typeof second.lastError).toBe('string');
  expect((second.lastError as string).length).toBeGreaterThan(0);
  expect(failed.stderr).toContain((second.lastError as string).split('\n')[0]);
  expect(second.logTail).toEqual(
    failed.stderr.trimEnd().split('\n').slice(-LOG_TAIL_LINES)
  );
});

it('behind the proxy: the Unix socket it answers on, running or misconfigured (with its pid)', async () => {
  const file = path.join(box.root, 'report.json');
  const socket = path.join(box.root, 'nb.sock');
  const proxyFlags = ['--ingress', 'notebook-server-proxy', '--unix-socket'];
  const served = await startServe([...proxyFlags, socket], {
    cwd: box.projectDir,
    env: { ...box.env, PROJECT_STARTUP_DIAGNOSTICS_FILE: file }
  });
  expect(readReport(file)).toMatchObject({
    state: 'running',
    pid: served.child.pid,
    socket
  });
  expect((await served.stop()).code).toBe(0);

  // A refused setting keeps the process answering `misconfigured` on the same socket.
  fs.rmSync(file);
  const misconfigured = spawn(
    process.execPath,
    [BIN, 'serve', ...proxyFlags, socket],
    {
      cwd: box.projectDir,
      env: {
        ...box.env,
        PROJECT_STARTUP_DIAGNOSTICS_FILE: file,
        PROJECT_STARTUP_PLATFORM: 'nonsense'
      },
      stdio: 'ignore'
    }
  );
  try {
    for (let i = 0; i < 200 && !fs.existsSync(file); i += 1) {
      await delay(50);
    }
    expect(readReport(file)).toMatchObject({
      state: 'failed',
      exitCode: 2,
      socket,
      pid: misconfigured.pid
    });
  } finally {
    misconfigured.kill('SIGKILL');
  }
});

it('unset: nothing is written anywhere', async () => {
  const result = await runCli(['serve', '--port', '0'], {
    cwd: box.projectDir,
    env: { ...box.env, PROJECT_STARTUP_PLATFORM: 'nonsense' }
  });
  expect(result.code).toBe(2);
  expect(fs.readdirSync(box.root).sort()).toEqual(['bin', 'home', 'project']);
});

it('an unwritable report path never stops the service', async () => {
  const file = path.join(box.root, 'missing-dir', 'report.json');
  const served = await startServe(['--port', '0'], {
    cwd: box.projectDir,
    env: { ...box.env, PROJECT_STARTUP_DIAGNOSTICS_FILE: file }
  });
  expect(fs.existsSync(path.dirname(file))).toBe(false);
  expect((await served.stop()).code).toBe(0);
});

describe('StderrTail', () => {
  it('passes writes through and keeps the last lines, partial lines included', () => {
    const written: string[] = [];
    const target = {
      write: (chunk: string) => (written.push(chunk), true),
      columns: 80
    } as unknown as NodeJS.WritableStream;
    const tail = new StderrTail(target);
    for (let i = 0; i < LOG_TAIL_LINES + 5; i++) {
      tail.stream.write(`line ${i}\n`);
    }
    const mark = tail.count;
    tail.stream.write('last one\nunfinished');
    expect(written).toHaveLength(LOG_TAIL_LINES + 6);
    expect(tail.lines()).toHaveLength(LOG_TAIL_LINES);
    expect(tail.lines().slice(-2)).toEqual(['last one', 'unfinished']);
    expect(tail.linesSince(mark)).toEqual(['last one', 'unfinished']);
    expect((tail.stream as unknown as { columns: number }).columns).toBe(80);
  });
});
