// Issue 20, item 6, behind the REAL jupyter-server-proxy 4.4.0 (../shared/vendor/python) on
// Debian's jupyter_server: the proxy checks no XSRF token (its handler's check_xsrf_cookie defers
// to the proxied app), so a cookie-carried POST without X-XSRFToken reached the sidecar and was
// recorded as JupyterLab's dialog. Now the record says `jupyterlab-dialog` only when the request
// carried X-XSRFToken equal to Jupyter's `_xsrf` cookie, as JupyterLab sends it (with or without
// the token a standalone `jupyter lab` puts in its page config); anything else is recorded as what
// it is, a plain call (`http-api`).
import * as fs from 'node:fs';
import * as path from 'node:path';
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

    it("a cookie-only POST without X-XSRFToken is recorded as a plain call, not as JupyterLab's dialog", async () => {
      const { login, xsrf } = await browserCookies();
      const attack = await confirmNotebook({ cookie: `${login}; ${xsrf}` });
      expect(attack.status).toBe(201);
      expect(record().confirmation).toMatchObject({
        interface: 'notebook',
        method: 'http-api'
      });
      fs.rmSync(stateDir(), { recursive: true, force: true });
    });

    // JupyterLab's request, behind a hub (cookies only) and from a standalone `jupyter lab`
    // (its page-config token too): the XSRF pair makes it the dialog either way; an
    // X-XSRFToken that is not the cookie's makes it a plain call.
    it.each([
      ['cookies and X-XSRFToken', {}],
      [
        "a standalone JupyterLab's page-config token beside them",
        { authorization: `token ${token}` }
      ]
    ])(
      "JupyterLab's request (%s) is the dialog with the _xsrf cookie's X-XSRFToken, a plain call with another",
      async (_what, credential: Record<string, string>) => {
        const { login, xsrf } = await browserCookies();
        for (const [header, method] of [
          ['not-the-cookie', 'http-api'],
          [xsrf.slice('_xsrf='.length), 'jupyterlab-dialog']
        ]) {
          fs.rmSync(stateDir(), { recursive: true, force: true });
          const answer = await confirmNotebook({
            ...credential,
            cookie: `${login}; ${xsrf}`,
            'x-xsrftoken': header
          });
          expect(answer.status).toBe(201);
          expect(record().confirmation).toMatchObject({
            interface: 'notebook',
            method
          });
        }
      }
    );
  }
);
