// How each interface is reached, against the one model of routes (sidecar/src/core/reach.ts):
// each test names a way a route could be advertised that does not work.
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { urlAnswer } from '../../sidecar/src/core/sign-in';
import {
  killAllChildren,
  makeSandbox,
  runCli,
  runCliInTty,
  CliSandbox,
  startServe
} from '../helpers/cli';
import {
  request,
  tempRoot,
  TestService,
  trackedServices
} from '../helpers/harness';

jest.setTimeout(60000);

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const start = trackedServices('each');
afterEach(killAllChildren);
const boxes: CliSandbox[] = [];
afterAll(() => boxes.forEach(b => b.remove()));
function sandbox(): CliSandbox {
  const s = makeSandbox();
  boxes.push(s);
  return s;
}

const JUPYTER_BASE = '/user/alice/';

/** A service as jupyter-server-proxy runs it: notebook-server proxy on a Unix socket. */
async function behindJupyter(
  platform: string
): Promise<{ svc: TestService; get(route: string): Promise<Json> }> {
  const socketDir = tempRoot('ps-reach-sock-');
  const socketPath = path.join(socketDir, 's.sock');
  const svc = await start({
    env: { PROJECT_STARTUP_PLATFORM: platform },
    serve: {
      ingress: 'notebook-server-proxy',
      unixSocket: socketPath,
      baseUrl: JUPYTER_BASE
    }
  });
  return {
    svc,
    get: async (route: string) =>
      (
        await request(`http://localhost${JUPYTER_BASE}project/${route}`, {
          socketPath
        })
      ).json
  };
}

describe('D1/D2: behind Jupyter every output names the same setup page', () => {
  it('D1: startup?interface=web and the terminal projection name {base_url}project/, never `serve` then `url`', async () => {
    const s = await behindJupyter('generic');
    const web = await s.get('startup?interface=web');
    const terminal = await s.get('startup?interface=terminal');
    const webText = JSON.stringify(web.nextAction);
    expect(webText).toContain(`${JUPYTER_BASE}project/`);
    expect(webText).not.toMatch(/project-startup serve/);
    const terminalWeb = terminal.nextAction.interfaces.find(
      (i: Json) => i.id === 'web'
    );
    expect(terminalWeb.how).toContain(`${JUPYTER_BASE}project/`);
    expect(terminalWeb.how).not.toMatch(/project-startup serve/);
  });

  it('D2: the terminal projection no longer says Jupyter "serves no separate setup page", and the page it names answers', async () => {
    const s = await behindJupyter('generic');
    const terminal = await s.get('startup?interface=terminal');
    expect(JSON.stringify(terminal)).not.toMatch(/no separate setup page/);
    const page = await request(`http://localhost${JUPYTER_BASE}project/`, {
      socketPath: s.svc.running.socket as string,
      headers: { accept: 'text/html' }
    });
    expect(page.status).toBe(200);
    expect(page.text).toMatch(/Create project state/);
  });
});

describe('D3: `url` beside JupyterLab prints the setup page through that Jupyter server', () => {
  const jupyter = {
    url: `http://127.0.0.1:8888${JUPYTER_BASE}`,
    platform: 'generic' as const
  };
  it('before the sidecar starts (no runtime file)', () => {
    expect(urlAnswer({ envToken: undefined, jupyter })).toEqual({
      ok: true,
      url: `http://127.0.0.1:8888${JUPYTER_BASE}project/`
    });
  });
  it('after it started on its Unix socket', () => {
    const info = {
      socket: '/tmp/x.sock',
      ingress: 'notebook-server-proxy',
      platform: 'generic',
      baseUrl: JUPYTER_BASE,
      tokenSource: 'none'
    };
    expect(urlAnswer({ info, envToken: undefined, jupyter })).toEqual({
      ok: true,
      url: `http://127.0.0.1:8888${JUPYTER_BASE}project/`
    });
  });
  it('where the platform offers no web interface it says what does (exit 3)', () => {
    const answer = urlAnswer({
      envToken: undefined,
      jupyter: { ...jupyter, platform: 'hosted-notebook' }
    });
    expect(answer).toMatchObject({ ok: false, exit: 3 });
    expect(JSON.stringify(answer)).toMatch(/Open Project Startup/);
  });
});

