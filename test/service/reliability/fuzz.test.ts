// Property-based fuzzing (fast-check) of the real `project-startup serve` process, in each ingress
// mode: generated methods, paths (encoded traversal, unicode, very long, absolute-form),
// queries, header sets (Host, Authorization, Content-Type, Origin, cookies, ...) and bodies
// (random bytes, JSON of any shape, huge numbers, nesting up to the 16 KiB limit, JSON-RPC and
// initialize shapes with prototype keys), sent as raw bytes in small concurrent batches.
//
// For every answer: never 5xx; every 4xx is application/problem+json whose status and code agree;
// redirects stay on this origin; no stack trace, code path, token or secret. After every batch:
// the process is alive and answers health, logged no error, and nothing appeared under the
// sandbox (project, home) except the state a valid initialize creates.
//
// Bounds: PROJECT_STARTUP_FUZZ_RUNS batches of 1-3 requests per ingress mode (default 1500, about
// 20 s for the file on CI's 2 cores), PROJECT_STARTUP_FUZZ_BUDGET_MS per mode at most (runs and
// shrinking). PROJECT_STARTUP_FUZZ_SEED replays a failure: fast-check prints the seed and path
// of the shrunk counterexample when a property fails.
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { ServeHandle, startServe, trackedSandboxes } from '../../helpers/cli';
import { request } from '../../helpers/harness';
import {
  alive,
  Exchange,
  exchange,
  intFromEnv,
  leakSigns,
  problemViolations,
  tree
} from './support';

const RUNS = intFromEnv('PROJECT_STARTUP_FUZZ_RUNS', 1500);
const SEED = process.env.PROJECT_STARTUP_FUZZ_SEED
  ? Number(process.env.PROJECT_STARTUP_FUZZ_SEED)
  : undefined;
/**
 * fast-check stops a mode after this long (runs and shrinking together; a run cut short passes
 * with the batches it did): a bound on time, never an assertion about it.
 */
const MODE_BUDGET_MS = intFromEnv(
  'PROJECT_STARTUP_FUZZ_BUDGET_MS',
  Math.max(30000, RUNS * 20)
);

const sandbox = trackedSandboxes();

const PROTO_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'valueOf',
  'isPrototypeOf'
];
const IFACES = ['web', 'terminal', 'notebook'];
const CONFIRM_METHODS = [
  'jupyterlab-dialog',
  'setup-page',
  'terminal-prompt',
  'http-api'
];
const RPC_METHODS = [
  'project.capabilities',
  'project.startup',
  'project.initialize'
];

/** Percent-encodes every byte of the UTF-8 form except unreserved characters (lone surrogates too). */
function pct(s: string): string {
  return [...Buffer.from(s, 'utf8')]
    .map(b =>
      /[A-Za-z0-9\-._~]/.test(String.fromCharCode(b))
        ? String.fromCharCode(b)
        : `%${b.toString(16).toUpperCase().padStart(2, '0')}`
    )
    .join('');
}

/** The UTF-8 bytes of `s` as latin1 characters: written with 'latin1', they go out raw. */
function rawUtf8(s: string): string {
  return Buffer.from(s, 'utf8').toString('latin1');
}

interface Mode {
  name: string;
  ingress: 'direct-loopback' | 'notebook-server-proxy' | 'trusted-proxy';
  args: string[];
  env: (root: string) => Record<string, string>;
  prefix: string;
  /** The interface that may confirm on this platform. */
  confirmVia: 'web' | 'notebook';
}

const MODES: Mode[] = [
  {
    name: 'direct loopback (generic)',
    ingress: 'direct-loopback',
    args: [],
    env: () => ({}),
    prefix: '/project/',
    confirmVia: 'web'
  },
  {
    name: 'notebook-server proxy (hosted notebook, base URL /user/alice/)',
    ingress: 'notebook-server-proxy',
    args: [
      '--ingress',
      'notebook-server-proxy',
      '--allow-unauthenticated-tcp',
      '--base-url',
      '/user/alice/'
    ],
    env: () => ({
      JUPYTERHUB_API_URL: 'http://127.0.0.1:9/hub/api',
      JUPYTERHUB_USER: 'alice'
    }),
    prefix: '/user/alice/project/',
    confirmVia: 'notebook'
  },
  {
    name: 'trusted proxy (generic)',
    ingress: 'trusted-proxy',
    args: ['--ingress', 'trusted-proxy'],
    env: root => ({
      PROJECT_STARTUP_TRUSTED_PROXY_SECRET_FILE: path.join(root, 'proxy-secret')
    }),
    prefix: '/project/',
    confirmVia: 'web'
  }
];

