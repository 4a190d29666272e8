// Hostile bodies: oversized (declared and not), chunked past the limit without a
// Content-Length, nesting 10,000 deep within 16 KiB, and prototype-pollution keys (__proto__,
// constructor, the names of Object.prototype's members) in the initialize body and in gateway
// messages and params. Each is refused with the right code (a problem, or a JSON-RPC error with
// the problem in error.data), nothing is created, the service keeps serving, and
// Object.prototype of the service's process (this one: the service runs in-process here) is
// untouched.
import { TestService, trackedServices } from '../../helpers/harness';
import { validateAgainst } from '../../helpers/schemas';
import { Exchange } from '../reliability/support';
import {
  bearer,
  expectProblemAnswer,
  JSON_TYPE,
  sandboxTree,
  send
} from './support';

const start = trackedServices('each');

const PROTOTYPE_MEMBERS = Object.getOwnPropertyNames(Object.prototype).sort();

function expectPrototypeUntouched(): void {
  expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(
    PROTOTYPE_MEMBERS
  );
  const probe: Record<string, unknown> = {};
  for (const key of [
    'polluted',
    'interface',
    'confirm',
    'method',
    'params',
    'isAdmin'
  ]) {
    expect([key, probe[key]]).toEqual([key, undefined]);
  }
  expect(Object.getPrototypeOf(probe)).toBe(Object.prototype);
}

async function confirmBody(svc: TestService): Promise<{
  interface: string;
  confirm: { projectPath: string; statePath: string };
}> {
  const r = await send(svc, 'GET', '/project/startup?interface=web', [
    bearer(svc)
  ]);
  return JSON.parse(r.body).nextAction.request.body;
}

function post(
  svc: TestService,
  route: string,
  body: string | Buffer,
  headers: [string, string][] = []
): Promise<Exchange> {
  return send(
    svc,
    'POST',
    `/project/${route}`,
    [bearer(svc), JSON_TYPE, ...headers],
    body
  );
}

/** One JSON-RPC answer with an error of this code whose data is the problem with that code. */
function expectRpcError(
  ex: Exchange,
  rpcCode: number,
  problemCode?: string
): void {
  expect(ex.status).toBe(200);
  const json = JSON.parse(ex.body);
  expect(validateAgainst('GatewayResponse', json)).toEqual([]);
  const message = Array.isArray(json) ? json[0] : json;
  expect(message.error?.code).toBe(rpcCode);
  if (problemCode !== undefined) {
    expect(message.error.data.code).toBe(problemCode);
    expect(validateAgainst('Problem', message.error.data)).toEqual([]);
  }
}

async function expectStillServing(svc: TestService): Promise<void> {
  const r = await send(svc, 'GET', '/project/startup?interface=web', [
    bearer(svc)
  ]);
  expect(r.status).toBe(200);
  expect(JSON.parse(r.body).phase).toBe('awaiting-confirmation');
}

describe('oversized bodies', () => {
  it('a 17 KiB JSON body to initialize and to the gateway: 413 payload-too-large, nothing created', async () => {
    const svc = await start();
    const before = sandboxTree(svc);
    const body = { ...(await confirmBody(svc)), pad: 'x'.repeat(17 * 1024) };
    expectProblemAnswer(
      await post(svc, 'initialize', JSON.stringify(body)),
      413,
      'payload-too-large'
    );
    expectProblemAnswer(
      await post(
        svc,
        'gateway',
        JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'project.initialize',
          params: body
        })
      ),
      413,
      'payload-too-large'
    );
    expect(sandboxTree(svc)).toEqual(before);
    await expectStillServing(svc);
  });

  it('chunked past the limit without a Content-Length (a valid body first, then padding): 413, nothing created', async () => {
    const svc = await start();
    const before = sandboxTree(svc);
    const valid = JSON.stringify(await confirmBody(svc));
    // Valid JSON up to the limit would create the state; the service must not act on a prefix.
    const text = `${valid.slice(0, -1)},"pad":"${'y'.repeat(20 * 1024)}"}`;
    const chunks: string[] = [];
    for (let at = 0; at < text.length; at += 1000) {
      const part = text.slice(at, at + 1000);
      chunks.push(`${part.length.toString(16)}\r\n${part}\r\n`);
    }
    for (const route of ['initialize', 'gateway']) {
      const r = await send(
        svc,
        'POST',
        `/project/${route}`,
        [bearer(svc), JSON_TYPE, ['Transfer-Encoding', 'chunked']],
        `${chunks.join('')}0\r\n\r\n`
      );
      expectProblemAnswer(r, 413, 'payload-too-large');
    }
    expect(sandboxTree(svc)).toEqual(before);
    await expectStillServing(svc);
  });

  it('a Content-Length of 10 GB with a few bytes sent: 413 (the body is never awaited past its bound)', async () => {
    const svc = await start();
    const r = await send(
      svc,
      'POST',
      '/project/initialize',
      [bearer(svc), JSON_TYPE, ['Content-Length', '10000000000']],
      '{}'
    );
    expectProblemAnswer(r, 413, 'payload-too-large');
    expect(r.timedOut).toBe(false);
  });
});

