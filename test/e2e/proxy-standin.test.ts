// The jupyter-server-proxy STAND-IN (test/e2e/server_proxy_standin.py) against what was measured
// of jupyter-server-proxy 4.x on jupyter_server 1.23 (shared/spec/jupyter-environment.md), with a
// backend that echoes what it receives (fixtures/echo-backend.js). The project's own tests rely
// on the stand-in behaving like the real proxy; these tests keep it honest.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { checkPrerequisites, httpRequest, jupyterCookies, LabServer, startLabServer, stopAllLabServers } from './helpers';

const ECHO = path.join(__dirname, 'fixtures', 'echo-backend.js');

function echo(args: string[], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { command: [process.execPath, ECHO, ...args], ...extra };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until(check: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    }
    await new Promise(resolve => setTimeout(resolve, 50));
  }
}

describe('the jupyter-server-proxy stand-in', () => {
  let server: LabServer | undefined;
  const s = () => server as LabServer;
  const auth = () => ({ authorization: `token ${s().token}` });

  beforeAll(async () => {
    checkPrerequisites();
    server = await startLabServer({
      baseUrl: '/user/alice/',
      label: 'proxy-standin-server',
      env: { ECHO_FROM_SERVER_ENV: 'inherited' },
      serverProxy: {
        'echo-abs': echo(['--unix-socket', '{unix_socket}'], { unix_socket: true, absolute_url: true, launcher_entry: { title: 'x' } }),
        'echo-rel': echo(['--port', '{port}'], { environment: { ECHO_VAR: 'port={port} base={base_url}' } }),
        'echo-crash': echo(['--unix-socket', '{unix_socket}'], { unix_socket: true }),
        'echo-exit0': echo(['--unix-socket', '{unix_socket}'], { unix_socket: true }),
        'echo-slow': echo(['--unix-socket', '{unix_socket}', '--delay-ms', '4000'], { unix_socket: true, timeout: 1 })
      }
    });
  }, 60000);

  afterAll(async () => {
    await server?.stop();
    await stopAllLabServers();
  }, 30000);

  test('absolute_url: the backend gets the full path, the query, every header and the body; the answer comes back whole', async () => {
    const cookie = await jupyterCookies(s());
    const answer = await httpRequest(`${s().base}echo-abs/some/path?a=1&b=%2F&token=${s().token}`, {
      method: 'POST',
      headers: { ...auth(), cookie, 'x-custom': 'kept', 'content-type': 'text/plain', origin: 'http://elsewhere.example' },
      body: 'hello body'
    });
    expect(answer.status).toBe(200);
    const seen = answer.json;
    expect(seen.method).toBe('POST');
    expect(seen.url).toBe(`/user/alice/echo-abs/some/path?a=1&b=%2F&token=${s().token}`);
    expect(seen.headers.authorization).toBe(`token ${s().token}`);
    expect(seen.headers.cookie).toBe(cookie);
    expect(seen.headers['x-custom']).toBe('kept');
    expect(seen.headers.origin).toBe('http://elsewhere.example'); // no XSRF or origin check
    expect(seen.headers.host).toBe(`127.0.0.1:${s().port}`);
    expect(seen.headers['x-forwarded-prefix']).toBeUndefined();
    expect(seen.body).toBe('hello body');
    expect(answer.headers['x-echo-backend']).toBe('yes');
    expect(answer.headers['set-cookie']).toEqual(expect.arrayContaining(['echo=1; Path=/']));
    expect(answer.headers['content-security-policy']).toBeUndefined(); // Jupyter's defaults are dropped
  }, 30000);

  test('without absolute_url: the prefix is stripped and named in X-Forwarded-Prefix; TCP port and environment templates', async () => {
    const answer = await httpRequest(`${s().base}echo-rel/x/y?q=1`, { headers: auth() });
    expect(answer.status).toBe(200);
    expect(answer.json.url).toBe('/x/y?q=1');
    expect(answer.json.headers['x-forwarded-prefix']).toBe('/user/alice/echo-rel');
    expect(answer.json.echoVar).toMatch(/^port=\d+ base=\/user\/alice\/$/);
    const root = await httpRequest(`${s().base}echo-rel/`, { headers: auth() });
    expect(root.json.url).toBe('/');
  }, 30000);

  test("Jupyter's authentication comes first: 302 for GET, 403 for POST and for a websocket upgrade", async () => {
    const get = await httpRequest(`${s().base}echo-abs/anything`);
    expect(get.status).toBe(302);
    expect(get.headers.location).toMatch(/\/user\/alice\/login\?next=/);
    const head = await httpRequest(`${s().base}echo-abs/anything`, { method: 'HEAD' });
    expect(head.status).toBe(302);
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      const answer = await httpRequest(`${s().base}echo-abs/anything`, { method, body: '{}' });
      expect(answer.status).toBe(403);
    }
    const ws = await httpRequest(`${s().base}echo-abs/ws`, {
      headers: { upgrade: 'websocket', connection: 'Upgrade', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==' }
    });
    expect(ws.status).toBe(403);
    const wrongToken = await httpRequest(`${s().base}echo-abs/anything`, { headers: { authorization: 'token wrong' } });
    expect(wrongToken.status).toBe(302);
  }, 30000);

  test('the name without a trailing slash redirects to name/ after authentication', async () => {
    const unauthenticated = await httpRequest(`${s().base}echo-abs`);
    expect(unauthenticated.status).toBe(302);
    expect(unauthenticated.headers.location).toMatch(/\/login\?next=/);
    const answer = await httpRequest(`${s().base}echo-abs?x=2`, { headers: auth() });
    expect(answer.status).toBe(302);
    expect(answer.headers.location).toMatch(/\/user\/alice\/echo-abs\/\?x=2$/);
  }, 30000);

  test('a backend that exits non-zero is restarted at once', async () => {
    const first = await httpRequest(`${s().base}echo-crash/`, { headers: auth() });
    expect(first.status).toBe(200);
    const pid = first.json.pid as number;
    await httpRequest(`${s().base}echo-crash/exit?code=3`, { method: 'POST', headers: auth(), body: '' });
    let next: number | undefined;
    await until(
      async () => {
        const answer = await httpRequest(`${s().base}echo-crash/`, { headers: auth() }).catch(() => undefined);
        next = answer?.status === 200 ? (answer.json.pid as number) : undefined;
        return next !== undefined && next !== pid;
      },
      10000,
      'the restarted backend'
    );
    expect(alive(pid)).toBe(false);
    expect(s().logs()).toMatch(/echo-crash exited with 3; restarting it at once/);
  }, 30000);

  test('a backend that exits 0 is never restarted: every later request gets 500', async () => {
    const first = await httpRequest(`${s().base}echo-exit0/`, { headers: auth() });
    expect(first.status).toBe(200);
    await httpRequest(`${s().base}echo-exit0/exit?code=0`, { method: 'POST', headers: auth(), body: '' });
    await until(() => !alive(first.json.pid as number), 10000, 'the backend to exit');
    for (let i = 0; i < 3; i += 1) {
      const later = await httpRequest(`${s().base}echo-exit0/`, { headers: auth() });
      expect(later.status).toBe(500);
    }
    expect(s().logs()).toMatch(/echo-exit0 exited with 0; it will not be restarted/);
  }, 30000);

  test('a backend that does not answer GET / within its timeout is killed and the request gets 500', async () => {
    const started = Date.now();
    const answer = await httpRequest(`${s().base}echo-slow/`, { headers: auth() });
    expect(answer.status).toBe(500);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(Date.now() - started).toBeLessThan(4000);
    expect(s().logs()).toMatch(/echo-slow did not answer GET \/ within 1(\.0)? s/);
  }, 30000);
});

describe('the stand-in ends its backends with the server', () => {
  test('SIGTERM to the Jupyter server (its process alone) ends the backend and removes the socket directory', async () => {
    checkPrerequisites();
    const server = await startLabServer({
      label: 'proxy-standin-sigterm-server',
      serverProxy: { echo: echo(['--unix-socket', '{unix_socket}'], { unix_socket: true, absolute_url: true }) }
    });
    try {
      const answer = await httpRequest(`${server.base}echo/`, { headers: { authorization: `token ${server.token}` } });
      expect(answer.status).toBe(200);
      const backend = answer.json.pid as number;
      expect(alive(backend)).toBe(true);
      const socketDir = /proxies \/lab-e2e\/echo\/ to (\S+)\/echo/.exec(server.logs())?.[1];
      expect(socketDir).toMatch(/server-proxy-standin-/);
      process.kill(server.pid, 'SIGTERM'); // not the group: the stand-in itself must end the backend
      await until(() => !server.running(), 15000, 'the server to exit');
      await until(() => !alive(backend), 5000, 'the backend to end');
      expect(fs.existsSync(socketDir as string)).toBe(false);
    } finally {
      await server.stop();
    }
  }, 60000);
});