describe('D3 followed: `url` in a terminal beside a Jupyter server that proxies to the service', () => {
  const HUB_TOKEN = 'hub-token-0123456789abcdef';

  /** A stand-in Jupyter server: checks its token, proxies {base_url}project/* to the socket. */
  async function fakeJupyter(socketPath: string): Promise<{
    url: string;
    close(): Promise<void>;
  }> {
    const server = http.createServer((req, res) => {
      if (req.headers.authorization !== `token ${HUB_TOKEN}`) {
        res.writeHead(403).end();
        return;
      }
      const upstream = http.request(
        {
          socketPath,
          method: req.method,
          path: req.url,
          headers: { ...req.headers, host: 'localhost' }
        },
        answer => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        }
      );
      req.pipe(upstream);
    });
    await new Promise<void>(resolve =>
      server.listen(0, '127.0.0.1', () => resolve())
    );
    const { port } = server.address() as { port: number };
    return {
      url: `http://127.0.0.1:${port}${JUPYTER_BASE}`,
      close: () => new Promise(resolve => server.close(() => resolve()))
    };
  }

  it.each([
    ['before the sidecar wrote its runtime file', false],
    ['after (its runtime file names the Unix socket)', true]
  ])(
    '%s: url prints the page through Jupyter, it answers, and status names the same page',
    async (_when, started) => {
      const s = await behindJupyter('generic');
      const jupyter = await fakeJupyter(s.svc.running.socket as string);
      try {
        const empty = tempRoot('ps-reach-run-');
        fs.chmodSync(empty, 0o700);
        const env = {
          HOME: s.svc.homeDir,
          PATH: '/nonexistent-project-startup-test-bin',
          PROJECT_STARTUP_RUNTIME_DIR: started ? s.svc.runtimeDir : empty,
          JUPYTERHUB_SERVICE_URL: jupyter.url,
          JUPYTERHUB_API_TOKEN: HUB_TOKEN
        };
        const url = await runCli(['url'], { env, cwd: s.svc.projectDir });
        expect({ code: url.code, stdout: url.stdout }).toEqual({
          code: 0,
          stdout: `${jupyter.url}project/\n`
        });
        const page = await request(url.stdout.trim(), {
          headers: { accept: 'text/html', authorization: `token ${HUB_TOKEN}` }
        });
        expect(page.status).toBe(200);
        expect(page.text).toMatch(/Create project state/);
        const status = await runCli(['status'], { env, cwd: s.svc.projectDir });
        expect(status.code).toBe(0);
        expect(status.stdout).toContain(`${JUPYTER_BASE}project/`);
        expect(status.stdout).toContain('project-startup url');
        // Found by its runtime file, the service is named as the one behind that JupyterLab.
        expect(status.stderr.includes('jupyter-server-proxy runs for')).toBe(
          started
        );
      } finally {
        await jupyter.close();
      }
    }
  );
});

