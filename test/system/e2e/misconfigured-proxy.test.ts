// A bad PROJECT_STARTUP_* setting behind the real jupyter-server-proxy 4.x (vendor) on the real
// `jupyter lab` (jupyter_server 2.21.1): the proxy restarts a backend that exits non-zero at once and without back-off
// until its start timeout, so a sidecar that exits on a configuration error was launched about 80
// times per request (and again for every poll of an open panel), and the request got the
// proxy's bare 500 after 20 s. Launched with the proxy's flags, the sidecar now stays up on its
// socket and answers every request with the `misconfigured` problem: one launch, the cause and
// its fix at once, through the proxy.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { interpretStartup, wantsDiagnostics } from '../../../src/responses';
import { tempRoot } from '../../helpers/harness';
import {
  BIN,
  checkPrerequisites,
  httpRequest,
  LabServer,
  logWindow,
  SIDECAR_SERVE_ARGS,
  sidecarServerEntry,
  startLabServer,
  stopAllLabServers
} from './helpers';

const SETTING = 'PROJECT_STARTUP_REQUEST_TIMEOUT_MS';
// A distinctive bad value: it must not come back in any answer.
const BAD_VALUE = '15s-not-a-number';

describe('a bad PROJECT_STARTUP_* setting behind the real jupyter-server-proxy', () => {
  let server: LabServer | undefined;
  let counterDir: string;
  let counter: string;
  const s = () => server as LabServer;
  const auth = () => ({ authorization: `token ${s().token}` });
  /** How often the proxy ran the command: one line per launch, appended by a shell wrapper. */
  const launches = () =>
    fs.existsSync(counter)
      ? fs.readFileSync(counter, 'utf8').split('\n').filter(Boolean).length
      : 0;

  beforeAll(async () => {
    checkPrerequisites();
    counterDir = tempRoot('ps-launches-');
    counter = path.join(counterDir, 'launches');
    server = await startLabServer({
      baseUrl: '/user/alice/',
      serverProxy: {
        project: sidecarServerEntry({
          // The operator's command line, behind a POSIX shell that counts each launch and then
          // becomes the sidecar (exec), so the proxy sees the sidecar's own exit status.
          command: [
            '/bin/sh',
            '-c',
            'echo launch >> "$1"; shift; exec "$@"',
            'count-launches',
            counter,
            process.execPath,
            BIN,
            ...SIDECAR_SERVE_ARGS
          ],
          // The Python package's entry waits 20 s; the proxy's default is 5 s.
          timeout: 20
        })
      },
      env: { [SETTING]: BAD_VALUE },
      label: 'misconfigured-proxy-server'
    });
  }, 60000);

  afterAll(async () => {
    await server?.stop();
    await stopAllLabServers();
    if (counterDir) {
      fs.rmSync(counterDir, { recursive: true, force: true });
    }
  }, 30000);

  test('one launch; every request answered 503 `misconfigured` with the setting and its fix; logged once', async () => {
    expect(launches()).toBe(0);
    const url = `${s().base}project/startup?interface=notebook`;
    const started = Date.now();
    const first = await httpRequest(url, {
      headers: auth(),
      timeoutMs: 60000
    });
    // Reported by the run (never asserted: CI machines are slow): the time to the first answer.
    process.stderr.write(
      `misconfigured-proxy: first answer ${first.status} after ${Date.now() - started} ms, ${launches()} launch(es)\n`
    );
    expect(first.status).toBe(503);
    expect(first.headers['content-type']).toMatch(
      /^application\/problem\+json/
    );
    expect(first.json).toMatchObject({
      code: 'misconfigured',
      status: 503,
      setting: SETTING
    });
    expect(first.json.detail).toBe(
      `${SETTING} must be a whole number from 1000 to 300000.`
    );
    expect(first.json.fix).toContain(SETTING);
    expect(first.json.fix).toMatch(/restart the Jupyter server/);
    expect(first.text).not.toContain(BAD_VALUE);

    // The panel reads it as the service's own problem: shown at once, no diagnostics detour.
    const read = interpretStartup({
      url,
      status: first.status,
      statusText: 'Service Unavailable',
      contentType: String(first.headers['content-type']),
      text: first.text
    });
    expect(read.ok).toBe(false);
    if (!read.ok) {
      expect(read.failure).toMatchObject({
        kind: 'http',
        status: 503,
        problem: { code: 'misconfigured' }
      });
      expect(wantsDiagnostics(read.failure)).toBe(false);
    }

    // Every route, health included, and every method: the same problem from the same process.
    for (const [method, route] of [
      ['GET', 'health'],
      ['GET', 'capabilities'],
      ['GET', ''],
      ['POST', 'initialize'],
      ['GET', 'startup?interface=notebook']
    ]) {
      const answer = await httpRequest(`${s().base}project/${route}`, {
        method,
        headers: { ...auth(), 'content-type': 'application/json' },
        body: method === 'POST' ? '{}' : undefined,
        timeoutMs: 60000
      });
      expect(`${method} ${route} ${answer.status} ${answer.json?.code}`).toBe(
        `${method} ${route} 503 misconfigured`
      );
      expect(answer.text).not.toContain(BAD_VALUE);
    }
    // POSTs with a body, as the panel's initialize: answered once the body has arrived (an
    // answer before it let the connection close under the proxy's write: its 500).
    const body = JSON.stringify({
      interface: 'notebook',
      pad: 'x'.repeat(64 * 1024)
    });
    const posted: string[] = [];
    for (let i = 0; i < 10; i++) {
      const answer = await httpRequest(`${s().base}project/initialize`, {
        method: 'POST',
        headers: { ...auth(), 'content-type': 'application/json' },
        body,
        timeoutMs: 60000
      });
      posted.push(`${answer.status} ${answer.json?.code}`);
    }
    expect(posted).toEqual(Array(10).fill('503 misconfigured'));
    expect(launches()).toBe(1);
    // The cause is logged once (not once per request): once the sidecar's last line has come
    // through the server's pipe (bounded wait), the message is there exactly once.
    const mentions = () =>
      s()
        .logs()
        .split('\n')
        .filter(line =>
          line.includes(`${SETTING} must be a whole number from 1000 to 300000`)
        ).length;
    for (
      let i = 0;
      i < 200 && !/not started: a configuration error/.test(s().logs());
      i++
    ) {
      await new Promise(resolve => setTimeout(resolve, 50));
    }
    expect(s().logs()).toMatch(/not started: a configuration error/);
    expect(mentions()).toBe(1);
    expect(s().logs()).not.toContain(BAD_VALUE);
  }, 90000);

  test('polls of a misconfigured service: one warning line when it begins, none per poll, no request headers', async () => {
    const POLLS = 12;
    const linesDuring = logWindow(s(), auth());
    const polls = async (count: number): Promise<void> => {
      for (let i = 0; i < count; i++) {
        const answer = await httpRequest(
          `${s().base}project/${i % 2 ? 'health' : 'startup?interface=notebook'}`,
          { headers: { ...auth(), 'user-agent': 'poll-agent-marker' } }
        );
        // The panel still gets the problem on every poll: only the log is quiet.
        expect(`${answer.status} ${answer.json?.code}`).toBe(
          '503 misconfigured'
        );
      }
    };
    // The earlier test's requests logged the failure already: polls add nothing.
    const quiet = await linesDuring(() => polls(POLLS));
    process.stderr.write(
      `misconfigured-proxy: ${quiet.length} log line(s) over ${POLLS} polls\n`
    );
    expect(quiet).toEqual([]);
    expect(s().logs()).not.toContain('poll-agent-marker');
    // Said once, as Jupyter's own lines read, pointing at the sidecar's line.
    const warnings = s()
      .logs()
      .split('\n')
      .filter(line => /\] 503 \w+ \/user\/alice\/project\//.test(line));
    expect(warnings).toEqual([
      expect.stringMatching(
        /^\[W [^\]]*\] 503 GET \/user\/alice\/project\/startup: the Project Startup service cannot serve; its log line at start names the setting/
      )
    ]);
    expect(s().logs()).not.toMatch(/\[E [^\]]*\] 503|"Accept"|"Host"/);
  }, 60000);
});
