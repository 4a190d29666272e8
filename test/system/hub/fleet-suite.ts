// The fleet view (jupyterlab_project_startup/fleet/) on a real JupyterHub: the service run by the
// hub from c.JupyterHub.services with its command and a role of three scopes, four real users'
// servers reporting through the server extension with their own hub tokens, the page through the
// hub's OAuth in Chromium, the JSON and the metrics.
//
// The users: alice (ready: initialized), bob (awaiting confirmation), carol (misconfigured: a bad
// site file), dan (a server without the extension), olga (an admin, no server) and erin (no
// server, not an admin: the hub's OAuth refuses her the page). The panel's first request starts
// each sidecar, as a person opening JupyterLab would; the reporter itself never starts one.
//
// The idle culler: jupyterhub-idle-culler is on PyPI only (not reachable here) and not packaged
// by Debian, so ./idle-culler-standin.py, a named stand-in doing what its documentation says, runs
// as an external service with the culler's role. The hub's activity sensing is made quick (it reads
// the proxy's every 2 s, and each server reports its own every 2 s), so a request the fleet made
// through the proxy would show as activity within the tests.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { httpRequest, launchBrowser, REPO_ROOT } from '../e2e/helpers';
import { expectAccessible } from '../e2e/axe';
import { delay } from '../../helpers/wait';
import {
  browserLogin,
  freePorts,
  Hub,
  HubStack,
  HubStackInfo,
  processEnvironment,
  startHub,
  stopAllHubs
} from './hub';

const SERVICE = 'project-startup-fleet';
const HEARTBEAT_SECONDS = 4;
// The servers here poll every second (PROJECT_STARTUP_FLEET_POLL_SECONDS below), so a report is
// late after the heartbeat plus this.
const REPORT_SLACK_SECONDS = 5;
const OTHERS = ['bob', 'carol', 'dan', 'olga', 'erin'];
const SCREENSHOT = path.join(REPO_ROOT, 'test-artifacts', 'hub');
const CULLER = path.join(__dirname, 'idle-culler-standin.py');
// The culler's timeout: several heartbeats, so reports that counted as activity would keep the
// server from it.
const CULL_TIMEOUT_SECONDS = 20;
const CULL_EVERY_SECONDS = 2;

