// The JSON-RPC 2.0 gateway at POST {api}gateway: the same answers as the REST routes, batches,
// and the JSON-RPC error codes with the problem details in error.data.
import * as fs from 'node:fs';
import * as os from 'node:os';
import { expectValid } from '../helpers/schemas';
import {
  HttpResult,
  PLATFORM_EVIDENCE,
  postJson,
  request,
  TestService,
  TestServiceOptions,
  trackedServices
} from '../helpers/harness';

type Iface = 'terminal' | 'web' | 'notebook';
const INTERFACES: Iface[] = ['terminal', 'web', 'notebook'];

const start = trackedServices('all');

function rpc(svc: TestService, body: unknown): Promise<HttpResult> {
  return postJson(`${svc.api}gateway`, svc.token, body);
}

/** POST raw bytes; contentType null sends no Content-Type header at all. */
function rawRpc(
  svc: TestService,
  body: string,
  contentType: string | null = 'application/json'
): Promise<HttpResult> {
  return request(`${svc.api}gateway`, {
    method: 'POST',
    token: svc.token,
    headers: contentType === null ? {} : { 'content-type': contentType },
    body
  });
}

function getStartup(svc: TestService, iface: Iface): Promise<HttpResult> {
  return request(`${svc.api}startup?interface=${iface}`, { token: svc.token });
}

function noStackTrace(text: string): void {
  expect(text).not.toMatch(/\n\s+at /);
  expect(text).not.toMatch(/\bat [^ ]+ \(/);
  expect(text).not.toMatch(/\.(ts|js):\d+/);
  expect(text).not.toMatch(/sidecar\/(src|dist)|node_modules/);
  expect(text).not.toMatch(/"stack"/);
}

/** A JSON-RPC answer over HTTP: 200, JSON, valid against the gateway schema. */
function expectRpcAnswer(r: HttpResult): void {
  expect(r.status).toBe(200);
  expect(r.headers['content-type']).toMatch(/^application\/json/);
  expectValid('GatewayResponse', r.json);
  noStackTrace(r.text);
}

function expectRpcError(
  response: {
    jsonrpc: string;
    id: unknown;
    error: { code: number; message: string; data?: unknown };
  },
  code: number
): void {
  expect(response.jsonrpc).toBe('2.0');
  expect(response.error.code).toBe(code);
  expect(typeof response.error.message).toBe('string');
  expect('result' in response).toBe(false);
  // Every gateway error carries its problem details (design.md, "The gateway method").
  expectValid('Problem', response.error.data);
}

describe('gateway methods on generic', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await start();
  });

  it('project.capabilities returns the manifest of GET capabilities', async () => {
    const caps = await request(`${svc.api}capabilities`, { token: svc.token });
    const r = await rpc(svc, {
      jsonrpc: '2.0',
      id: 1,
      method: 'project.capabilities'
    });
    expectRpcAnswer(r);
    expect(r.json.jsonrpc).toBe('2.0');
    expect(r.json.id).toBe(1);
    expectValid('Manifest', r.json.result);
    expect(r.json.result).toEqual(caps.json);
  });

  it.each(INTERFACES)(
    'project.startup for %s equals GET startup in the same state',
    async iface => {
      const r = await rpc(svc, {
        jsonrpc: '2.0',
        id: `s-${iface}`,
        method: 'project.startup',
        params: { interface: iface }
      });
      const get = await getStartup(svc, iface);
      expectRpcAnswer(r);
      expect(get.status).toBe(200);
      expect(r.json.id).toBe(`s-${iface}`);
      expectValid('StartupProjection', r.json.result);
      expectValid('StartupProjection', get.json);
      expect(r.json.result).toEqual(get.json);
      expect(r.json.result.phase).toBe('awaiting-confirmation');
    }
  );

  it('an application error (confirmation-stale) is -32000 with the problem in error.data, and creates nothing', async () => {
    const p = (await getStartup(svc, 'web')).json;
    expectValid('StartupProjection', p);
    const r = await rpc(svc, {
      jsonrpc: '2.0',
      id: 'stale',
      method: 'project.initialize',
      params: {
        interface: 'web',
        confirm: {
          projectPath: p.projectPath,
          statePath: `${p.statePath}-elsewhere`
        }
      }
    });
    expectRpcAnswer(r);
    expect(r.json.id).toBe('stale');
    expectRpcError(r.json, -32000);
    expect(r.json.error.data.code).toBe('confirmation-stale');
    expect(r.json.error.data.status).toBe(409);
    expect(fs.existsSync(p.statePath)).toBe(false);
  });

  it('confirmation-not-allowed (terminal on a platform with a browser) is -32000', async () => {
    const p = (await getStartup(svc, 'terminal')).json;
    const r = await rpc(svc, {
      jsonrpc: '2.0',
      id: 'term',
      method: 'project.initialize',
      params: {
        interface: 'terminal',
        confirm: { projectPath: p.projectPath, statePath: p.statePath }
      }
    });
    expectRpcAnswer(r);
    expectRpcError(r.json, -32000);
    expect(r.json.error.data.code).toBe('confirmation-not-allowed');
    expect(fs.existsSync(p.statePath)).toBe(false);
  });

  it('project.initialize creates the state; then startup says ready (REST and gateway agree); a repeat returns the same record', async () => {
    const p = (await getStartup(svc, 'web')).json;
    expect(p.phase).toBe('awaiting-confirmation');
    const r = await rpc(svc, {
      jsonrpc: '2.0',
      id: 'init',
      method: 'project.initialize',
      params: p.nextAction.request.body
    });
    expectRpcAnswer(r);
    expect(r.json.id).toBe('init');
    expectValid('InitializeResponse', r.json.result);
    expect(r.json.result.created).toBe(true);
    expect(r.json.result.phase).toBe('ready');
    expect(r.json.result.record.projectPath).toBe(p.projectPath);
    expect(r.json.result.record.statePath).toBe(p.statePath);
    expect(fs.lstatSync(p.statePath).isDirectory()).toBe(true);

    for (const iface of INTERFACES) {
      const get = await getStartup(svc, iface);
      const viaRpc = await rpc(svc, {
        jsonrpc: '2.0',
        id: 9,
        method: 'project.startup',
        params: { interface: iface }
      });
      expectValid('StartupProjection', get.json);
      expectRpcAnswer(viaRpc);
      expect(get.json.phase).toBe('ready');
      expect(viaRpc.json.result).toEqual(get.json);
    }

    const again = await rpc(svc, {
      jsonrpc: '2.0',
      id: 'again',
      method: 'project.initialize',
      params: p.nextAction.request.body
    });
    expectRpcAnswer(again);
    expect(again.json.result.created).toBe(false);
    expect(again.json.result.record).toEqual(r.json.result.record);
  });
});

