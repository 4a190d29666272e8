// `serve --unix-socket PATH` listens before the service is loaded (sidecar/src/http/listen-first.ts):
// jupyter-server-proxy's readiness check connects while the service is still being built, and
// must get the service's answer, not a refusal or a dropped connection. The early listener in
// this process and the service it hands over to, then the real command line:
//
// - a request sent on a connection made before the service existed is answered by the service,
//   and so is one made after; the name is the service's socket from then on (0600), and stopping
//   the service removes it;
// - a refused setting (served `misconfigured`) answers the connection that waited;
// - the service asked for another path closes the early socket and removes its name;
// - at most PENDING_MAX connections wait: the ones beyond are closed, the rest answered;
// - a process that ends before the service takes over leaves no socket behind, also when a
//   signal ends it (and the signal still ends it), and the command line still reports a live
//   socket at the path as before.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import {
  EarlyListener,
  listenFirst,
  PENDING_MAX
} from '../../sidecar/src/http/listen-first';
import {
  misconfiguredProblem,
  serveMisconfigured
} from '../../sidecar/src/http/misconfigured';
import {
  CliSandbox,
  killAllChildren,
  REPO_ROOT,
  RunResult,
  runCli,
  trackedSandboxes
} from '../helpers/cli';
import { tempRoot, TestService, trackedServices } from '../helpers/harness';
import {
  Exchange,
  exchange,
  parseResponse,
  rawHttp
} from './reliability/support';

jest.setTimeout(30000);

const start = trackedServices('each');
const sandbox = trackedSandboxes();
const roots: string[] = [];
const earlies: EarlyListener[] = [];
afterEach(() => {
  killAllChildren();
  for (const early of earlies.splice(0)) {
    early.close();
  }
  for (const root of roots.splice(0)) {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

const BASE = '/user/alice/';

function socketDir(): string {
  const root = tempRoot('ps-lf-');
  roots.push(root);
  return root;
}

async function listenEarly(
  socketPath: string,
  args: string[] = []
): Promise<EarlyListener> {
  const early = await listenFirst(
    [
      '--ingress',
      'notebook-server-proxy',
      '--unix-socket',
      socketPath,
      ...args
    ],
    path.dirname(socketPath)
  );
  if (early === undefined) {
    throw new Error(`listenFirst did not listen on ${socketPath}`);
  }
  earlies.push(early);
  return early;
}

const healthRequest = rawHttp('GET', `${BASE}project/health`, [
  ['Host', '127.0.0.1:8888'],
  ['Connection', 'close']
]);

/**
 * A request on a connection that is open (connected) when this resolves; `answer` is what
 * comes back, once the connection closes (at most 10 s).
 */
async function requestWaiting(
  socketPath: string
): Promise<{ answer: Promise<Exchange> }> {
  const socket = net.connect({ path: socketPath });
  const chunks: Buffer[] = [];
  const timer = setTimeout(() => socket.destroy(), 10000);
  socket.on('data', chunk => chunks.push(chunk));
  socket.on('error', () => undefined);
  const answer = new Promise<Exchange>(resolve =>
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(parseResponse(Buffer.concat(chunks)));
    })
  );
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('error', reject);
  });
  socket.write(healthRequest);
  return { answer };
}

/** The service as the proxy's entry starts it, taking over `early`'s socket. */
function serviceTakingOver(
  socketPath: string,
  early: EarlyListener
): Promise<TestService> {
  return start({
    env: { PROJECT_STARTUP_PLATFORM: 'generic' },
    serve: {
      ingress: 'notebook-server-proxy',
      unixSocket: socketPath,
      baseUrl: BASE
    },
    listeningFirst: early
  });
}

function inode(file: string): number | undefined {
  return fs.lstatSync(file, { throwIfNoEntry: false })?.ino;
}