interface Target {
  mode: Mode;
  port: number;
  token: string;
  secret: string;
  validBody: {
    interface: string;
    confirm: { projectPath: string; statePath: string };
  };
  etag: string;
}

interface GeneratedRequest {
  method: string;
  target: string;
  headers: [string, string][];
  body?: { bytes: Buffer; chunked: number | undefined };
}

// ---------------------------------------------------------------------------------------------
// Arbitraries

const visibleAscii = fc.string({
  unit: fc.integer({ min: 0x20, max: 0x7e }).map(c => String.fromCharCode(c)),
  maxLength: 40
});
const tokenChars = fc.string({
  unit: fc.constantFrom(
    ...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_!#$%&*+.^`|~'.split(
      ''
    )
  ),
  minLength: 1,
  maxLength: 20
});
const weirdString = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'grapheme', maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.constantFrom(
    ...PROTO_KEYS,
    ...IFACES,
    '',
    ' ',
    'WEB',
    'browser',
    '<script>alert(1)</script>',
    '\u0000',
    '\r\nX-Injected: 1',
    '../../etc/passwd',
    '%00'
  )
);

function pathArb(t: Target): fc.Arbitrary<string> {
  const prefix = t.mode.prefix;
  const route = fc.constantFrom(
    'capabilities',
    'startup',
    'initialize',
    'gateway',
    'health',
    'openapi.json',
    '',
    'setup.js',
    'setup.css',
    'favicon.svg',
    'setup.html',
    'nope',
    'Capabilities',
    'index.html',
    '.project-startup/initialization.json'
  );
  const segment = fc.oneof(
    fc.constantFrom(
      '..',
      '.',
      '%2e%2e',
      '%2E%2E',
      '.%2e',
      '%2e',
      '%2f',
      '%2F',
      '%5c',
      '%5C',
      '\\',
      '',
      '%00',
      '%',
      '%zz',
      '%c0%ae%c0%ae',
      ';x=1',
      'project',
      '~',
      '*',
      '%20',
      'etc',
      'passwd'
    ),
    weirdString.map(pct)
  );
  return fc.oneof(
    { weight: 6, arbitrary: route.map(r => prefix + r) },
    {
      weight: 3,
      arbitrary: fc
        .tuple(route, fc.array(segment, { maxLength: 5 }), fc.boolean())
        .map(
          ([r, segs, trailing]) =>
            prefix + [r, ...segs].join('/') + (trailing ? '/' : '')
        )
    },
    {
      weight: 2,
      arbitrary: fc
        .array(segment, { minLength: 1, maxLength: 6 })
        .map(segs => `/${segs.join('/')}`)
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          fc.constantFrom('//', '/./', '/../', '\\', '/%2e/', '///'),
          route
        )
        .map(([lead, r]) => lead + prefix.slice(1) + r)
    },
    {
      weight: 1,
      arbitrary: fc
        .integer({ min: 1, max: 9000 })
        .map(n => `${prefix}startup/${'a'.repeat(n)}`)
    },
    {
      weight: 1,
      arbitrary: fc
        .integer({ min: 8000, max: 20000 })
        .map(n => `${prefix}${'%2e'.repeat(Math.floor(n / 3))}`)
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          fc.constantFrom(
            'http://evil.example',
            `http://127.0.0.1:${t.port}`,
            'http://localhost',
            'https://127.0.0.1'
          ),
          route
        )
        .map(([origin, r]) => origin + prefix + r)
    },
    {
      weight: 1,
      arbitrary: fc
        .string({ unit: 'grapheme', minLength: 1, maxLength: 10 })
        .map(s => prefix + rawUtf8(s))
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '*',
        '/',
        prefix.slice(0, -1),
        prefix.toUpperCase()
      )
    }
  );
}

const queryArb: fc.Arbitrary<string | undefined> = fc.option(
  fc.oneof(
    {
      weight: 5,
      arbitrary: fc
        .array(
          fc.tuple(
            fc.oneof(
              fc.constantFrom(
                'interface',
                'interface',
                'token',
                'x',
                'INTERFACE',
                'interface[]',
                ...PROTO_KEYS
              ),
              weirdString.map(pct)
            ),
            fc.oneof(
              fc.constantFrom(
                ...IFACES,
                ...IFACES,
                'browser',
                '',
                'WEB',
                '%zz',
                '%',
                ...PROTO_KEYS
              ),
              weirdString.map(pct)
            )
          ),
          { maxLength: 5 }
        )
        .map(pairs => pairs.map(([k, v]) => `${k}=${v}`).join('&'))
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '',
        '&&&',
        '=',
        '%zz',
        'interface',
        '<script>alert(1)</script>',
        'a=%0d%0aSet-Cookie:x',
        'interface=web&interface=web'
      )
    },
    {
      weight: 1,
      arbitrary: fc
        .integer({ min: 1, max: 9000 })
        .map(n => `interface=web&pad=${'a'.repeat(n)}`)
    }
  ),
  { nil: undefined, freq: 3 }
);