describe('deep nesting within 16 KiB', () => {
  it('10,000 unclosed brackets (10 KB): 400 invalid-json, and a JSON-RPC parse error at the gateway', async () => {
    const svc = await start();
    const deep = '['.repeat(10000);
    expectProblemAnswer(
      await post(svc, 'initialize', deep),
      400,
      'invalid-json'
    );
    expectRpcError(await post(svc, 'gateway', deep), -32700, 'invalid-json');
    await expectStillServing(svc);
  });

  it('arrays 8,000 deep (16,000 bytes) and objects 2,700 deep: refused at initialize (422, 400), invalid request at the gateway', async () => {
    const svc = await start();
    const before = sandboxTree(svc);
    const arrays = '['.repeat(8000) + ']'.repeat(8000);
    const objects = '{"a":'.repeat(2700) + '1' + '}'.repeat(2700);
    expect(Buffer.byteLength(arrays)).toBeLessThanOrEqual(16 * 1024);
    expect(Buffer.byteLength(objects)).toBeLessThanOrEqual(16 * 1024);
    expectProblemAnswer(
      await post(svc, 'initialize', arrays),
      422,
      'validation-failed'
    );
    expectProblemAnswer(
      await post(svc, 'initialize', objects),
      400,
      'missing-interface'
    ); // an object without interface
    expectRpcError(await post(svc, 'gateway', arrays), -32600);
    expectRpcError(await post(svc, 'gateway', objects), -32600);
    expect(sandboxTree(svc)).toEqual(before);
    await expectStillServing(svc);
  });

  it('nesting inside the initialize body and gateway params: a problem, not a crash', async () => {
    const svc = await start();
    const valid = await confirmBody(svc);
    const deepValue = '['.repeat(7000) + ']'.repeat(7000);
    const inConfirm = `{"interface":"web","confirm":{"projectPath":${deepValue},"statePath":"x"}}`;
    expectProblemAnswer(
      await post(svc, 'initialize', inConfirm),
      422,
      'validation-failed'
    );
    const inInterface = `{"interface":${deepValue},"confirm":${JSON.stringify(valid.confirm)}}`;
    expectProblemAnswer(
      await post(svc, 'initialize', inInterface),
      400,
      'unknown-interface'
    );
    const inParams = `{"jsonrpc":"2.0","id":1,"method":"project.startup","params":{"interface":${deepValue}}}`;
    expectRpcError(
      await post(svc, 'gateway', inParams),
      -32602,
      'unknown-interface'
    );
    const inId = `{"jsonrpc":"2.0","id":${deepValue},"method":"project.capabilities"}`;
    expectRpcError(await post(svc, 'gateway', inId), -32600);
    await expectStillServing(svc);
  });
});

