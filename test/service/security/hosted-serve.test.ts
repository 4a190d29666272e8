// A plain `project-startup serve` on the hosted notebook platform. Were it to take the manifest's
// default ingress, the notebook-server proxy, on a TCP port with no proxy in front, and say
// "Requests are authenticated by the notebook-server proxy", any local process could create the
// state with `Authorization: token anything` (201). So serve is direct loopback on every platform, and the notebook-server-proxy ingress runs on a TCP port only
// with --allow-unauthenticated-tcp, whose banner says it is not authenticated. The real command
// line runs; requests are raw HTTP on loopback.
import * as fs from 'node:fs';
import { runCli, startServe, trackedSandboxes } from '../../helpers/cli';
import { exchange, rawHttp } from '../reliability/support';

const sandbox = trackedSandboxes();

/** The evidence a JupyterHub spawner leaves (design.md: hosted-notebook). */
const HOSTED = {
  JUPYTERHUB_API_URL: 'http://127.0.0.1:9/hub/api',
  JUPYTERHUB_USER: 'alice'
};

/** The paths the person would be shown (evaluated in-process, no service involved). */
async function shownPaths(
  env: Record<string, string>,
  cwd: string
): Promise<{ projectPath: string; statePath: string }> {
  const r = await runCli(
    ['status', '--local', '--json', '--interface', 'notebook'],
    { env, cwd }
  );
  const projection = JSON.parse(r.stdout);
  return {
    projectPath: projection.projectPath,
    statePath: projection.statePath
  };
}

function post(
  port: number,
  target: string,
  headers: [string, string][],
  body: string
) {
  return exchange(
    { port },
    rawHttp(
      'POST',
      target,
      [
        ['Host', `127.0.0.1:${port}`],
        ['Content-Type', 'application/json'],
        ['Content-Length', String(Buffer.byteLength(body))],
        ['Connection', 'close'],
        ...headers
      ],
      body
    )
  );
}

describe('project-startup serve on the hosted notebook platform', () => {
  it('plain serve is direct loopback: "Authorization: token anything" is 401 and creates nothing', async () => {
    const s = sandbox();
    const env = { ...s.env, ...HOSTED };
    const confirm = await shownPaths(env, s.projectDir);
    const handle = await startServe([], { env, cwd: s.projectDir });
    try {
      const body = JSON.stringify({ interface: 'notebook', confirm });
      const ex = await post(
        handle.port,
        '/project/initialize',
        [['Authorization', 'token anything']],
        body
      );
      expect({
        status: ex.status,
        code: JSON.parse(ex.body).code
      }).toEqual({ status: 401, code: 'unauthorized' });
      expect(fs.existsSync(confirm.statePath)).toBe(false);
      // The banner names what runs, and claims no proxy in front.
      expect(handle.stdout()).toMatch(/direct loopback ingress/);
      expect(handle.stdout()).not.toMatch(/authenticated by/);
    } finally {
      await handle.stop();
    }
  });

  it('--ingress notebook-server-proxy on a TCP port without --allow-unauthenticated-tcp: exit 2, naming --unix-socket and the flag', async () => {
    const s = sandbox();
    const r = await runCli(['serve', '--ingress', 'notebook-server-proxy'], {
      env: { ...s.env, ...HOSTED },
      cwd: s.projectDir
    });
    expect(r.code).toBe(2);
    expect(r.stdout).not.toMatch(/Listening/);
    expect(r.stderr).toMatch(/--unix-socket/);
    expect(r.stderr).toMatch(/--allow-unauthenticated-tcp/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('with --allow-unauthenticated-tcp the banner says it is not authenticated; a request with no credentials is 401 naming them, a cookie without same-origin proof is 403 naming that', async () => {
    const s = sandbox();
    const env = { ...s.env, ...HOSTED };
    const confirm = await shownPaths(env, s.projectDir);
    const handle = await startServe(
      ['--ingress', 'notebook-server-proxy', '--allow-unauthenticated-tcp'],
      { env, cwd: s.projectDir }
    );
    try {
      expect(handle.stdout()).toMatch(/NOT authenticated/);
      expect(handle.stdout()).not.toMatch(/authenticated by/);
      const body = JSON.stringify({ interface: 'notebook', confirm });
      const bare = await post(handle.port, '/project/initialize', [], body);
      const bareJson = JSON.parse(bare.body);
      expect({ status: bare.status, code: bareJson.code }).toEqual({
        status: 401,
        code: 'unauthorized'
      });
      expect(bareJson.detail).toMatch(/no credentials/);
      expect(bareJson.detail).toMatch(/Authorization: token/);
      const cookie = await post(
        handle.port,
        '/project/initialize',
        [['Cookie', 'jupyter-session=x']],
        body
      );
      const cookieJson = JSON.parse(cookie.body);
      expect({ status: cookie.status, code: cookieJson.code }).toEqual({
        status: 403,
        code: 'cross-origin'
      });
      expect(cookieJson.detail).toMatch(/cookie/);
      expect(cookieJson.detail).toMatch(/Origin or Sec-Fetch-Site/);
      expect(fs.existsSync(confirm.statePath)).toBe(false);
    } finally {
      await handle.stop();
    }
  });
});