describe.each([
  {
    platform: 'hosted-notebook',
    options: {
      env: { ...PLATFORM_EVIDENCE['hosted-notebook'].env }
    } as TestServiceOptions
  },
  {
    platform: 'cluster',
    options: {
      env: {
        SLURM_JOB_ID: '77',
        PATH: '/nonexistent-project-startup-test-bin',
        PROJECT_STARTUP_APPROVED_STORAGE: fs.realpathSync(os.tmpdir())
      }
    } as TestServiceOptions
  }
])(
  'project.startup equals GET startup on $platform',
  ({ platform, options }) => {
    let svc: TestService;
    beforeAll(async () => {
      svc = await start(options);
    });

    it.each(INTERFACES)('interface %s', async iface => {
      const get = await getStartup(svc, iface);
      const r = await rpc(svc, {
        jsonrpc: '2.0',
        id: 1,
        method: 'project.startup',
        params: { interface: iface }
      });
      expectRpcAnswer(r);
      expectValid('StartupProjection', get.json);
      expect(r.json.result.platform).toBe(platform);
      expect(r.json.result).toEqual(get.json);
      const caps = await rpc(svc, {
        jsonrpc: '2.0',
        id: 2,
        method: 'project.capabilities'
      });
      expectRpcAnswer(caps);
      expect(caps.json.result).toEqual(get.json.manifest);
    });
  }
);

