// Cross-site request forgery through Jupyter: the jupyter-server-proxy (here its stand-in)
// authenticates the person from Jupyter's login cookie and checks no XSRF token, so a page on
// another site that makes the person's browser POST to {base_url}project/initialize reaches the
// sidecar with the cookie. The sidecar must refuse it itself (403 cross-origin) and create
// nothing. lab.test.ts shows that one cookie-borne POST with a foreign Origin is refused before
// the body is validated; here every request carries the exact, current confirmation (so it
// would succeed if the origin check were missing), browsers' other signal (Sec-Fetch-Site) is
// covered alone and together with Origin, the gateway's project.initialize too, and the disk
// and the projection are checked afterwards. The proxy entry comes from `project-startup
// jupyter install --user`; Jupyter's base_url is /user/alice/.
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  checkPrerequisites,
  httpRequest,
  jupyterCookies,
  jupyterInstall,
  LabServer,
  startLabServer,
  stopAllLabServers
} from './helpers';

const EVIL = 'http://evil.example';

describe('cookie-borne cross-origin POSTs through the proxy are refused by the sidecar and create nothing', () => {
  let server: LabServer | undefined;

  beforeAll(async () => {
    checkPrerequisites();
    server = await startLabServer({
      baseUrl: '/user/alice/',
      label: 'cross-origin-server',
      prepare: dirs => void jupyterInstall(dirs)
    });
  }, 60000);

  afterAll(async () => {
    await server?.stop();
    await stopAllLabServers();
  }, 60000);

  test('Origin: http://evil.example, Sec-Fetch-Site: cross-site (alone and together), same-site, Origin null, text/plain, and the gateway', async () => {
    const s = server as LabServer;
    const statePath = path.join(s.dirs.project, '.project-startup');
    const startup = await httpRequest(
      `${s.base}project/startup?interface=notebook`,
      { headers: { authorization: `token ${s.token}` } }
    );
    expect(startup.status).toBe(200);
    expect(startup.json).toMatchObject({
      phase: 'awaiting-confirmation',
      projectPath: s.dirs.project,
      statePath
    });
    // Exactly what the panel's dialog sends: valid and current.
    const confirmation = {
      interface: 'notebook',
      confirm: {
        projectPath: startup.json.projectPath,
        statePath: startup.json.statePath
      }
    };
    const body = JSON.stringify(confirmation);
    const cookie = await jupyterCookies(s);
    const json = { cookie, 'content-type': 'application/json' };

    const attempts: {
      what: string;
      url: string;
      headers: Record<string, string>;
      body: string;
    }[] = [
      {
        what: 'Origin: evil.example',
        url: `${s.base}project/initialize`,
        headers: { ...json, origin: EVIL },
        body
      },
      {
        what: 'Sec-Fetch-Site: cross-site, no Origin',
        url: `${s.base}project/initialize`,
        headers: { ...json, 'sec-fetch-site': 'cross-site' },
        body
      },
      {
        what: 'Origin: evil.example with Sec-Fetch-Site: cross-site (what Chromium sends)',
        url: `${s.base}project/initialize`,
        headers: {
          ...json,
          origin: EVIL,
          'sec-fetch-site': 'cross-site',
          'sec-fetch-mode': 'cors'
        },
        body
      },
      {
        what: 'Sec-Fetch-Site: cross-site with our own Origin (the site header alone decides)',
        url: `${s.base}project/initialize`,
        headers: { ...json, origin: s.origin, 'sec-fetch-site': 'cross-site' },
        body
      },
      {
        what: 'Sec-Fetch-Site: same-site (a sibling host)',
        url: `${s.base}project/initialize`,
        headers: { ...json, 'sec-fetch-site': 'same-site' },
        body
      },
      {
        what: 'Origin: null (sandboxed frame)',
        url: `${s.base}project/initialize`,
        headers: { ...json, origin: 'null' },
        body
      },
      {
        what: 'a form-style text/plain POST from evil.example (no CORS preflight)',
        url: `${s.base}project/initialize`,
        headers: {
          cookie,
          'content-type': 'text/plain',
          origin: EVIL,
          'sec-fetch-site': 'cross-site'
        },
        body
      },
      {
        what: 'cookie only, no Origin, no Sec-Fetch-Site',
        url: `${s.base}project/initialize`,
        headers: json,
        body
      },
      {
        what: 'the gateway, project.initialize, Origin: evil.example',
        url: `${s.base}project/gateway`,
        headers: { ...json, origin: EVIL, 'sec-fetch-site': 'cross-site' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'project.initialize',
          params: confirmation
        })
      }
    ];
    const answers: string[] = [];
    for (const attempt of attempts) {
      const answer = await httpRequest(attempt.url, {
        method: 'POST',
        headers: attempt.headers,
        body: attempt.body
      });
      answers.push(
        `${attempt.what}: ${answer.status} ${String(answer.headers['content-type']).split(';')[0]} ${answer.json?.code ?? answer.text.slice(0, 80)}`
      );
      expect(fs.existsSync(statePath)).toBe(false);
    }
    expect(answers).toEqual(
      attempts.map(a => `${a.what}: 403 application/problem+json cross-origin`)
    );

    // Nothing was created, and setup is still at the confirmation step.
    expect(fs.existsSync(statePath)).toBe(false);
    expect(fs.readdirSync(s.dirs.project)).toEqual([]);
    const after = await httpRequest(
      `${s.base}project/startup?interface=notebook`,
      { headers: { authorization: `token ${s.token}` } }
    );
    expect(after.json.phase).toBe('awaiting-confirmation');
    expect(after.json.confirmation.confirmed).toBe(false);

    // Control: the very same cookie and body from Jupyter's own origin create the state, so the
    // refusals above were the origin check, not a flaw in the requests. With Jupyter's XSRF pair
    // (the `_xsrf` cookie echoed in X-XSRFToken, as JupyterLab's ServerConnection sends it), it is
    // recorded as the dialog.
    const xsrf = /(?:^|; )_xsrf=([^;]+)/.exec(cookie)?.[1];
    expect(xsrf).toBeDefined();
    const sameOrigin = await httpRequest(`${s.base}project/initialize`, {
      method: 'POST',
      headers: {
        ...json,
        origin: s.origin,
        'sec-fetch-site': 'same-origin',
        'x-xsrftoken': xsrf as string
      },
      body
    });
    expect(sameOrigin.status).toBe(201);
    expect(sameOrigin.json).toMatchObject({ created: true, phase: 'ready' });
    expect(sameOrigin.json.record.confirmation).toMatchObject({
      interface: 'notebook',
      method: 'jupyterlab-dialog',
      ingress: 'notebook-server-proxy'
    });
    // And once the state exists, a cross-origin POST is still a refusal, not the idempotent 200.
    const late = await httpRequest(`${s.base}project/initialize`, {
      method: 'POST',
      headers: { ...json, origin: EVIL },
      body
    });
    expect(late.status).toBe(403);
    expect(late.json.code).toBe('cross-origin');
    // The sidecar never logged the cookie or the token.
    const secret = cookie.split(';')[0].split('=')[1];
    expect(s.logs()).not.toContain(secret);
    expect(s.logs()).not.toContain(s.token);
  }, 60000);
});
