// Cross-origin and form-encoded POSTs: what another site can make a signed-in browser send
// (a form: text/plain, multipart, urlencoded; fetch without preflight: the same three; Origin
// null from a sandboxed frame), against initialize and the gateway. Each is refused with the
// right code and creates nothing. JSON media types with parameters are JSON (a browser cannot
// send them cross-site without a preflight, which the service never grants), so they pass the
// media-type check but not the origin check. No answer grants CORS. (auth.test.ts covers
// cookie POSTs with foreign Origin / Sec-Fetch-Site; e2e/cross-origin.test.ts the same behind
// Jupyter.)
import { request, TestService, trackedServices } from '../../helpers/harness';
import { expectProblemAnswer, sandboxTree, send } from './support';

const start = trackedServices('each');

async function cookieFor(svc: TestService): Promise<string> {
  const r = await request(`${svc.api}?token=${svc.token}`);
  expect(r.status).toBe(200);
  return String((r.headers['set-cookie'] as string[])[0].split(';')[0]);
}

async function initializeBody(svc: TestService): Promise<string> {
  const r = await request(`${svc.api}startup?interface=web`, {
    token: svc.token
  });
  return JSON.stringify(r.json.nextAction.request.body);
}

const FORM_TYPES: [string, (json: string) => string][] = [
  ['text/plain', json => json],
  ['text/plain;charset=UTF-8', json => json],
  ['application/x-www-form-urlencoded', json => `${encodeURIComponent(json)}=`],
  [
    'multipart/form-data; boundary=b',
    json =>
      `--b\r\nContent-Disposition: form-data; name="x"\r\n\r\n${json}\r\n--b--\r\n`
  ],
  ['(none)', json => json],
  ['application/json, text/plain', json => json],
  ['text/plain; application/json', json => json],
  ['application/jsonp', json => json],
  ['application/csp-report', json => json]
];

describe('form-encoded and other non-JSON POSTs are 415 unsupported-media-type', () => {
  it.each(FORM_TYPES)(
    '%s: cookie-borne from another site refused (403 or 415), with the token 415; nothing created',
    async (type, encode) => {
      const svc = await start();
      const cookie = await cookieFor(svc);
      const before = sandboxTree(svc);
      const body = encode(await initializeBody(svc));
      const typeHeader: [string, string][] =
        type === '(none)' ? [] : [['Content-Type', type]];
      for (const route of ['/project/initialize', '/project/gateway']) {
        const payload = route.endsWith('gateway')
          ? encode(
              JSON.stringify({
                jsonrpc: '2.0',
                id: 1,
                method: 'project.initialize',
                params: JSON.parse(await initializeBody(svc))
              })
            )
          : body;
        // A form posted from the signed-in person's browser on another site: same-origin checks
        // answer first (403), or the media type (415); both refuse.
        const fromSite = await send(
          svc,
          'POST',
          route,
          [
            ...typeHeader,
            ['Cookie', cookie],
            ['Origin', 'http://evil.example'],
            ['Sec-Fetch-Site', 'cross-site']
          ],
          payload
        );
        expect([403, 415]).toContain(fromSite.status);
        expectProblemAnswer(
          fromSite,
          fromSite.status,
          fromSite.status === 403 ? 'cross-origin' : 'unsupported-media-type'
        );
        // The same bytes with the token (a script): still not JSON.
        const scripted = await send(
          svc,
          'POST',
          route,
          [...typeHeader, ['Authorization', `Bearer ${svc.token}`]],
          payload
        );
        expectProblemAnswer(scripted, 415, 'unsupported-media-type');
      }
      expect(sandboxTree(svc)).toEqual(before);
    }
  );
});