describe('batches', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await start();
  });

  it('answers mixed calls in order and omits notifications', async () => {
    const r = await rpc(svc, [
      { jsonrpc: '2.0', id: 'a', method: 'project.capabilities' },
      {
        jsonrpc: '2.0',
        method: 'project.startup',
        params: { interface: 'web' }
      },
      {
        jsonrpc: '2.0',
        id: 2,
        method: 'project.startup',
        params: { interface: 'notebook' }
      },
      { jsonrpc: '2.0', id: 3, method: 'project.nope' },
      { jsonrpc: '2.0', method: 'project.capabilities' },
      {
        jsonrpc: '2.0',
        id: 4,
        method: 'project.startup',
        params: { interface: 'browser' }
      },
      { jsonrpc: '2.0', id: null, method: 'project.capabilities' },
      { jsonrpc: '2.0', method: 'project.nope' }
    ]);
    expectRpcAnswer(r);
    expect(Array.isArray(r.json)).toBe(true);
    expect(r.json.map((x: { id: unknown }) => x.id)).toEqual([
      'a',
      2,
      3,
      4,
      null
    ]);
    expectValid('Manifest', r.json[0].result);
    expectValid('StartupProjection', r.json[1].result);
    expect(r.json[1].result.interface).toBe('notebook');
    expectRpcError(r.json[2], -32601);
    expectRpcError(r.json[3], -32602);
    expect(r.json[3].error.data.code).toBe('unknown-interface');
    expectValid('Manifest', r.json[4].result);
  });

  it('a batch of notifications only gets HTTP 204 with an empty body', async () => {
    const r = await rpc(svc, [
      { jsonrpc: '2.0', method: 'project.capabilities' },
      {
        jsonrpc: '2.0',
        method: 'project.startup',
        params: { interface: 'terminal' }
      }
    ]);
    expect(r.status).toBe(204);
    expect(r.text).toBe('');
  });

  it('a single notification gets HTTP 204 with an empty body', async () => {
    const r = await rpc(svc, {
      jsonrpc: '2.0',
      method: 'project.capabilities'
    });
    expect(r.status).toBe(204);
    expect(r.text).toBe('');
  });

  it('an empty batch is one -32600 response with id null', async () => {
    const r = await rpc(svc, []);
    expectRpcAnswer(r);
    expect(Array.isArray(r.json)).toBe(false);
    expect(r.json.id).toBeNull();
    expectRpcError(r.json, -32600);
  });

  it('20 calls are answered; 21 are one -32600 response', async () => {
    const call = (id: number) => ({
      jsonrpc: '2.0',
      id,
      method: 'project.capabilities'
    });
    const twenty = await rpc(
      svc,
      Array.from({ length: 20 }, (_, i) => call(i))
    );
    expectRpcAnswer(twenty);
    expect(twenty.json.map((x: { id: number }) => x.id)).toEqual(
      Array.from({ length: 20 }, (_, i) => i)
    );

    const r = await rpc(
      svc,
      Array.from({ length: 21 }, (_, i) => call(i))
    );
    expectRpcAnswer(r);
    expect(Array.isArray(r.json)).toBe(false);
    expect(r.json.id).toBeNull();
    expectRpcError(r.json, -32600);
  });

  it('a batch of non-objects gets one -32600 per entry', async () => {
    const r = await rpc(svc, [1, 'x', null]);
    expectRpcAnswer(r);
    expect(r.json).toHaveLength(3);
    for (const response of r.json) {
      expect(response.id).toBeNull();
      expectRpcError(response, -32600);
    }
  });
});

