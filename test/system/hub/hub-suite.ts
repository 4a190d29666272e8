// The hosted-notebook platform under a real JupyterHub (brought up by ./hub.ts on 127.0.0.1 in a
// temporary directory), the same checks on each stack of HubStack: hub.test.ts runs them on
// Debian 12's jupyterhub 3.0.0 (jupyter_server 1.23, Python 3.11), hub5.test.ts on Debian 13's
// jupyterhub 5.2 (jupyter_server 2.15, Python 3.13) in the root of .ci/trixie-root.sh.
//
// alice's single-user server is spawned through the hub API. On Debian 12 the operator's
// `project-startup jupyter install --user` wrote the proxy entry into its Jupyter config; on
// Debian 13 the wheel, pip-installed into the single-user server's venv, gives it through its
// entry point. The real jupyter-server-proxy 4.4.0 (installed, else the vendored copy in
// ../shared/vendor/python), enabled as a server extension, launches the sidecar from that entry on a Unix socket with the single-user server's environment, after
// Jupyter authenticated the request with the hub's OAuth. Every request here goes through the
// hub's public proxy: with a user token created through the hub API (Authorization: token ...),
// or as a browser does (the hub's login form, then the OAuth redirects and cookies).
//
// The fake-secret check is extended to the hub's live tokens: the single-user server's
// JUPYTERHUB_API_TOKEN / JPY_API_TOKEN (read from /proc), alice's user token, the service's admin
// token, the proxy's auth token, alice's password and login cookies appear in no response, no state
// or runtime file, and no log line (the hub's, the proxy's, the single-user server's, the
// proxy's (jupyter-server-proxy logs in the single-user server's log) and the sidecar's, which
// logs at debug level), shutdown included.
import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  httpRequest,
  HttpAnswer,
  launchBrowser,
  PYTHON,
  serverProxyLocation,
  SIDECAR_SERVE_ARGS
} from '../e2e/helpers';
import { readAllFiles } from '../../helpers/cli';
import { expectValid } from '../../helpers/schemas';
import {
  browserLogin,
  BrowserSession,
  Hub,
  HubStack,
  processEnvironment,
  spawnAnotherUser,
  startHub,
  stopAllHubs
} from './hub';
import { runInTrixie } from '../matrix/trixie';

const ENTRY = 'project';

interface Collected {
  what: string;
  answer: HttpAnswer;
}

/**
 * The sidecar's log lines (its log goes to the single-user server's stderr, i.e. the hub's): in
 * Jupyter's format there, `[I <time> ProjectStartup] <message> {<fields as JSON>}`, as
 * `{ level, message, ...fields }`.
 */
function sidecarLogLines(log: string): Record<string, unknown>[] {
  const LEVELS: Record<string, string> = {
    D: 'debug',
    I: 'info',
    W: 'warn',
    E: 'error'
  };
  const lines: Record<string, unknown>[] = [];
  for (const line of log.split('\n')) {
    const m = /\[([DIWE]) [^\]]* ProjectStartup\] (.*)$/.exec(line);
    if (m === null) {
      continue;
    }
    const at = m[2].indexOf(' {"');
    try {
      lines.push({
        level: LEVELS[m[1]],
        message: at === -1 ? m[2] : m[2].slice(0, at),
        ...(at === -1
          ? {}
          : (JSON.parse(m[2].slice(at + 1)) as Record<string, unknown>))
      });
    } catch {
      // not one of the sidecar's lines
    }
  }
  return lines;
}

function sidecarRequests(log: string): Record<string, unknown>[] {
  return sidecarLogLines(log).filter(line => line.message === 'request');
}

/** Waits (bounded) until the sidecar's debug log shows a request for `fullPath`; false if it never does. */
async function sidecarLogged(
  logs: () => string,
  fullPath: string,
  timeoutMs = 5000
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (sidecarRequests(logs()).some(line => line.path === fullPath)) {
      return true;
    }
    if (Date.now() > deadline) {
      return false;
    }
    await new Promise(resolve => setTimeout(resolve, 50));
  }
}

function findCapability(
  manifest: {
    capabilities: { id: string; values: { id: string }[]; default?: string }[];
  },
  id: string
) {
  const row = manifest.capabilities.find(c => c.id === id);
  if (!row) {
    throw new Error(`no capability row ${id}`);
  }
  return row;
}

/** Where bob's server finds code of his own: his config directory and a module on his path. */
function bobServerDir(hub: Hub): string {
  return path.join(hub.dirs.root, 'bob-server');
}

/**
 * The hub's spawn hook that gives bob's server (and only his) his own config directory, as his
 * ~/.jupyter would be on a hub where each user has an account: what he puts there, his server runs.
 */