describe('D5: the command line beside a trusted-proxy service', () => {
  it('status and capabilities answer, and the next action `project-startup init` works', async () => {
    const s = sandbox();
    const secret = path.join(s.root, 'proxy-secret');
    fs.writeFileSync(secret, 'trusted-proxy-secret-0123456789abcdef', {
      mode: 0o600
    });
    const env = {
      ...s.env,
      PROJECT_STARTUP_PLATFORM: 'cluster',
      SLURM_JOB_ID: '4242',
      PROJECT_STARTUP_APPROVED_STORAGE: s.root,
      PROJECT_STARTUP_TRUSTED_PROXY_SECRET_FILE: secret
    };
    const server = await startServe(['--ingress', 'trusted-proxy'], {
      env,
      cwd: s.projectDir
    });
    const status = await runCli(['status', '--json'], {
      env,
      cwd: s.projectDir
    });
    expect({ code: status.code, stderr: status.stderr }).toEqual({
      code: 0,
      stderr: expect.stringMatching(/trusted proxy/)
    });
    const next = JSON.parse(status.stdout).nextAction;
    expect(next.command).toBe('project-startup init');
    const caps = await runCli(['capabilities'], { env, cwd: s.projectDir });
    expect(caps.code).toBe(0);
    const init = await runCliInTty(['init'], {
      env,
      cwd: s.projectDir,
      input: 'y\n'
    });
    expect({ code: init.code, stdout: init.stdout }).toEqual({
      code: 0,
      stdout: expect.stringMatching(/Created/)
    });
    await server.stop();
  });
});

describe('D8: a cluster project already initialized, checked on the login node', () => {
  it('init says it is set up (exit 0), not "initialization comes later"', async () => {
    const s = sandbox();
    const env = {
      ...s.env,
      PROJECT_STARTUP_PLATFORM: 'cluster',
      PROJECT_STARTUP_APPROVED_STORAGE: s.root
    };
    const created = await runCliInTty(['init'], {
      env: { ...env, SLURM_JOB_ID: '4242' },
      cwd: s.projectDir,
      input: 'y\n'
    });
    expect(created.code).toBe(0);
    const again = await runCli(['init'], { env, cwd: s.projectDir });
    expect({ code: again.code, stderr: again.stderr }).toEqual({
      code: 0,
      stderr: ''
    });
    expect(again.stdout).toMatch(/Already set up/);
    expect(again.stdout).not.toMatch(/comes later/);
  });
});

describe('D12, D13, D17: next actions speak to the person reading them', () => {
  it('D12: the setup page does not tell its reader to open the setup page', async () => {
    const svc = await start({ env: { PROJECT_STARTUP_PLATFORM: 'generic' } });
    const p = (
      await request(`${svc.api}startup?interface=web`, { token: svc.token })
    ).json as Json;
    expect(p.nextAction.id).toBe('confirm-initialization');
    expect(p.nextAction.detail).not.toMatch(/open the setup page/i);
    expect(p.nextAction.detail).toMatch(/press "Create project state"/);
  });

  it('D13: the terminal\'s own next action does not say "in a terminal" to someone in one', async () => {
    const svc = await start({
      env: {
        PROJECT_STARTUP_PLATFORM: 'cluster',
        SLURM_JOB_ID: '4242',
        PROJECT_STARTUP_APPROVED_STORAGE: fs.realpathSync(os.tmpdir())
      }
    });
    const p = (
      await request(`${svc.api}startup?interface=terminal`, {
        token: svc.token
      })
    ).json as Json;
    expect(p.nextAction.command).toBe('project-startup init');
    expect(p.nextAction.detail).not.toMatch(/in a terminal/);
  });

  it('D17: a hosted direct-loopback service does not send the notebook user to a panel that talks to another service', async () => {
    const svc = await start({
      env: { PROJECT_STARTUP_PLATFORM: 'hosted-notebook' },
      serve: { ingress: 'direct-loopback' }
    });
    const p = (
      await request(`${svc.api}startup?interface=notebook`, {
        token: svc.token
      })
    ).json as Json;
    expect(p.nextAction.id).toBe('confirm-initialization');
    expect(p.nextAction.detail).not.toMatch(/Press "Initialize project"/);
    expect(p.nextAction.detail).toMatch(/not to this one/);
    // What it offers instead works: the request, sent verbatim with this service's credential.
    const r = await request(`${svc.origin}${p.nextAction.request.path}`, {
      method: 'POST',
      token: svc.token,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(p.nextAction.request.body)
    });
    expect(r.status).toBe(201);
  });
});