/** The hub's configuration for the fleet; writes carol's bad site file and dan's Jupyter config into the hub's directory (shared with the Debian 13 root). */
function fleetConfig(fleetPort: number, cullerToken: string) {
  return (stack: HubStackInfo, dirs: Hub['dirs']) => {
    // Debian 12: the single-user servers and the service import this checkout's package (the
    // operator's `jupyter install` route installs no Python package), its server extension
    // enabled the way the wheel's jupyter_server_config.d file enables it.
    const checkout =
      stack.stack === 'debian-12'
        ? `
c.JupyterHub.services[-1]["environment"] = {"PYTHONPATH": ${JSON.stringify(REPO_ROOT)}}
c.Spawner.environment["PYTHONPATH"] = ":".join(p for p in (${JSON.stringify(REPO_ROOT)}, c.Spawner.environment.get("PYTHONPATH", "")) if p)
`
        : '';
    if (stack.stack === 'debian-12') {
      fs.mkdirSync(path.join(dirs.jupyterConfig, 'jupyter_server_config.d'), {
        recursive: true
      });
      fs.copyFileSync(
        path.join(
          REPO_ROOT,
          'jupyter-config',
          'server-config',
          'jupyterlab_project_startup.json'
        ),
        path.join(
          dirs.jupyterConfig,
          'jupyter_server_config.d',
          'jupyterlab_project_startup.json'
        )
      );
    }
    const extra = path.join(dirs.root, 'fleet');
    fs.mkdirSync(extra, { mode: 0o755 });
    const carolSite = path.join(extra, 'project-startup.json');
    fs.writeFileSync(
      carolSite,
      '{\n  "platform": "hosted-notebook",\n  "noSuchSetting": true\n}\n',
      { mode: 0o644 }
    );
    const danConfig = path.join(extra, 'dan-jupyter-config');
    fs.mkdirSync(danConfig);
    fs.writeFileSync(
      path.join(danConfig, 'jupyter_server_config.json'),
      JSON.stringify({
        ServerApp: {
          jpserver_extensions: {
            jupyter_server_proxy: true,
            jupyterlab_project_startup: false
          }
        }
      })
    );
    return `
# The fleet view, hub-managed, with the least-privilege role the operator guide names.
c.JupyterHub.services.append({
    "name": "${SERVICE}",
    "url": "http://127.0.0.1:${fleetPort}",
    "command": [${JSON.stringify(stack.python)}, "-m", "jupyterlab_project_startup.fleet.service",
                "--heartbeat-seconds", "${HEARTBEAT_SECONDS}", "--report-slack-seconds", "${REPORT_SLACK_SECONDS}",
                "--hub-refresh-seconds", "2", "--log-level", "DEBUG"],
    "oauth_no_confirm": True,
})
${checkout}c.JupyterHub.load_roles.append(
    {"name": "project-startup-fleet", "scopes": ["list:users", "read:users:name", "read:servers"], "services": ["${SERVICE}"]}
)
c.Authenticator.admin_users = {"olga"}
c.Spawner.environment["PROJECT_STARTUP_FLEET_URL"] = "http://127.0.0.1:" + str(c.JupyterHub.port) + "/services/${SERVICE}/"
c.Spawner.environment["PROJECT_STARTUP_FLEET_POLL_SECONDS"] = "1"

def _per_user(spawner):
    # carol's site file is bad; dan's server runs without the extension (his own Jupyter config
    # disables it, as an image without the wheel would lack it).
    if spawner.user.name == "carol":
        spawner.environment = {**spawner.environment, "PROJECT_STARTUP_CONFIG": ${JSON.stringify(carolSite)}}
    if spawner.user.name == "dan":
        spawner.environment = {**spawner.environment, "JUPYTER_CONFIG_DIR": ${JSON.stringify(danConfig)}}

c.Spawner.pre_spawn_hook = _per_user

# The idle culler (the test starts ./idle-culler-standin.py), with the role the culler's
# documentation gives it. Activity as the culler reads it, refreshed every 2 s: the hub reads the
# proxy's, and each server reports its own.
c.JupyterHub.services.append({"name": "idle-culler", "api_token": ${JSON.stringify(cullerToken)}})
c.JupyterHub.load_roles.append(
    {"name": "idle-culler", "scopes": ["list:users", "read:users:activity", "read:servers", "delete:servers"], "services": ["idle-culler"]}
)
c.JupyterHub.last_activity_interval = 2
c.Spawner.environment["JUPYTERHUB_ACTIVITY_INTERVAL"] = "2"
`;
  };
}

async function waitUntil<T>(
  what: string | (() => string),
  probe: () => Promise<T | undefined>,
  ms = 60000
): Promise<T> {
  const deadline = Date.now() + ms;
  for (let i = 0; ; i += 1) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) {
      return value;
    }
    if (Date.now() > deadline || i > 2000) {
      throw new Error(
        `timed out waiting for ${typeof what === 'string' ? what : what()}`
      );
    }
    await delay(250);
  }
}

/** The pid of the fleet service this suite's hub runs: the one process whose hub-given address is ours. */
function fleetServicePid(fleetPort: number): number | undefined {
  const url = `http://127.0.0.1:${fleetPort}`;
  for (const entry of fs.readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid <= 0) {
      continue;
    }
    try {
      const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (
        cmdline.includes('jupyterlab_project_startup.fleet.service') &&
        processEnvironment(pid).JUPYTERHUB_SERVICE_URL === url
      ) {
        return pid;
      }
    } catch {
      // Gone, or another user's process.
    }
  }
  return undefined;
}

