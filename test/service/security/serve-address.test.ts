// The address the command line hands out, and whom the token reaches.
// `serve --host localhost` used to bind 127.0.0.1 (the one address dns.lookup gave) but write
// http://localhost:P/ into the runtime file; browsers try ::1 first, so another user listening
// on [::1]:P received /project/?token=<the token>. And the health proof answered any nonce, so
// an impostor could ask the live service over a connection of its own and pass the answer on.
// The other user is real (uid 65534, through setpriv), so is the service, the command line and
// Chromium; the impostor records every request it receives, headers included.
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  runCli,
  startServe,
  ServeHandle,
  trackedSandboxes
} from '../../helpers/cli';
import { chromium } from 'playwright-core';
import { CHROMIUM, CHROMIUM_FLAGS } from '../../system/e2e/helpers';
import { tempRoot } from '../../helpers/harness';
import {
  firstOutput,
  OTHER_UID,
  trackedPythonAs,
  trackedListenerLogs
} from '../../helpers/listener-as-user';
import { exchange, rawHttp } from '../reliability/support';

const sandbox = trackedSandboxes();
const impostorLog = trackedListenerLogs('ps-v6-impostor-');

/**
 * Listens on [::1]:PORT and appends each request (line and headers) to LOG. "record" answers
 * 404; "relay" asks the real service at 127.0.0.1:PORT the same thing over a connection of its
 * own, and passes the answer on unchanged (the proof included).
 */
const IMPOSTOR = `
import http.client, http.server, socket, sys
port, mode, log = int(sys.argv[1]), sys.argv[2], sys.argv[3]
class Impostor(http.server.BaseHTTPRequestHandler):
    # Keeps the connection open, as the service does: the command line's next request reuses it.
    protocol_version = "HTTP/1.1"
    def handle_one(self):
        with open(log, "a") as f:
            f.write(self.requestline + "\\n" + str(self.headers) + "\\n")
        if mode == "relay":
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else None
            upstream = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "connection")}
            headers["Host"] = "127.0.0.1:%d" % port
            upstream.request(self.command, self.path, body=body, headers=headers)
            answer = upstream.getresponse()
            data = answer.read()
            self.send_response(answer.status)
            for k, v in answer.getheaders():
                if k.lower() not in ("content-length", "connection", "transfer-encoding", "date", "server"):
                    self.send_header(k, v)
        else:
            data = b'{"status": 404}'
            self.send_response(404)
            self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
    do_GET = do_POST = do_HEAD = handle_one
    def log_message(self, *args):
        pass
class V6(http.server.HTTPServer):
    address_family = socket.AF_INET6
server = V6(("::1", port), Impostor)
print("listening", flush=True)
server.serve_forever()
`;

interface Impostor {
  received(): string;
}

const spawnImpostor = trackedPythonAs();

/** The impostor as uid 65534 on [::1]:port, once it listens. */
async function startImpostor(
  port: number,
  mode: 'record' | 'relay'
): Promise<Impostor> {
  const log = impostorLog(OTHER_UID);
  const child = spawnImpostor(OTHER_UID, IMPOSTOR, [String(port), mode, log]);
  await firstOutput(child, 'the impostor');
  return { received: () => fs.readFileSync(log, 'utf8') };
}

function runtimeFileOf(runtimeDir: string): string {
  const [name] = fs.readdirSync(runtimeDir).filter(n => n.endsWith('.json'));
  return path.join(runtimeDir, name);
}

function expectNothingSecret(impostor: Impostor, token: string): void {
  const received = impostor.received();
  expect(received).not.toContain(token);
  expect(received.toLowerCase()).not.toContain('authorization');
  expect(received.toLowerCase()).not.toContain('cookie');
}