describe('JSON media types with parameters are JSON, and still need this origin', () => {
  it.each([
    'application/json;x=',
    'application/json; charset=utf-8',
    'APPLICATION/JSON',
    'application/json ; q=1',
    'application/json;;'
  ])(
    '%s: cookie-borne from another origin 403 cross-origin (nothing created); with the token 201',
    async type => {
      const svc = await start();
      const cookie = await cookieFor(svc);
      const before = sandboxTree(svc);
      const body = await initializeBody(svc);
      for (const origin of [
        ['Origin', 'http://evil.example'],
        ['Origin', 'null'],
        ['Sec-Fetch-Site', 'cross-site']
      ] as [string, string][]) {
        for (const route of ['/project/initialize', '/project/gateway']) {
          const r = await send(
            svc,
            'POST',
            route,
            [['Content-Type', type], ['Cookie', cookie], origin],
            body
          );
          expectProblemAnswer(r, 403, 'cross-origin');
        }
      }
      // A cookie without any Origin or Sec-Fetch-Site (an old or scripted client) is not a browser
      // context the service can trust either.
      expectProblemAnswer(
        await send(
          svc,
          'POST',
          '/project/initialize',
          [
            ['Content-Type', type],
            ['Cookie', cookie]
          ],
          body
        ),
        403,
        'cross-origin'
      );
      expect(sandboxTree(svc)).toEqual(before);
      const scripted = await send(
        svc,
        'POST',
        '/project/initialize',
        [
          ['Content-Type', type],
          ['Authorization', `Bearer ${svc.token}`]
        ],
        body
      );
      expect(scripted.status).toBe(201);
    }
  );
});

describe('Origin null and other origins', () => {
  it.each([
    ['Origin: null (a sandboxed frame or a file: page)', [['Origin', 'null']]],
    ['Origin: file://', [['Origin', 'file://']]],
    [
      'Origin: the loopback host on another port',
      [['Origin', 'http://127.0.0.1:1']]
    ],
    [
      'Origin: localhost for a 127.0.0.1 Host',
      [['Origin', 'http://localhost:PORT']]
    ],
    ['Origin: garbage', [['Origin', 'not a url']]]
  ] as [string, [string, string][]][])(
    '%s: a state change is 403 cross-origin, with the cookie and with the token',
    async (_label, headers) => {
      const svc = await start();
      const port = String(svc.running.port);
      const origin = headers.map(
        ([n, v]) => [n, v.replace('PORT', port)] as [string, string]
      );
      const cookie = await cookieFor(svc);
      const before = sandboxTree(svc);
      const body = await initializeBody(svc);
      const rpc = JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'project.initialize',
        params: JSON.parse(body)
      });
      for (const auth of [
        ['Cookie', cookie],
        ['Authorization', `Bearer ${svc.token}`]
      ] as [string, string][]) {
        expectProblemAnswer(
          await send(
            svc,
            'POST',
            '/project/initialize',
            [['Content-Type', 'application/json'], auth, ...origin],
            body
          ),
          403,
          'cross-origin'
        );
        expectProblemAnswer(
          await send(
            svc,
            'POST',
            '/project/gateway',
            [['Content-Type', 'application/json'], auth, ...origin],
            rpc
          ),
          403,
          'cross-origin'
        );
      }
      expect(sandboxTree(svc)).toEqual(before);
    }
  );

  it('no answer grants CORS: a preflight is refused and no Access-Control-* header is ever sent', async () => {
    const svc = await start();
    const preflight = await send(svc, 'OPTIONS', '/project/initialize', [
      ['Origin', 'http://evil.example'],
      ['Access-Control-Request-Method', 'POST'],
      ['Access-Control-Request-Headers', 'content-type, authorization']
    ]);
    expect(preflight.status).toBeGreaterThanOrEqual(400);
    for (const [method, target, headers] of [
      ['OPTIONS', '/project/initialize', []],
      [
        'GET',
        '/project/capabilities',
        [['Authorization', `Bearer ${svc.token}`]]
      ],
      ['GET', '/project/health', []],
      [
        'GET',
        '/project/startup?interface=web',
        [['Authorization', `Bearer ${svc.token}`]]
      ]
    ] as [string, string, [string, string][]][]) {
      const r = await send(svc, method, target, [
        ['Origin', 'http://evil.example'],
        ...headers
      ]);
      expect(
        Object.keys(r.headers).filter(h => h.startsWith('access-control-'))
      ).toEqual([]);
    }
    expect(
      Object.keys(preflight.headers).filter(h =>
        h.startsWith('access-control-')
      )
    ).toEqual([]);
  });

  it('the session cookie is HttpOnly, SameSite=Strict and scoped to the service path', async () => {
    const svc = await start();
    const r = await request(`${svc.api}?token=${svc.token}`);
    const cookie = (r.headers['set-cookie'] as string[])[0];
    expect(cookie).toMatch(/; HttpOnly/);
    expect(cookie).toMatch(/; SameSite=Strict/);
    expect(cookie).toMatch(/; Path=\/project\//);
    expect(cookie).not.toContain(svc.token);
  });
});
