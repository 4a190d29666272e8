// Browser sessions of direct loopback. Browsers send cookies of 127.0.0.1 to every port, so a
// listener of another local user on another port collects them: one session value per process,
// never expiring, could be replayed for the life of the process. So each sign-in (`?token=`) starts its own random session, kept in the
// service's memory only, ending after PROJECT_STARTUP_SESSION_IDLE_SECONDS without use and
// PROJECT_STARTUP_SESSION_MAX_SECONDS after sign-in, at most MAX_SESSIONS at once; restarting
// the service ends them all. The expiry rules are checked on the pure store with a given clock,
// and against the real service with the settings at one second.
import { resolveConfig } from '../../../sidecar/src/config/config';
import { MAX_SESSIONS, SessionStore } from '../../../sidecar/src/http/sessions';
import {
  HttpResult,
  request,
  TestService,
  trackedServices
} from '../../helpers/harness';
import { expectProblem } from '../../helpers/schemas';

const start = trackedServices('each');

function sessionCookie(r: HttpResult): {
  pair: string;
  name: string;
  attributes: string[];
} {
  const header = r.headers['set-cookie'];
  expect(header).toHaveLength(1);
  const [pair, ...attributes] = (header as string[])[0]
    .split(';')
    .map(s => s.trim());
  return { pair, name: pair.slice(0, pair.indexOf('=')), attributes };
}

/** Signs in the way `project-startup url` does; returns the cookie as `name=value`. */
async function signIn(svc: TestService): Promise<string> {
  const r = await request(`${svc.api}?token=${svc.token}`);
  expect(r.status).toBe(200);
  return sessionCookie(r).pair;
}

function withCookie(svc: TestService, cookie: string): Promise<HttpResult> {
  return request(`${svc.api}startup?interface=web`, { headers: { cookie } });
}

describe('the session store (pure, with a given clock)', () => {
  const HOUR = 3600 * 1000;

  it('ends a session after the idle time without use, and each use starts the idle time again', () => {
    let now = 0;
    const store = new SessionStore(
      { idleSeconds: 3600, maxSeconds: 12 * 3600 },
      () => now
    );
    const a = store.create();
    now += HOUR - 1;
    expect(store.check(a)).toBe(true);
    now += HOUR - 1; // idle again for just under an hour: still alive
    expect(store.check(a)).toBe(true);
    now += HOUR; // an hour without use
    expect(store.check(a)).toBe(false);
    expect(store.check(a)).toBe(false);
  });

  it('ends a session at its maximum age however busy it is', () => {
    let now = 0;
    const store = new SessionStore(
      { idleSeconds: 3600, maxSeconds: 12 * 3600 },
      () => now
    );
    const a = store.create();
    for (let step = 0; step < 23; step++) {
      now += HOUR / 2;
      expect(store.check(a)).toBe(true);
    }
    now += HOUR / 2; // 12 hours after sign-in
    expect(store.check(a)).toBe(false);
  });

  it('gives every sign-in its own 256-bit id and knows no other', () => {
    const store = new SessionStore(
      { idleSeconds: 60, maxSeconds: 60 },
      () => 0
    );
    const ids = Array.from({ length: 10 }, () => store.create());
    expect(new Set(ids).size).toBe(10);
    for (const id of ids) {
      expect(id).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(store.check(id)).toBe(true);
    }
    expect(store.check('')).toBe(false);
    expect(store.check(`${ids[0]}x`)).toBe(false);
    expect(store.check(ids[0].slice(0, -1))).toBe(false);
  });

  it(`holds at most ${MAX_SESSIONS} sessions: a sign-in flood ends the oldest, memory stays bounded`, () => {
    let now = 0;
    const store = new SessionStore(
      { idleSeconds: 3600, maxSeconds: 3600 },
      () => now
    );
    const first = store.create();
    const rest = Array.from({ length: 10 * MAX_SESSIONS }, () => {
      now += 1;
      return store.create();
    });
    expect(store.size).toBe(MAX_SESSIONS);
    expect(store.check(first)).toBe(false);
    expect(store.check(rest[rest.length - MAX_SESSIONS - 1])).toBe(false);
    expect(rest.slice(-MAX_SESSIONS).every(id => store.check(id))).toBe(true);
  });

  it('sweeps ended sessions at the next sign-in', () => {
    let now = 0;
    const store = new SessionStore(
      { idleSeconds: 10, maxSeconds: 10 },
      () => now
    );
    for (let i = 0; i < 5; i++) {
      store.create();
    }
    now += 10_000;
    store.create();
    expect(store.size).toBe(1);
  });
});

