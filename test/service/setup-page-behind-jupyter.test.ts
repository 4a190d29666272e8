// The setup page reached through Jupyter agrees with itself (docs/http-api.md, "The setup page
// behind Jupyter"), behind the REAL jupyter-server-proxy 4.4.0 on Debian's jupyter_server: on the
// generic platform the next action sends the person to the page, and the page's own check says
// where it is served (not "skip: not on direct loopback"); its button, a page of Jupyter's origin
// with Jupyter's XSRF token, is recorded as the setup page's (`setup-page`), as on loopback.
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  describeWithRealProxy,
  jupyterBehindRealProxy,
  jupyterRequest
} from '../helpers/jupyter-real-proxy';

const describeWithProxy = describeWithRealProxy('setup-page-behind-jupyter');

describeWithProxy('the setup page behind the real jupyter-server-proxy', () => {
  const jupyter = jupyterBehindRealProxy('ps-page-proxy-', 'unix-socket');
  const { token, dir, get } = jupyter;

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
      throw new Error(`no Jupyter cookies:\n${jupyter.log().slice(-2000)}`);
    }
    return { login, xsrf };
  }

  it('the page, its check and its record say the same: the setup page, served through Jupyter', async () => {
    const { login, xsrf } = await browserCookies();
    const cookie = `${login}; ${xsrf}`;
    const page = await get('/user/alice/project/', {
      cookie,
      accept: 'text/html'
    });
    expect(page.status).toBe(200);
    expect(page.body).toContain('Create project state');
    const p = JSON.parse(
      (await get('/user/alice/project/startup?interface=web', { cookie })).body
    );
    expect(p.platform).toBe('generic');
    const check = p.readinessChecks.find(
      (c: { id: string }) => c.id === 'browser-route'
    );
    expect(check).toMatchObject({ status: 'pass' });
    expect(check.observed).toContain(
      '/user/alice/project/ on the Jupyter server'
    );
    expect(check.observed).not.toMatch(/not listening on direct loopback/);
    // The page's button: same-origin, Jupyter's cookies and its XSRF token, interface web.
    const port = jupyter.port;
    const answer = await jupyterRequest(
      port,
      'POST',
      '/user/alice/project/initialize',
      {
        host: `127.0.0.1:${port}`,
        origin: `http://127.0.0.1:${port}`,
        'sec-fetch-site': 'same-origin',
        'content-type': 'application/json',
        cookie,
        'x-xsrftoken': xsrf.slice('_xsrf='.length)
      },
      JSON.stringify({
        interface: 'web',
        confirm: { projectPath: p.projectPath, statePath: p.statePath }
      })
    );
    expect(answer.status).toBe(201);
    const record = JSON.parse(
      fs.readFileSync(
        path.join(dir('project'), '.project-startup', 'initialization.json'),
        'utf8'
      )
    );
    expect(record.confirmation).toMatchObject({
      interface: 'web',
      method: 'setup-page',
      ingress: 'notebook-server-proxy'
    });
  });
});