function bobRunsHisOwnCode(dirs: Hub['dirs']): string {
  const bobDir = path.join(dirs.root, 'bob-server');
  return `
def _bob_runs_his_own_code(spawner):
    if spawner.user.name != "bob":
        return
    env = dict(spawner.environment)
    env["JUPYTER_CONFIG_PATH"] = ${JSON.stringify(bobDir)}
    env["PYTHONPATH"] = os.pathsep.join(p for p in [env.get("PYTHONPATH", ""), ${JSON.stringify(bobDir)}] if p)
    spawner.environment = env

c.Spawner.pre_spawn_hook = _bob_runs_his_own_code
`;
}

/**
 * bob's server extension: a page at {his base URL}bob-page that anyone may load (a plain tornado
 * handler, no sign-in), whose script tries to initialize alice's project (attack.json: the URL and
 * the body alice's own next action names) and leaves each answer in window.attack.
 */
function writeBobsPage(bobDir: string): void {
  fs.mkdirSync(bobDir, { recursive: true, mode: 0o700 });
  fs.writeFileSync(
    path.join(bobDir, 'jupyter_server_config.json'),
    JSON.stringify({ ServerApp: { jpserver_extensions: { bob_page: true } } })
  );
  const script = `
window.attack = (async () => {
  const { url, body } = await (await fetch('bob-page/attack.json')).json();
  const own = /(?:^|;\\s*)_xsrf=([^;]*)/.exec(document.cookie);
  const tries = [
    ['no X-XSRFToken', {}],
    ["the _xsrf of bob's page", { 'X-XSRFToken': own ? own[1] : 'none' }],
    ['a made-up X-XSRFToken', { 'X-XSRFToken': '2|00000000|00112233445566778899|1700000000' }]
  ];
  const answers = [];
  for (const [tried, headers] of tries) {
    const r = await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...headers },
      body: JSON.stringify(body)
    });
    answers.push({ tried, status: r.status, body: await r.text() });
  }
  return answers;
})();`;
  fs.writeFileSync(
    path.join(bobDir, 'bob_page.py'),
    `import os
import secrets

from tornado.web import RequestHandler

HERE = os.path.dirname(os.path.abspath(__file__))
PAGE = r"""<!doctype html><html><head><title>bob's page</title></head><body><p>Nothing to see.</p>
<script>${script}</script></body></html>"""


class BobsPage(RequestHandler):
    def initialize(self, base_url):
        self.base_url = base_url

    def get(self, rest):
        if rest == "/attack.json":
            with open(os.path.join(HERE, "attack.json")) as f:
                self.set_header("Content-Type", "application/json")
                self.finish(f.read())
            return
        # As a Jupyter server does: an _xsrf cookie for bob's own path, readable by his page.
        self.set_cookie("_xsrf", secrets.token_hex(16), path=self.base_url)
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.finish(PAGE)


def _jupyter_server_extension_points():
    return [{"module": "bob_page"}]


def _load_jupyter_server_extension(app):
    base = app.base_url
    app.web_app.add_handlers(
        ".*$", [(base + "bob-page(/attack.json)?", BobsPage, {"base_url": base})]
    )
`
  );
}

/** Debian 12's route: `project-startup jupyter install --user` wrote the entry and the labextension. */
function installCommandWroteEntry(hub: Hub): void {
  const config = JSON.parse(
    fs.readFileSync(
      path.join(hub.dirs.jupyterConfig, 'jupyter_server_config.json'),
      'utf8'
    )
  );
  const entry = config.ServerProxy.servers[ENTRY];
  expect(entry).toMatchObject({ unix_socket: true, absolute_url: true });
  expect(entry.command).toEqual(expect.arrayContaining(SIDECAR_SERVE_ARGS));
  expect(
    fs.existsSync(
      path.join(
        hub.dirs.jupyterData,
        'labextensions',
        'jupyterlab-project-startup',
        'package.json'
      )
    )
  ).toBe(true);
}

/** Debian 13's route: the wheel in the single-user server's venv; no JSON entry, its entry point gives it. */
function wheelGaveEntry(hub: Hub): void {
  const { root, python } = hub.stackInfo;
  expect(
    fs.existsSync(
      path.join(hub.dirs.jupyterConfig, 'jupyter_server_config.json')
    )
  ).toBe(false);
  const entry = JSON.parse(
    runInTrixie(root, [
      python,
      '-c',
      'import json; from importlib.metadata import entry_points; ' +
        '(ep,) = [e for e in entry_points(group="jupyter_serverproxy_servers") if e.name == "project"]; ' +
        'c = ep.load()(); print(json.dumps({k: c[k] for k in ("unix_socket", "absolute_url", "update_last_activity")}))'
    ])
  );
  expect(entry).toEqual({
    unix_socket: true,
    absolute_url: true,
    update_last_activity: false
  });
  const venv = path.dirname(path.dirname(python));
  expect(
    fs.existsSync(
      path.join(
        root,
        venv,
        'share',
        'jupyter',
        'labextensions',
        'jupyterlab-project-startup',
        'package.json'
      )
    )
  ).toBe(true);
  // The wheel's server extension found the proxy and Node at start (Debian 13's Node 20).
  expect(hub.logs()).toMatch(
    /jupyterlab-project-startup \S+: jupyter-server-proxy 4\.4\.0, Node\.js 20\./
  );
}