test('a request sent before the service existed is answered by the service, on the same socket name', async () => {
  const dir = socketDir();
  const socketPath = path.join(dir, 's');
  const early = await listenEarly(socketPath);
  const earlyInode = inode(socketPath);
  const waiting = await requestWaiting(socketPath);

  const svc = await serviceTakingOver(socketPath, early);
  const first = await waiting.answer;
  expect(first.status).toBe(200);
  expect(JSON.parse(first.body)).toMatchObject({
    status: 'pass',
    instanceId: svc.running.service.instanceId
  });
  // The service's own socket has the name now: private, another inode; a new connection works.
  const stat = fs.lstatSync(socketPath);
  expect(stat.isSocket()).toBe(true);
  expect(stat.mode & 0o777).toBe(0o600);
  expect(stat.ino).not.toBe(earlyInode);
  expect(
    (await exchange({ socketPath }, healthRequest, { timeoutMs: 5000 })).status
  ).toBe(200);
  expect(fs.readdirSync(dir)).toEqual(['s']); // no private directory left

  await svc.running.close();
  expect(fs.existsSync(socketPath)).toBe(false);
});

test('a refused setting: the connection that waited gets the misconfigured problem', async () => {
  const socketPath = path.join(socketDir(), 's');
  const early = await listenEarly(socketPath);
  const waiting = await requestWaiting(socketPath);
  const problem = misconfiguredProblem(
    'PROJECT_STARTUP_PLATFORM must be one of generic, hosted, cluster.'
  );
  const listener = await serveMisconfigured(
    socketPath,
    path.dirname(socketPath),
    problem,
    early
  );
  try {
    const answer = await waiting.answer;
    expect(answer.status).toBe(503);
    expect(answer.headers['content-type']).toMatch(/problem\+json/);
    expect(JSON.parse(answer.body)).toMatchObject({ code: 'misconfigured' });
  } finally {
    await listener.close();
  }
  expect(fs.existsSync(socketPath)).toBe(false);
});

test('a service on another path closes the early socket and removes its name', async () => {
  const dir = socketDir();
  const earlyPath = path.join(dir, 'early');
  const servicePath = path.join(dir, 'service');
  const early = await listenEarly(earlyPath);
  const waiting = await requestWaiting(earlyPath);
  await start({
    env: { PROJECT_STARTUP_PLATFORM: 'generic' },
    serve: { ingress: 'notebook-server-proxy', unixSocket: servicePath },
    listeningFirst: early
  });
  expect((await waiting.answer).status).toBe(0); // closed without an answer
  expect(fs.existsSync(earlyPath)).toBe(false);
  const answer = await exchange(
    { socketPath: servicePath },
    rawHttp('GET', '/project/health', [
      ['Host', '127.0.0.1'],
      ['Connection', 'close']
    ]),
    { timeoutMs: 5000 }
  );
  expect(answer.status).toBe(200);
});

test(`at most ${PENDING_MAX} connections wait for the service; those beyond are closed`, async () => {
  const socketPath = path.join(socketDir(), 's');
  const early = await listenEarly(socketPath);
  const extra = 3;
  const waiting: { answer: Promise<Exchange> }[] = [];
  for (let i = 0; i < PENDING_MAX + extra; i++) {
    waiting.push(await requestWaiting(socketPath));
  }
  // The ones beyond the limit are closed before the service exists.
  const closedEarly = await Promise.all(
    waiting.slice(PENDING_MAX).map(w => w.answer)
  );
  expect(closedEarly.map(a => a.status)).toEqual(Array(extra).fill(0));
  await serviceTakingOver(socketPath, early);
  const answered = await Promise.all(
    waiting.slice(0, PENDING_MAX).map(w => w.answer)
  );
  expect(answered.filter(a => a.status === 200)).toHaveLength(PENDING_MAX);
});

/**
 * A process that listens early and waits, as the bin does while the service loads; `then` runs
 * once it has said whether it listens (in the same turn, before anything can signal it).
 */
