// Trusted-proxy ingress, beyond what auth.test.ts covers (one good secret, a few wrong ones, a
// 0644 file refused): the secret file's checks at start, identical 401s for every kind of wrong
// or missing secret, forwarded headers believed only behind the secret (rate-limit keys,
// X-Forwarded-Host for the origin check), the mode entered only by --ingress trusted-proxy, and
// which --host each mode accepts. Nothing here listens beyond loopback.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ConfigError, resolveConfig } from '../../sidecar/src/config/config';
import { createLogger } from '../../sidecar/src/service/log';
import { startService } from '../../sidecar/src/http/server';
import {
  HttpResult,
  request,
  RequestOptions,
  TestService,
  TestServiceOptions,
  tempRoot,
  trackedServices
} from '../helpers/harness';
import { killAllChildren, looksLikeStack, runCli } from '../helpers/cli';
import { OTHER_UID } from '../helpers/listener-as-user';
import { expectProblem, expectValid } from '../helpers/schemas';

const start = trackedServices('each');
const HEADER = 'x-project-startup-proxy-secret';
const SECRET = 'pr0xy-Secret-7b2f9c41e8d3a6055f1c';

/** Scratch directory of this file (secret files, projects of refused starts), removed at the end. */
const scratch = tempRoot('ps-trusted-proxy-');
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));
afterEach(killAllChildren);

let fileCount = 0;
function secretFile(content: string, mode = 0o600): string {
  const file = path.join(scratch, `proxy-secret-${++fileCount}`);
  fs.writeFileSync(file, content);
  fs.chmodSync(file, mode);
  return file;
}

function proxied(
  env: Record<string, string> = {},
  serve: TestServiceOptions['serve'] = {}
): Promise<TestService> {
  return start({
    env: {
      PROJECT_STARTUP_TRUSTED_PROXY_SECRET_FILE: secretFile(`${SECRET}\n`),
      ...env
    },
    serve: { ingress: 'trusted-proxy', ...serve }
  });
}

const withSecret = (headers: Record<string, string> = {}): RequestOptions => ({
  headers: { [HEADER]: SECRET, ...headers }
});

/**
 * Starts the service in this process the way `serve` does, expecting a refusal; returns the
 * error. The runtime directory is in the scratch directory, so nothing is written outside it;
 * an unexpected success is closed again.
 */