function headersArb(t: Target): fc.Arbitrary<[string, string][]> {
  const port = t.port;
  const opt = <T>(arb: fc.Arbitrary<T>, freq = 3) =>
    fc.option(arb, { nil: undefined, freq });
  const host = fc.oneof(
    {
      weight: 8,
      arbitrary: fc.constantFrom(
        `127.0.0.1:${port}`,
        `localhost:${port}`,
        `[::1]:${port}`
      )
    },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        'evil.example',
        '127.0.0.1.evil.example',
        'localhost.evil',
        '[::ffff:7f00:1]',
        '0x7f000001',
        '',
        'ABSENT',
        'TWICE',
        `127.0.0.1:${port}@evil.example`,
        `LOCALHOST:${port}`
      )
    },
    { weight: 1, arbitrary: visibleAscii }
  );
  const authorization = fc.oneof(
    {
      weight: 8,
      arbitrary: fc.constantFrom(
        `Bearer ${t.token}`,
        `token ${t.token}`,
        `bearer ${t.token}`
      )
    },
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        'ABSENT',
        'Bearer wrong',
        `Bearer ${t.token.slice(0, -1)}`,
        `Bearer ${t.token.toUpperCase()}`,
        `Basic ${Buffer.from(`:${t.token}`).toString('base64')}`,
        'Bearer',
        `Bearer ${t.token} ${t.token}`,
        t.token
      )
    },
    { weight: 1, arbitrary: visibleAscii }
  );
  const contentType = fc.oneof(
    {
      weight: 6,
      arbitrary: fc.constantFrom(
        'application/json',
        'application/json; charset=utf-8',
        'application/json;x=',
        'APPLICATION/JSON',
        ' application/json '
      )
    },
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        'ABSENT',
        '',
        'text/plain',
        'text/plain;charset=UTF-8',
        'multipart/form-data; boundary=x',
        'application/x-www-form-urlencoded',
        'application/json, text/plain',
        'application/jsonx',
        'application/merge-patch+json',
        'text/plain; application/json'
      )
    },
    { weight: 1, arbitrary: visibleAscii }
  );
  const secret = fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom(t.secret, ` ${t.secret} `) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        'ABSENT',
        'wrong-secret-wrong-secret',
        t.secret.slice(1),
        `${t.secret}x`,
        ''
      )
    }
  );
  return fc
    .record({
      host,
      authorization,
      contentType,
      secret,
      origin: opt(
        fc.oneof(
          fc.constantFrom(
            `http://127.0.0.1:${port}`,
            `http://localhost:${port}`,
            'http://evil.example',
            'null',
            'garbage'
          ),
          visibleAscii
        )
      ),
      site: opt(
        fc.constantFrom(
          'same-origin',
          'cross-site',
          'same-site',
          'none',
          'garbage'
        )
      ),
      mode: opt(fc.constantFrom('navigate', 'cors', 'no-cors')),
      cookie: opt(
        fc.oneof(
          fc.constant(`project-startup-session-${port}=garbage`),
          fc.constant(`_xsrf=1; username-x=${t.token}`),
          visibleAscii
        )
      ),
      accept: opt(
        fc.constantFrom(
          'text/html',
          'application/json',
          '*/*',
          'text/html,application/xhtml+xml',
          'application/problem+json'
        )
      ),
      forwardedFor: opt(
        fc.oneof(
          fc.constantFrom('10.0.0.1', '::1, 10.0.0.2', ''),
          visibleAscii
        ),
        4
      ),
      forwardedHost: opt(
        fc.oneof(
          fc.constantFrom('evil.example', `127.0.0.1:${port}`),
          visibleAscii
        ),
        4
      ),
      ifNoneMatch: opt(
        fc.constantFrom(
          '*',
          'W/"x"',
          t.etag,
          `W/${t.etag}`,
          'garbage',
          `"a", ${t.etag}`
        ),
        4
      ),
      expect: opt(fc.constant('100-continue'), 8),
      extra: opt(fc.tuple(tokenChars, visibleAscii), 3)
    })
    .map(h => {
      const out: [string, string][] = [];
      if (h.host === 'TWICE') {
        out.push(['Host', `127.0.0.1:${port}`], ['Host', `127.0.0.1:${port}`]);
      } else if (h.host !== 'ABSENT') {
        out.push(['Host', h.host]);
      }
      if (h.authorization !== 'ABSENT') {
        out.push(['Authorization', h.authorization]);
      }
      if (h.contentType !== 'ABSENT') {
        out.push(['Content-Type', h.contentType]);
      }
      if (t.mode.ingress === 'trusted-proxy' && h.secret !== 'ABSENT') {
        out.push(['X-Project-Startup-Proxy-Secret', h.secret]);
      }
      const optional: [string, string | undefined][] = [
        ['Origin', h.origin],
        ['Sec-Fetch-Site', h.site],
        ['Sec-Fetch-Mode', h.mode],
        ['Cookie', h.cookie],
        ['Accept', h.accept],
        ['X-Forwarded-For', h.forwardedFor],
        ['X-Forwarded-Host', h.forwardedHost],
        ['If-None-Match', h.ifNoneMatch],
        ['Expect', h.expect]
      ];
      for (const [name, value] of optional) {
        if (value !== undefined) {
          out.push([name, value]);
        }
      }
      if (
        h.extra &&
        !/^(content-length|transfer-encoding|connection|host|expect|upgrade)$/i.test(
          h.extra[0]
        )
      ) {
        out.push(h.extra);
      }
      return out;
    });
}