function earlyProcess(socketPath: string, then = '') {
  const compiled = path.join(REPO_ROOT, 'sidecar/dist/http/listen-first.js');
  const child = spawn(
    process.execPath,
    [
      '-e',
      `require(${JSON.stringify(compiled)}).listenFirst(['--unix-socket', ${JSON.stringify(socketPath)}], '/').then(early => { console.log(early ? 'listening' : 'not listening'); ${then}; setInterval(() => undefined, 1000); });`
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] }
  );
  let output = '';
  child.stdout.on('data', chunk => (output += String(chunk)));
  const ended = new Promise<{ code: number | null; signal: string | null }>(
    resolve => child.once('exit', (code, signal) => resolve({ code, signal }))
  );
  const printed = async (line: string): Promise<void> => {
    for (let i = 0; i < 200 && !output.includes(line); i++) {
      await new Promise(resolve => setTimeout(resolve, 25));
    }
    expect(output).toContain(line);
  };
  return { child, ended, printed, output: () => output.trim() };
}

test('a process that ends before the service takes over leaves no socket behind', async () => {
  const dir = socketDir();
  const early = earlyProcess(path.join(dir, 's'), 'process.exit(2)');
  expect(await early.ended).toEqual({ code: 2, signal: null });
  expect(early.output()).toBe('listening');
  expect(fs.readdirSync(dir)).toEqual([]);
});

test.each(['SIGTERM', 'SIGINT', 'SIGHUP'] as const)(
  '%s before the service takes over removes the socket and still ends the process by that signal',
  async signal => {
    const dir = socketDir();
    const early = earlyProcess(path.join(dir, 's'));
    await early.printed('listening');
    expect(fs.readdirSync(dir)).toEqual(['s']);
    early.child.kill(signal);
    expect(await early.ended).toEqual({ code: null, signal });
    expect(fs.readdirSync(dir)).toEqual([]);
  }
);

test('a signal the service already catches is left to the service', async () => {
  const dir = socketDir();
  const early = earlyProcess(
    path.join(dir, 's'),
    "process.once('SIGTERM', () => { console.log('the service stops'); setTimeout(() => { early.close(); process.exit(7); }, 50); })"
  );
  await early.printed('listening');
  early.child.kill('SIGTERM');
  expect(await early.ended).toEqual({ code: 7, signal: null });
  expect(early.output()).toBe('listening\nthe service stops');
  expect(fs.readdirSync(dir)).toEqual([]);
});

/** `project-startup serve` with the proxy entry's flags, run to its end. */
function serveAsTheProxyWould(
  socketPath: string,
  box: CliSandbox,
  env: Record<string, string> = {}
): Promise<RunResult> {
  return runCli(
    [
      'serve',
      '--ingress',
      'notebook-server-proxy',
      '--unix-socket',
      socketPath
    ],
    { env: { ...box.env, ...env }, cwd: box.projectDir }
  );
}

test('the command line: a runtime directory that is not private ends serve (exit 2) with no socket left', async () => {
  const box = sandbox();
  const dir = socketDir();
  const socketPath = path.join(dir, 's');
  const runtimeDir = path.join(dir, 'runtime');
  fs.mkdirSync(runtimeDir, { mode: 0o777 });
  fs.chmodSync(runtimeDir, 0o777);
  const result = await serveAsTheProxyWould(socketPath, box, {
    PROJECT_STARTUP_RUNTIME_DIR: runtimeDir
  });
  expect(result.code).toBe(2);
  expect(result.stderr).toContain('must be private');
  expect(fs.readdirSync(dir)).toEqual(['runtime']);
});

test('the command line: a live socket at the path is still reported, and left alone', async () => {
  const box = sandbox();
  const dir = socketDir();
  const socketPath = path.join(dir, 's');
  const other = net.createServer(socket => socket.end());
  await new Promise<void>(resolve => other.listen(socketPath, resolve));
  try {
    const result = await serveAsTheProxyWould(socketPath, box);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      `Another process is listening on the Unix socket ${socketPath}`
    );
    expect(fs.lstatSync(socketPath).isSocket()).toBe(true);
    expect(
      await new Promise<boolean>(resolve => {
        const probe = net.connect({ path: socketPath }, () => {
          probe.destroy();
          resolve(true);
        });
        probe.once('error', () => resolve(false));
      })
    ).toBe(true);
  } finally {
    other.close();
  }
});
