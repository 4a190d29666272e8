// The notebook-server proxy ingress on a TCP port behind the REAL jupyter-server-proxy 4.4.0
// (from ../shared/vendor/python) on Debian's jupyter_server: the Host check that stops DNS
// rebinding (rebinding-notebook.test.ts) must not stop what the proxy forwards. The proxy
// passes the browser's Host through to the sidecar (a hub's public name, or Jupyter's own
// host:port), never one naming the sidecar's port; a page rebound onto the sidecar's port is
// refused. Jupyter runs with allow_remote_access, as behind a hub or in a container.
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  describeWithRealProxy,
  jupyterBehindRealProxy
} from '../../helpers/jupyter-real-proxy';
import { exchange, rawHttp } from '../reliability/support';
import { expectProblemAnswer, JSON_TYPE } from './support';

// Without the vendored proxy or Debian's jupyter_server this suite cannot run: say so, skip.
const describeWithProxy = describeWithRealProxy('rebinding-real-proxy');

describeWithProxy('behind the real jupyter-server-proxy, on a TCP port', () => {
  const jupyter = jupyterBehindRealProxy('ps-real-proxy-', 'tcp');
  const { token, dir, get } = jupyter;

  /** The sidecar's own TCP port, from the runtime file it writes. */
  function sidecarPort(): number {
    const [file] = fs.readdirSync(dir('sidecar-run'));
    return Number(
      new URL(
        (
          JSON.parse(
            fs.readFileSync(path.join(dir('sidecar-run'), file), 'utf8')
          ) as { url: string }
        ).url
      ).port
    );
  }

  it("what the proxy forwards is served: a hub's public Host, Jupyter's own host:port; a JupyterLab-style POST initializes", async () => {
    const port = jupyter.port;
    for (const host of [
      'hub.example.org',
      'hub.example.org:443',
      `127.0.0.1:${port}`,
      `localhost:${port}`
    ]) {
      const r = await get('/user/alice/project/startup?interface=notebook', {
        host,
        authorization: `token ${token}`
      });
      expect([host, r.status]).toEqual([host, 200]);
      expect(JSON.parse(r.body).interface).toBe('notebook');
    }
    const p = JSON.parse(
      (
        await get('/user/alice/project/startup?interface=notebook', {
          authorization: `token ${token}`
        })
      ).body
    );
    const body = JSON.stringify(p.nextAction.request.body);
    const post = await exchange(
      { port },
      rawHttp(
        'POST',
        '/user/alice/project/initialize',
        [
          ['Host', 'hub.example.org'],
          ['Origin', 'https://hub.example.org'],
          ['Authorization', `token ${token}`],
          JSON_TYPE,
          ['Content-Length', String(Buffer.byteLength(body))],
          ['Connection', 'close']
        ],
        body
      )
    );
    expect(post.status).toBe(201);
    expect(
      fs.existsSync(
        path.join(dir('project'), '.project-startup', 'initialization.json')
      )
    ).toBe(true);
  });

  it("a page rebound onto the sidecar's own port is 403 forbidden-host; rebound onto Jupyter's port it meets Jupyter's login", async () => {
    const port = jupyter.port;
    const sidecar = sidecarPort();
    expect(sidecar).not.toBe(port);
    const evil = `rebind.evil.example:${sidecar}`;
    const direct = await exchange(
      { port: sidecar },
      rawHttp('GET', '/user/alice/project/startup?interface=notebook', [
        ['Host', evil],
        ['Origin', `http://${evil}`],
        ['Connection', 'close']
      ])
    );
    expectProblemAnswer(direct, 403, 'forbidden-host');
    // The same page on Jupyter's port has no Jupyter credentials: Jupyter stops it first.
    const viaJupyter = await get(
      '/user/alice/project/startup?interface=notebook',
      { host: `rebind.evil.example:${port}` }
    );
    expect([302, 401, 403]).toContain(viaJupyter.status);
  });
});