function bodyArb(t: Target): fc.Arbitrary<string | Buffer | undefined> {
  const anyJson = fc.jsonValue({ maxDepth: 5 });
  const iface = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...IFACES) },
    { weight: 2, arbitrary: weirdString },
    { weight: 1, arbitrary: anyJson }
  );
  const confirm = fc.oneof(
    { weight: 4, arbitrary: fc.constant(t.validBody.confirm) },
    {
      weight: 2,
      arbitrary: fc.record({ projectPath: weirdString, statePath: weirdString })
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        { ...t.validBody.confirm, extra: 1 },
        { projectPath: t.validBody.confirm.projectPath }
      )
    },
    { weight: 1, arbitrary: anyJson }
  );
  const initializeLike = fc
    .record(
      {
        interface: iface,
        method: fc.oneof(
          fc.constantFrom(...CONFIRM_METHODS, ...PROTO_KEYS),
          weirdString,
          anyJson
        ),
        confirm,
        extraKey: fc.constantFrom(...PROTO_KEYS, 'bogus', 'interface '),
        extraValue: anyJson
      },
      { requiredKeys: [] }
    )
    .map(r => {
      const body: Record<string, unknown> = {};
      for (const key of ['interface', 'method', 'confirm'] as const) {
        if (key in r) {
          body[key] = r[key];
        }
      }
      let text = JSON.stringify(body);
      if (r.extraKey !== undefined) {
        // JSON text, so "__proto__" arrives as an own member the way a client would send it.
        const member = `${JSON.stringify(r.extraKey)}:${JSON.stringify(r.extraValue ?? null) ?? 'null'}`;
        text = text === '{}' ? `{${member}}` : `{${member},${text.slice(1)}`;
      }
      return text;
    });
  const params = fc.oneof(
    fc.constant(undefined),
    fc.record({ interface: iface }),
    initializeLike.map(s => JSON.parse(s) as unknown),
    fc.constantFrom(null, [], [IFACES[0]], 'web', 42),
    anyJson
  );
  const rpcMessage = fc.record(
    {
      jsonrpc: fc.oneof(
        { weight: 5, arbitrary: fc.constant('2.0') },
        { weight: 1, arbitrary: anyJson }
      ),
      id: fc.oneof(
        fc.integer(),
        fc.string({ maxLength: 8 }),
        fc.constant(null),
        fc.constantFrom(1e308, -0, 1.2345678901234568e29),
        anyJson
      ),
      method: fc.oneof(
        { weight: 5, arbitrary: fc.constantFrom(...RPC_METHODS) },
        {
          weight: 2,
          arbitrary: fc.constantFrom(...PROTO_KEYS, 'rpc.discover')
        },
        { weight: 1, arbitrary: weirdString }
      ),
      params
    },
    { requiredKeys: ['jsonrpc', 'method'] }
  );
  const rpc = fc.oneof(
    { weight: 4, arbitrary: rpcMessage.map(m => JSON.stringify(m)) },
    {
      weight: 2,
      arbitrary: fc
        .array(rpcMessage, { minLength: 0, maxLength: 25 })
        .map(b => JSON.stringify(b))
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '{"jsonrpc":"2.0","id":1,"method":"project.startup","__proto__":{"params":{"interface":"web"}}}',
        '{"jsonrpc":"2.0","id":1,"method":"project.startup","params":{"__proto__":{"interface":"web"}}}',
        '{"jsonrpc":"2.0","id":1e999999,"method":"project.capabilities"}',
        '{"jsonrpc":"2.0","id":1,"method":"project.capabilities"',
        '[{"jsonrpc":"2.0","method":"project.capabilities"}]'
      )
    }
  );
  const hugeNumber = fc.constantFrom(
    '1e999999',
    '-1e999999',
    '123456789012345678901234567890',
    `0.${'1'.repeat(5000)}`,
    `${'9'.repeat(10000)}`,
    '-0',
    '1E+400'
  );
  const nested = fc
    .tuple(
      fc.integer({ min: 1, max: 8192 }),
      fc.constantFrom('array', 'object', 'open', 'rpc-params')
    )
    .map(([depth, kind]) => {
      switch (kind) {
        case 'array':
          return '['.repeat(depth) + ']'.repeat(depth);
        case 'object': {
          const d = Math.min(depth, 3270);
          return '{"a":'.repeat(d) + '1' + '}'.repeat(d);
        }
        case 'open':
          return '['.repeat(Math.min(depth * 2, 16000));
        default: {
          const d = Math.min(depth, 3000);
          return `{"jsonrpc":"2.0","id":1,"method":"project.startup","params":{"interface":${'['.repeat(d)}${']'.repeat(d)}}}`;
        }
      }
    });
  const sized = fc
    .integer({ min: 16300, max: 20000 })
    .map(n =>
      JSON.stringify({ interface: 'web', pad: 'x'.repeat(Math.max(0, n - 30)) })
    );
  return fc.oneof(
    { weight: 3, arbitrary: fc.constant(undefined) },
    {
      weight: 2,
      arbitrary: fc.uint8Array({ maxLength: 2048 }).map(b => Buffer.from(b))
    },
    { weight: 3, arbitrary: anyJson.map(v => JSON.stringify(v)) },
    { weight: 5, arbitrary: initializeLike },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(...CONFIRM_METHODS, undefined)
        .map(m => JSON.stringify({ ...t.validBody, method: m }))
    },
    { weight: 5, arbitrary: rpc },
    { weight: 1, arbitrary: hugeNumber },
    { weight: 2, arbitrary: nested },
    { weight: 1, arbitrary: sized },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        'interface=web',
        '--x\r\nContent-Disposition: form-data; name="interface"\r\n\r\nweb\r\n--x--\r\n',
        '\ufeff{}',
        '',
        'null'
      )
    }
  );
}

