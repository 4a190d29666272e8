// Every error code of design.md ("Errors, limits, versioning"), each reached by a request a user
// could send, answered as RFC 9457 problem details without stack traces, code paths or secrets.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  HttpResult,
  PLATFORM_EVIDENCE,
  postJson,
  promptKeyHeader,
  RawResponse,
  rawRequest,
  request,
  TestService,
  trackedServices
} from '../helpers/harness';
import { expectValid, validateAgainst } from '../helpers/schemas';

const DESIGN_CODES = [
  'missing-interface',
  'unknown-interface',
  'invalid-json',
  'unsupported-media-type',
  'payload-too-large',
  'validation-failed',
  'confirmation-stale',
  'confirmation-not-allowed',
  'wrong-phase',
  'unauthorized',
  'forbidden-host',
  'cross-origin',
  'not-found',
  'method-not-allowed',
  'rate-limited',
  'state-unsafe',
  'internal'
];

const TMP_REAL = fs.realpathSync(os.tmpdir());

/** The one service most tests share, and services of a single test. */
const startShared = trackedServices('all');
const startOwn = trackedServices('each');

let svc: TestService;
let confirm: {
  interface: string;
  confirm: { projectPath: string; statePath: string };
};
beforeAll(async () => {
  // A generous limit: this file sends many initialize calls to one service.
  svc = await startShared({
    env: { PROJECT_STARTUP_INITIALIZE_RATE_LIMIT: '1000/60' }
  });
  const p = await request(`${svc.api}startup?interface=web`, {
    token: svc.token
  });
  confirm = p.json.nextAction.request.body;
});

/** No stack trace, path of the service's own code, error class prefix or token in the text. */
function expectNoLeak(text: string): void {
  expect(text).not.toContain('    at ');
  expect(text).not.toMatch(/\.ts:\d*/);
  expect(text).not.toMatch(/\.js:\d+/);
  expect(text).not.toContain('/sidecar/');
  expect(text).not.toContain('node_modules');
  expect(text).not.toMatch(/\b[A-Za-z]*Error:/);
  if (svc?.token) {
    expect(text).not.toContain(svc.token);
  }
}

function expectProblemBody(
  body: Record<string, unknown>,
  status: number,
  code: string
): void {
  expectValid('Problem', body);
  expect(body).toMatchObject({
    status,
    code,
    type: `urn:jupyterlab-project-startup:problem:${code}`
  });
  for (const member of ['type', 'title', 'detail', 'code']) {
    expect(typeof body[member]).toBe('string');
    expect((body[member] as string).length).toBeGreaterThan(0);
  }
  expect(body.detail as string).not.toMatch(/^Error\b/);
}

function expectProblem(r: HttpResult, status: number, code: string): void {
  expect({ status: r.status, code: r.json?.code }).toEqual({ status, code });
  expect(r.headers['content-type']).toMatch(/^application\/problem\+json/);
  expectProblemBody(r.json, status, code);
  expectNoLeak(r.text);
}

function post(
  pathName: string,
  body: string,
  headers: Record<string, string> = {}
): Promise<HttpResult> {
  return request(`${svc.api}${pathName}`, {
    method: 'POST',
    token: svc.token,
    headers: { 'content-type': 'application/json', ...headers },
    body
  });
}

/** Sends bytes as they are on a fresh connection to the shared service. */
function raw(data: string | Buffer): Promise<RawResponse> {
  return rawRequest(svc.running.port as number, data);
}

function expectRawProblem(
  r: RawResponse,
  status: number
): Record<string, unknown> {
  expect(r.status).toBe(status);
  expect(r.headers['content-type']).toMatch(/^application\/problem\+json/);
  expectNoLeak(r.body);
  const body = JSON.parse(r.body) as Record<string, unknown>;
  expectValid('Problem', body);
  expect(body.status).toBe(status);
  expect(body.code).toEqual(expect.any(String));
  return body;
}