describe('errors', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await start();
  });

  it.each([
    ['truncated JSON', '{"jsonrpc": "2.0", "id": 1, "method": '],
    ['not JSON at all', 'project.capabilities'],
    ['an empty body', '']
  ])(
    'a parse error (%s) is -32700 with id null and an invalid-json problem in error.data',
    async (_name, body) => {
      const r = await rawRpc(svc, body);
      expectRpcAnswer(r);
      expect(r.json.id).toBeNull();
      expectRpcError(r.json, -32700);
      expectValid('Problem', r.json.error.data);
      expect(r.json.error.data.code).toBe('invalid-json');
    }
  );

  it.each([
    ['jsonrpc is missing', { id: 7, method: 'project.capabilities' }],
    [
      'jsonrpc is the wrong version',
      { jsonrpc: '1.0', id: 7, method: 'project.capabilities' }
    ],
    [
      'jsonrpc is a number',
      { jsonrpc: 2.0, id: 7, method: 'project.capabilities' }
    ],
    ['the method is not a string', { jsonrpc: '2.0', id: 7, method: 42 }],
    ['the method is missing', { jsonrpc: '2.0', id: 7 }]
  ])('an invalid request (%s) is -32600', async (_name, body) => {
    const r = await rpc(svc, body);
    expectRpcAnswer(r);
    expectRpcError(r.json, -32600);
    // The id is echoed when it could be read, and null otherwise (JSON-RPC 2.0 section 5).
    expect([7, null]).toContain(r.json.id);
  });

  it.each([
    ['an object', { n: 1 }],
    ['an array', [1]],
    ['a boolean', true]
  ])(
    'an id that is %s makes an invalid request: -32600 with id null',
    async (_name, id) => {
      const r = await rpc(svc, {
        jsonrpc: '2.0',
        id,
        method: 'project.capabilities'
      });
      expectRpcAnswer(r);
      expectRpcError(r.json, -32600);
      expect(r.json.id).toBeNull();
    }
  );

  it('a non-object request is -32600 with id null', async () => {
    const r = await rpc(svc, 'project.capabilities');
    expectRpcAnswer(r);
    expectRpcError(r.json, -32600);
    expect(r.json.id).toBeNull();
  });

  it('an unknown method is -32601 with the id kept', async () => {
    for (const method of [
      'project.nope',
      'project.Capabilities',
      'capabilities',
      'rpc.discover'
    ]) {
      const r = await rpc(svc, { jsonrpc: '2.0', id: 'm', method });
      expectRpcAnswer(r);
      expect(r.json.id).toBe('m');
      expectRpcError(r.json, -32601);
    }
  });

  it('an unknown method (project.nope) carries a not-found problem naming the methods in error.data', async () => {
    const r = await rpc(svc, { jsonrpc: '2.0', id: 9, method: 'project.nope' });
    expectRpcAnswer(r);
    expect(r.json.id).toBe(9);
    expect(r.json.error.code).toBe(-32601);
    expect(r.json.error.data).toMatchObject({
      code: 'not-found',
      status: 404,
      type: 'urn:jupyterlab-project-startup:problem:not-found',
      allowedValues: [
        'project.capabilities',
        'project.startup',
        'project.initialize'
      ]
    });
    // The method asked for is not echoed: an answer never reflects what the caller sent
    // (test/service/security/secrets.test.ts plants markers there).
    expect(r.json.error.data.detail).not.toContain('project.nope');
    expect(r.json.error.data.detail).toContain('project.startup');
  });

  it('an invalid request carries a validation-failed problem pointing at the bad member in error.data', async () => {
    const r = await rpc(svc, {
      jsonrpc: '1.0',
      id: 3,
      method: 'project.capabilities'
    });
    expectRpcAnswer(r);
    expect(r.json.error.code).toBe(-32600);
    expect(r.json.error.data.code).toBe('validation-failed');
    expect(r.json.error.data.errors).toEqual([
      { pointer: '/jsonrpc', detail: 'must be "2.0"' }
    ]);
  });

  it.each([
    ['project.startup', { interface: 'browser' }, 'unknown-interface'],
    ['project.startup', { interface: 'WEB' }, 'unknown-interface'],
    ['project.startup', { interface: 7 }, 'unknown-interface'],
    ['project.startup', {}, 'missing-interface'],
    ['project.startup', undefined, 'missing-interface'],
    ['project.startup', ['web'], 'validation-failed'],
    [
      'project.initialize',
      { interface: 'web', confirm: 'yes' },
      'validation-failed'
    ],
    ['project.initialize', { interface: 'web' }, 'validation-failed'],
    [
      'project.initialize',
      { confirm: { projectPath: '/x', statePath: '/y' } },
      'missing-interface'
    ],
    [
      'project.initialize',
      { interface: 'browser', confirm: { projectPath: '/x', statePath: '/y' } },
      'unknown-interface'
    ]
  ])(
    '%s with params %j is -32602 with error.data.code %s',
    async (method, params, code) => {
      const r = await rpc(svc, {
        jsonrpc: '2.0',
        id: 'p',
        method,
        ...(params === undefined ? {} : { params })
      });
      expectRpcAnswer(r);
      expect(r.json.id).toBe('p');
      expectRpcError(r.json, -32602);
      expectValid('Problem', r.json.error.data);
      expect(r.json.error.data.code).toBe(code);
      if (code === 'unknown-interface' || code === 'missing-interface') {
        expect(r.json.error.data.allowedValues).toEqual([
          'terminal',
          'web',
          'notebook'
        ]);
      }
    }
  );

  it('invalid params created no state', async () => {
    expect(fs.existsSync(`${svc.projectDir}/.project-startup`)).toBe(false);
  });

  it.each([
    ['text/plain', 'text/plain'],
    ['a form', 'application/x-www-form-urlencoded'],
    ['no content type', null]
  ] as [string, string | null][])(
    'a body sent as %s is HTTP 415 with a problem',
    async (_name, contentType) => {
      const r = await rawRpc(
        svc,
        JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'project.capabilities'
        }),
        contentType
      );
      expect(r.status).toBe(415);
      expect(r.headers['content-type']).toMatch(/^application\/problem\+json/);
      expectValid('Problem', r.json);
      expect(r.json.code).toBe('unsupported-media-type');
      noStackTrace(r.text);
    }
  );

  it('application/json with a charset parameter is accepted', async () => {
    const r = await rawRpc(
      svc,
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'project.capabilities' }),
      'application/json; charset=utf-8'
    );
    expectRpcAnswer(r);
    expect(r.json.id).toBe(1);
  });

  it('without the token the gateway is HTTP 401 with a problem', async () => {
    const r = await request(`${svc.api}gateway`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'project.capabilities'
      })
    });
    expect(r.status).toBe(401);
    expectValid('Problem', r.json);
    expect(r.json.code).toBe('unauthorized');
    expect(r.text).not.toContain(svc.token);
    noStackTrace(r.text);
  });

  it('GET on the gateway is HTTP 405 with a problem', async () => {
    const r = await request(`${svc.api}gateway`, { token: svc.token });
    expect(r.status).toBe(405);
    expectValid('Problem', r.json);
    expect(r.json.code).toBe('method-not-allowed');
  });
});