const ROUTES: { route: string; method: string; weight: number }[] = [
  { route: 'initialize', method: 'POST', weight: 4 },
  { route: 'gateway', method: 'POST', weight: 4 },
  { route: 'startup', method: 'GET', weight: 3 },
  { route: 'capabilities', method: 'GET', weight: 1 },
  { route: 'health', method: 'GET', weight: 1 },
  { route: 'openapi.json', method: 'GET', weight: 1 },
  { route: '', method: 'GET', weight: 1 },
  { route: 'setup.js', method: 'GET', weight: 1 },
  { route: 'favicon.svg', method: 'GET', weight: 1 }
];

/** A request aimed at one route: mostly well-formed in every respect but one or two. */
function requestArb(t: Target): fc.Arbitrary<GeneratedRequest> {
  const anyMethod = fc.oneof(
    {
      weight: 6,
      arbitrary: fc.constantFrom(
        'GET',
        'POST',
        'HEAD',
        'PUT',
        'DELETE',
        'PATCH',
        'OPTIONS',
        'TRACE'
      )
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        'get',
        'PROPFIND',
        'QUERY',
        'FOO',
        'M-SEARCH',
        'PRI'
      )
    }
  );
  const interfaceQuery = fc.oneof(
    {
      weight: 4,
      arbitrary: fc.constantFrom(...IFACES).map(i => `interface=${i}`)
    },
    { weight: 1, arbitrary: queryArb.map(q => q ?? '') }
  );
  return fc
    .oneof(
      ...ROUTES.map(r => ({ weight: r.weight, arbitrary: fc.constant(r) }))
    )
    .chain(r =>
      fc.record({
        method: fc.oneof(
          { weight: 5, arbitrary: fc.constant(r.method) },
          { weight: 1, arbitrary: anyMethod }
        ),
        path: fc.oneof(
          { weight: 4, arbitrary: fc.constant(t.mode.prefix + r.route) },
          { weight: 1, arbitrary: pathArb(t) }
        ),
        query:
          r.route === 'startup'
            ? interfaceQuery.map(q => (q === '' ? undefined : q))
            : queryArb,
        headers: headersArb(t),
        body:
          r.method === 'POST'
            ? bodyArb(t)
            : fc.oneof(
                { weight: 4, arbitrary: fc.constant(undefined) },
                { weight: 1, arbitrary: bodyArb(t) }
              ),
        chunked: fc.option(fc.integer({ min: 1, max: 8192 }), {
          nil: undefined,
          freq: 4
        })
      })
    )
    .map(r => ({
      method: r.method,
      target: r.query === undefined ? r.path : `${r.path}?${r.query}`,
      headers: r.headers,
      body:
        r.body === undefined
          ? undefined
          : {
              bytes: Buffer.isBuffer(r.body)
                ? r.body
                : Buffer.from(r.body, 'utf8'),
              chunked: r.chunked
            }
    }));
}