describe('prototype pollution', () => {
  it('__proto__ carrying the whole body: 400 missing-interface (its members are never read), Object.prototype untouched', async () => {
    const svc = await start();
    const before = sandboxTree(svc);
    const valid = await confirmBody(svc);
    const r = await post(
      svc,
      'initialize',
      `{"__proto__":${JSON.stringify({ ...valid, polluted: true })}}`
    );
    expectProblemAnswer(r, 400, 'missing-interface');
    expectPrototypeUntouched();
    expect(sandboxTree(svc)).toEqual(before);
  });

  it.each([
    ['__proto__', '{"polluted":true,"isAdmin":true}'],
    ['constructor', '{"prototype":{"polluted":true}}'],
    ['prototype', '{"polluted":true}'],
    ['hasOwnProperty', 'true'],
    ['toString', '"x"']
  ])(
    'a "%s" member beside a valid body: 422 validation-failed naming it, Object.prototype untouched',
    async (key, value) => {
      const svc = await start();
      const before = sandboxTree(svc);
      const valid = JSON.stringify(await confirmBody(svc));
      const r = await post(
        svc,
        'initialize',
        `{${JSON.stringify(key)}:${value},${valid.slice(1)}`
      );
      expectProblemAnswer(r, 422, 'validation-failed');
      expect(JSON.parse(r.body).errors).toEqual(
        expect.arrayContaining([
          { pointer: `/${key}`, detail: 'is not a known field' }
        ])
      );
      const inConfirm = JSON.stringify(await confirmBody(svc)).replace(
        '"confirm":{',
        `"confirm":{${JSON.stringify(key)}:${value},`
      );
      expectProblemAnswer(
        await post(svc, 'initialize', inConfirm),
        422,
        'validation-failed'
      );
      expectPrototypeUntouched();
      expect(sandboxTree(svc)).toEqual(before);
    }
  );

  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty'])(
    '"method": "%s" (a member of Object.prototype) is ignored like any method in a body: created, the record says what was observed, never 500',
    async method => {
      const svc = await start();
      const body = { ...(await confirmBody(svc)), method };
      const r = await post(svc, 'initialize', JSON.stringify(body));
      expect(r.status).toBe(201);
      const recorded = JSON.parse(r.body).record.confirmation.method;
      expect(typeof recorded).toBe('string');
      expect(recorded).not.toBe(method);
      const viaGateway = await post(
        svc,
        'gateway',
        JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'project.initialize',
          params: body
        })
      );
      expect(viaGateway.status).toBe(200);
      expect(JSON.parse(viaGateway.body).result.created).toBe(false);
      expect(svc.logs.filter(line => /"level":"error"/.test(line))).toEqual([]);
      expectPrototypeUntouched();
    }
  );

  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty'])(
    '"interface": "%s" in the query, the body and gateway params: 400 unknown-interface',
    async name => {
      const svc = await start();
      const valid = await confirmBody(svc);
      expectProblemAnswer(
        await send(svc, 'GET', `/project/startup?interface=${name}`, [
          bearer(svc)
        ]),
        400,
        'unknown-interface'
      );
      expectProblemAnswer(
        await post(
          svc,
          'initialize',
          JSON.stringify({ ...valid, interface: name })
        ),
        400,
        'unknown-interface'
      );
      expectRpcError(
        await post(
          svc,
          'gateway',
          JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'project.startup',
            params: { interface: name }
          })
        ),
        -32602,
        'unknown-interface'
      );
      expectPrototypeUntouched();
    }
  );

  it('gateway: params inherited through __proto__ are not params, and __proto__ as the method name is unknown', async () => {
    const svc = await start();
    const before = sandboxTree(svc);
    const valid = await confirmBody(svc);
    const cases: [string, number, string | undefined][] = [
      [
        '{"jsonrpc":"2.0","id":1,"method":"project.startup","params":{"__proto__":{"interface":"web"}}}',
        -32602,
        'missing-interface'
      ],
      // A member named __proto__ beside the envelope's is an unknown member (the schema allows
      // none), refused as an invalid request before any params are read.
      [
        '{"jsonrpc":"2.0","id":1,"method":"project.startup","__proto__":{"params":{"interface":"web"}}}',
        -32600,
        'validation-failed'
      ],
      [
        `{"jsonrpc":"2.0","id":1,"method":"project.initialize","params":{"__proto__":${JSON.stringify(valid)}}}`,
        -32602,
        'missing-interface'
      ],
      [
        '{"__proto__":{"jsonrpc":"2.0","method":"project.capabilities"},"id":1}',
        -32600,
        undefined
      ],
      ['{"jsonrpc":"2.0","id":1,"method":"__proto__"}', -32601, undefined],
      ['{"jsonrpc":"2.0","id":1,"method":"constructor"}', -32601, undefined],
      ['{"jsonrpc":"2.0","id":1,"method":"toString"}', -32601, undefined]
    ];
    for (const [text, rpcCode, problem] of cases) {
      expectRpcError(await post(svc, 'gateway', text), rpcCode, problem);
    }
    expectPrototypeUntouched();
    expect(sandboxTree(svc)).toEqual(before);
    await expectStillServing(svc);
  });
});
