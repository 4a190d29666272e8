// Token attacks on direct loopback: missing, wrong, a prefix of the right one, the right one with
// something after it, in another case, in the wrong scheme or place, and many attempts in a row.
// Each is 401 unauthorized with the same body and headers (no oracle), sets no cookie and
// creates nothing; the right token still works afterwards (no lock-out to abuse).
//
// Timing: rather than measure time (noisy, and not allowed here), the comparison is checked to
// be constant-time by construction: secretsEqual hashes both sides to 32 bytes and compares
// those with crypto.timingSafeEqual, for every length of input, and every credential check the
// service makes (Bearer, ?token=, session cookie, trusted-proxy secret) goes through it.
// (trusted-proxy.test.ts covers the proxy secret's variants.)
import * as fs from 'node:fs';
import * as path from 'node:path';

const compared: [number, number][] = [];
jest.mock('node:crypto', () => {
  const actual = jest.requireActual('node:crypto');
  return {
    ...actual,
    timingSafeEqual: (a: Buffer, b: Buffer) => {
      compared.push([a.length, b.length]);
      return actual.timingSafeEqual(a, b);
    }
  };
});

import { secretsEqual } from '../../../sidecar/src/http/ingress-guards';
import {
  killAllChildren,
  looksLikeStack,
  makeSandbox,
  runCli
} from '../../helpers/cli';
import { tempRoot, trackedServices } from '../../helpers/harness';
import { Exchange } from '../reliability/support';
import { expectProblemAnswer, sandboxTree, send } from './support';

const start = trackedServices('each');