// ---------------------------------------------------------------------------------------------
// Sending and checking

function encode(req: GeneratedRequest): Buffer {
  const lines = [
    `${req.method} ${req.target} HTTP/1.1`,
    ...req.headers.map(([n, v]) => `${n}: ${v}`)
  ];
  let payload: Buffer = Buffer.alloc(0);
  if (req.body) {
    if (req.body.chunked !== undefined) {
      lines.push('Transfer-Encoding: chunked');
      const parts: Buffer[] = [];
      for (let at = 0; at < req.body.bytes.length; at += req.body.chunked) {
        const chunk = req.body.bytes.subarray(at, at + req.body.chunked);
        parts.push(
          Buffer.from(`${chunk.length.toString(16)}\r\n`, 'latin1'),
          chunk,
          Buffer.from('\r\n', 'latin1')
        );
      }
      parts.push(Buffer.from('0\r\n\r\n', 'latin1'));
      payload = Buffer.concat(parts);
    } else {
      lines.push(`Content-Length: ${req.body.bytes.length}`);
      payload = req.body.bytes;
    }
  }
  lines.push('Connection: close');
  return Buffer.concat([
    Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'),
    payload
  ]);
}

/** Problems with the problem details a gateway answer carries in error.data. */
function rpcViolations(body: string): string[] {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return [`gateway 200 body is not JSON: ${body.slice(0, 120)}`];
  }
  const out: string[] = [];
  for (const message of Array.isArray(json) ? json : [json]) {
    const m = message as {
      jsonrpc?: unknown;
      error?: { code?: unknown; data?: { status?: number; code?: string } };
    };
    if (m?.jsonrpc !== '2.0') {
      out.push(
        `gateway answer without jsonrpc 2.0: ${JSON.stringify(m).slice(0, 120)}`
      );
    }
    if (m?.error?.code === -32603) {
      out.push(
        `gateway internal error: ${JSON.stringify(m.error).slice(0, 200)}`
      );
    }
    if (m?.error?.data !== undefined) {
      const data = m.error.data;
      out.push(
        ...problemViolations(
          data.status ?? 0,
          'application/problem+json',
          JSON.stringify(data)
        ).map(v => `gateway error.data: ${v}`)
      );
      if ((data.status ?? 0) >= 500) {
        out.push(`gateway error.data status ${data.status}`);
      }
    }
  }
  return out;
}

function violations(req: GeneratedRequest, ex: Exchange, t: Target): string[] {
  const out: string[] = [];
  if (ex.timedOut) {
    out.push('the connection did not close within 10 s');
  }
  if (ex.status === 0) {
    out.push(`no HTTP answer (got ${JSON.stringify(ex.rawHead.slice(0, 80))})`);
    return out;
  }
  if (ex.status >= 500) {
    out.push(`HTTP ${ex.status}: ${ex.body.slice(0, 200)}`);
  }
  const type = ex.headers['content-type'];
  if (ex.status >= 400) {
    const signIn =
      t.mode.ingress === 'direct-loopback' &&
      ex.status === 401 &&
      /^text\/html/.test(type ?? '');
    if (signIn) {
      if (
        req.method !== 'HEAD' &&
        !ex.body.includes('Sign in to the project startup page')
      ) {
        out.push('a 401 HTML answer that is not the sign-in page');
      }
    } else {
      out.push(...problemViolations(ex.status, type, ex.body, req.method));
    }
  }
  if (ex.status >= 300 && ex.status < 400 && ex.status !== 304) {
    const location = ex.headers.location ?? '';
    if (
      !location.startsWith('/') ||
      location.startsWith('//') ||
      location.startsWith('/\\')
    ) {
      out.push(
        `redirect off this origin: Location ${JSON.stringify(location)}`
      );
    }
  }
  if (
    ex.status === 200 &&
    /\/gateway$/.test(req.target.split('?')[0]) &&
    req.method === 'POST' &&
    /json/.test(type ?? '')
  ) {
    out.push(...rpcViolations(ex.body));
  }
  const text = `${ex.rawHead}\n${ex.body}`;
  out.push(...leakSigns(text).map(s => `${s} in the answer`));
  if (text.includes(t.token)) {
    out.push('the token in the answer');
  }
  if (text.includes(t.secret)) {
    out.push('the proxy secret in the answer');
  }
  return out;
}