describe('interface errors', () => {
  it('missing-interface: GET startup without interface, and initialize without one', async () => {
    expectProblem(
      await request(`${svc.api}startup`, { token: svc.token }),
      400,
      'missing-interface'
    );
    expectProblem(
      await request(`${svc.api}startup?interface=`, { token: svc.token }),
      400,
      'missing-interface'
    );
    expectProblem(
      await postJson(`${svc.api}initialize`, svc.token, {
        confirm: confirm.confirm
      }),
      400,
      'missing-interface'
    );
  });

  it('unknown-interface: browser is not an interface id, and the detail lists the allowed values', async () => {
    const r = await request(`${svc.api}startup?interface=browser`, {
      token: svc.token
    });
    expectProblem(r, 400, 'unknown-interface');
    for (const id of ['terminal', 'web', 'notebook']) {
      expect(r.json.detail).toContain(id);
    }
    expectProblem(
      await postJson(`${svc.api}initialize`, svc.token, {
        ...confirm,
        interface: 'browser'
      }),
      400,
      'unknown-interface'
    );
  });
});

describe('body errors', () => {
  it.each([
    ['a malformed body', '{"interface": "web",'],
    ['an empty body', ''],
    ['a body that is not UTF-8 JSON', '\u0000\u0001'],
    [
      'a JSON body with trailing garbage',
      `${JSON.stringify({ interface: 'web' })} x`
    ]
  ])('invalid-json: %s', async (_label, body) => {
    expectProblem(await post('initialize', body), 400, 'invalid-json');
  });

  it.each([
    ['text/plain', { 'content-type': 'text/plain' }],
    ['form-encoded', { 'content-type': 'application/x-www-form-urlencoded' }],
    ['a missing Content-Type', { 'content-type': '' }]
  ])('unsupported-media-type: %s', async (_label, headers) => {
    const r = await request(`${svc.api}initialize`, {
      method: 'POST',
      token: svc.token,
      headers: headers['content-type'] === '' ? {} : headers,
      body: JSON.stringify(confirm)
    });
    expectProblem(r, 415, 'unsupported-media-type');
  });

  it('payload-too-large: a 17 KiB body', async () => {
    const body = JSON.stringify({ ...confirm, padding: 'x'.repeat(17 * 1024) });
    expect(Buffer.byteLength(body)).toBeGreaterThan(17 * 1024);
    expectProblem(
      await post('initialize', body, { connection: 'close' }),
      413,
      'payload-too-large'
    );
  });

  it('payload-too-large: a Content-Length claiming more than the limit', async () => {
    const body = JSON.stringify(confirm);
    // The body never arrives in full, so this connection must not be reused for the next request.
    const r = await post('initialize', body, {
      'content-length': String(10 * 1024 * 1024),
      connection: 'close'
    });
    expectProblem(r, 413, 'payload-too-large');
  });

  it('payload-too-large: a chunked body growing past the limit', async () => {
    const chunk = 'x'.repeat(4096);
    const chunks = Array.from(
      { length: 5 },
      () => `${chunk.length.toString(16)}\r\n${chunk}\r\n`
    ).join('');
    const r = await raw(
      `POST /project/initialize HTTP/1.1\r\nHost: 127.0.0.1:${svc.running.port}\r\nAuthorization: Bearer ${svc.token}\r\n` +
        `Content-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n${chunks}0\r\n\r\n`
    );
    const body = expectRawProblem(r, 413);
    expect(body.code).toBe('payload-too-large');
  });

  it('validation-failed: unknown members and wrong types, with JSON pointers', async () => {
    const r = await postJson(`${svc.api}initialize`, svc.token, {
      ...confirm,
      extra: true,
      confirm: { projectPath: 1 }
    });
    expectProblem(r, 422, 'validation-failed');
    expect(
      r.json.errors.map((e: { pointer: string }) => e.pointer).sort()
    ).toEqual(['/confirm/projectPath', '/confirm/statePath', '/extra'].sort());
  });
});