async function startError(
  env: Record<string, string>,
  serve: TestServiceOptions['serve']
): Promise<Error> {
  const project = fs.mkdtempSync(path.join(scratch, 'project-'));
  const fullEnv = {
    HOME: scratch,
    PATH: '/nonexistent',
    PROJECT_STARTUP_RUNTIME_DIR: path.join(scratch, 'run'),
    ...env
  };
  let error: unknown;
  try {
    // A TCP port for the notebook-server-proxy ingress too: what is checked here is --host.
    const config = resolveConfig(
      { projectDir: project, allowUnauthenticatedTcp: true, ...serve },
      fullEnv,
      project
    );
    const running = await startService({
      config,
      env: fullEnv,
      fileExists: () => false,
      logger: createLogger('error', () => undefined)
    });
    await running.close();
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(ConfigError);
  return error as Error;
}

describe('the secret file, checked at start', () => {
  it.each([
    ['0640 (group-readable)', 0o640],
    ['0644 (world-readable)', 0o644],
    ['0604 (other-readable)', 0o604],
    ['0660 (group-writable)', 0o660]
  ])('mode %s is refused, saying chmod 600', async (_label, mode) => {
    const error = await startError(
      { PROJECT_STARTUP_TRUSTED_PROXY_SECRET_FILE: secretFile(SECRET, mode) },
      { ingress: 'trusted-proxy' }
    );
    expect(error.message).toMatch(/chmod 600/);
    expect(error.message).toContain(
      'PROJECT_STARTUP_TRUSTED_PROXY_SECRET_FILE'
    );
    expect(error.message).not.toContain(SECRET);
  });

  it("another user's file is refused even at mode 0600: that user would know the proxy's secret", async () => {
    const theirs = secretFile(SECRET, 0o600);
    fs.chownSync(theirs, OTHER_UID, OTHER_UID);
    const error = await startError(
      { PROJECT_STARTUP_TRUSTED_PROXY_SECRET_FILE: theirs },
      { ingress: 'trusted-proxy' }
    );
    expect(error.message).toContain(
      `PROJECT_STARTUP_TRUSTED_PROXY_SECRET_FILE (${theirs}) is refused: the file is owned by uid ${OTHER_UID}, not by root`
    );
    expect(error.message).toContain(`chown root ${theirs}`);
    expect(error.message).not.toContain(SECRET);
    // A link of ours to it changes nothing: the file at the end of the way is theirs.
    const link = path.join(scratch, `link-to-theirs-${++fileCount}`);
    fs.symlinkSync(theirs, link);
    expect(
      (
        await startError(
          { PROJECT_STARTUP_TRUSTED_PROXY_SECRET_FILE: link },
          { ingress: 'trusted-proxy' }
        )
      ).message
    ).toMatch(/owned by uid 65534/);
  });

  it('a secret in a directory another user can write is refused', async () => {
    const shared = fs.mkdtempSync(path.join(scratch, 'shared-'));
    fs.chmodSync(shared, 0o777);
    const file = path.join(shared, 'proxy-secret');
    fs.writeFileSync(file, SECRET, { mode: 0o600 });
    const error = await startError(
      { PROJECT_STARTUP_TRUSTED_PROXY_SECRET_FILE: file },
      { ingress: 'trusted-proxy' }
    );
    expect(error.message).toContain(
      `the directory ${shared} above it can be written by group and others (mode 0777)`
    );
    expect(error.message).toContain(`chmod go-w ${shared}`);
  });

  it('modes 0600 and 0400 are accepted', async () => {
    for (const mode of [0o600, 0o400]) {
      const svc = await start({
        env: {
          PROJECT_STARTUP_TRUSTED_PROXY_SECRET_FILE: secretFile(SECRET, mode)
        },
        serve: { ingress: 'trusted-proxy' }
      });
      expect(
        (await request(`${svc.api}capabilities`, withSecret())).status
      ).toBe(200);
    }
  });

  it.each([
    [
      'no file configured',
      () => undefined,
      /PROJECT_STARTUP_TRUSTED_PROXY_SECRET_FILE/
    ],
    [
      'a missing file',
      () => path.join(scratch, 'no-such-secret'),
      /does not exist/
    ],
    [
      'a directory',
      () => fs.mkdtempSync(path.join(scratch, 'dir-')),
      /regular file/
    ],
    ['an empty file', () => secretFile(''), /at least 16 characters/],
    [
      'only white space',
      () => secretFile('   \n\t\n'),
      /at least 16 characters/
    ],
    [
      'a 15-character secret',
      () => secretFile('abcdefghijklmno\n'),
      /at least 16 characters/
    ],
    // The same rule as PROJECT_STARTUP_TOKEN (config.ts isPatternSecret).
    [
      'one letter 32 times',
      () => secretFile(`${'a'.repeat(32)}\n`),
      /a pattern, not a secret: it must hold at least 5 different characters/
    ]
  ])('%s is refused', async (_label, file, says) => {
    const f = file();
    if (
      f !== undefined &&
      fs.statSync(f, { throwIfNoEntry: false })?.isDirectory()
    ) {
      fs.chmodSync(f, 0o700);
    }
    const error = await startError(
      f === undefined ? {} : { PROJECT_STARTUP_TRUSTED_PROXY_SECRET_FILE: f },
      { ingress: 'trusted-proxy' }
    );
    expect(error.message).toMatch(says);
    expect(error.message).not.toContain('abcdefghijklmno');
  });

  it('a 16-character secret is enough, and surrounding white space in the file is not part of it', async () => {
    const short = 'abcdefghijklmnop';
    const svc = await start({
      env: {
        PROJECT_STARTUP_TRUSTED_PROXY_SECRET_FILE: secretFile(`  ${short}\n`)
      },
      serve: { ingress: 'trusted-proxy' }
    });
    expect(
      (
        await request(`${svc.api}capabilities`, {
          headers: { [HEADER]: short }
        })
      ).status
    ).toBe(200);
  });

  it('the command line refuses a 0644 file with exit code 2, says chmod 600, and shows no secret or stack', async () => {
    const project = fs.mkdtempSync(path.join(scratch, 'cli-'));
    const run = await runCli(['serve', '--ingress', 'trusted-proxy'], {
      cwd: project,
      env: {
        HOME: project,
        PATH: '/nonexistent',
        PROJECT_STARTUP_RUNTIME_DIR: path.join(project, 'run'),
        PROJECT_STARTUP_TRUSTED_PROXY_SECRET_FILE: secretFile(SECRET, 0o644)
      }
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/chmod 600/);
    expect(run.stdout).not.toMatch(/Listening/);
    expect(`${run.stdout}${run.stderr}`).not.toContain(SECRET);
    expect(looksLikeStack(run.stderr)).toBe(false);
  });
});

describe('requests without the right secret', () => {
  const WRONG: [string, Record<string, string>][] = [
    ['no header', {}],
    ['an empty header', { [HEADER]: '' }],
    [
      'a different secret of the same length',
      { [HEADER]: 'x'.repeat(SECRET.length) }
    ],
    [
      'the secret with its last character changed',
      { [HEADER]: `${SECRET.slice(0, -1)}${SECRET.endsWith('d') ? 'e' : 'd'}` }
    ],
    [
      'the secret with its first character changed',
      { [HEADER]: `Q${SECRET.slice(1)}` }
    ],
    ['the secret and one more character', { [HEADER]: `${SECRET}0` }],
    [
      'the secret without its last character',
      { [HEADER]: SECRET.slice(0, -1) }
    ],
    ['a 4 KiB value', { [HEADER]: `${SECRET}${'z'.repeat(4096)}` }],
    ['the secret in another case', { [HEADER]: SECRET.toUpperCase() }],
    ['the secret as a Bearer token', { authorization: `Bearer ${SECRET}` }],
    ['the secret in a cookie', { cookie: `${HEADER}=${SECRET}` }],
    ['the secret under another header name', { 'x-proxy-secret': SECRET }],
    [
      'identity and forwarded headers only',
      {
        'x-forwarded-user': 'admin',
        'x-forwarded-for': '127.0.0.1',
        'x-forwarded-host': 'localhost',
        'x-real-ip': '127.0.0.1'
      }
    ]
  ];

  it('are 401 with identical problem bodies and headers, on every protected route', async () => {
    const svc = await proxied({ PROJECT_STARTUP_LOG_LEVEL: 'debug' });
    const routes: [string, RequestOptions][] = [
      ['capabilities', {}],
      ['startup?interface=web', {}],
      [
        'initialize',
        {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{}'
        }
      ],
      [
        'gateway',
        {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{"jsonrpc":"2.0","id":1,"method":"project.capabilities"}'
        }
      ]
    ];
    for (const [route, options] of routes) {
      const answers: [string, HttpResult][] = [];
      for (const [label, headers] of WRONG) {
        const r = await request(`${svc.api}${route}`, {
          ...options,
          headers: { ...options.headers, ...headers }
        });
        expectProblem(r, 401, 'unauthorized');
        answers.push([label, r]);
      }
      const [, first] = answers[0];
      for (const [label, r] of answers) {
        expect([label, r.text]).toEqual([label, first.text]);
        expect([label, r.headers['www-authenticate']]).toEqual([
          label,
          first.headers['www-authenticate']
        ]);
        expect([label, r.headers['set-cookie']]).toEqual([label, undefined]);
      }
    }
    expect(fs.readdirSync(svc.projectDir)).toEqual([]);
    // The secret in the query string does not get in either.
    expectProblem(
      await request(`${svc.api}capabilities?token=${SECRET}`),
      401,
      'unauthorized'
    );
    // Nothing any caller sent, right or wrong, is in the log.
    const logs = svc.logs.join('');
    expect(logs).toMatch(/"level":"debug"/);
    for (const [, headers] of WRONG) {
      for (const value of Object.values(headers)) {
        if (
          value.length >= 8 &&
          value !== 'localhost' &&
          value !== '127.0.0.1'
        ) {
          expect(logs).not.toContain(value);
        }
      }
    }
    expect(logs).not.toContain(SECRET);
  });

  it('the right secret gets in, with or without white space around it in the header', async () => {
    const svc = await proxied();
    for (const value of [SECRET, ` ${SECRET} `]) {
      const r = await request(`${svc.api}startup?interface=web`, {
        headers: { [HEADER]: value }
      });
      expect(r.status).toBe(200);
      expectValid('StartupProjection', r.json);
    }
  });

  it('nothing gets in without the secret: /health, /openapi.json and the setup page are 401 too', async () => {
    const svc = await proxied();
    const routes = ['health', 'openapi.json', '', 'setup.js', 'setup.css'];
    const without: Record<string, number> = {};
    const withIt: Record<string, number> = {};
    for (const route of routes) {
      without[`/project/${route}`] = (
        await request(`${svc.api}${route}`)
      ).status;
      withIt[`/project/${route}`] = (
        await request(`${svc.api}${route}`, withSecret())
      ).status;
    }
    expect(withIt).toEqual(
      Object.fromEntries(routes.map(r => [`/project/${r}`, 200]))
    );
    expect(without).toEqual(
      Object.fromEntries(routes.map(r => [`/project/${r}`, 401]))
    );
  });
});

describe('forwarded headers are believed only behind the secret', () => {
  const LIMIT = { PROJECT_STARTUP_INITIALIZE_RATE_LIMIT: '2/60' };

  async function initializeBody(
    svc: TestService,
    auth: RequestOptions
  ): Promise<string> {
    const p = await request(`${svc.api}startup?interface=web`, auth);
    expect(p.status).toBe(200);
    return JSON.stringify({
      interface: 'web',
      confirm: { projectPath: p.json.projectPath, statePath: p.json.statePath }
    });
  }

  function initialize(
    svc: TestService,
    body: string,
    headers: Record<string, string>,
    token?: string
  ): Promise<HttpResult> {
    return request(`${svc.api}initialize`, {
      method: 'POST',
      token,
      headers: { 'content-type': 'application/json', ...headers },
      body
    });
  }

  it('trusted proxy: X-Forwarded-For keys the initialize rate limit, one bucket per client', async () => {
    const svc = await proxied(LIMIT);
    const body = await initializeBody(svc, withSecret());
    // The proxy appends the address it saw; what the client wrote before that is ignored.
    const as = (client: string) => ({
      [HEADER]: SECRET,
      'x-forwarded-for': `198.51.100.99, ${client}`
    });
    expect((await initialize(svc, body, as('203.0.113.1'))).status).toBe(201);
    expect((await initialize(svc, body, as('203.0.113.1'))).status).toBe(200);
    const limited = await initialize(svc, body, as('203.0.113.1'));
    expectProblem(limited, 429, 'rate-limited');
    expect(limited.headers['retry-after']).toMatch(/^\d+$/);
    // Another client behind the same proxy has its own bucket.
    expect((await initialize(svc, body, as('203.0.113.2'))).status).toBe(200);
    expect((await initialize(svc, body, as('203.0.113.2'))).status).toBe(200);
    expectProblem(
      await initialize(svc, body, as('203.0.113.2')),
      429,
      'rate-limited'
    );

    // Without the secret every request is 401, whatever it claims to forward, and uses up no
    // client's allowance.
    for (let i = 0; i < 5; i++) {
      expectProblem(
        await initialize(svc, body, { 'x-forwarded-for': '203.0.113.3' }),
        401,
        'unauthorized'
      );
      expectProblem(
        await initialize(svc, body, {
          [HEADER]: `${SECRET}x`,
          'x-forwarded-for': '203.0.113.3'
        }),
        401,
        'unauthorized'
      );
    }
    expect((await initialize(svc, body, as('203.0.113.3'))).status).toBe(200);
    expect((await initialize(svc, body, as('203.0.113.3'))).status).toBe(200);
    expectProblem(
      await initialize(svc, body, as('203.0.113.3')),
      429,
      'rate-limited'
    );
  });

  it('trusted proxy: varying the client-written first X-Forwarded-For entry does not escape the limit', async () => {
    // The attack: a client behind the proxy writes its own X-Forwarded-For, which the proxy
    // extends with the address it really saw. Keyed on the first entry, every call was a new
    // client (and 10,000 made the limiter forget the oldest): unlimited initialize calls.
    const svc = await proxied(LIMIT);
    const body = await initializeBody(svc, withSecret());
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) {
      const r = await initialize(svc, body, {
        [HEADER]: SECRET,
        'x-forwarded-for': `10.${i}.${i}.${i}, 203.0.113.7`
      });
      statuses.push(r.status);
      if (r.status === 429) {
        expectProblem(r, 429, 'rate-limited');
      }
    }
    expect(statuses).toEqual([201, 200, ...Array(10).fill(429)]);
    // Several X-Forwarded-For lines are one list (RFC 9110 5.3): the last entry still decides.
    const split = await request(`${svc.api}initialize`, {
      method: 'POST',
      headers: {
        [HEADER]: SECRET,
        'content-type': 'application/json',
        'x-forwarded-for': ['10.9.9.9', '203.0.113.7'] as unknown as string
      },
      body
    });
    expectProblem(split, 429, 'rate-limited');
  });

  it('trusted proxy: with PROJECT_STARTUP_TRUSTED_PROXY_HOPS=2 the client is the second entry from the right', async () => {
    const svc = await proxied({
      ...LIMIT,
      PROJECT_STARTUP_TRUSTED_PROXY_HOPS: '2'
    });
    const body = await initializeBody(svc, withSecret());
    // client-written, then what the outer proxy saw (the client), then what the inner one saw.
    const via = (written: string, client: string) => ({
      [HEADER]: SECRET,
      'x-forwarded-for': `${written}, ${client}, 10.0.0.2`
    });
    expect(
      (await initialize(svc, body, via('1.1.1.1', '203.0.113.8'))).status
    ).toBe(201);
    expect(
      (await initialize(svc, body, via('2.2.2.2', '203.0.113.8'))).status
    ).toBe(200);
    expectProblem(
      await initialize(svc, body, via('3.3.3.3', '203.0.113.8')),
      429,
      'rate-limited'
    );
    // Another client behind the same inner proxy is another bucket.
    expect(
      (await initialize(svc, body, via('3.3.3.3', '203.0.113.9'))).status
    ).toBe(200);
  });

  it('PROJECT_STARTUP_TRUSTED_PROXY_HOPS must be a whole number from 1 to 10', async () => {
    for (const bad of ['0', '11', 'two', '-1']) {
      const error = await startError(
        {
          PROJECT_STARTUP_TRUSTED_PROXY_SECRET_FILE: secretFile(`${SECRET}\n`),
          PROJECT_STARTUP_TRUSTED_PROXY_HOPS: bad
        },
        { ingress: 'trusted-proxy' }
      );
      expect(error.message).toBe(
        'PROJECT_STARTUP_TRUSTED_PROXY_HOPS must be a whole number from 1 to 10.'
      );
    }
  });

  it('direct loopback: X-Forwarded-For is ignored, so varying it does not escape the limit', async () => {
    const svc = await start({ env: LIMIT });
    const body = await initializeBody(svc, { token: svc.token });
    expect(
      (
        await initialize(
          svc,
          body,
          { 'x-forwarded-for': '203.0.113.1' },
          svc.token
        )
      ).status
    ).toBe(201);
    expect(
      (
        await initialize(
          svc,
          body,
          { 'x-forwarded-for': '203.0.113.2' },
          svc.token
        )
      ).status
    ).toBe(200);
    expectProblem(
      await initialize(
        svc,
        body,
        { 'x-forwarded-for': '203.0.113.3' },
        svc.token
      ),
      429,
      'rate-limited'
    );
  });

  it('trusted proxy: the origin check compares Origin with X-Forwarded-Host', async () => {
    const svc = await proxied();
    const body = await initializeBody(svc, withSecret());
    // A browser behind the proxy: a session cookie of the proxy's travels, so the origin counts.
    const browser = {
      cookie: 'proxy-session=abc',
      'sec-fetch-site': 'same-origin'
    };
    expectProblem(
      await initialize(svc, body, {
        ...browser,
        origin: 'https://lab.example.org',
        'x-forwarded-host': 'lab.example.org'
      }),
      401,
      'unauthorized'
    );
    expectProblem(
      await initialize(svc, body, {
        ...browser,
        [HEADER]: SECRET,
        origin: 'https://lab.example.org'
      }),
      403,
      'cross-origin'
    );
    expectProblem(
      await initialize(svc, body, {
        ...browser,
        [HEADER]: SECRET,
        origin: 'https://evil.example',
        'x-forwarded-host': 'lab.example.org'
      }),
      403,
      'cross-origin'
    );
    expectProblem(
      await initialize(svc, body, {
        cookie: 'proxy-session=abc',
        [HEADER]: SECRET,
        'x-forwarded-host': 'lab.example.org'
      }),
      403,
      'cross-origin'
    );
    expect(fs.readdirSync(svc.projectDir)).toEqual([]);
    const ok = await initialize(svc, body, {
      ...browser,
      [HEADER]: SECRET,
      origin: 'https://lab.example.org',
      'x-forwarded-host': 'lab.example.org'
    });
    expect(ok.status).toBe(201);
    expectValid('InitializeResponse', ok.json);
    expect(ok.json.record.confirmation.ingress).toBe('trusted-proxy');
  });

  it('direct loopback: X-Forwarded-Host does not stand in for the Host', async () => {
    const svc = await start();
    const body = await initializeBody(svc, { token: svc.token });
    expectProblem(
      await initialize(
        svc,
        body,
        {
          origin: 'https://lab.example.org',
          'x-forwarded-host': 'lab.example.org'
        },
        svc.token
      ),
      403,
      'cross-origin'
    );
    expect(fs.readdirSync(svc.projectDir)).toEqual([]);
    // ...and a forwarded host naming somewhere else does not spoil a real same-origin request.
    const ok = await initialize(
      svc,
      body,
      { origin: svc.origin, 'x-forwarded-host': 'evil.example' },
      svc.token
    );
    expect(ok.status).toBe(201);
  });
});

describe('entering trusted-proxy mode', () => {
  it('the secret file alone does not: without --ingress the service is direct loopback and wants the token', async () => {
    const svc = await start({
      env: { PROJECT_STARTUP_TRUSTED_PROXY_SECRET_FILE: secretFile(SECRET) }
    });
    expect(svc.running.ingress).toBe('direct-loopback');
    expect(svc.token).not.toBe('');
    expectProblem(
      await request(`${svc.api}capabilities`, withSecret()),
      401,
      'unauthorized'
    );
    expectProblem(
      await request(
        `${svc.api}startup?interface=web`,
        withSecret({ 'x-forwarded-for': '203.0.113.9' })
      ),
      401,
      'unauthorized'
    );
    const ok = await request(`${svc.api}startup?interface=web`, {
      token: svc.token
    });
    expect(ok.status).toBe(200);
    const ingress = ok.json.readinessChecks.find(
      (c: { id: string }) => c.id === 'gateway-ingress'
    );
    expect(ingress.observed).toMatch(/^Direct loopback/);
    expect(
      JSON.parse(fs.readFileSync(svc.running.runtimeFile as string, 'utf8'))
        .ingress
    ).toBe('direct-loopback');
    // The direct-loopback Host check still applies: the proxy's public host name is refused.
    expectProblem(
      await request(`${svc.api}capabilities`, {
        token: svc.token,
        headers: { host: 'lab.example.org' }
      }),
      403,
      'forbidden-host'
    );
  });

  it('--ingress trusted-proxy does: no token, the secret is the gate, and the projection says so', async () => {
    const svc = await proxied();
    expect(svc.running.ingress).toBe('trusted-proxy');
    expect(svc.running.token).toBeUndefined();
    const r = await request(
      `${svc.api}startup?interface=web`,
      withSecret({ host: 'lab.example.org' })
    );
    expect(r.status).toBe(200);
    const ingress = r.json.readinessChecks.find(
      (c: { id: string }) => c.id === 'gateway-ingress'
    );
    expect(ingress.observed).toMatch(/^Trusted proxy/);
    // No browser address is offered: the proxy owns the public one.
    expect(r.json.browserUrl).toBeUndefined();
    const info = JSON.parse(
      fs.readFileSync(svc.running.runtimeFile as string, 'utf8')
    );
    expect(info).toMatchObject({
      ingress: 'trusted-proxy',
      tokenSource: 'none'
    });
    expect(JSON.stringify(info)).not.toContain(SECRET);
  });
});

describe('which --host each ingress accepts', () => {
  // TEST-NET-1 (RFC 5737): never an address of a test machine, so a bind to it fails with
  // EADDRNOTAVAIL after the start-up check has been passed, and nothing ever listens on it.
  const NON_LOOPBACK = '192.0.2.1';

  it.each([
    ['direct-loopback', '0.0.0.0'],
    ['direct-loopback', '::'],
    ['direct-loopback', NON_LOOPBACK],
    ['direct-loopback', 'lab.example.org'],
    ['notebook-server-proxy', '0.0.0.0'],
    ['notebook-server-proxy', '::'],
    ['notebook-server-proxy', NON_LOOPBACK]
  ])(
    '%s refuses --host %s, naming --ingress trusted-proxy',
    async (ingress, host) => {
      const error = await startError(
        { PROJECT_STARTUP_TRUSTED_PROXY_SECRET_FILE: secretFile(SECRET) },
        { ingress, host }
      );
      expect(error.message).toMatch(/--host/);
      expect(error.message).toMatch(/trusted-proxy/);
    }
  );

  it('trusted-proxy accepts a non-loopback --host (the bind to an address this machine lacks is what fails)', async () => {
    const local = Object.values(os.networkInterfaces())
      .flat()
      .map(a => a?.address);
    expect(local).not.toContain(NON_LOOPBACK);
    const error = await startError(
      { PROJECT_STARTUP_TRUSTED_PROXY_SECRET_FILE: secretFile(SECRET) },
      { ingress: 'trusted-proxy', host: NON_LOOPBACK }
    );
    expect(error.message).not.toMatch(/--host may name/);
    expect(error.message).toMatch(
      /192\.0\.2\.1 is not an address of this machine/
    );
  });

  it('trusted-proxy on another loopback address (--host 127.0.0.2) serves', async () => {
    const svc = await proxied({}, { host: '127.0.0.2' });
    expect(svc.running.url).toMatch(/^http:\/\/127\.0\.0\.2:\d+\/project\/$/);
    expectProblem(await request(`${svc.api}capabilities`), 401, 'unauthorized');
    const r = await request(`${svc.api}capabilities`, withSecret());
    expect(r.status).toBe(200);
    expectValid('Manifest', r.json);
  });
});

describe('the command line beside a trusted-proxy service', () => {
  it.each([
    ['generic', {}],
    ['hosted-notebook', {}],
    ['cluster', { SLURM_JOB_ID: '4242' }]
  ] as const)(
    '%s: `status` says what the service itself answers, never "start one with serve", and url agrees',
    async (platform, extra) => {
      const svc = await proxied({
        PROJECT_STARTUP_PLATFORM: platform,
        ...(platform === 'cluster'
          ? { PROJECT_STARTUP_APPROVED_STORAGE: path.dirname(scratch) }
          : {}),
        ...extra
      });
      const own = await request(
        `${svc.api}startup?interface=terminal`,
        withSecret()
      );
      expect(own.status).toBe(200);
      const io = { env: svc.env, cwd: svc.projectDir };
      const json = await runCli(['status', '--json'], io);
      expect(json.code).toBe(0);
      const cli = JSON.parse(json.stdout);
      // The same situation in the same words: next action and every check but the probes'.
      expect(cli.nextAction).toEqual(own.json.nextAction);
      const byId = (p: { readinessChecks: { id: string }[] }) =>
        Object.fromEntries(p.readinessChecks.map(c => [c.id, c]));
      for (const id of ['gateway-ingress', 'browser-route', 'confirmation']) {
        expect(byId(cli)[id]).toEqual(byId(own.json)[id]);
      }
      const human = await runCli(['status'], io);
      expect(human.code).toBe(0);
      expect(human.stdout + human.stderr).not.toMatch(
        /project-startup serve|no service is running|no running service found/
      );
      expect(human.stdout).toMatch(/runs behind a trusted proxy/);
      const url = await runCli(['url'], io);
      if (platform === 'generic') {
        // Both name the one setup page, behind the trusted proxy.
        expect(url.stderr).toMatch(/trusted proxy's address/);
        expect(human.stdout).toMatch(/trusted proxy's address/);
      } else {
        expect(human.stdout + url.stderr).not.toMatch(/setup page/);
      }
    }
  );
});
