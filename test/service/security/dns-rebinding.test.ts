// DNS rebinding against direct loopback: a page of evil.example whose name now resolves to
// 127.0.0.1 makes the browser send `Host: evil.example:PORT`. Every Host that does not name
// loopback (or that is not a well-formed Host at all) is refused with 403 forbidden-host before
// anything else, on public routes too, and creates nothing; so are absolute-form request
// targets naming another authority. (auth.test.ts covers evil.example, 127.0.0.1.evil.example,
// localhost.evil.example, 10.0.0.1 and a missing Host; these are the rest of a reviewer's list.)
import { trackedServices } from '../../helpers/harness';
import {
  bearer,
  expectProblemAnswer,
  expectRefusal,
  JSON_TYPE,
  portOf,
  sandboxTree,
  send
} from './support';

const start = trackedServices('each');

describe('DNS rebinding: foreign Host headers are 403 forbidden-host', () => {
  const FOREIGN = [
    'evil.example',
    '127.0.0.1.evil.example',
    'localhost.evil',
    'localhost.',
    '127.0.0.1.',
    '[::ffff:7f00:1]',
    '[::ffff:127.0.0.1]',
    '[0:0:0:0:0:0:0:1]',
    '0x7f000001',
    '2130706433',
    '0177.0.0.1',
    '127.1',
    '0.0.0.0',
    'evil.example:80',
    'xn--localhost-evil.example'
  ];

  it.each(FOREIGN)(
    'Host %s (with the port too): refused on a protected and a public route, even with the token',
    async host => {
      const svc = await start();
      const before = sandboxTree(svc);
      for (const value of [host, `${host}:${portOf(svc)}`]) {
        // A Host with two ports is not even a host name: 400 malformed-request, still refused.
        const [status, code] = /:\d+:\d+$/.test(value)
          ? [400, 'malformed-request']
          : [403, 'forbidden-host'];
        expectProblemAnswer(
          await send(svc, 'GET', '/project/capabilities', [
            ['Host', value],
            bearer(svc)
          ]),
          status,
          code
        );
        expectProblemAnswer(
          await send(svc, 'GET', '/project/health', [['Host', value]]),
          status,
          code
        );
        expectProblemAnswer(
          await send(svc, 'GET', '/project/?token=' + svc.token, [
            ['Host', value],
            ['Accept', 'text/html']
          ]),
          status,
          code
        );
      }
      const p = await send(svc, 'GET', '/project/startup?interface=web', [
        bearer(svc)
      ]);
      const body = JSON.stringify(JSON.parse(p.body).nextAction.request.body);
      const postHost = `${host}:${portOf(svc)}`;
      const post = await send(
        svc,
        'POST',
        '/project/initialize',
        [['Host', postHost], bearer(svc), JSON_TYPE],
        body
      );
      if (/:\d+:\d+$/.test(postHost)) {
        expectProblemAnswer(post, 400, 'malformed-request');
      } else {
        expectProblemAnswer(post, 403, 'forbidden-host');
      }
      expect(post.headers['set-cookie']).toBeUndefined();
      expect(sandboxTree(svc)).toEqual(before);
    }
  );

  it('the refusal carries no Set-Cookie even for a correct ?token= (a rebinding page cannot obtain a session)', async () => {
    const svc = await start();
    const r = await send(svc, 'GET', `/project/?token=${svc.token}`, [
      ['Host', `evil.example:${portOf(svc)}`],
      ['Accept', 'text/html']
    ]);
    expectProblemAnswer(r, 403, 'forbidden-host');
    expect(r.headers['set-cookie']).toBeUndefined();
    expect(r.headers.location).toBeUndefined();
  });
});

describe('absolute-form request targets naming another authority', () => {
  it.each([
    ['GET', 'http://evil.example/project/startup?interface=web'],
    ['GET', 'http://evil.example:80/project/capabilities'],
    ['GET', 'http://127.0.0.1.evil.example/project/health'],
    ['POST', 'http://evil.example/project/initialize']
  ])(
    '%s %s with a loopback Host: refused (never served), nothing created',
    async (method, target) => {
      const svc = await start();
      const before = sandboxTree(svc);
      const p = await send(svc, 'GET', '/project/startup?interface=web', [
        bearer(svc)
      ]);
      const body =
        method === 'POST'
          ? JSON.stringify(JSON.parse(p.body).nextAction.request.body)
          : undefined;
      const r = await send(
        svc,
        method,
        target,
        [bearer(svc), ...(body ? [JSON_TYPE] : [])],
        body
      );
      // RFC 9112 3.2.2: the target's authority, not the Host header, names the host.
      expectRefusal(r, { 'forbidden-host': 403 });
      expect(sandboxTree(svc)).toEqual(before);
    }
  );

  it('an absolute-form target naming loopback is served like its origin-form path', async () => {
    const svc = await start();
    const r = await send(
      svc,
      'GET',
      `http://127.0.0.1:${portOf(svc)}/project/capabilities`,
      [bearer(svc)]
    );
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body).platform.id).toBe('generic');
  });
});

describe('Host headers that are not one well-formed loopback Host', () => {
  // RFC 9112 3.2: a request with more than one Host line, or a Host with an invalid value, MUST
  // be answered 400. Either 400 or the service's 403 forbidden-host is a refusal; a 200 is not.
  it.each([
    [
      'a loopback Host, then evil.example',
      (port: number) => [
        ['Host', `127.0.0.1:${port}`],
        ['Host', 'evil.example']
      ]
    ],
    [
      'evil.example, then a loopback Host',
      (port: number) => [
        ['Host', 'evil.example'],
        ['Host', `127.0.0.1:${port}`]
      ]
    ],
    [
      'a loopback name with user info after the port',
      (port: number) => [['Host', `127.0.0.1:${port}@evil.example`]]
    ],
    [
      'a loopback name with a non-numeric port',
      () => [['Host', 'localhost:evil.example']]
    ],
    [
      'a loopback name with two ports',
      (port: number) => [['Host', `127.0.0.1:${port}:80`]]
    ],
    [
      'a loopback name and another host, comma-separated',
      (port: number) => [['Host', `127.0.0.1:${port}, evil.example`]]
    ]
  ] as [string, (port: number) => [string, string][]][])(
    '%s: refused',
    async (_label, hosts) => {
      const svc = await start();
      const r = await send(svc, 'GET', '/project/capabilities', [
        ...hosts(portOf(svc)),
        bearer(svc)
      ]);
      expectRefusal(r, { 'forbidden-host': 403, 'malformed-request': 400 });
    }
  );
});
