// Authentication, Host checks and CSRF defence per ingress mode (design.md "Paths, ingress and
// authentication"), and the start-up refusals that keep an ingress from being misconfigured.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  HttpResult,
  PLATFORM_EVIDENCE,
  postJson,
  rawRequest,
  request,
  startTestService,
  TestService,
  TestServiceOptions,
  trackedServices
} from '../helpers/harness';
import { expectProblem, expectValid } from '../helpers/schemas';

const PACKAGE_VERSION: string = JSON.parse(
  fs.readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8')
).version;

const start = trackedServices('each');

/** Scratch directory of this file (secret files), removed at the end. */
const scratch = fs.realpathSync(
  fs.mkdtempSync(path.join(os.tmpdir(), 'ps-auth-'))
);
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

function port(svc: TestService): number {
  return svc.running.port as number;
}

/** The session cookie a `?token=` request set, as `name=value`, with its attributes. */
function sessionCookie(r: HttpResult): {
  pair: string;
  name: string;
  value: string;
  attributes: string[];
} {
  const header = r.headers['set-cookie'];
  expect(header).toBeDefined();
  expect(header).toHaveLength(1);
  const [pair, ...attributes] = (header as string[])[0]
    .split(';')
    .map(s => s.trim());
  const eq = pair.indexOf('=');
  return {
    pair,
    name: pair.slice(0, eq),
    value: pair.slice(eq + 1),
    attributes
  };
}

async function cookieFor(svc: TestService): Promise<string> {
  const r = await request(`${svc.api}?token=${svc.token}`);
  expect(r.status).toBe(200);
  return sessionCookie(r).pair;
}

/** The core fs module itself (not an import wrapper), so jest.spyOn sees the harness's calls. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const coreFs: typeof fs = require('node:fs');

/**
 * Starts a service that must be refused and returns the error. The harness has already made
 * its temporary root when the start fails, so the roots it made here are removed again.
 */
