// Behind the REAL jupyter-server-proxy 4.4.0 (../shared/vendor/python) on Debian's jupyter_server,
// the sidecar on the proxy's Unix socket. The proxy checks no XSRF token (its handler's
// check_xsrf_cookie defers to the proxied app) and passes every request header on, the client's
// X-Forwarded-Host included. So the sidecar holds Jupyter's rule itself: a state change that
// carries the browser's cookies needs X-XSRFToken equal to Jupyter's `_xsrf` cookie (compared as
// tornado decodes both), whatever Authorization header rides beside them, and is refused
// 403 `cross-origin` without it; a script with Jupyter's token and no cookies needs none. And the
// Origin is compared with the Host Jupyter vetted, never with X-Forwarded-Host.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { launchBrowser } from '../../system/e2e/helpers';
import {
  describeWithRealProxy,
  jupyterBehindRealProxy,
  jupyterRequest
} from '../../helpers/jupyter-real-proxy';

// Without the vendored proxy or Debian's jupyter_server this suite cannot run: say so, skip.
const describeWithProxy = describeWithRealProxy('xsrf-real-proxy');

describeWithProxy(
  'the JupyterLab dialog behind the real jupyter-server-proxy',
  () => {
    const jupyter = jupyterBehindRealProxy('ps-xsrf-proxy-', 'unix-socket');
    const { token, dir, get } = jupyter;

    const stateDir = () => path.join(dir('project'), '.project-startup');
    const record = () =>
      JSON.parse(
        fs.readFileSync(path.join(stateDir(), 'initialization.json'), 'utf8')
      ) as { confirmation: { method: string; interface: string } };

    /** A browser's cookies for Jupyter: the login cookie (from ?token=) and Jupyter's _xsrf. */
    async function browserCookies(): Promise<{ login: string; xsrf: string }> {
      const signIn = await get(`/user/alice/api/status?token=${token}`, {});
      const login = signIn.setCookie
        .map(c => c.split(';')[0])
        .find(c => c.startsWith('username-'));
      const page = await get('/user/alice/login', {});
      const xsrf = page.setCookie
        .map(c => c.split(';')[0])
        .find(c => c.startsWith('_xsrf='));
      if (login === undefined || xsrf === undefined) {
        throw new Error(
          `no Jupyter cookies (${signIn.status}, ${page.status}):\n${jupyter.log().slice(-2000)}`
        );
      }
      return { login, xsrf };
    }

    /** POST initialize for the notebook interface as a same-origin page of Jupyter's would. */
    async function confirmNotebook(headers: Record<string, string>) {
      const p = JSON.parse(
        (
          await get('/user/alice/project/startup?interface=notebook', {
            authorization: `token ${token}`
          })
        ).body
      ) as { projectPath: string; statePath: string };
      const body = JSON.stringify({
        interface: 'notebook',
        method: 'jupyterlab-dialog',
        confirm: { projectPath: p.projectPath, statePath: p.statePath }
      });
      const port = jupyter.port;
      return jupyterRequest(
        port,
        'POST',
        '/user/alice/project/initialize',
        {
          host: `127.0.0.1:${port}`,
          origin: `http://127.0.0.1:${port}`,
          'sec-fetch-site': 'same-origin',
          'content-type': 'application/json',
          ...headers
        },
        body
      );
    }

    const noState = () => expect(fs.existsSync(stateDir())).toBe(false);

    /** The same token under another mask, as tornado's xsrf_token gives it on each page. */
    function remasked(cookieValue: string): string {
      const [version, mask, masked, timestamp] = cookieValue.split('|');
      expect(version).toBe('2');
      const token = Buffer.from(masked, 'hex');
      const oldMask = Buffer.from(mask, 'hex');
      const newMask = Buffer.from([0x5a, 0x13, 0xc7, 0x88]);
      const again = token.map((b, i) => b ^ oldMask[i % 4] ^ newMask[i % 4]);
      return `2|${newMask.toString('hex')}|${Buffer.from(again).toString('hex')}|${timestamp}`;
    }

    it("a cookie-carried POST without Jupyter's XSRF token is refused 403 cross-origin, a wrong Authorization header beside it or not", async () => {
      fs.rmSync(stateDir(), { recursive: true, force: true });
      const { login, xsrf } = await browserCookies();
      const attempts: Record<string, string>[] = [
        { cookie: `${login}; ${xsrf}` },
        { cookie: `${login}; ${xsrf}`, 'x-xsrftoken': 'not-the-cookie' },
        { cookie: `${login}; ${xsrf}`, 'x-xsrftoken': '' },
        { cookie: login, 'x-xsrftoken': xsrf.slice('_xsrf='.length) },
        // Jupyter accepts the login cookie when the token is wrong: the header proves nothing.
        { cookie: `${login}; ${xsrf}`, authorization: 'token not-a-token' }
      ];
      for (const headers of attempts) {
        const answer = await confirmNotebook(headers);
        expect([Object.keys(headers), answer.status]).toEqual([
          Object.keys(headers),
          403
        ]);
        const problem = JSON.parse(answer.body) as {
          code: string;
          detail: string;
        };
        expect(problem.code).toBe('cross-origin');
        expect(problem.detail).toMatch(/X-XSRFToken/);
        noState();
      }
    });

    it('the same refusal for project.initialize through the gateway; its read-only methods still answer', async () => {
      fs.rmSync(stateDir(), { recursive: true, force: true });
      const { login, xsrf } = await browserCookies();
      const p = JSON.parse(
        (
          await get('/user/alice/project/startup?interface=notebook', {
            authorization: `token ${token}`
          })
        ).body
      ) as { projectPath: string; statePath: string };
      const port = jupyter.port;
      const answer = await jupyterRequest(
        port,
        'POST',
        '/user/alice/project/gateway',
        {
          host: `127.0.0.1:${port}`,
          origin: `http://127.0.0.1:${port}`,
          'sec-fetch-site': 'same-origin',
          'content-type': 'application/json',
          cookie: `${login}; ${xsrf}`
        },
        JSON.stringify([
          {
            jsonrpc: '2.0',
            id: 1,
            method: 'project.startup',
            params: { interface: 'notebook' }
          },
          {
            jsonrpc: '2.0',
            id: 2,
            method: 'project.initialize',
            params: {
              interface: 'notebook',
              confirm: { projectPath: p.projectPath, statePath: p.statePath }
            }
          }
        ])
      );
      expect(answer.status).toBe(200);
      const [startup, initialize] = JSON.parse(answer.body) as {
        result?: { interface: string };
        error?: { data: { code: string } };
      }[];
      expect(startup.result?.interface).toBe('notebook');
      expect(initialize.error?.data.code).toBe('cross-origin');
      noState();
    });

    it('on the Unix socket the Origin is compared with the Host Jupyter vetted: X-Forwarded-Host names nothing', async () => {
      fs.rmSync(stateDir(), { recursive: true, force: true });
      for (const forwarded of ['evil.example', 'evil.example:80']) {
        const answer = await confirmNotebook({
          authorization: `token ${token}`,
          origin: 'http://evil.example',
          'x-forwarded-host': forwarded,
          'sec-fetch-site': 'same-origin'
        });
        expect([forwarded, answer.status]).toEqual([forwarded, 403]);
        expect((JSON.parse(answer.body) as { code: string }).code).toBe(
          'cross-origin'
        );
        noState();
      }
      // The Host the browser gave Jupyter is the one the Origin must name.
      const port = jupyter.port;
      const ok = await confirmNotebook({
        authorization: `token ${token}`,
        origin: `http://127.0.0.1:${port}`,
        'x-forwarded-host': 'evil.example'
      });
      expect(ok.status).toBe(201);
      fs.rmSync(stateDir(), { recursive: true, force: true });
    });

    it("a script with Jupyter's token and no cookies needs no XSRF token", async () => {
      fs.rmSync(stateDir(), { recursive: true, force: true });
      const answer = await confirmNotebook({
        authorization: `token ${token}`
      });
      expect(answer.status).toBe(201);
      expect(record().confirmation).toMatchObject({
        interface: 'notebook',
        method: 'http-api'
      });
      fs.rmSync(stateDir(), { recursive: true, force: true });
    });

    it("the setup page reached through Jupyter sends Jupyter's XSRF token: its button still creates the state (Chromium)", async () => {
      fs.rmSync(stateDir(), { recursive: true, force: true });
      const browser = await launchBrowser();
      try {
        const page = await browser.newPage();
        const base = `http://127.0.0.1:${jupyter.port}/user/alice/`;
        // Jupyter's pages: the login form sets _xsrf, the token in the address the login cookie.
        await page.goto(`${base}login`);
        await page.goto(`${base}api/status?token=${token}`);
        const cookies = await browser.context.cookies(base);
        expect(cookies.map(c => c.name)).toEqual(
          expect.arrayContaining(['_xsrf'])
        );
        await page.goto(`${base}project/`);
        await page
          .locator('#phase')
          .filter({ hasText: 'awaiting-confirmation' })
          .waitFor();
        const sent = page.waitForRequest(r =>
          r.url().endsWith('/project/initialize')
        );
        await page
          .getByRole('button', { name: 'Create project state' })
          .click();
        expect((await sent).headers()['x-xsrftoken']).toBe(
          cookies.find(c => c.name === '_xsrf')?.value
        );
        await page.locator('#phase').filter({ hasText: 'ready' }).waitFor();
        expect(record().confirmation).toMatchObject({
          interface: 'web',
          method: 'setup-page'
        });
      } finally {
        await browser.close();
        fs.rmSync(stateDir(), { recursive: true, force: true });
      }
    }, 60000);

    // JupyterLab's request, behind a hub (cookies only) and from a standalone `jupyter lab`
    // (its page-config token too): the XSRF pair makes it the dialog either way, with the
    // cookie's value as JupyterLab sends it or the same token under another mask (tornado's form).
    it.each([
      ['cookies and X-XSRFToken', {}],
      [
        "a standalone JupyterLab's page-config token beside them",
        { authorization: `token ${token}` }
      ]
    ])(
      "JupyterLab's request (%s) is the dialog with the _xsrf cookie's token",
      async (_what, credential: Record<string, string>) => {
        const { login, xsrf } = await browserCookies();
        const value = xsrf.slice('_xsrf='.length);
        for (const header of [value, remasked(value)]) {
          fs.rmSync(stateDir(), { recursive: true, force: true });
          const answer = await confirmNotebook({
            ...credential,
            cookie: `${login}; ${xsrf}`,
            'x-xsrftoken': header
          });
          expect(answer.status).toBe(201);
          expect(record().confirmation).toMatchObject({
            interface: 'notebook',
            method: 'jupyterlab-dialog'
          });
        }
        fs.rmSync(stateDir(), { recursive: true, force: true });
      }
    );
  }
);