function describeRequest(req: GeneratedRequest): string {
  const target =
    req.target.length > 300
      ? `${req.target.slice(0, 300)}...(${req.target.length})`
      : req.target;
  const body = req.body
    ? ` body ${req.body.bytes.length} B${req.body.chunked ? ' chunked' : ''}: ${JSON.stringify(req.body.bytes.subarray(0, 200).toString('utf8'))}`
    : '';
  return `${req.method} ${JSON.stringify(target)} ${JSON.stringify(req.headers)}${body}`;
}

/** Paths under the sandbox that an initialize creates (relative to the sandbox root). */
function stateEntries(
  root: string,
  statePath: string,
  before: readonly string[]
): string[] {
  const entries: string[] = [];
  let p = statePath;
  while (p.startsWith(root) && p !== root) {
    const rel = `${path.relative(root, p)}/`;
    if (!before.includes(rel)) {
      entries.push(rel);
    }
    p = path.dirname(p);
  }
  entries.push(
    path.relative(root, path.join(statePath, 'initialization.json'))
  );
  return entries;
}

describe.each(MODES)('fuzzing every route: $name', mode => {
  it(
    `never 5xx, always problem details, stays up, creates nothing unasked (${RUNS} batches)`,
    async () => {
      const s = sandbox();
      const token = randomBytes(24).toString('hex');
      const secret = `proxy-secret-${randomBytes(16).toString('hex')}`;
      fs.writeFileSync(path.join(s.root, 'proxy-secret'), `${secret}\n`, {
        mode: 0o600
      });
      const env = {
        ...s.env,
        ...mode.env(s.root),
        PROJECT_STARTUP_TOKEN: token,
        PROJECT_STARTUP_INITIALIZE_RATE_LIMIT: '100000/60',
        PROJECT_STARTUP_LOG_LEVEL: 'info'
      };
      const server: ServeHandle = await startServe(mode.args, {
        env,
        cwd: s.projectDir
      });
      const pid = server.child.pid as number;
      const port = server.port;
      const auth: Record<string, string> =
        mode.ingress === 'direct-loopback'
          ? { authorization: `Bearer ${token}` }
          : mode.ingress === 'trusted-proxy'
            ? { 'x-project-startup-proxy-secret': secret }
            : {};
      const api = `http://127.0.0.1:${port}${mode.prefix}`;
      const projection = await request(
        `${api}startup?interface=${mode.confirmVia}`,
        { headers: auth }
      );
      expect(projection.status).toBe(200);
      const caps = await request(`${api}capabilities`, { headers: auth });
      const t: Target = {
        mode,
        port,
        token,
        secret,
        validBody: {
          interface: mode.confirmVia,
          confirm: {
            projectPath: projection.json.projectPath,
            statePath: projection.json.statePath
          }
        },
        etag: String(caps.headers.etag)
      };
      const baseline = tree(s.root);
      const withState = [
        ...baseline,
        ...stateEntries(s.root, projection.json.statePath, baseline)
      ].sort();
      let stateCreated = false;
      let logOffset = server.stderr().length;
      let batches = 0;
      let requests = 0;
      const statuses = new Map<number, number>();

      await fc.assert(
        fc.asyncProperty(
          fc.array(requestArb(t), { minLength: 1, maxLength: 3 }),
          async batch => {
            const answers = await Promise.all(
              batch.map(req => exchange({ port }, encode(req)))
            );
            batches += 1;
            const problems: string[] = [];
            batch.forEach((req, i) => {
              const ex = answers[i];
              requests += 1;
              statuses.set(ex.status, (statuses.get(ex.status) ?? 0) + 1);
              if (ex.status === 201 || /"created":true/.test(ex.body)) {
                stateCreated = true;
              }
              for (const v of violations(req, ex, t)) {
                problems.push(`${v}\n    request: ${describeRequest(req)}`);
              }
            });
            // After the batch: alive, healthy, no error logged, nothing created unasked.
            if (!alive(pid) || server.child.exitCode !== null) {
              problems.push(
                `the service exited (code ${server.child.exitCode}, signal ${server.child.signalCode})`
              );
            } else {
              const health = await exchange(
                { port },
                `GET ${mode.prefix}health HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n${mode.ingress === 'trusted-proxy' ? `X-Project-Startup-Proxy-Secret: ${secret}\r\n` : ''}Connection: close\r\n\r\n`
              );
              if (
                health.status !== 200 ||
                !/"status":"pass"/.test(health.body)
              ) {
                problems.push(
                  `health after the batch: ${health.status} ${health.body.slice(0, 120)}`
                );
              }
            }
            const logged = server.stderr().slice(logOffset);
            logOffset = server.stderr().length;
            for (const line of logged
              .split('\n')
              .filter(l => /"level":"error"/.test(l))) {
              problems.push(`error logged: ${line.slice(0, 300)}`);
            }
            const now = tree(s.root);
            const same = (a: string[], b: string[]) =>
              a.length === b.length && a.every((x, i) => x === b[i]);
            if (
              !same(now, baseline) &&
              !(stateCreated && same(now, withState))
            ) {
              problems.push(
                `the sandbox changed: +${JSON.stringify(now.filter(x => !baseline.includes(x)))} -${JSON.stringify(baseline.filter(x => !now.includes(x)))} (state created: ${stateCreated})`
              );
            }
            if (problems.length > 0) {
              throw new Error(problems.join('\n'));
            }
          }
        ),
        {
          numRuns: RUNS,
          seed: SEED,
          interruptAfterTimeLimit: MODE_BUDGET_MS,
          markInterruptAsFailure: false
        }
      );
      // For the CI log: what was exercised.
      console.log(
        `fuzz ${mode.name}: ${batches} batches, ${requests} requests; statuses ${JSON.stringify(Object.fromEntries([...statuses].sort((a, b) => a[0] - b[0])))}`
      );
      const stopped = await server.stop();
      expect(stopped.code).toBe(0);
    },
    MODE_BUDGET_MS + 30000
  );
});