export function fleetSuite(stack: HubStack): void {
  describe(`the fleet view under a real JupyterHub (${stack})`, () => {
    let hub: Hub;
    let fleetPort = 0;
    const tokens: Record<string, string> = {};
    const cullerToken = randomBytes(24).toString('hex');

    const fleetJson = async (token: string) =>
      httpRequest(`${hub.publicUrl}/services/${SERVICE}/api/fleet`, {
        headers: { authorization: `token ${token}` }
      });

    /** The fleet's JSON once every user named has the status given, within `ms`. */
    const fleetShows = async (expected: Record<string, string>, ms: number) => {
      let last: unknown;
      return waitUntil(
        () => `the fleet picture (last: ${JSON.stringify(last)})`,
        async () => {
          const answer = await fleetJson(tokens.olga);
          last = answer.json?.users;
          const statuses = Object.fromEntries(
            (answer.json?.users ?? []).map(
              (u: { user: string; status: string }) => [u.user, u.status]
            )
          );
          return Object.entries(expected).every(([u, s]) => statuses[u] === s)
            ? answer.json
            : undefined;
        },
        ms
      );
    };

    beforeAll(async () => {
      [fleetPort] = await freePorts(1);
      hub = await startHub({
        stack,
        label: `fleet-${stack}`,
        otherUsers: OTHERS,
        extraConfig: fleetConfig(fleetPort, cullerToken),
        timeoutMs: 60000
      });
      tokens.alice = hub.userToken;
      for (const user of OTHERS) {
        const created = await hub.api('POST', `users/${user}`);
        expect([201, 409]).toContain(created.status);
        const token = await hub.api('POST', `users/${user}/tokens`, {
          note: 'fleet test',
          expires_in: 3600
        });
        tokens[user] = token.json.token as string;
      }
      for (const user of ['bob', 'carol', 'dan']) {
        const spawned = await hub.api('POST', `users/${user}/server`);
        expect([201, 202]).toContain(spawned.status);
      }
      for (const user of ['bob', 'carol', 'dan']) {
        await waitUntil(`${user}'s server`, async () => {
          const status = await httpRequest(
            `${hub.publicUrl}/user/${user}/api/status`,
            {
              headers: { authorization: `token ${tokens[user]}` },
              timeoutMs: 2000
            }
          );
          return status.status === 200 ? true : undefined;
        });
      }
      // JupyterLab's panel asks for startup when it opens: that starts each sidecar.
      for (const user of ['alice', 'bob', 'carol']) {
        await httpRequest(
          `${hub.publicUrl}/user/${user}/project/startup?interface=notebook`,
          {
            headers: { authorization: `token ${tokens[user]}` },
            timeoutMs: 30000
          }
        );
      }
      const projection = await httpRequest(
        `${hub.publicUrl}/user/alice/project/startup?interface=notebook`,
        {
          headers: { authorization: `token ${tokens.alice}` }
        }
      );
      const initialized = await httpRequest(
        `${hub.publicUrl}/user/alice/project/initialize`,
        {
          method: 'POST',
          headers: {
            authorization: `token ${tokens.alice}`,
            'content-type': 'application/json'
          },
          body: JSON.stringify({
            interface: 'notebook',
            confirm: {
              projectPath: projection.json.projectPath,
              statePath: projection.json.statePath
            }
          })
        }
      );
      expect(initialized.status).toBe(201);
    }, 300000);

    afterAll(async () => {
      await stopAllHubs();
    }, 60000);

    test('each user is shown in the state their server is in, with the why and the fix', async () => {
      const expected: Record<string, string> = {
        alice: 'ready',
        bob: 'awaiting-confirmation',
        carol: 'misconfigured',
        dan: 'no-reporter',
        olga: 'stopped',
        erin: 'stopped'
      };
      const picture = await fleetShows(expected, 90000);
      const carol = picture.users.find(
        (u: { user: string }) => u.user === 'carol'
      );
      expect(carol.misconfigured).toMatchObject({
        setting: 'noSuchSetting',
        file: expect.stringContaining('project-startup.json'),
        line: 3,
        fix: expect.any(String)
      });
      expect(picture.summary.byStatus).toMatchObject({
        ready: 1,
        'awaiting-confirmation': 1,
        misconfigured: 1
      });
      expect(picture.lastComplete).toEqual(expect.any(Number));
      // No secret, no path of a project, no environment value.
      const text = JSON.stringify(picture);
      for (const secret of Object.values(tokens)) {
        expect(text).not.toContain(secret);
      }
      expect(text).not.toContain(hub.dirs.homes);
    }, 120000);

    test('reports: only with the token of the user they are about; bad ones refused with problem+json, changing nothing', async () => {
      const reports = `${hub.publicUrl}/services/${SERVICE}/api/reports`;
      const post = (
        token: string | undefined,
        body: string,
        type = 'application/json'
      ) =>
        httpRequest(reports, {
          method: 'POST',
          headers: {
            ...(token ? { authorization: `token ${token}` } : {}),
            'content-type': type
          },
          body
        });
      const good = JSON.stringify({
        version: 1,
        phase: 'ready',
        observedAt: '2026-11-28T17:00:00Z'
      });
      const anonymous = await post(undefined, good);
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers['content-type']).toMatch(
        /^application\/problem\+json/
      );
      expect((await post('not-a-token', good)).status).toBe(401);
      // erin's token can only ever speak for erin: a "user" member is not part of a report.
      const impersonation = await post(
        tokens.erin,
        JSON.stringify({ ...JSON.parse(good), user: 'carol' })
      );
      expect(impersonation.status).toBe(400);
      expect(impersonation.json.errors).toContain(
        '/user: not a member of a report'
      );
      const bad = await post(
        tokens.erin,
        JSON.stringify({ version: 1, phase: 'happy', observedAt: 'x' })
      );
      expect(bad.status).toBe(400);
      expect(bad.json).toMatchObject({ code: 'invalid-report', status: 400 });
      expect((await post(tokens.erin, 'x'.repeat(9000))).status).toBe(413);
      expect((await post(tokens.erin, good, 'text/plain')).status).toBe(415);
      const picture = (await fleetJson(tokens.olga)).json;
      expect(
        picture.users.find((u: { user: string }) => u.user === 'carol').status
      ).toBe('misconfigured');
      expect(
        picture.users.find((u: { user: string }) => u.user === 'erin').status
      ).toBe('stopped');
      // Bounded in rate: a burst past the bucket is refused with Retry-After.
      const statuses: number[] = [];
      for (let i = 0; i < 10; i += 1) {
        const answer = await post(tokens.erin, good);
        statuses.push(answer.status);
        if (answer.status === 429) {
          expect(Number(answer.headers['retry-after'])).toBeGreaterThan(0);
          break;
        }
      }
      expect(statuses).toContain(429);
    }, 60000);

    test('metrics: users per status and failing check, reports received and refused, last complete', async () => {
      const answer = await httpRequest(
        `${hub.publicUrl}/services/${SERVICE}/metrics`,
        {
          headers: { authorization: `token ${tokens.olga}` }
        }
      );
      expect(answer.status).toBe(200);
      expect(answer.text).toMatch(
        /^project_startup_fleet_users\{status="misconfigured"\} 1\.0$/m
      );
      expect(answer.text).toMatch(
        /^project_startup_fleet_users\{status="ready"\} 1\.0$/m
      );
      expect(answer.text).toMatch(
        /^project_startup_fleet_reports_received_total [1-9]/m
      );
      expect(answer.text).toMatch(
        /^project_startup_fleet_reports_refused_total\{reason="invalid"\} [1-9]/m
      );
      expect(answer.text).toMatch(
        /^project_startup_fleet_last_complete_timestamp_seconds [1-9]/m
      );
      const anonymous = await httpRequest(
        `${hub.publicUrl}/services/${SERVICE}/metrics`
      );
      expect(anonymous.status).toBeGreaterThanOrEqual(300);
      expect(anonymous.text).not.toContain('project_startup_fleet_users');
    }, 30000);

    test("the hub's OAuth: a non-admin is refused the page and the JSON; the admin gets them", async () => {
      const erin = await browserLogin(
        { ...hub, user: 'erin' },
        `/services/${SERVICE}/`
      );
      expect(erin.answer.status).toBe(403);
      expect(erin.answer.text).not.toContain('carol');
      expect((await fleetJson(tokens.erin)).status).toBe(403);
      const olga = await browserLogin(
        { ...hub, user: 'olga' },
        `/services/${SERVICE}/`
      );
      expect(olga.answer.status).toBe(200);
      expect(olga.answer.text).toContain('carol');
    }, 60000);

    test('the page in Chromium: signed in through the hub, filtered, accessible (axe: 0 serious)', async () => {
      const browser = await launchBrowser();
      try {
        const page = await browser.newPage();
        await page.goto(
          `${hub.publicUrl}/hub/login?next=${encodeURIComponent(`/services/${SERVICE}/`)}`
        );
        await page.fill('#username_input', 'olga');
        await page.fill('#password_input', hub.password);
        await Promise.all([
          page.waitForURL(`**/services/${SERVICE}/**`),
          page.click('#login_submit')
        ]);
        await page.waitForSelector('table.fleet-table');
        const rows = await page.locator('table.fleet-table tbody tr').count();
        expect(rows).toBe(6);
        await expect(
          page.locator('tr.fleet-misconfigured').innerText()
        ).resolves.toMatch(/noSuchSetting/);
        // The admin gets a link to each running server.
        await expect(
          page.locator('tr.fleet-ready a').getAttribute('href')
        ).resolves.toBe('/user/alice/');
        fs.mkdirSync(SCREENSHOT, { recursive: true });
        await page.screenshot({
          path: path.join(SCREENSHOT, `fleet-${stack}.png`),
          fullPage: true
        });
        await expectAccessible(page, `fleet-${stack}`, ['body']);
        await page.selectOption('#filter-status', 'misconfigured');
        await Promise.all([
          page.waitForURL(/status=misconfigured/),
          page.click('button[type=submit]')
        ]);
        expect(await page.locator('table.fleet-table tbody tr').count()).toBe(
          1
        );
      } finally {
        await browser.close();
      }
    }, 120000);

    test("the fleet keeps no server alive: the servers' last_activity, which the culler reads, does not move while they report", async () => {
      const activity = async () => {
        const out: Record<string, string> = {};
        for (const user of ['bob', 'carol', 'dan']) {
          out[user] = (await hub.api('GET', `users/${user}`)).json.servers[
            ''
          ].last_activity;
        }
        return out;
      };
      const received = async () =>
        Number(
          /^project_startup_fleet_reports_received_total (\S+)$/m.exec(
            (
              await httpRequest(
                `${hub.publicUrl}/services/${SERVICE}/metrics`,
                {
                  headers: { authorization: `token ${tokens.olga}` }
                }
              )
            ).text
          )?.[1]
        );
      const before = await activity();
      const reportsBefore = await received();
      // Three heartbeats; the hub reads the proxy's activity and the servers report their own
      // every 2 s here, so a request through the proxy would move it within the wait.
      await delay(3 * HEARTBEAT_SECONDS * 1000 + 2000);
      expect(await received()).toBeGreaterThan(reportsBefore);
      expect(await activity()).toEqual(before);
    }, 60000);

    test('a stopped server leaves the not-ready list within the stated time', async () => {
      const stopped = await hub.api('DELETE', 'users/carol/server');
      expect([202, 204]).toContain(stopped.status);
      await waitUntil(
        'carol stopped',
        async () => {
          const users = (await fleetJson(tokens.olga)).json.users;
          return users.find((u: { user: string }) => u.user === 'carol')
            .status === 'stopped'
            ? true
            : undefined;
        },
        (2 * HEARTBEAT_SECONDS + 30) * 1000
      );
    }, 120000);

    test('a restarted service has the whole picture again within the stated time (H + the report slack), and a server stopped meanwhile leaves the not-ready list within it', async () => {
      const before = fleetServicePid(fleetPort);
      expect(before).toEqual(expect.any(Number));
      // Killed, so nothing it held survives; the hub starts its managed service again.
      process.kill(before as number, 'SIGKILL');
      const stopped = await hub.api('DELETE', 'users/bob/server');
      expect([202, 204]).toContain(stopped.status);
      await waitUntil('the fleet service started again', async () => {
        const pid = fleetServicePid(fleetPort);
        if (pid === undefined || pid === before) {
          return undefined;
        }
        return (await fleetJson(tokens.olga)).status === 200 ? true : undefined;
      });
      const expected: Record<string, string> = {
        alice: 'ready',
        bob: 'stopped',
        carol: 'stopped',
        dan: 'no-reporter',
        olga: 'stopped',
        erin: 'stopped'
      };
      // The operator guide's bound, counted from the service's start: a heartbeat plus the report
      // slack, and a few seconds for a loaded machine.
      const picture = await fleetShows(
        expected,
        (HEARTBEAT_SECONDS + REPORT_SLACK_SECONDS + 10) * 1000
      );
      // and says so at its next read of the hub's list (every 2 s here).
      await waitUntil(
        'the restarted service to say its picture is complete',
        async () =>
          typeof (await fleetJson(tokens.olga)).json?.lastComplete === 'number'
            ? true
            : undefined,
        10000
      );
      expect(picture.summary.byStatus).toMatchObject({ ready: 1 });
    }, 120000);

    test('with the culler on a short timeout, a server is culled on time with the fleet view running', async () => {
      type Server = { last_activity: string | null } | undefined;
      const serverOf = async (user: string): Promise<Server> =>
        (await hub.api('GET', `users/${user}`)).json.servers[''];
      const lastActivity = async (user: string) =>
        Date.parse((await serverOf(user))?.last_activity ?? '');
      // A person's request: through the hub's proxy, to an API Jupyter counts as activity.
      const touch = async (user: string) => {
        const answer = await httpRequest(
          `${hub.publicUrl}/user/${user}/api/contents`,
          {
            headers: { authorization: `token ${tokens[user]}` },
            timeoutMs: 10000
          }
        );
        expect(answer.status).toBe(200);
      };
      // alice (the extension, reporting every heartbeat) and dan (no extension) are running;
      // each makes a request, and the hub sees it.
      const before = {
        alice: await lastActivity('alice'),
        dan: await lastActivity('dan')
      };
      await touch('alice');
      await touch('dan');
      const touchedAt = Date.now();
      await waitUntil(
        "the hub to see alice's and dan's requests as activity",
        async () =>
          (await lastActivity('alice')) > before.alice &&
          (await lastActivity('dan')) > before.dan
            ? true
            : undefined,
        30000
      );
      let log = '';
      const culler = spawn(
        '/usr/bin/python3',
        [
          CULLER,
          '--timeout',
          String(CULL_TIMEOUT_SECONDS),
          '--cull-every',
          String(CULL_EVERY_SECONDS)
        ],
        {
          env: {
            PATH: '/usr/bin:/bin',
            PYTHONDONTWRITEBYTECODE: '1',
            JUPYTERHUB_API_URL: `${hub.publicUrl}/hub/api`,
            JUPYTERHUB_API_TOKEN: cullerToken
          },
          stdio: ['ignore', 'pipe', 'pipe']
        }
      );
      culler.stdout.on('data', chunk => (log += chunk));
      culler.stderr.on('data', chunk => (log += chunk));
      const aliceActivity = new Set<number>();
      const aliceHeard = new Set<number>();
      try {
        // Until alice's server is gone: the operator's view read, as an open page reads it, and
        // dan working (the control: activity keeps a server from the culler). On time: within
        // the timeout after her last request, plus a pass and a loaded machine's slack.
        await waitUntil(
          () => `the culler to stop alice's server (its log: ${log})`,
          async () => {
            const server = await serverOf('alice');
            if (server === undefined) {
              return true;
            }
            aliceActivity.add(Date.parse(server.last_activity ?? ''));
            const alice = (await fleetJson(tokens.olga)).json.users.find(
              (u: { user: string }) => u.user === 'alice'
            );
            if (typeof alice.lastHeard === 'number') {
              aliceHeard.add(alice.lastHeard);
            }
            await touch('dan');
            await delay(1000);
            return undefined;
          },
          (CULL_TIMEOUT_SECONDS + CULL_EVERY_SECONDS + 30) * 1000
        );
      } finally {
        culler.kill('SIGTERM');
      }
      expect(log).toMatch(
        /Culling server alice \(inactive for 00:00:[2-5]\d\)/
      );
      // Her server reported all along (several heartbeats heard after her last request) ...
      expect(
        [...aliceHeard].filter(heard => heard * 1000 > touchedAt).length
      ).toBeGreaterThanOrEqual(2);
      // ... and none of it was her activity: the hub's last_activity stayed at her request.
      for (const seen of aliceActivity) {
        expect(seen).toBeLessThanOrEqual(touchedAt);
      }
      // dan, working through the proxy meanwhile, was not culled.
      expect(log).not.toMatch(/Culling server dan/);
      expect(await serverOf('dan')).toBeDefined();
      // And the fleet shows alice's server stopped.
      await fleetShows(
        { alice: 'stopped' },
        (2 * HEARTBEAT_SECONDS + 30) * 1000
      );
    }, 180000);
  });
}