describe('secretsEqual is constant-time by construction', () => {
  const EXPECTED = 'f'.repeat(64);
  const GIVEN = [
    '',
    'f',
    'f'.repeat(63),
    'f'.repeat(65),
    'f'.repeat(4096),
    'F'.repeat(64),
    `${'f'.repeat(63)}e`,
    'ü'.repeat(32),
    '\u0000'.repeat(64)
  ];

  it.each(GIVEN.map(g => [g.length, g]))(
    'a %i-character value: false, no throw, one timingSafeEqual of two 32-byte digests',
    (_len, given) => {
      compared.length = 0;
      expect(secretsEqual(given as string, EXPECTED)).toBe(false);
      expect(compared).toEqual([[32, 32]]);
    }
  );

  it('the right value: true, through the same single comparison', () => {
    compared.length = 0;
    expect(secretsEqual(EXPECTED, EXPECTED)).toBe(true);
    expect(compared).toEqual([[32, 32]]);
  });

  it('every credential check of the service ends in one timingSafeEqual of two 32-byte digests, whatever the length sent', async () => {
    const svc = await start();
    const cookieName = `project-startup-session-${svc.running.port}`;
    for (const wrong of ['x', 'y'.repeat(64), 'z'.repeat(1000)]) {
      for (const [label, target, headers] of [
        [
          'bearer',
          '/project/capabilities',
          [['Authorization', `Bearer ${wrong}`]]
        ],
        ['query token', `/project/?token=${wrong}`, []],
        [
          'session cookie',
          '/project/capabilities',
          [['Cookie', `${cookieName}=${wrong}`]]
        ]
      ] as [string, string, [string, string][]][]) {
        compared.length = 0;
        const r = await send(svc, 'GET', target, headers);
        expect([label, r.status]).toEqual([label, 401]);
        expect([
          label,
          compared.length >= 1,
          compared.every(([a, b]) => a === 32 && b === 32)
        ]).toEqual([label, true, true]);
      }
    }
    const dir = tempRoot('ps-proxy-secret-');
    try {
      const secretFile = path.join(dir, 'secret');
      fs.writeFileSync(secretFile, 'a-trusted-proxy-secret-of-some-length', {
        mode: 0o600
      });
      const proxied = await start({
        env: { PROJECT_STARTUP_TRUSTED_PROXY_SECRET_FILE: secretFile },
        serve: { ingress: 'trusted-proxy' }
      });
      for (const wrong of ['x', 'q'.repeat(37), 'w'.repeat(900)]) {
        compared.length = 0;
        const r = await send(proxied, 'GET', '/project/capabilities', [
          ['X-Project-Startup-Proxy-Secret', wrong]
        ]);
        expect(r.status).toBe(401);
        expect(compared).toEqual([[32, 32]]);
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('token attacks on direct loopback', () => {
  type Attempt = [
    string,
    (token: string) => { target?: string; headers: [string, string][] }
  ];
  const ATTEMPTS: Attempt[] = [
    ['no credentials at all', () => ({ headers: [] })],
    [
      'a wrong token',
      () => ({ headers: [['Authorization', `Bearer ${'0'.repeat(64)}`]] })
    ],
    [
      'a prefix of the right token',
      t => ({ headers: [['Authorization', `Bearer ${t.slice(0, 32)}`]] })
    ],
    [
      'all but the last character',
      t => ({ headers: [['Authorization', `Bearer ${t.slice(0, -1)}`]] })
    ],
    [
      'the right token and one more character',
      t => ({ headers: [['Authorization', `Bearer ${t}0`]] })
    ],
    [
      'the right token twice',
      t => ({ headers: [['Authorization', `Bearer ${t}${t}`]] })
    ],
    [
      'the right token in upper case',
      t => ({ headers: [['Authorization', `Bearer ${t.toUpperCase()}`]] })
    ],
    [
      'the right token and a second word',
      t => ({ headers: [['Authorization', `Bearer ${t} extra`]] })
    ],
    [
      'the right token in the Basic scheme',
      t => ({
        headers: [
          [
            'Authorization',
            `Basic ${Buffer.from(`user:${t}`).toString('base64')}`
          ]
        ]
      })
    ],
    [
      'the right token in an unknown scheme',
      t => ({ headers: [['Authorization', `Digest ${t}`]] })
    ],
    [
      'the right token without a scheme',
      t => ({ headers: [['Authorization', t]] })
    ],
    [
      'the scheme without a token',
      () => ({ headers: [['Authorization', 'Bearer']] })
    ],
    [
      'the right token as the session cookie',
      t => ({ headers: [['Cookie', `project-startup-session=${t}`]] })
    ],
    [
      'the right token under another header name',
      t => ({ headers: [['X-Token', t]] })
    ],
    [
      '?token= with a trailing newline (%0A)',
      t => ({ target: `/project/?token=${t}%0A`, headers: [] })
    ],
    [
      '?token= with a trailing space (%20)',
      t => ({ target: `/project/?token=${t}%20`, headers: [] })
    ],
    [
      '?token= given twice, a wrong one first',
      t => ({
        target: `/project/?token=wrong&token=${t}`,
        headers: []
      })
    ],
    [
      '?token= in another case',
      t => ({
        target: `/project/?token=${t.toUpperCase()}`,
        headers: []
      })
    ]
  ];

  it.each(ATTEMPTS)(
    '%s: 401 unauthorized telling nothing about the guess, no cookie, nothing created',
    async (_label, make) => {
      const svc = await start();
      const before = sandboxTree(svc);
      // The answers a caller gets knowing nothing: no credentials, a wrong header, a wrong ?token=.
      const references = new Set(
        await Promise.all([
          send(svc, 'GET', '/project/capabilities', []),
          send(svc, 'GET', '/project/capabilities', [
            ['Authorization', 'Bearer wrong']
          ]),
          send(svc, 'GET', '/project/?token=wrong', [])
        ]).then(rs => rs.map(x => x.body))
      );
      const { target, headers } = make(svc.token);
      const r = await send(
        svc,
        'GET',
        target ?? '/project/capabilities',
        headers
      );
      expectProblemAnswer(r, 401, 'unauthorized');
      expect(references.has(r.body)).toBe(true); // nothing about how close the guess came
      expect(r.headers['www-authenticate']).toBe(
        'Bearer realm="project-startup"'
      );
      expect(r.headers['set-cookie']).toBeUndefined();
      expect(r.body).not.toContain(svc.token);
      // The same credentials on a state change.
      const post = await send(
        svc,
        'POST',
        target
          ? target.replace('capabilities', 'initialize')
          : '/project/initialize',
        [...headers, ['Content-Type', 'application/json']],
        '{}'
      );
      expectProblemAnswer(post, 401, 'unauthorized');
      expect(sandboxTree(svc)).toEqual(before);
    }
  );

  it.each([
    [
      'white space after the token (HTTP strips it as OWS)',
      (t: string) => `Bearer ${t}   `
    ],
    ['a tab between scheme and token', (t: string) => `Bearer\t${t}`],
    [
      'the scheme in lower case (schemes are case-insensitive)',
      (t: string) => `bearer ${t}`
    ],
    ['the token scheme', (t: string) => `token ${t}`]
  ])('accepted, as HTTP says: %s', async (_label, value) => {
    const svc = await start();
    const r = await send(svc, 'GET', '/project/capabilities', [
      ['Authorization', value(svc.token)]
    ]);
    expect(r.status).toBe(200);
  });

  /**
   * The n-th of 300 wrong guesses at `token`: a prefix of it; a near miss of its length that
   * differs from it exactly at one position (so it can never be the token, whatever its
   * characters: padding with a fixed character could rebuild a token ending in that character);
   * or a run of one letter of another length than the token's.
   */
  function wrongGuess(token: string, n: number): string {
    const k = n % token.length;
    switch (n % 3) {
      case 0:
        return token.slice(0, k);
      case 1: {
        const other = token[k] === '0' ? '1' : '0';
        return `${token.slice(0, k)}${other}${'0'.repeat(token.length - k - 1)}`;
      }
      default:
        return 'a'.repeat(n >= token.length ? n + 1 : n);
    }
  }

  // The generated token, and a worst case for guessing by padding: one that ends in zeros.
  it.each([
    ['a generated token', undefined],
    ['a token ending in zeros', `${'3e1f'.repeat(15)}0000`]
  ])(
    '300 wrong tokens of every length in a row (%s): all the same 401, then the right token still works',
    async (_label, envToken) => {
      const svc = await start(
        envToken === undefined
          ? {}
          : { env: { PROJECT_STARTUP_TOKEN: envToken } }
      );
      expect(svc.token).toHaveLength(64);
      const guesses = Array.from({ length: 300 }, (_, n) =>
        wrongGuess(svc.token, n)
      );
      expect(guesses.filter(g => g === svc.token)).toEqual([]);
      const answers: Exchange[] = [];
      for (let batch = 0; batch < 10; batch += 1) {
        answers.push(
          ...(await Promise.all(
            guesses
              .slice(batch * 30, batch * 30 + 30)
              .map(guess =>
                send(svc, 'GET', '/project/capabilities', [
                  ['Authorization', `Bearer ${guess}`]
                ])
              )
          ))
        );
      }
      const distinct = [...new Set(answers.map(a => `${a.status} ${a.body}`))];
      expect(distinct).toEqual([distinct[0]]);
      expectProblemAnswer(answers[0], 401, 'unauthorized');
      const right = await send(svc, 'GET', '/project/capabilities', [
        ['Authorization', `Bearer ${svc.token}`]
      ]);
      expect(right.status).toBe(200);
    }
  );
});

describe('PROJECT_STARTUP_TOKEN rules, enforced at start-up', () => {
  // 16 to 1024 characters of RFC 6750's b64token: what "Authorization: Bearer" can carry, and
  // the trusted-proxy secret's 16-character minimum.
  afterEach(killAllChildren);

  it.each([
    ['one character', 'a', /too short/],
    ['15 characters', 'abcdefghijklmno', /too short/],
    ['a space inside', 'correct horse battery staple', /character it may not/],
    ['a colon', 'user:password-0123456789', /character it may not/],
    ['a non-ASCII letter', 'geheimnis-ßchlüssel-0123', /character it may not/],
    ['"=" not at the end', 'abc=def0123456789abcdef', /character it may not/],
    ['1025 characters', 'x'.repeat(1025), /too long/],
    // Accepted before, though nobody would call them secrets.
    [
      'one letter 16 times',
      'a'.repeat(16),
      /fewer than 5 different characters, a pattern rather than a secret/
    ],
    [
      'a pair repeated, 64 long',
      'ab'.repeat(32),
      /fewer than 5 different characters/
    ],
    ['1234 eight times', '1234'.repeat(8), /fewer than 5 different characters/]
  ])(
    '%s: `serve` stops with exit 2, names the rule and the fix, never shows the token',
    async (_label, token, why) => {
      const s = makeSandbox();
      try {
        const run = await runCli(['serve'], {
          env: { ...s.env, PROJECT_STARTUP_TOKEN: token },
          cwd: s.projectDir
        });
        expect(run.code).toBe(2);
        expect(run.stderr).toMatch(why);
        expect(run.stderr).toContain('PROJECT_STARTUP_TOKEN');
        expect(run.stderr).toContain(
          '16 to 1024 characters from A-Z a-z 0-9 - . _ ~ + /'
        );
        expect(run.stderr).toContain('at least 5 different characters');
        expect(run.stderr).toContain("randomBytes(32).toString('hex')");
        expect(`${run.stdout}${run.stderr}`).not.toContain(
          token.length > 1 ? token : '=a'
        );
        expect(looksLikeStack(run.stderr)).toBe(false);
        expect(run.stdout).not.toMatch(/Listening/);
        expect(
          fs.existsSync(s.runtimeDir) ? fs.readdirSync(s.runtimeDir) : []
        ).toEqual([]); // no runtime file
      } finally {
        s.remove();
      }
    }
  );

  it('a 16-character token of every allowed character works as a Bearer token and in the address', async () => {
    const token = 'aZ09-._~+/Qq7x==';
    expect(token).toHaveLength(16);
    const svc = await start({ env: { PROJECT_STARTUP_TOKEN: token } });
    expect(
      (
        await send(svc, 'GET', '/project/capabilities', [
          ['Authorization', `Bearer ${token}`]
        ])
      ).status
    ).toBe(200);
    const signIn = await send(
      svc,
      'GET',
      `/project/?token=${encodeURIComponent(token)}`,
      []
    );
    expect(signIn.status).toBe(200);
    expect(signIn.headers['set-cookie']).toBeDefined();
  });
});
