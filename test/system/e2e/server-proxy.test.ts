// The real jupyter-server-proxy 4.x (../shared/vendor/python) on the real `jupyter lab`
// (jupyter_server 2.21.1) in front of the real sidecar: the facts the notebook-server-proxy ingress
// is built on (shared/spec/jupyter-environment.md), checked here so that a proxy release that
// changes one of them fails a test instead of opening a hole:
// - Jupyter authenticates every request before the proxy does anything (nothing is launched for
//   an unauthenticated one): GET and HEAD get 302 to the login page, other methods and websocket
//   upgrades 403 — Jupyter's answers, not the sidecar's;
// - the proxy checks no XSRF token and forwards every header the sidecar's checks read
//   (Authorization, Cookie, X-XSRFToken, Origin, Host, Sec-Fetch-Site, If-None-Match), the
//   query (`?token=` included) and the body, and brings the sidecar's answer back (its empty
//   304 to a poller's If-None-Match on startup included);
// - with `absolute_url` the sidecar gets the full path under Jupyter's base_url, and
//   `{base_url}project` without a slash redirects to `project/`;
// - readiness: the first request launches the sidecar and waits until it answers;
// - a sidecar that exits 0 is not restarted (the proxy answers 500 from then on);
// - SIGTERM to the Jupyter server ends the sidecar and its Unix socket goes (the proxy leaves
//   the empty private directory it made for the socket).
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  checkPrerequisites,
  httpRequest,
  jupyterCookies,
  LabServer,
  sidecarServerEntry,
  startLabServer,
  stopAllLabServers
} from './helpers';
import { alive, seeProcess, stillRuns } from '../../helpers/processes';
import { waitFor } from '../../helpers/wait';

/** The sidecar's runtime file (pid, instance id), once it has written one. */
function sidecarRuntime(
  server: LabServer
): { pid: number; instanceId: string } | undefined {
  const dir = server.dirs.sidecarRuntime;
  const files = fs.existsSync(dir)
    ? fs.readdirSync(dir).filter(f => /^server-[0-9a-f]{12}\.json$/.test(f))
    : [];
  return files.length === 1
    ? (JSON.parse(fs.readFileSync(path.join(dir, files[0]), 'utf8')) as {
        pid: number;
        instanceId: string;
      })
    : undefined;
}

/** The Unix socket the sidecar said it listens on ("service started" in the server's log). */
function sidecarSocket(server: LabServer): string | undefined {
  return /"listening":"Unix socket ([^"]+)"/.exec(server.logs())?.[1];
}