async function refusedStart(options: TestServiceOptions): Promise<Error> {
  const spy = jest.spyOn(coreFs, 'mkdtempSync');
  let error: unknown;
  try {
    const svc = await startTestService(options);
    await svc.close();
  } catch (e) {
    error = e;
  } finally {
    const made = spy.mock.results
      .filter(r => r.type === 'return')
      .map(r => String(r.value));
    spy.mockRestore();
    for (const dir of made) {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }
  expect(error).toBeInstanceOf(Error);
  return error as Error;
}

describe('direct loopback: the token', () => {
  let svc: TestService;
  beforeEach(async () => {
    svc = await start();
  });

  it('no credentials is 401 unauthorized with WWW-Authenticate', async () => {
    for (const route of ['capabilities', 'startup?interface=web']) {
      const r = await request(`${svc.api}${route}`);
      expectProblem(r, 401, 'unauthorized');
      expect(r.headers['www-authenticate']).toMatch(/^Bearer\b/);
    }
  });

  it.each([
    ['a wrong Bearer token', (t: string) => `Bearer ${t}x`],
    ['a truncated Bearer token', (t: string) => `Bearer ${t.slice(0, -1)}`],
    ['an empty Bearer token', () => 'Bearer '],
    [
      'another scheme',
      (t: string) => `Basic ${Buffer.from(`user:${t}`).toString('base64')}`
    ]
  ])('%s is 401', async (_label, header) => {
    const r = await request(`${svc.api}capabilities`, {
      headers: { authorization: header(svc.token) }
    });
    expectProblem(r, 401, 'unauthorized');
    expect(r.headers['www-authenticate']).toBeDefined();
    expect(r.text).not.toContain(svc.token);
  });

  it.each(['Bearer', 'token', 'bearer'])(
    '"Authorization: %s <token>" is 200',
    async scheme => {
      const r = await request(`${svc.api}capabilities`, {
        headers: { authorization: `${scheme} ${svc.token}` }
      });
      expect(r.status).toBe(200);
      expectValid('Manifest', r.json);
    }
  );

  it('?token= on a GET of the setup page (the one sign-in route) is 200 and sets an HttpOnly SameSite=Strict cookie for /project/ that is not the token', async () => {
    const r = await request(`${svc.api}?token=${svc.token}`);
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toMatch(/^text\/html/);
    const cookie = sessionCookie(r);
    const attrs = cookie.attributes.map(a => a.toLowerCase());
    expect(attrs).toContain('httponly');
    expect(attrs).toContain('samesite=strict');
    expect(cookie.attributes).toContain('Path=/project/');
    expect(cookie.value.length).toBeGreaterThanOrEqual(32);
    expect(cookie.value).not.toBe(svc.token);
    expect(cookie.value).not.toContain(svc.token);
    expect(cookie.name).not.toContain(svc.token);

    // The cookie alone then authenticates GETs.
    const withCookie = await request(`${svc.api}startup?interface=web`, {
      headers: { cookie: cookie.pair }
    });
    expect(withCookie.status).toBe(200);
    expectValid('StartupProjection', withCookie.json);
    const caps = await request(`${svc.api}capabilities`, {
      headers: { cookie: `other=1; ${cookie.pair}` }
    });
    expect(caps.status).toBe(200);
    expectValid('Manifest', caps.json);
  });

  it('a navigation with ?token= to another route than the setup page is 401, with no cookie and no redirect', async () => {
    const r = await request(
      `${svc.api}startup?interface=web&token=${svc.token}`,
      { headers: { accept: 'text/html' } }
    );
    expectProblem(r, 401, 'unauthorized');
    expect(r.headers.location).toBeUndefined();
    expect(r.headers['set-cookie']).toBeUndefined();
  });

  it('a wrong session cookie or a wrong ?token is 401', async () => {
    const cookie = await cookieFor(svc);
    const forged = `${cookie.slice(0, cookie.indexOf('=') + 1)}${'A'.repeat(43)}`;
    expectProblem(
      await request(`${svc.api}capabilities`, { headers: { cookie: forged } }),
      401,
      'unauthorized'
    );
    const wrong = await request(`${svc.api}capabilities?token=${svc.token}0`);
    expectProblem(wrong, 401, 'unauthorized');
    expect(wrong.headers['set-cookie']).toBeUndefined();
    expectProblem(
      await request(`${svc.api}capabilities?token=`),
      401,
      'unauthorized'
    );
  });

  it('?token on a POST is not accepted', async () => {
    const p = await request(`${svc.api}startup?interface=web`, {
      token: svc.token
    });
    const r = await request(`${svc.api}initialize?token=${svc.token}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: svc.origin },
      body: JSON.stringify(p.json.nextAction.request.body)
    });
    expectProblem(r, 401, 'unauthorized');
    expect(r.headers['set-cookie']).toBeUndefined();
    expect(fs.readdirSync(svc.projectDir)).toEqual([]);
  });
});

describe('direct loopback: the Host header (DNS rebinding)', () => {
  let svc: TestService;
  beforeEach(async () => {
    svc = await start();
  });

  it.each([
    'evil.example',
    '127.0.0.1.evil.example',
    'localhost.evil.example',
    'evil.example:80',
    '10.0.0.1'
  ])('Host %s is 403 forbidden-host even with a valid token', async host => {
    for (const route of ['capabilities', 'health']) {
      const r = await request(`${svc.api}${route}`, {
        token: svc.token,
        headers: { host }
      });
      expectProblem(r, 403, 'forbidden-host');
    }
  });

  it('Host naming loopback with the port is accepted: 127.0.0.1, localhost, [::1]', async () => {
    for (const host of [
      `127.0.0.1:${port(svc)}`,
      `localhost:${port(svc)}`,
      `[::1]:${port(svc)}`
    ]) {
      const r = await request(`${svc.api}capabilities`, {
        token: svc.token,
        headers: { host }
      });
      expect([host, r.status]).toEqual([host, 200]);
      expectValid('Manifest', r.json);
    }
  });

  it.each([
    [
      'HTTP/1.1',
      'GET /project/capabilities HTTP/1.1\r\nAuthorization: Bearer TOKEN\r\nConnection: close\r\n\r\n'
    ],
    [
      'HTTP/1.0',
      'GET /project/capabilities HTTP/1.0\r\nAuthorization: Bearer TOKEN\r\n\r\n'
    ]
  ])(
    'an %s request without a Host header is 403 forbidden-host, even with a valid token',
    async (_version, text) => {
      const r = await rawRequest(port(svc), text.replace('TOKEN', svc.token));
      expect(r.status).toBe(403);
      expect(r.headers['content-type']).toMatch(/^application\/problem\+json/);
      const body = JSON.parse(r.body);
      expectValid('Problem', body);
      expect(body).toMatchObject({ code: 'forbidden-host', status: 403 });
    }
  );
});

describe('direct loopback: CSRF on state changes', () => {
  let svc: TestService;
  let body: unknown;
  let cookie: string;
  beforeEach(async () => {
    svc = await start();
    const p = await request(`${svc.api}startup?interface=web`, {
      token: svc.token
    });
    body = p.json.nextAction.request.body;
    cookie = await cookieFor(svc);
  });

  function cookiePost(
    headers: Record<string, string>,
    payload = JSON.stringify(body)
  ): Promise<HttpResult> {
    return request(`${svc.api}initialize`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie, ...headers },
      body: payload
    });
  }

  it.each([
    ['without Origin', {}],
    ['with a foreign Origin', { origin: 'http://evil.example' }],
    ['with Origin null', { origin: 'null' }],
    [
      'with the loopback host on another port',
      { origin: 'http://127.0.0.1:1' }
    ],
    ['with Sec-Fetch-Site: cross-site', { 'sec-fetch-site': 'cross-site' }],
    ['with Sec-Fetch-Site: same-site', { 'sec-fetch-site': 'same-site' }],
    [
      'with Sec-Fetch-Site: cross-site despite a same Origin',
      { 'sec-fetch-site': 'cross-site', origin: 'SAME' }
    ]
  ])(
    'a cookie-authenticated POST %s is 403 cross-origin',
    async (_label, headers: Record<string, string>) => {
      const h = { ...headers };
      if (h.origin === 'SAME') {
        h.origin = svc.origin;
      }
      const r = await cookiePost(h);
      expectProblem(r, 403, 'cross-origin');
      expect(fs.readdirSync(svc.projectDir)).toEqual([]);
    }
  );

  it('a cookie-authenticated POST from the same origin is 201', async () => {
    const r = await cookiePost({
      origin: svc.origin,
      'sec-fetch-site': 'same-origin'
    });
    expect(r.status).toBe(201);
    expectValid('InitializeResponse', r.json);
    expect(fs.readdirSync(svc.projectDir)).toEqual(['.project-startup']);
  });

  it('a Bearer POST without Origin (a script) is allowed; with a foreign Origin it is 403', async () => {
    const foreign = await postJson(`${svc.api}initialize`, svc.token, body, {
      origin: 'http://evil.example'
    });
    expectProblem(foreign, 403, 'cross-origin');
    expect(fs.readdirSync(svc.projectDir)).toEqual([]);
    const script = await postJson(`${svc.api}initialize`, svc.token, body);
    expect(script.status).toBe(201);
    expectValid('InitializeResponse', script.json);
  });

  it.each([
    ['application/x-www-form-urlencoded', 'interface=web'],
    ['text/plain', 'JSON_BODY'],
    [
      'multipart/form-data; boundary=x',
      '--x\r\nContent-Disposition: form-data; name="interface"\r\n\r\nweb\r\n--x--\r\n'
    ]
  ])(
    'a %s POST is 415 unsupported-media-type and creates nothing',
    async (type, payload) => {
      const text = payload === 'JSON_BODY' ? JSON.stringify(body) : payload;
      const viaCookie = await cookiePost(
        { origin: svc.origin, 'content-type': type },
        text
      );
      expectProblem(viaCookie, 415, 'unsupported-media-type');
      const viaBearer = await request(`${svc.api}initialize`, {
        method: 'POST',
        token: svc.token,
        headers: { 'content-type': type },
        body: text
      });
      expectProblem(viaBearer, 415, 'unsupported-media-type');
      expect(fs.readdirSync(svc.projectDir)).toEqual([]);
    }
  );
});

describe('public routes and the setup page', () => {
  let svc: TestService;
  beforeEach(async () => {
    svc = await start();
  });

  it('/health answers without a token: status pass, version, instanceId, and the version header', async () => {
    const r = await request(`${svc.api}health`);
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toMatch(/^application\/health\+json/);
    expectValid('Health', r.json);
    expect(r.json).toMatchObject({
      status: 'pass',
      version: PACKAGE_VERSION,
      instanceId: svc.running.service.instanceId
    });
    expect(r.headers['x-project-startup-version']).toBe(PACKAGE_VERSION);
    // The header is on every response, errors included.
    const denied = await request(`${svc.api}capabilities`);
    expect(denied.status).toBe(401);
    expect(denied.headers['x-project-startup-version']).toBe(PACKAGE_VERSION);
  });

  it('/openapi.json answers without a token', async () => {
    const r = await request(`${svc.api}openapi.json`);
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toMatch(/^application\/json/);
    expect(r.json.openapi).toMatch(/^3\.1\./);
    expect(r.json.info.version).toBe(PACKAGE_VERSION);
    expect(r.text).not.toContain(svc.token);
  });

  it('the setup page without auth is a 401 HTML sign-in page without the token', async () => {
    const r = await request(svc.api, {
      headers: { accept: 'text/html,application/xhtml+xml' }
    });
    expect(r.status).toBe(401);
    expect(r.headers['content-type']).toMatch(/^text\/html/);
    expect(r.text).toMatch(/sign in/i);
    expect(r.text).not.toContain(svc.token);
  });

  it('the setup page with ?token= is a 303 without the token, then the page with a Content-Security-Policy', async () => {
    const first = await request(`${svc.api}?token=${svc.token}`, {
      headers: { accept: 'text/html' }
    });
    expect(first.status).toBe(303);
    const location = new URL(first.headers.location as string, svc.origin).href;
    expect(location).toBe(svc.api);
    const cookie = sessionCookie(first).pair;
    const page = await request(location, {
      headers: { accept: 'text/html', cookie }
    });
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    const csp = page.headers['content-security-policy'] as string;
    expect(csp).toBeDefined();
    expect(csp).toMatch(/default-src 'none'/);
    expect(csp).toMatch(/frame-ancestors 'none'/);
    expect(page.text).not.toContain(svc.token);
  });
});

describe('start-up refusals', () => {
  it('refuses --host 0.0.0.0 under direct loopback, saying what to change', async () => {
    const error = await refusedStart({ serve: { host: '0.0.0.0' } });
    expect(error.message).toMatch(/--host/);
    expect(error.message).toMatch(/trusted-proxy|loopback/);
  });
});

describe('direct loopback on another loopback address', () => {
  it('answers at 127.0.0.2, the address it printed, and still refuses foreign hosts', async () => {
    const svc = await start({ serve: { host: '127.0.0.2' } });
    expect(svc.api).toMatch(/^http:\/\/127\.0\.0\.2:\d+\/project\/$/);
    const ok = await request(`${svc.api}capabilities`, { token: svc.token });
    expect(ok.status).toBe(200);
    const foreign = await request(`${svc.api}capabilities`, {
      token: svc.token,
      headers: { host: 'evil.example' }
    });
    expect(foreign.status).toBe(403);
    expect(foreign.json.code).toBe('forbidden-host');
  });
});

describe('an ingress the platform does not offer', () => {
  // A notebook server inside a cluster job: the panel must still learn to use the terminal.
  it('answers read-only: the notebook sees unsupported-interface, and nothing can be initialized', async () => {
    const svc = await start({
      env: {
        ...PLATFORM_EVIDENCE.cluster.env,
        SLURM_JOB_ID: '77',
        PROJECT_STARTUP_APPROVED_STORAGE: '/'
      },
      files: PLATFORM_EVIDENCE.cluster.files,
      serve: { ingress: 'notebook-server-proxy' }
    });
    const startup = await request(`${svc.api}startup?interface=notebook`, {
      headers: { authorization: 'token jupyter' }
    });
    expect(startup.status).toBe(200);
    expectValid('StartupProjection', startup.json);
    expect(startup.json.phase).toBe('unsupported-interface');
    expect(startup.json.nextAction.id).toBe('switch-interface');
    expect(
      startup.json.nextAction.interfaces.map((i: { id: string }) => i.id)
    ).toEqual(['terminal']);
    const terminal = await request(`${svc.api}startup?interface=terminal`, {
      headers: { authorization: 'token jupyter' }
    });
    const ingressCheck = terminal.json.readinessChecks.find(
      (c: { id: string }) => c.id === 'gateway-ingress'
    );
    expect(ingressCheck.status).toBe('warn');
    expect(ingressCheck.observed).toMatch(
      /not an ingress of the Cluster platform/
    );
    const init = await request(`${svc.api}initialize`, {
      method: 'POST',
      headers: {
        authorization: 'token jupyter',
        'content-type': 'application/json'
      },
      body: JSON.stringify({
        interface: 'terminal',
        method: 'terminal-prompt',
        confirm: {
          projectPath: terminal.json.projectPath,
          statePath: terminal.json.statePath
        }
      })
    });
    expect(init.status).toBe(403);
    expectValid('Problem', init.json);
    expect(init.json.code).toBe('confirmation-not-allowed');
    expect(fs.existsSync(terminal.json.statePath)).toBe(false);
    expect(svc.logs.join('')).toMatch(/does not offer this ingress/);
  });
});

describe('the service token and the runtime file', () => {
  it('uses PROJECT_STARTUP_TOKEN when set, and keeps it out of the runtime file', async () => {
    const envToken = 'env-token-0f1e2d3c4b5a69788796a5b4c3d2e1f0';
    const svc = await start({ env: { PROJECT_STARTUP_TOKEN: envToken } });
    expect(svc.token).toBe(envToken);
    expect(
      (await request(`${svc.api}capabilities`, { token: envToken })).status
    ).toBe(200);
    const file = svc.running.runtimeFile as string;
    expect(path.dirname(file)).toBe(svc.runtimeDir);
    const text = fs.readFileSync(file, 'utf8');
    expect(text).not.toContain(envToken);
    const info = JSON.parse(text);
    expect(info.tokenSource).toBe('environment');
    expect(info.token).toBeUndefined();
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(svc.logs.join('')).not.toContain(envToken);
  });

  it('otherwise generates a random token per start, written to a 0600 runtime file in a 0700 directory', async () => {
    const a = await start();
    const b = await start();
    expect(a.token).toMatch(/^[0-9a-f]{32,}$/);
    expect(b.token).toMatch(/^[0-9a-f]{32,}$/);
    expect(a.token).not.toBe(b.token);
    for (const svc of [a, b]) {
      const file = svc.running.runtimeFile as string;
      expect(path.dirname(file)).toBe(svc.runtimeDir);
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      expect(fs.statSync(svc.runtimeDir).mode & 0o777).toBe(0o700);
      const info = JSON.parse(fs.readFileSync(file, 'utf8'));
      expect(info).toMatchObject({
        token: svc.token,
        tokenSource: 'generated',
        url: svc.api
      });
      expect(fs.readdirSync(svc.runtimeDir)).toEqual([path.basename(file)]);
      expect(svc.logs.join('')).not.toContain(svc.token);
    }
    expect(
      (await request(`${a.api}capabilities`, { token: b.token })).status
    ).toBe(401);
  });
});

describe('trusted proxy', () => {
  const secret = 'S3cr3t-0f-the-pr0xy-abcdefghijkl';

  function secretFile(name: string, fileMode: number): string {
    const file = path.join(scratch, name);
    fs.writeFileSync(file, `${secret}\n`, { mode: fileMode });
    fs.chmodSync(file, fileMode);
    return file;
  }

  it('needs the shared secret in x-project-startup-proxy-secret', async () => {
    expect(secret).toHaveLength(32);
    const svc = await start({
      env: {
        PROJECT_STARTUP_TRUSTED_PROXY_SECRET_FILE: secretFile(
          'proxy-secret',
          0o600
        )
      },
      serve: { ingress: 'trusted-proxy' }
    });
    const url = `${svc.api}capabilities`;
    expectProblem(await request(url), 401, 'unauthorized');
    for (const wrong of [
      `${secret}x`,
      secret.slice(0, -1),
      secret.toUpperCase(),
      ''
    ]) {
      expectProblem(
        await request(url, {
          headers: { 'x-project-startup-proxy-secret': wrong }
        }),
        401,
        'unauthorized'
      );
    }
    expectProblem(
      await request(url, { headers: { authorization: `Bearer ${secret}` } }),
      401,
      'unauthorized'
    );
    const ok = await request(url, {
      headers: { 'x-project-startup-proxy-secret': secret }
    });
    expect(ok.status).toBe(200);
    expectValid('Manifest', ok.json);
    expect(svc.logs.join('')).not.toContain(secret);
    expect(
      fs.readFileSync(svc.running.runtimeFile as string, 'utf8')
    ).not.toContain(secret);
  });

  it('refuses to start with a secret file of mode 0644', async () => {
    const file = secretFile('proxy-secret-open', 0o644);
    const error = await refusedStart({
      env: { PROJECT_STARTUP_TRUSTED_PROXY_SECRET_FILE: file },
      serve: { ingress: 'trusted-proxy' }
    });
    expect(error.message).toMatch(/600|readable only/);
    expect(error.message).not.toContain(secret);
  });
});

describe('notebook-server proxy on generic, base URL /user/alice/', () => {
  const jupyterToken = 'jupyter-token-5a4b3c2d1e0f9a8b7c6d5e4f';
  const jupyterCookie =
    'jupyterhub-user-alice=2|1:0|10:1700000000|26:jupyterhub-user-alice|44:ZmFrZS1qdXB5dGVyLWNvb2tpZS12YWx1ZQ==';
  const cookieValue =
    '2|1:0|10:1700000000|26:jupyterhub-user-alice|44:ZmFrZS1qdXB5dGVyLWNvb2tpZS12YWx1ZQ==';
  let svc: TestService;
  beforeEach(async () => {
    svc = await start({
      serve: { ingress: 'notebook-server-proxy', baseUrl: '/user/alice/' }
    });
  });

  it("serves under /user/alice/project/ and accepts Jupyter's forwarded token and cookies unchecked", async () => {
    expect(svc.api).toBe(`${svc.origin}/user/alice/project/`);
    const viaToken = await request(`${svc.api}capabilities`, {
      headers: { authorization: `token ${jupyterToken}` }
    });
    expect(viaToken.status).toBe(200);
    expectValid('Manifest', viaToken.json);
    const viaCookie = await request(`${svc.api}startup?interface=notebook`, {
      headers: { cookie: jupyterCookie }
    });
    expect(viaCookie.status).toBe(200);
    expectValid('StartupProjection', viaCookie.json);
    const viaQuery = await request(
      `${svc.api}capabilities?token=${jupyterToken}`
    );
    expect(viaQuery.status).toBe(200);
    expect(viaQuery.headers['set-cookie']).toBeUndefined();

    const outside = await request(`${svc.origin}/project/capabilities`, {
      headers: { authorization: `token ${jupyterToken}` }
    });
    expectProblem(outside, 404, 'not-found');
  });

  it("a cookie-carried POST must be same-origin and carry Jupyter's XSRF pair: the Origin is compared with the Host, never with X-Forwarded-Host", async () => {
    const p = await request(`${svc.api}startup?interface=notebook`, {
      headers: { cookie: jupyterCookie }
    });
    const body = JSON.stringify(p.json.nextAction.request.body);
    const xsrf =
      '2|8f0a1b2c|5ee9e0d3a1b2c3d4e5f60718293a4b5c6d7e8f90|1700000000';
    const post = (headers: Record<string, string>) =>
      request(`${svc.api}initialize`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          cookie: `${jupyterCookie}; _xsrf=${xsrf}`,
          ...headers
        },
        body
      });
    expectProblem(
      await post({ origin: 'https://evil.example', 'x-xsrftoken': xsrf }),
      403,
      'cross-origin'
    );
    expectProblem(await post({ 'x-xsrftoken': xsrf }), 403, 'cross-origin');
    // X-Forwarded-Host is the client's own (jupyter-server-proxy passes it on): it names nothing.
    for (const forwarded of ['hub.example.org', 'evil.example']) {
      expectProblem(
        await post({
          host: 'hub.example.org',
          origin: 'https://evil.example',
          'x-forwarded-host': forwarded,
          'sec-fetch-site': 'same-origin',
          'x-xsrftoken': xsrf
        }),
        403,
        'cross-origin'
      );
    }
    // Same origin, but without Jupyter's XSRF token (or with another): refused, saying so.
    const without: Record<string, string>[] = [
      {},
      { 'x-xsrftoken': 'not-the-cookie' }
    ];
    for (const given of without) {
      const refused = await post({
        host: 'hub.example.org',
        origin: 'https://hub.example.org',
        'sec-fetch-site': 'same-origin',
        ...given
      });
      expectProblem(refused, 403, 'cross-origin');
      expect(refused.json.detail).toMatch(/X-XSRFToken/);
    }
    expect(fs.readdirSync(svc.projectDir)).toEqual([]);

    const ok = await post({
      host: 'hub.example.org',
      origin: 'https://hub.example.org',
      'sec-fetch-site': 'same-origin',
      'x-xsrftoken': xsrf
    });
    expect(ok.status).toBe(201);
    expectValid('InitializeResponse', ok.json);
    expect(ok.json.record.confirmation.ingress).toBe('notebook-server-proxy');

    // A script sending Jupyter's token header is not a browser context.
    const script = await request(`${svc.api}initialize`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `token ${jupyterToken}`
      },
      body
    });
    expect(script.status).toBe(200);
    expectValid('InitializeResponse', script.json);

    const logs = svc.logs.join('\n');
    expect(logs.length).toBeGreaterThan(0);
    expect(logs).not.toContain(jupyterToken);
    expect(logs).not.toContain(cookieValue);
    expect(logs).not.toContain('ZmFrZS1qdXB5dGVyLWNvb2tpZS12YWx1ZQ');
  });
});