describe('initialize refusals', () => {
  it('confirmation-stale: paths other than the projection shows', async () => {
    const r = await postJson(`${svc.api}initialize`, svc.token, {
      ...confirm,
      confirm: { ...confirm.confirm, projectPath: '/somewhere/else' }
    });
    expectProblem(r, 409, 'confirmation-stale');
  });

  it('confirmation-not-allowed: a terminal confirmation on generic', async () => {
    const r = await postJson(`${svc.api}initialize`, svc.token, {
      ...confirm,
      interface: 'terminal'
    });
    expectProblem(r, 403, 'confirmation-not-allowed');
  });

  it('wrong-phase: a cluster login node without an allocation', async () => {
    const cluster = await startOwn({
      env: {
        ...PLATFORM_EVIDENCE.cluster.env,
        PROJECT_STARTUP_APPROVED_STORAGE: TMP_REAL
      },
      files: PLATFORM_EVIDENCE.cluster.files
    });
    const p = await request(`${cluster.api}startup?interface=terminal`, {
      token: cluster.token
    });
    const r = await postJson(
      `${cluster.api}initialize`,
      cluster.token,
      {
        interface: 'terminal',
        confirm: {
          projectPath: p.json.projectPath,
          statePath: p.json.statePath
        }
      },
      promptKeyHeader(cluster)
    );
    expectProblem(r, 409, 'wrong-phase');
    expect(r.json.phase).toBe('needs-compute');
    expect(r.json.nextAction.id).toBe('request-allocation');
  });

  it('rate-limited: past the per-client initialize limit, with Retry-After', async () => {
    const limited = await startOwn({
      env: { PROJECT_STARTUP_INITIALIZE_RATE_LIMIT: '1/3600' }
    });
    const url = `${limited.api}initialize`;
    const first = await postJson(url, limited.token, { interface: 'web' });
    expect(first.status).not.toBe(429);
    const r = await postJson(url, limited.token, { interface: 'web' });
    expectProblem(r, 429, 'rate-limited');
    expect(Number(r.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });

  it('state-unsafe: a state path that is a symbolic link', async () => {
    const other = await startOwn();
    const p = await request(`${other.api}startup?interface=web`, {
      token: other.token
    });
    const target = path.join(other.root, 'elsewhere');
    fs.mkdirSync(target, { mode: 0o700 });
    fs.symlinkSync(target, p.json.statePath);
    const r = await postJson(
      `${other.api}initialize`,
      other.token,
      p.json.nextAction.request.body
    );
    expectProblem(r, 409, 'state-unsafe');
    expect(fs.readdirSync(target)).toEqual([]);
  });
});

describe('access errors', () => {
  it('unauthorized: no token', async () => {
    const r = await request(`${svc.api}capabilities`);
    expectProblem(r, 401, 'unauthorized');
    expect(r.headers['www-authenticate']).toBeDefined();
  });

  it('forbidden-host: a foreign Host header', async () => {
    expectProblem(
      await request(`${svc.api}capabilities`, {
        token: svc.token,
        headers: { host: 'evil.example' }
      }),
      403,
      'forbidden-host'
    );
  });

  it('cross-origin: a POST from a foreign Origin', async () => {
    const r = await postJson(`${svc.api}initialize`, svc.token, confirm, {
      origin: 'http://evil.example'
    });
    expectProblem(r, 403, 'cross-origin');
  });
});

describe('routing errors', () => {
  it.each([
    ['an unknown path under /project/', '/project/nope'],
    ['a path outside /project/', '/elsewhere'],
    ['the root', '/'],
    ['a wrong-case route', '/project/Capabilities'],
    ['a wrong-case prefix', '/Project/capabilities'],
    ['a trailing slash', '/project/capabilities/'],
    ['a nested path', '/project/capabilities/extra'],
    ['a dot segment escape', '/project/../etc/passwd'],
    ['an encoded traversal', '/project/%2e%2e/%2e%2e/etc/passwd']
  ])('not-found: %s', async (_label, pathName) => {
    expectProblem(
      await request(`${svc.origin}${pathName}`, { token: svc.token }),
      404,
      'not-found'
    );
  });

  const ROUTES: [string, string][] = [
    ['capabilities', 'GET, HEAD'],
    ['startup', 'GET, HEAD'],
    ['initialize', 'POST'],
    ['gateway', 'POST'],
    ['health', 'GET, HEAD'],
    ['openapi.json', 'GET, HEAD'],
    ['', 'GET, HEAD'],
    ['setup.js', 'GET, HEAD'],
    ['setup.css', 'GET, HEAD']
  ];
  const cases = ROUTES.flatMap(([route, allow]) =>
    ['PUT', 'DELETE'].map(method => [method, route, allow] as const)
  );

  it.each(cases)(
    'method-not-allowed: %s {api}%s, with an Allow header',
    async (method, route, allow) => {
      const r = await request(`${svc.api}${route}`, {
        method,
        token: svc.token,
        headers: { 'content-type': 'application/json' },
        body: '{}'
      });
      expectProblem(r, 405, 'method-not-allowed');
      expect(r.headers.allow).toBe(allow);
    }
  );

  it('uri-too-long: a URL over 8 KiB is 414', async () => {
    const url = `${svc.api}capabilities?pad=${'a'.repeat(9 * 1024)}`;
    const r = await request(url, { token: svc.token });
    expectProblem(r, 414, 'uri-too-long');
    expect(r.text.length).toBeLessThan(2048);
  });
});

describe('codes no request can reach', () => {
  it('internal is covered by the problem schema and the OpenAPI document, with every other design code', async () => {
    const r = await request(`${svc.api}openapi.json`);
    expect(r.status).toBe(200);
    const problemSchema = r.json.components.schemas.Problem;
    const codes: string[] = problemSchema.properties.code.enum;
    for (const code of DESIGN_CODES) {
      expect(codes).toContain(code);
    }
    // The schema accepts an internal problem and ties it to status 500.
    expect(
      validateAgainst('Problem', {
        type: 'urn:jupyterlab-project-startup:problem:internal',
        title: 'Internal error',
        status: 500,
        detail: 'The service failed to answer.',
        code: 'internal'
      })
    ).toEqual([]);
    expect(
      validateAgainst('Problem', {
        type: 'urn:jupyterlab-project-startup:problem:internal',
        title: 'Internal error',
        status: 400,
        detail: 'x',
        code: 'internal'
      })
    ).not.toEqual([]);
    // Every operation documents the 500 internal problem.
    for (const [route, item] of Object.entries(
      r.json.paths as Record<
        string,
        Record<string, { responses: Record<string, { description: string }> }>
      >
    )) {
      for (const [method, operation] of Object.entries(item)) {
        if (route.endsWith('/health') || route.endsWith('/openapi.json')) {
          continue;
        }
        expect([
          route,
          method,
          operation.responses['500']?.description
        ]).toEqual([route, method, expect.stringContaining('internal')]);
      }
    }
  });
});

describe('malformed HTTP', () => {
  it('a very long header block gets a 431 problem body', async () => {
    const r = await raw(
      `GET /project/health HTTP/1.1\r\nHost: 127.0.0.1:${svc.running.port}\r\nX-Pad: ${'a'.repeat(64 * 1024)}\r\nConnection: close\r\n\r\n`
    );
    expectRawProblem(r, 431);
  });

  it('a URL far over 8 KiB (past the header limit too) is still 414 uri-too-long', async () => {
    const r = await raw(
      `GET /project/capabilities?pad=${'a'.repeat(20 * 1024)} HTTP/1.1\r\nHost: 127.0.0.1:${svc.running.port}\r\nConnection: close\r\n\r\n`
    );
    const body = expectRawProblem(r, 414);
    expect(body.code).toBe('uri-too-long');
  });

  const MALFORMED: [string, string][] = [
    ['a garbage request line', 'THIS IS NOT HTTP\r\n\r\n'],
    [
      'a header line without a colon',
      'GET /project/health HTTP/1.1\r\nHost: 127.0.0.1\r\nNo colon here\r\n\r\n'
    ],
    [
      'an invalid Content-Length',
      'POST /project/initialize HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: abc\r\n\r\n'
    ]
  ];

  it.each(MALFORMED)('%s gets a 400 problem', async (_label, text) => {
    expectRawProblem(await raw(text), 400);
  });

  it('the server keeps serving after malformed requests', async () => {
    for (const [label, text] of MALFORMED) {
      const r = await raw(text);
      expect([label, r.status]).toEqual([label, 400]);
      const next = await request(`${svc.api}health`);
      expect([label, next.status]).toEqual([label, 200]);
      expectValid('Health', next.json);
    }
  });
});