describe('the real jupyter-server-proxy in front of the sidecar', () => {
  let server: LabServer | undefined;
  const s = () => server as LabServer;
  const auth = () => ({ authorization: `token ${s().token}` });
  const api = () => `${s().base}project/`;
  const stale = (statePath = '/not-the-state-path') =>
    JSON.stringify({
      interface: 'notebook',
      confirm: { projectPath: s().dirs.project, statePath }
    });

  beforeAll(async () => {
    checkPrerequisites();
    server = await startLabServer({
      baseUrl: '/user/alice/',
      serverProxy: { project: sidecarServerEntry() },
      label: 'server-proxy-server'
    });
  }, 60000);

  afterAll(async () => {
    await server?.stop();
    await stopAllLabServers();
  }, 30000);

  test('it is the real proxy, 4.x, loaded as a server extension', () => {
    expect(s().serverProxy.version).toMatch(/^4\.(\d+)\./);
    expect(
      Number(/^4\.(\d+)/.exec(s().serverProxy.version)?.[1])
    ).toBeGreaterThanOrEqual(1);
    expect(s().logs()).toMatch(
      /jupyter_server_proxy \| extension was successfully loaded/
    );
  });

  test('Jupyter authenticates first: 302 for GET and HEAD, 403 for other methods and a websocket upgrade; nothing is launched', async () => {
    const get = await httpRequest(`${api()}startup?interface=notebook`);
    expect(get.status).toBe(302);
    expect(get.headers.location).toMatch(/\/user\/alice\/login\?next=/);
    expect(
      (await httpRequest(`${api()}health`, { method: 'HEAD' })).status
    ).toBe(302);
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      const answer = await httpRequest(`${api()}initialize`, {
        method,
        headers: { 'content-type': 'application/json' },
        body: stale()
      });
      expect(`${method} ${answer.status}`).toBe(`${method} 403`);
      expect(answer.headers['content-type'] ?? '').not.toMatch(/problem\+json/); // Jupyter's page, not the sidecar's
    }
    const ws = await httpRequest(`${api()}ws`, {
      headers: {
        upgrade: 'websocket',
        connection: 'Upgrade',
        'sec-websocket-version': '13',
        'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ=='
      }
    });
    expect(ws.status).toBe(403);
    const wrongToken = await httpRequest(`${api()}startup?interface=notebook`, {
      headers: { authorization: 'token wrong' }
    });
    expect(wrongToken.status).toBe(302);
    const wrongQuery = await httpRequest(`${api()}initialize?token=wrong`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: stale()
    });
    expect(wrongQuery.status).toBe(403);
    const noSlash = await httpRequest(`${s().base}project`);
    expect(noSlash.status).toBe(302);
    expect(noSlash.headers.location).toMatch(/\/login\?next=/);
    // None of these reached a backend: the proxy has not launched the sidecar.
    expect(sidecarRuntime(s())).toBeUndefined();
    expect(s().logs()).not.toMatch(/ProjectStartup\] service started /);
  }, 30000);

  test('readiness: the first authenticated request launches the sidecar, waits for it and gets its answer', async () => {
    const health = await httpRequest(`${api()}health`, { headers: auth() });
    expect(health.status).toBe(200);
    expect(health.json).toMatchObject({ status: 'pass', platform: 'generic' });
    const info = sidecarRuntime(s());
    expect(info?.instanceId).toBe(health.json.instanceId);
    expect(alive(info?.pid as number)).toBe(true);
    const socket = sidecarSocket(s()) as string;
    expect(socket).toBeDefined();
    expect(fs.statSync(socket).isSocket()).toBe(true);
    // A private directory made for it, in the server's TMPDIR.
    expect(path.dirname(path.dirname(socket))).toBe(s().dirs.tmp);
    expect(fs.statSync(path.dirname(socket)).mode & 0o777).toBe(0o700);
  }, 30000);

  test('absolute_url: the sidecar gets the full path under base_url and the query; project without a slash redirects to project/', async () => {
    // The sidecar was started with --base-url /user/alice/ and serves only /user/alice/project/...:
    // these answer only because the full path arrived.
    const startup = await httpRequest(`${api()}startup?interface=notebook`, {
      headers: auth()
    });
    expect(startup.status).toBe(200);
    expect(startup.json).toMatchObject({
      interface: 'notebook',
      projectPath: s().dirs.project
    });
    // The query goes on unchanged, Jupyter's ?token= included.
    const web = await httpRequest(
      `${api()}startup?interface=terminal&token=${s().token}`
    );
    expect(web.status).toBe(200);
    expect(web.json.interface).toBe('terminal');
    const redirect = await httpRequest(`${s().base}project?a=1`, {
      headers: auth()
    });
    expect(redirect.status).toBe(302);
    expect(redirect.headers.location).toMatch(/\/user\/alice\/project\/\?a=1$/);
  }, 30000);

  test("a poller's If-None-Match reaches the sidecar and its empty 304 comes back (the tag is the sidecar's)", async () => {
    // As ServerConnection.makeRequest sends it: the cache buster, Accept, Content-Type, the token.
    const panel = (headers: Record<string, string> = {}) =>
      httpRequest(`${api()}startup?interface=notebook&${Date.now()}`, {
        headers: {
          ...auth(),
          accept: 'application/json',
          'content-type': 'application/json',
          ...headers
        }
      });
    const first = await panel();
    expect(first.status).toBe(200);
    // The sidecar's tag (a hash of the bytes), not the one tornado would make (40 hex digits).
    const etag = first.headers.etag as string;
    expect(etag).toBe(
      `"${createHash('sha256').update(first.text).digest('base64url').slice(0, 27)}"`
    );
    const same = await panel({ 'if-none-match': etag });
    // With the sidecar's ETag set, tornado adds no check of its own: this 304 is the sidecar's.
    expect(same.status).toBe(304);
    expect(same.text).toBe('');
    expect(same.headers.etag).toBe(etag);
    expect((await panel({ 'if-none-match': '"another"' })).status).toBe(200);
  }, 30000);

  test('every header the sidecar checks reaches it, and its answer comes back whole', async () => {
    const cookie = await jupyterCookies(s());
    const post = (headers: Record<string, string>, query = '') =>
      httpRequest(`${api()}initialize${query}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: stale()
      });
    const outcome = async (headers: Record<string, string>, query = '') => {
      const answer = await post(headers, query);
      return `${answer.status} ${answer.json?.code}`;
    };
    // The answers below differ only by one forwarded header each: had the proxy dropped it, the
    // sidecar would answer otherwise. 409 confirmation-stale means the request passed the
    // origin check and reached the body's validation.
    // Cookie alone (a browser's ambient credential, no Origin): refused as possibly cross-site.
    expect(await outcome({ cookie })).toBe('403 cross-origin');
    // Authorization: a script, not a browser: no origin check needed.
    expect(await outcome({ ...auth() })).toBe('409 confirmation-stale');
    // ?token= in the query: likewise.
    expect(await outcome({}, `?token=${s().token}`)).toBe(
      '409 confirmation-stale'
    );
    // X-XSRFToken: with Jupyter's cookies a state change needs it, equal to the _xsrf cookie.
    const xsrf = /(?:^|; )_xsrf=([^;]+)/.exec(cookie)?.[1] as string;
    expect(xsrf).toBeDefined();
    const page = { cookie, 'x-xsrftoken': xsrf };
    expect(await outcome({ cookie, origin: s().origin })).toBe(
      '403 cross-origin'
    );
    // Origin compared with Host: Jupyter's own origin passes, another is refused.
    expect(await outcome({ ...page, origin: s().origin })).toBe(
      '409 confirmation-stale'
    );
    expect(await outcome({ ...page, origin: 'http://evil.example' })).toBe(
      '403 cross-origin'
    );
    // X-Forwarded-Host is the client's own (the proxy passes it on): it stands for no host.
    expect(
      await outcome({
        ...page,
        origin: 'https://hub.example.org',
        'x-forwarded-host': 'hub.example.org'
      })
    ).toBe('403 cross-origin');
    // Sec-Fetch-Site decides even with a matching Origin.
    expect(
      await outcome({
        ...page,
        origin: s().origin,
        'sec-fetch-site': 'cross-site'
      })
    ).toBe('403 cross-origin');
    // The proxy checks no XSRF token: the sidecar's own check above saw the header and the cookie.
    // The body arrives: the right confirmation creates the state.
    const projection = (
      await httpRequest(`${api()}startup?interface=notebook`, {
        headers: auth()
      })
    ).json;
    const created = await httpRequest(`${api()}initialize`, {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/json' },
      body: stale(projection.statePath)
    });
    expect(created.status).toBe(201);
    expect(created.json.record.confirmation).toMatchObject({
      interface: 'notebook',
      ingress: 'notebook-server-proxy'
    });
    // The answer's headers come back (the version header, the ETag) and If-None-Match goes on.
    const caps = await httpRequest(`${api()}capabilities`, { headers: auth() });
    expect(caps.status).toBe(200);
    expect(caps.headers['x-project-startup-version']).toMatch(/^\d+\.\d+\.\d+/);
    expect(caps.headers['content-type']).toMatch(/^application\/json/);
    expect(caps.headers.etag).toMatch(/^"/);
    const revalidated = await httpRequest(`${api()}capabilities`, {
      headers: { ...auth(), 'if-none-match': caps.headers.etag as string }
    });
    expect(revalidated.status).toBe(304);
    // The sidecar never logged the cookie or the token it was handed. (Jupyter's own access log
    // shows the URI of a refused request, `?token=` included: not ours.) The sidecar's lines are
    // in Jupyter's format, under its own name.
    const sidecarLines = s()
      .logs()
      .split('\n')
      .filter(line => / ProjectStartup\] /.test(line));
    expect(
      sidecarLines.filter(line =>
        /ProjectStartup\] service started /.test(line)
      )
    ).toHaveLength(1);
    expect(sidecarLines.join('\n')).not.toContain(s().token);
    expect(sidecarLines.join('\n')).not.toContain(
      cookie.split(';')[0].split('=')[1]
    );
  }, 30000);

  test("a sidecar stopped on its own with exit 0 is not restarted: later requests get the proxy's 500 until Jupyter restarts", async () => {
    const sidecar = seeProcess(sidecarRuntime(s())?.pid);
    process.kill(sidecar.pid, 'SIGTERM'); // the sidecar stops cleanly: exit 0
    await waitFor(() => !stillRuns(sidecar), {
      what: 'the sidecar to stop',
      timeoutMs: 10000
    });
    for (let i = 0; i < 3; i += 1) {
      const answer = await httpRequest(`${api()}health`, { headers: auth() });
      expect(answer.status).toBe(500);
      expect(answer.headers['content-type'] ?? '').not.toMatch(/json/); // Jupyter's error page
    }
    expect(
      s()
        .logs()
        .match(/ProjectStartup\] service started /g) ?? []
    ).toHaveLength(1);
  }, 30000);
});

describe('the sidecar ends with the Jupyter server', () => {
  test('SIGTERM to the Jupyter server (its process alone) ends the sidecar, and its socket goes', async () => {
    checkPrerequisites();
    const server = await startLabServer({
      label: 'server-proxy-sigterm-server',
      serverProxy: { project: sidecarServerEntry() }
    });
    try {
      const answer = await httpRequest(`${server.base}project/health`, {
        headers: { authorization: `token ${server.token}` }
      });
      expect(answer.status).toBe(200);
      const sidecar = seeProcess(sidecarRuntime(server)?.pid);
      const socket = sidecarSocket(server) as string;
      expect(fs.existsSync(socket)).toBe(true);
      process.kill(server.pid, 'SIGTERM'); // not the group: the proxy itself must end the sidecar
      await waitFor(() => !server.running(), {
        what: 'the server to exit',
        timeoutMs: 15000
      });
      await waitFor(() => !stillRuns(sidecar), {
        what: 'the sidecar to end',
        timeoutMs: 5000
      });
      expect(fs.existsSync(socket)).toBe(false);
      // The sidecar removes its socket as it stops. jupyter-server-proxy 4.4 leaves the private
      // directory it made for the socket (mkdtemp, 0700), empty: nothing of ours is left in it.
      expect(
        fs
          .readdirSync(server.dirs.tmp)
          .filter(name => !/^jupyter-server-proxy-/.test(name))
      ).toEqual([]);
      expect(fs.readdirSync(path.dirname(socket))).toEqual([]);
      expect(sidecarRuntime(server)).toBeUndefined();
      expect(server.logs()).toMatch(
        /ProjectStartup\] stopping \{"signal":"SIGTERM"\}/
      );
    } finally {
      await server.stop();
    }
  }, 60000);
});