/** The hosted-notebook checks, on one stack (a test file calls this once). */
export function hostedNotebookSuite(stack: HubStack): void {
  describe(`hosted-notebook under a real JupyterHub (${stack})`, () => {
    let hub: Hub | undefined;
    const h = () => hub as Hub;
    const collected: Collected[] = [];
    let sidecarPid: number | undefined;
    let browser: BrowserSession | undefined;
    /** The secrets the leak test looked for, looked for once more in the whole log after shutdown. */
    let secretsSeen: Record<string, string> = {};
    const startedAt = Date.now();

    const auth = () => ({ authorization: `token ${h().userToken}` });
    const url = (rest: string) =>
      `${h().publicUrl}${h().userBase}${ENTRY}/${rest}`;
    async function call(
      what: string,
      rest: string,
      options: {
        method?: string;
        headers?: Record<string, string>;
        body?: string;
      } = {}
    ) {
      const answer = await httpRequest(url(rest), {
        ...options,
        headers: { ...auth(), ...options.headers }
      });
      collected.push({ what, answer });
      return answer;
    }

    beforeAll(
      async () => {
        hub = await startHub({
          label: `hub-hosted-notebook-${stack}`,
          stack,
          extraConfig: (_stack, dirs) => bobRunsHisOwnCode(dirs)
        });
      },
      20 * 60 * 1000
    );

    afterAll(async () => {
      await hub?.stop();
      await stopAllHubs();
      console.log(
        `hub test file (${stack}): ${Date.now() - startedAt} ms; timings ${JSON.stringify(hub?.timings)}; ran on ${JSON.stringify(hub?.stackInfo)}`
      );
      // Shutdown included (the sidecar and the single-user server log as they stop): still no secret.
      const log = hub?.logs() ?? '';
      const leaked = Object.entries(secretsSeen)
        .filter(([, value]) => log.includes(value))
        .map(([name]) => name);
      if (leaked.length > 0) {
        throw new Error(
          `secrets in the log after shutdown: ${leaked.join(', ')} (see test-artifacts/hub/hub-hosted-notebook-${stack}.log)`
        );
      }
    }, 60000);

    test('the hub spawned alice with its evidence; the install put the proxy entry where the real proxy serves it', async () => {
      const env = processEnvironment(h().pids.singleUser as number);
      expect(env.JUPYTERHUB_USER).toBe('alice');
      expect(env.JUPYTERHUB_API_URL).toBe(
        `http://127.0.0.1:${h().ports.hub}/hub/api`
      );
      expect(env.JUPYTERHUB_SERVICE_PREFIX).toBe('/user/alice/');
      expect(env.HOME).toBe(h().dirs.home);
      expect(env.JUPYTERHUB_API_TOKEN).toMatch(/^\S{16,}$/);
      expect(env.JPY_API_TOKEN).toBe(env.JUPYTERHUB_API_TOKEN);
      if (h().stackInfo.install === 'command') {
        installCommandWroteEntry(h());
      } else {
        wheelGaveEntry(h());
      }
      // The single-user server loaded the real jupyter-server-proxy (4.x) as a server extension.
      expect(h().logs()).toMatch(
        /jupyter_server_proxy \| extension was successfully loaded/
      );
      expect(serverProxyLocation(PYTHON).version).toMatch(/^4\./);
      expect(h().stackInfo.versions.jupyterhub).toMatch(
        stack === 'debian-13' ? /^5\./ : /^3\./
      );
    });

    test('GET /user/alice/project/capabilities: hosted-notebook, decided by the spawner evidence', async () => {
      const answer = await call('GET capabilities', 'capabilities');
      expect(answer.status).toBe(200);
      expect(answer.headers['content-type']).toMatch(/^application\/json/);
      const manifest = answer.json;
      expectValid('Manifest', manifest);
      expect(manifest.platform.id).toBe('hosted-notebook');
      expect(manifest.platform.evidence.decidedBy).toBe(
        'hosted-notebook-spawner'
      );
      const signals = manifest.platform.evidence.signals as {
        name: string;
        kind: string;
        platform: string;
      }[];
      expect(signals).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            name: 'JUPYTERHUB_API_URL',
            kind: 'env',
            platform: 'hosted-notebook'
          }),
          expect.objectContaining({
            name: 'JUPYTERHUB_USER',
            kind: 'env',
            platform: 'hosted-notebook'
          })
        ])
      );
      // Besides container markers (host evidence of the generic kind, e.g. /.dockerenv here), only the hub's.
      expect(
        signals.filter(s => s.platform !== 'generic').map(s => s.name)
      ).toEqual(['JUPYTERHUB_API_URL', 'JUPYTERHUB_USER']);
      expect(manifest.platform.evidence.overruled).toEqual([]);
      expect(
        findCapability(manifest, 'interfaces').values.map(v => v.id)
      ).toEqual(['terminal', 'notebook']);
      const ingress = findCapability(manifest, 'gateway-ingress-modes');
      expect(ingress.default).toBe('notebook-server-proxy');
      expect(ingress.values.map(v => v.id)).toContain('notebook-server-proxy');
      expect(
        findCapability(manifest, 'durable-storage').values.map(v => v.id)
      ).toEqual(['home-directory']);
      expect(
        findCapability(manifest, 'credential-backends').values.map(v => v.id)
      ).toEqual(['process', 'mounted-file', 'managed-identity']);
      // The sidecar behind it runs with the single-user server's environment.
      const started = sidecarLogLines(h().logs()).find(
        line => line.message === 'service started'
      );
      expect(started).toMatchObject({
        platform: 'hosted-notebook',
        decidedBy: 'hosted-notebook-spawner',
        ingress: 'notebook-server-proxy'
      });
      // Its pid, from the runtime file it writes (under alice's home: no XDG_RUNTIME_DIR here).
      const runtimeDir = path.join(
        h().dirs.home,
        '.local',
        'share',
        'project-startup',
        'runtime'
      );
      const runtimeFiles = fs
        .readdirSync(runtimeDir)
        .filter(f => /^server-[0-9a-f]{12}\.json$/.test(f));
      expect(runtimeFiles).toHaveLength(1);
      sidecarPid = (
        JSON.parse(
          fs.readFileSync(path.join(runtimeDir, runtimeFiles[0]), 'utf8')
        ) as { pid: number }
      ).pid;
      expect(sidecarPid).toBeGreaterThan(0);
      // A child of the single-user server: the proxy launched it.
      expect(
        fs
          .readFileSync(`/proc/${sidecarPid}/stat`, 'utf8')
          .split(') ')[1]
          .split(' ')[1]
      ).toBe(String(h().pids.singleUser));
      const sidecarEnv = processEnvironment(sidecarPid);
      expect(sidecarEnv.JUPYTERHUB_USER).toBe('alice');
      expect(sidecarEnv.JUPYTERHUB_API_TOKEN).toBe(
        processEnvironment(h().pids.singleUser as number).JUPYTERHUB_API_TOKEN
      );
    }, 30000);

    test("GET startup?interface=notebook: awaiting confirmation, state under alice's home, the hub tokens as Process credentials (names only)", async () => {
      const answer = await call(
        'GET startup notebook',
        'startup?interface=notebook'
      );
      expect(answer.status).toBe(200);
      const projection = answer.json;
      expectValid('StartupProjection', projection);
      expect(projection.platform).toBe('hosted-notebook');
      expect(projection.interface).toBe('notebook');
      expect(projection.phase).toBe('awaiting-confirmation');
      expect(projection.nextAction.id).toBe('confirm-initialization');
      expect(projection.interfaceSupport.supported).toBe(true);
      expect(projection.browserUrl).toBeUndefined();
      // The sidecar's working directory is the single-user server's: alice's home (SimpleLocalProcessSpawner).
      const home = h().dirs.home;
      expect(projection.projectPath).toBe(home);
      const digest = createHash('sha256')
        .update(home)
        .digest('hex')
        .slice(0, 12);
      expect(projection.statePath).toBe(
        path.join(
          home,
          '.project-startup',
          'projects',
          `${path.basename(home)}-${digest}`
        )
      );
      const checks = projection.readinessChecks as {
        id: string;
        status: string;
        observed: string;
      }[];
      const credentials = checks.find(c => c.id === 'credential-backends');
      expect(credentials).toBeDefined();
      // The hub's two live tokens reach no model: named, not counted. No backend is set up at
      // this site, which is no warning to the person: the check is skipped.
      expect(credentials?.status).toBe('skip');
      const processPart =
        /Process:[^;]*/.exec(credentials?.observed ?? '')?.[0] ?? '';
      expect(processPart).toMatch(
        /^Process: no model provider credential in the environment \(not model credentials, not counted: JPY_API_TOKEN, JUPYTERHUB_API_TOKEN\)$/
      );
      const ingress = checks.find(c => c.id === 'gateway-ingress');
      expect(ingress?.status).toBe('pass');
      expect(ingress?.observed).toMatch(
        /^Notebook-server proxy on Unix socket \//
      );
      const liveToken = processEnvironment(
        h().pids.singleUser as number
      ).JUPYTERHUB_API_TOKEN;
      expect(answer.text).not.toContain(liveToken);
      expect(projection.manifest).toEqual(
        (await call('GET capabilities (again)', 'capabilities')).json
      );
    }, 30000);

    test('GET startup?interface=web: unsupported interface on the hosted notebook', async () => {
      const answer = await call('GET startup web', 'startup?interface=web');
      expect(answer.status).toBe(200);
      expectValid('StartupProjection', answer.json);
      expect(answer.json.phase).toBe('unsupported-interface');
      expect(answer.json.interfaceSupport.supported).toBe(false);
      expect(answer.json.interfaceSupport.supportedInterfaces).toEqual([
        'terminal',
        'notebook'
      ]);
      expect(answer.json.nextAction.id).toBe('switch-interface');
    }, 30000);

    test('without a token the hub and Jupyter refuse; the sidecar never sees the request', async () => {
      const refused = async (
        what: string,
        rest: string,
        options: {
          method?: string;
          headers?: Record<string, string>;
          body?: string;
        }
      ) => {
        const answer = await httpRequest(url(rest), options);
        collected.push({ what, answer });
        expect(answer.headers['x-project-startup-version']).toBeUndefined(); // not the sidecar's answer
        return answer;
      };
      const get = await refused(
        'GET capabilities without token',
        'capabilities',
        {}
      );
      expect(get.status).toBe(302);
      expect(get.headers.location).toMatch(/^\/hub\/api\/oauth2\/authorize\?/);
      const post = await refused(
        'POST initialize without token',
        'initialize',
        {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            interface: 'notebook',
            confirm: { projectPath: '/x', statePath: '/y' }
          })
        }
      );
      expect(post.status).toBe(403);
      const wrong = await refused(
        'GET capabilities with a wrong token',
        'capabilities',
        { headers: { authorization: 'token not-a-real-token' } }
      );
      expect(wrong.status).toBe(302);

      // Paths of their own, so the sidecar's debug log can tell whether they reached it: the
      // refused ones never do; a control sent afterwards with the token does (a 404 of the sidecar).
      const nonce = randomBytes(6).toString('hex');
      expect(
        (await refused('GET unknown path without token', `never-${nonce}`, {}))
          .status
      ).toBe(302);
      expect(
        (
          await refused('POST unknown path without token', `never-${nonce}`, {
            method: 'POST',
            body: '{}'
          })
        ).status
      ).toBe(403);
      expect(
        (
          await refused('GET unknown path, wrong token', `never-${nonce}`, {
            headers: { authorization: 'token wrong' }
          })
        ).status
      ).toBe(302);
      const control = await call(
        'GET unknown path with token',
        `seen-${nonce}`
      );
      expect(control.status).toBe(404);
      expect(control.json.code).toBe('not-found');
      expect(
        await sidecarLogged(h().logs, `${h().userBase}${ENTRY}/seen-${nonce}`)
      ).toBe(true);
      // The sidecar is one process writing in order: had the refused requests reached it, they would be logged by now.
      expect(
        sidecarRequests(h().logs()).some(
          line => line.path === `${h().userBase}${ENTRY}/never-${nonce}`
        )
      ).toBe(false);
    }, 30000);

    test("POST initialize (notebook) creates the state under alice's home (0700 dirs, 0600 record); then ready", async () => {
      const projection = (
        await call(
          'GET startup before initialize',
          'startup?interface=notebook'
        )
      ).json;
      const body = JSON.stringify({
        interface: 'notebook',
        method: 'jupyterlab-dialog',
        confirm: {
          projectPath: projection.projectPath,
          statePath: projection.statePath
        }
      });
      const created = await call('POST initialize', 'initialize', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body
      });
      expect(created.status).toBe(201);
      expectValid('InitializeResponse', created.json);
      const again = await call('POST initialize again', 'initialize', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body
      });
      expect(again.status).toBe(200);

      const home = h().dirs.home;
      const statePath = projection.statePath as string;
      for (const dir of [
        path.join(home, '.project-startup'),
        path.join(home, '.project-startup', 'projects'),
        statePath
      ]) {
        const stat = fs.lstatSync(dir);
        expect(stat.isDirectory()).toBe(true);
        expect((stat.mode & 0o777).toString(8)).toBe('700');
      }
      const files = fs.readdirSync(statePath);
      expect(files.length).toBeGreaterThan(0);
      for (const name of files) {
        const stat = fs.lstatSync(path.join(statePath, name));
        expect(stat.isFile()).toBe(true);
        expect((stat.mode & 0o777).toString(8)).toBe('600');
      }
      const records = Object.values(readAllFiles(statePath)).map(text =>
        JSON.parse(text)
      );
      const record =
        records.find(r => r && typeof r === 'object' && 'confirmedAt' in r) ??
        records[0];
      expectValid('InitializationRecord', record);
      expect(JSON.stringify(record)).toContain('hosted-notebook');

      const ready = await call(
        'GET startup after initialize',
        'startup?interface=notebook'
      );
      expect(ready.status).toBe(200);
      expect(ready.json.phase).toBe('ready');
      expect(ready.json.nextAction.id).toBe('none');
    }, 30000);

    test('a browser session (hub login form, then OAuth cookies): same-origin POST accepted, cross-origin POST refused by the sidecar', async () => {
      const { session, answer } = await browserLogin(
        h(),
        `${h().userBase}${ENTRY}/capabilities`
      );
      browser = session;
      collected.push({
        what: 'GET capabilities with the OAuth cookie',
        answer
      });
      expect(session.trail.join(' -> ')).toMatch(
        /\/hub\/api\/oauth2\/authorize -> 302 \/user\/alice\/oauth_callback/
      );
      expect(answer.status).toBe(200);
      expect(answer.json.platform.id).toBe('hosted-notebook');
      // A page of alice's server, as a person opens it: it sets the server's _xsrf cookie.
      await session.open(h().userBase);
      const cookie = session.header();
      expect(cookie).toMatch(/jupyterhub-user-alice=/);
      const viaCookie = await httpRequest(url('startup?interface=notebook'), {
        headers: { cookie }
      });
      collected.push({ what: 'GET startup (cookie)', answer: viaCookie });
      expect(viaCookie.status).toBe(200);
      const projection = viaCookie.json;
      expect(projection.phase).toBe('ready');
      const body = JSON.stringify({
        interface: 'notebook',
        method: 'jupyterlab-dialog',
        confirm: {
          projectPath: projection.projectPath,
          statePath: projection.statePath
        }
      });
      const headers = (extra: Record<string, string>) => ({
        cookie,
        'content-type': 'application/json',
        ...extra
      });
      // What alice's page served by this hub sends: its own origin (the hub's proxy passes the
      // browser's Host on) and, as JupyterLab does, the _xsrf cookie of alice's server as
      // X-XSRFToken, which a page of her server set (opened above).
      const xsrf = session.cookieFor('_xsrf', `${h().userBase}${ENTRY}/`);
      expect(xsrf).toBeDefined();
      const sameOrigin = await httpRequest(url('initialize'), {
        method: 'POST',
        headers: headers({
          origin: h().publicUrl,
          'sec-fetch-site': 'same-origin',
          'x-xsrftoken': xsrf as string
        }),
        body
      });
      collected.push({
        what: 'POST initialize (cookie, same origin)',
        answer: sameOrigin
      });
      expect(sameOrigin.status).toBe(200);
      expect(sameOrigin.json.created).toBe(false);
      // Another site's page: Jupyter's cookie rides along and the proxy does not check XSRF; the
      // sidecar refuses, and the state stays as it was. (Each refusal should reach the browser as the
      // sidecar's 403; a share of them arrive as the proxy's 500 instead: the product bug that the
      // next test pins down. Here: never a success, and the sidecar's 403 when it gets through.)
      const stateBefore = readAllFiles(projection.statePath);
      const refusals: HttpAnswer[] = [];
      const variants: Record<string, string>[] = [
        { origin: 'http://evil.example', 'sec-fetch-site': 'cross-site' },
        { 'sec-fetch-site': 'cross-site' },
        { origin: 'null' }
      ];
      for (const extra of variants) {
        for (let attempt = 0; attempt < 3; attempt += 1) {
          const answer = await httpRequest(url('initialize'), {
            method: 'POST',
            headers: headers(extra),
            body
          });
          collected.push({
            what: `POST initialize (cookie, ${JSON.stringify(extra)})`,
            answer
          });
          refusals.push(answer);
          expect(answer.status).toBeGreaterThanOrEqual(400);
          if (answer.headers['x-project-startup-version'] !== undefined) {
            expect(answer.status).toBe(403);
            expectValid('Problem', answer.json);
            expect(answer.json.code).toBe('cross-origin');
            break;
          }
        }
      }
      expect(
        refusals.filter(
          a => a.status === 403 && a.json?.code === 'cross-origin'
        ).length
      ).toBe(3);
      expect(readAllFiles(projection.statePath)).toEqual(stateBefore);
    }, 30000);

    test("bob's page, served by bob's server on the hub's origin and opened in alice's Chromium, cannot initialize alice's project", async () => {
      // bob: a second user of this hub. His server runs code of his choosing (here a server
      // extension from his own config directory) and serves alice a page at /user/bob/bob-page.
      // In alice's browser that page is of the hub's origin: its fetch to /user/alice/ carries
      // alice's cookies and passes the origin check, and it may set any header. What it cannot
      // read in its own document.cookie is alice's _xsrf, whose Path is alice's server.
      const bobDir = bobServerDir(h());
      writeBobsPage(bobDir);
      const projection = (
        await call('GET startup', 'startup?interface=notebook')
      ).json;
      // Alice's project without its state, so that an accepted POST would create it.
      fs.rmSync(projection.statePath, { recursive: true, force: true });
      const fresh = (await call('GET startup', 'startup?interface=notebook'))
        .json;
      expect(fresh.phase).toBe('awaiting-confirmation');
      fs.writeFileSync(
        path.join(bobDir, 'attack.json'),
        JSON.stringify({
          url: `${h().userBase}${ENTRY}/initialize`,
          body: fresh.nextAction.request.body
        })
      );
      const bob = await spawnAnotherUser(h(), 'bob');
      const chromium = await launchBrowser();
      try {
        const page = await chromium.newPage();
        // alice signs in with the hub's form and opens her server, which sets her _xsrf cookie.
        await page.goto(`${h().publicUrl}/hub/login`);
        await page.fill('#username_input', h().user);
        await page.fill('#password_input', h().password);
        await Promise.all([
          page.waitForURL(/\/hub\/(spawn|home|user)|\/user\//),
          page.click('#login_submit')
        ]);
        await page.goto(`${h().publicUrl}${h().userBase}${ENTRY}/capabilities`);
        await page.goto(`${h().publicUrl}${h().userBase}`, {
          waitUntil: 'domcontentloaded'
        });
        const cookies = await chromium.context.cookies(
          `${h().publicUrl}${h().userBase}${ENTRY}/initialize`
        );
        const aliceXsrf = cookies.find(
          c => c.name === '_xsrf' && h().userBase.startsWith(c.path)
        );
        expect(aliceXsrf?.path).toMatch(/^\/user\/alice\/?$/);
        expect(cookies.map(c => c.name)).toContain('jupyterhub-user-alice');

        // bob's page runs its script in alice's browser: three tries, each a same-origin fetch.
        const bobsPage = await page.goto(`${h().publicUrl}/user/bob/bob-page`);
        expect(bobsPage?.status()).toBe(200);
        expect(await page.title()).toBe("bob's page");
        const tries = (await page.evaluate('window.attack')) as {
          tried: string;
          status: number;
          body: string;
        }[];
        expect(tries.map(t => t.tried)).toEqual([
          'no X-XSRFToken',
          "the _xsrf of bob's page",
          'a made-up X-XSRFToken'
        ]);
        for (const answer of tries) {
          collected.push({
            what: `POST initialize from bob's page in alice's browser (${answer.tried})`,
            answer: {
              status: answer.status,
              text: answer.body,
              json: JSON.parse(answer.body),
              headers: {}
            } as HttpAnswer
          });
          expect([answer.tried, answer.status]).toEqual([answer.tried, 403]);
          const problem = JSON.parse(answer.body);
          expectValid('Problem', problem);
          expect(problem.code).toBe('cross-origin');
          expect(problem.detail).toMatch(/X-XSRFToken/);
        }
        expect(tries[1].body).not.toContain(aliceXsrf?.value as string);
        expect(fs.existsSync(fresh.statePath)).toBe(false);

        // The same request from alice's own page (as JupyterLab sends it, her _xsrf from
        // document.cookie): created, recorded as JupyterLab's dialog.
        await page.goto(`${h().publicUrl}${h().userBase}`, {
          waitUntil: 'domcontentloaded'
        });
        const own = (await page.evaluate(
          async ({ url, body }) => {
            const xsrf = /(?:^|;\s*)_xsrf=([^;]*)/.exec(document.cookie)?.[1];
            const r = await fetch(url, {
              method: 'POST',
              headers: {
                'Content-Type': 'application/json',
                'X-XSRFToken': xsrf ?? ''
              },
              body: JSON.stringify(body)
            });
            return { status: r.status, body: await r.text() };
          },
          {
            url: `${h().userBase}${ENTRY}/initialize`,
            body: fresh.nextAction.request.body
          }
        )) as { status: number; body: string };
        expect(own.status).toBe(201);
        expect(JSON.parse(own.body).record.confirmation).toMatchObject({
          interface: 'notebook',
          method: 'jupyterlab-dialog'
        });
      } finally {
        await chromium.close();
        await bob.stop();
      }
    }, 120000);

    test("the sidecar's early refusal of a POST reaches the browser through the notebook proxy as its 403, never as the proxy's 500", async () => {
      // The sidecar answers a cross-origin POST before reading its body and closes the connection;
      // the proxy (tornado's HTTP client, as jupyter-server-proxy uses) may still be writing the body,
      // gets EPIPE, and Jupyter answers 500 instead of passing the 403 problem on.
      const cookie = (browser as BrowserSession).header();
      const body = JSON.stringify({
        interface: 'notebook',
        confirm: { projectPath: h().dirs.home, statePath: '/elsewhere' }
      });
      const tally: Record<string, number> = {};
      // The race is lost in roughly one request in ten to twenty here; 100 tries show it.
      for (let i = 0; i < 100; i += 1) {
        const answer = await httpRequest(url('initialize'), {
          method: 'POST',
          headers: {
            cookie,
            'content-type': 'application/json',
            origin: 'http://evil.example',
            'sec-fetch-site': 'cross-site'
          },
          body
        });
        if (i < 3) {
          collected.push({
            what: `POST initialize (cookie, cross origin) #${i}`,
            answer
          });
        }
        const key = `${answer.status} ${answer.headers['x-project-startup-version'] ? `sidecar ${answer.json?.code}` : 'not the sidecar'}`;
        tally[key] = (tally[key] ?? 0) + 1;
      }
      expect(tally).toEqual({ '403 sidecar cross-origin': 100 });
    }, 30000);

    test("the hub's live tokens appear in no response, state or runtime file, or log line", async () => {
      // A few more answers to look through: the setup page, health, the OpenAPI document, the
      // gateway and errors.
      await call('GET setup page', '');
      await call('GET health', 'health');
      await call('GET openapi.json', 'openapi.json');
      await call('POST gateway', 'gateway', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'project.startup',
          params: { interface: 'notebook' }
        })
      });
      await call('GET 404', 'nope');
      await call('GET 400', 'startup?interface=browser');

      const singleUserEnv = processEnvironment(h().pids.singleUser as number);
      const secrets: Record<string, string> = {
        'JUPYTERHUB_API_TOKEN (single-user server)':
          singleUserEnv.JUPYTERHUB_API_TOKEN,
        'JPY_API_TOKEN (single-user server)': singleUserEnv.JPY_API_TOKEN,
        "alice's user token": h().userToken,
        "the service's admin token": h().serviceToken,
        "alice's password": h().password
      };
      const proxyPid = h().pids.proxy;
      if (proxyPid) {
        secrets["the hub's CONFIGPROXY_AUTH_TOKEN"] =
          processEnvironment(proxyPid).CONFIGPROXY_AUTH_TOKEN;
      }
      // The browser's login cookies are credentials too. Not jupyterhub-session-id: an identifier
      // (for logging out everywhere) that JupyterHub's own single-user auth logs ("Logged-in user").
      for (const [name, value] of browser?.cookies ?? []) {
        if (
          name.startsWith('jupyterhub-') &&
          name !== 'jupyterhub-session-id' &&
          value.length >= 16
        ) {
          secrets[`cookie ${name}`] = value;
        }
      }
      if (sidecarPid && fs.existsSync(`/proc/${sidecarPid}`)) {
        const sidecarEnv = processEnvironment(sidecarPid);
        secrets['JUPYTERHUB_API_TOKEN (sidecar)'] =
          sidecarEnv.JUPYTERHUB_API_TOKEN;
      }
      for (const [name, value] of Object.entries(secrets)) {
        expect([name, typeof value === 'string' && value.length >= 16]).toEqual(
          [name, true]
        );
      }

      secretsSeen = secrets;
      const leaks: string[] = [];
      const look = (where: string, text: string) => {
        for (const [name, value] of Object.entries(secrets)) {
          if (text.includes(value)) {
            leaks.push(`${name} in ${where}`);
          }
        }
      };
      expect(collected.length).toBeGreaterThan(10);
      for (const { what, answer } of collected) {
        look(`${what}: body`, answer.text);
        look(`${what}: headers`, JSON.stringify(answer.headers));
      }
      const home = h().dirs.home;
      const stateRoot = path.join(home, '.project-startup');
      const stateFiles = readAllFiles(stateRoot);
      expect(Object.keys(stateFiles).length).toBeGreaterThan(0);
      for (const [file, text] of Object.entries(stateFiles)) {
        look(`state file ${file}`, text);
      }
      // The sidecar's runtime directory (default under the home: no XDG_RUNTIME_DIR in the hub's environment).
      for (const [file, text] of Object.entries(
        readAllFiles(path.join(home, '.local', 'share', 'project-startup'))
      )) {
        look(`runtime file ${file}`, text);
      }
      // The log holds the hub's, the proxy's, the single-user server's (jupyter-server-proxy's among them) and the sidecar's lines.
      // The last request's log line first (lines are written after the answer is sent).
      const lastPath = `last-${randomBytes(6).toString('hex')}`;
      expect((await call('GET last (log marker)', lastPath)).status).toBe(404);
      expect(
        await sidecarLogged(h().logs, `${h().userBase}${ENTRY}/${lastPath}`)
      ).toBe(true);
      const log = h().logs();
      expect(sidecarRequests(log).length).toBeGreaterThan(5); // the sidecar logged at debug level
      expect(log).toMatch(
        /jupyter_server_proxy \| extension was successfully loaded/
      );
      log.split('\n').forEach((line, i) => look(`log line ${i + 1}`, line));
      expect(leaks).toEqual([]);
      // Names are fine, values never: the names did show up in the credential check.
      expect(
        collected.some(c => c.answer.text.includes('JUPYTERHUB_API_TOKEN'))
      ).toBe(true);
    }, 30000);
  });
}