describe('requests Node answers before the routes', () => {
  // What the generators above leave out on purpose, each checked once: these are answered by
  // Node's HTTP server itself, not by the service's routes.
  let server: ServeHandle;
  const TOKEN = randomBytes(24).toString('hex');
  beforeEach(async () => {
    // One per test: the sandboxes' afterEach ends every child of the file.
    const s = sandbox();
    server = await startServe([], {
      env: { ...s.env, PROJECT_STARTUP_TOKEN: TOKEN },
      cwd: s.projectDir
    });
  });

  it('an Expect other than 100-continue: a 4xx as problem details, like every other refusal', async () => {
    const port = server.port;
    const ex = await exchange(
      { port },
      `POST /project/initialize HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\nExpect: something-else\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`
    );
    expect(ex.status).toBeGreaterThanOrEqual(400);
    expect(ex.status).toBeLessThan(500);
    expect(
      problemViolations(ex.status, ex.headers['content-type'], ex.body)
    ).toEqual([]);
  });

  it('CONNECT: no tunnel, a 405 method-not-allowed problem and a closed connection; the service keeps serving', async () => {
    const port = server.port;
    const ex = await exchange(
      { port },
      `CONNECT 127.0.0.1:${port} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${TOKEN}\r\n\r\n`
    );
    expect(ex.timedOut).toBe(false);
    expect(ex.status).toBe(405);
    expect(ex.headers.allow).toBe('GET, HEAD, POST');
    expect(
      problemViolations(ex.status, ex.headers['content-type'], ex.body)
    ).toEqual([]);
    expect(JSON.parse(ex.body).code).toBe('method-not-allowed');
    const health = await exchange(
      { port },
      `GET /project/health HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`
    );
    expect(health.status).toBe(200);
    expect(alive(server.child.pid as number)).toBe(true);
  });

  it('a WebSocket upgrade request is answered as a plain request (no upgrade), then the service keeps serving', async () => {
    const port = server.port;
    const ex = await exchange(
      { port },
      `GET /project/capabilities HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${TOKEN}\r\nConnection: Upgrade, close\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`
    );
    expect(ex.status).toBe(200);
    expect(ex.informational).not.toContain(101);
  });
});
