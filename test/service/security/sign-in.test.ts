// Against the real service on real loopback sockets: one sign-in route
// (only the setup page `{base}project/` trades `?token=` for a session, and only where the
// platform's browser route is direct loopback), and a record whose `method` says what the
// service saw, never what the body's interface implies.
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  HttpResult,
  PLATFORM_EVIDENCE,
  request,
  TestService,
  trackedServices
} from '../../helpers/harness';
import { expectProblem } from '../../helpers/schemas';

const start = trackedServices('each');

const PLATFORMS = ['generic', 'hosted-notebook', 'cluster'] as const;

function on(platform: (typeof PLATFORMS)[number]) {
  // Direct loopback everywhere: the ingress whose token the address could carry.
  return start({
    env: { ...PLATFORM_EVIDENCE[platform].env },
    files: PLATFORM_EVIDENCE[platform].files,
    serve: { ingress: 'direct-loopback' }
  });
}

function setCookies(r: HttpResult): string[] {
  return ([] as string[]).concat(r.headers['set-cookie'] ?? []);
}

/** What a browser sends when it follows a link (the attack is a navigation, as a person's). */
const NAVIGATION = {
  accept: 'text/html,application/xhtml+xml',
  'sec-fetch-mode': 'navigate'
};

/** The setup page's session cookie, from the one sign-in route. */
async function signIn(svc: TestService): Promise<string> {
  const r = await request(`${svc.api}?token=${svc.token}`, {
    headers: NAVIGATION
  });
  expect(r.status).toBe(303);
  const [cookie] = setCookies(r);
  expect(cookie).toMatch(/^project-startup-session-\d+=/);
  return cookie.split(';')[0];
}

describe('one sign-in route (item 7)', () => {
  it.each(PLATFORMS)(
    '%s: GET capabilities?token= with Accept: text/html gets a 401 problem and no cookie (it got 303 and a session)',
    async platform => {
      const svc = await on(platform);
      const r = await request(`${svc.api}capabilities?token=${svc.token}`, {
        headers: NAVIGATION
      });
      expectProblem(r, 401, 'unauthorized');
      expect(setCookies(r)).toEqual([]);
      expect(r.headers.location).toBeUndefined();
      expect(r.json.detail).toMatch(/Authorization: Bearer <token>/);
      expect(JSON.stringify(r.json)).not.toContain(svc.token);
    }
  );

  it.each(['hosted-notebook', 'cluster'] as const)(
    '%s: no route signs in, the setup page included',
    async platform => {
      const svc = await on(platform);
      for (const route of ['', 'setup.js', 'startup?interface=web', 'health']) {
        const r = await request(
          `${svc.api}${route}${route.includes('?') ? '&' : '?'}token=${svc.token}`,
          {
            headers: NAVIGATION
          }
        );
        expect([route, r.status, setCookies(r)]).toEqual([route, 401, []]);
        expect(r.json.detail).toMatch(/has no browser sign-in/);
      }
    }
  );

  it('generic: every route but the setup page refuses ?token= the same way, with no cookie; the setup page signs in', async () => {
    const svc = await on('generic');
    const routes = [
      'capabilities',
      'startup?interface=web',
      'setup.js',
      'setup.css',
      'health',
      'openapi.json',
      'api-docs',
      'initialize',
      'nope'
    ];
    for (const route of routes) {
      for (const headers of [NAVIGATION, {}]) {
        const r = await request(
          `${svc.api}${route}${route.includes('?') ? '&' : '?'}token=${svc.token}`,
          { headers }
        );
        expect([route, r.status, r.json?.code, setCookies(r)]).toEqual([
          route,
          401,
          'unauthorized',
          []
        ]);
        expect(r.json.detail).toMatch(/signs in only at the setup page/);
      }
    }
    // The one sign-in route still works: its session reads the API.
    const cookie = await signIn(svc);
    const withSession = await request(`${svc.api}capabilities`, {
      headers: { cookie }
    });
    expect(withSession.status).toBe(200);
  });
});

describe('the setup page records what it is (item 6)', () => {
  async function projection(svc: TestService, iface: string) {
    const r = await request(`${svc.api}startup?interface=${iface}`, {
      token: svc.token
    });
    expect(r.status).toBe(200);
    return r.json as { projectPath: string; statePath: string };
  }

  function confirmWithSession(
    svc: TestService,
    cookie: string,
    iface: string,
    p: { projectPath: string; statePath: string }
  ) {
    return request(`${svc.api}initialize`, {
      method: 'POST',
      headers: {
        cookie,
        'content-type': 'application/json',
        origin: svc.origin,
        'sec-fetch-site': 'same-origin'
      },
      body: JSON.stringify({
        interface: iface,
        confirm: { projectPath: p.projectPath, statePath: p.statePath }
      })
    });
  }

  it("a setup-page session that says interface notebook is refused, not recorded as JupyterLab's dialog", async () => {
    const svc = await on('generic');
    const cookie = await signIn(svc);
    const p = await projection(svc, 'notebook');
    const r = await confirmWithSession(svc, cookie, 'notebook', p);
    expectProblem(r, 403, 'confirmation-not-allowed');
    expect(r.json.detail).toMatch(
      /setup page's session confirms the Browser interface/
    );
    expect(fs.existsSync(path.join(p.statePath, 'initialization.json'))).toBe(
      false
    );
    // The page's own interface is recorded as the page.
    const web = await projection(svc, 'web');
    const ok = await confirmWithSession(svc, cookie, 'web', web);
    expect(ok.status).toBe(201);
    expect(ok.json.record.confirmation).toMatchObject({
      interface: 'web',
      method: 'setup-page'
    });
  });
});