describe('sessions of the real service', () => {
  it('two sign-ins get different cookies, each works, and neither is the token', async () => {
    const svc = await start();
    const a = await signIn(svc);
    const b = await signIn(svc);
    expect(a).not.toBe(b);
    for (const pair of [a, b]) {
      expect(pair).not.toContain(svc.token);
      expect((await withCookie(svc, pair)).status).toBe(200);
    }
  });

  it('the cookie: named after the port, HttpOnly, SameSite=Strict, Path of the service, no Max-Age (a browser session)', async () => {
    const svc = await start({ serve: { baseUrl: '/user/alice/' } });
    const r = await request(`${svc.api}?token=${svc.token}`);
    const cookie = sessionCookie(r);
    expect(cookie.name).toBe(`project-startup-session-${svc.running.port}`);
    expect(cookie.attributes).toEqual([
      'Path=/user/alice/project/',
      'HttpOnly',
      'SameSite=Strict'
    ]);
  });

  it('a cookie of the previous process is refused after a restart on the same port with the same token', async () => {
    const token = 'restart-token-6f1d2c3b4a5e6f708192a3b4c5d6e7f8';
    const first = await start({ env: { PROJECT_STARTUP_TOKEN: token } });
    const port = first.running.port as number;
    const cookie = await signIn(first);
    expect((await withCookie(first, cookie)).status).toBe(200);
    await first.close();

    const second = await start({
      env: { PROJECT_STARTUP_TOKEN: token },
      serve: { port }
    });
    expect(second.running.port).toBe(port);
    const refused = await withCookie(second, cookie);
    expectProblem(refused, 401, 'unauthorized');
    expect(refused.json.detail).toMatch(
      /session has ended.*project-startup url/
    );
    // Signing in again works: the token is the same.
    expect((await withCookie(second, await signIn(second))).status).toBe(200);
  });

  it('a session is refused once PROJECT_STARTUP_SESSION_MAX_SECONDS have passed since sign-in', async () => {
    let now = Date.now();
    const svc = await start({
      env: { PROJECT_STARTUP_SESSION_MAX_SECONDS: '2' },
      clock: () => now
    });
    const cookie = await signIn(svc);
    now += 1000;
    expect((await withCookie(svc, cookie)).status).toBe(200);
    now += 1000; // in use all along, and 2 s after sign-in
    const refused = await withCookie(svc, cookie);
    expectProblem(refused, 401, 'unauthorized');
    // The setup page asks to sign in again; so does a state change.
    const page = await request(svc.api, {
      headers: { cookie, accept: 'text/html' }
    });
    expect(page.status).toBe(401);
    expect(page.text).toContain('project-startup url');
    const post = await request(`${svc.api}initialize`, {
      method: 'POST',
      headers: {
        cookie,
        origin: svc.origin,
        'content-type': 'application/json',
        'sec-fetch-site': 'same-origin'
      },
      body: '{}'
    });
    expectProblem(post, 401, 'unauthorized');
  });

  it('a session is refused after PROJECT_STARTUP_SESSION_IDLE_SECONDS without a request', async () => {
    let now = Date.now();
    const svc = await start({
      env: { PROJECT_STARTUP_SESSION_IDLE_SECONDS: '1' },
      clock: () => now
    });
    const cookie = await signIn(svc);
    now += 999;
    expect((await withCookie(svc, cookie)).status).toBe(200);
    now += 1000; // a second without a request
    expectProblem(await withCookie(svc, cookie), 401, 'unauthorized');
  });

  it(`a sign-in flood keeps at most ${MAX_SESSIONS} sessions: the oldest ends`, async () => {
    const svc = await start();
    const first = await signIn(svc);
    for (let i = 0; i < MAX_SESSIONS; i++) {
      await signIn(svc);
    }
    expectProblem(await withCookie(svc, first), 401, 'unauthorized');
    expect((await withCookie(svc, await signIn(svc))).status).toBe(200);
  });

  it('the settings are whole numbers of seconds from 1 to a week', () => {
    const env = (name: string, value: string) => ({
      HOME: '/tmp',
      [name]: value
    });
    for (const name of [
      'PROJECT_STARTUP_SESSION_IDLE_SECONDS',
      'PROJECT_STARTUP_SESSION_MAX_SECONDS'
    ]) {
      for (const bad of ['0', '604801', '1h', '-5']) {
        expect(() => resolveConfig({}, env(name, bad), '/tmp')).toThrow(
          `${name} must be a whole number from 1 to 604800.`
        );
      }
    }
    expect(resolveConfig({}, { HOME: '/tmp' }, '/tmp').sessions).toEqual({
      idleSeconds: 7200,
      maxSeconds: 43200
    });
  });
});