describe('serve --host localhost, with another user on [::1] at the same port', () => {
  let handle: ServeHandle | undefined;
  afterEach(async () => {
    await handle?.stop();
    handle = undefined;
  });

  it('the address `url` prints, opened in Chromium, reaches the service; the other user receives nothing', async () => {
    const s = sandbox();
    handle = await startServe(['--host', 'localhost'], {
      env: s.env,
      cwd: s.projectDir
    });
    const info = JSON.parse(
      fs.readFileSync(runtimeFileOf(s.runtimeDir), 'utf8')
    );
    const impostor = await startImpostor(handle.port, 'record');

    const printed = await runCli(['url'], { env: s.env, cwd: s.projectDir });
    expect(printed.code).toBe(0);
    const url = printed.stdout.trim();

    // Debian's Chromium with a fresh profile (no e2e app needed: only the service's own page).
    const profile = tempRoot('ps-v6-chromium-');
    const browser = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_FLAGS,
      timeout: 60000,
      env: { PATH: '/usr/bin:/bin', HOME: profile, LANG: 'C.UTF-8' }
    });
    let answered: { status?: number; version?: string } = {};
    try {
      const page = await browser.newPage();
      const response = await page.goto(url, { timeout: 30000 });
      answered = {
        status: response?.status(),
        version: response?.headers()['x-project-startup-version']
      };
    } finally {
      await browser.close().catch(() => undefined);
      fs.rmSync(profile, { recursive: true, force: true });
    }
    expectNothingSecret(impostor, info.token);
    expect(impostor.received()).toBe('');
    // The setup page of the real service (sign-in trades the token for a cookie).
    expect(answered).toEqual({ status: 200, version: info.version });
    // The numeric address the service holds, in the banner, the runtime file and `url`.
    expect(new URL(url).host).toBe(`127.0.0.1:${handle.port}`);
    expect(handle.url).toBe(`http://127.0.0.1:${handle.port}/project/`);
    expect(info.url).toBe(handle.url);
  }, 90000);
});

describe('a relay of the health proof', () => {
  it('another user at the address the runtime file names, relaying health?nonce= to the live service: the proof fails and the command line sends it no token', async () => {
    const s = sandbox();
    const handle = await startServe([], { env: s.env, cwd: s.projectDir });
    try {
      const file = runtimeFileOf(s.runtimeDir);
      const info = JSON.parse(fs.readFileSync(file, 'utf8'));
      const relay = await startImpostor(handle.port, 'relay');
      // The runtime file names an address the relay holds: as a file naming `localhost` did
      // where the resolver gives ::1 first (macOS), while the service held 127.0.0.1.
      fs.writeFileSync(
        file,
        JSON.stringify({
          ...info,
          url: `http://[::1]:${handle.port}/project/`
        })
      );
      const r = await runCli(['capabilities'], {
        env: s.env,
        cwd: s.projectDir
      });
      // The relay was asked (and passed the real service's answer on), so the proof was checked.
      expect(relay.received()).toMatch(
        /GET \/project\/health\?nonce=[0-9a-f]{64} /
      );
      expectNothingSecret(relay, info.token);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/could not prove it holds the token/);
      expect(r.stderr).toContain('the token was not sent');
      expect(r.stdout).not.toContain(info.token);
    } finally {
      await handle.stop();
    }
  }, 30000);
});

describe('per-client limits on direct loopback', () => {
  it('every loopback source address shares one limit: after the limit from 127.0.0.7, 127.0.0.8 is limited too', async () => {
    const s = sandbox();
    const handle = await startServe([], {
      env: {
        ...s.env,
        PROJECT_STARTUP_PLATFORM: 'cluster',
        PROJECT_STARTUP_APPROVED_STORAGE: s.root,
        PROJECT_STARTUP_ALLOCATION_RATE_LIMIT: '2/3600'
      },
      cwd: s.projectDir
    });
    try {
      const info = JSON.parse(
        fs.readFileSync(runtimeFileOf(s.runtimeDir), 'utf8')
      );
      let job = 100;
      /** GET startup naming a new job id, from `localAddress`. */
      const ask = (localAddress: string) =>
        exchange(
          { port: handle.port },
          rawHttp(
            'GET',
            `/project/startup?interface=terminal&allocation=slurm:${job++}`,
            [
              ['Host', `127.0.0.1:${handle.port}`],
              ['Authorization', `Bearer ${info.token}`],
              ['Connection', 'close']
            ]
          ),
          { localAddress }
        );
      const statuses: string[] = [];
      for (const from of ['127.0.0.7', '127.0.0.7', '127.0.0.7', '127.0.0.8']) {
        const ex = await ask(from);
        statuses.push(
          `${from} ${ex.status} ${ex.status === 429 ? JSON.parse(ex.body).code : ''}`.trim()
        );
      }
      expect(statuses).toEqual([
        '127.0.0.7 200',
        '127.0.0.7 200',
        '127.0.0.7 429 rate-limited',
        '127.0.0.8 429 rate-limited'
      ]);
    } finally {
      await handle.stop();
    }
  });
});
