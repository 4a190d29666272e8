// The fake-secret test: recognisable fake secrets sit in the service's environment under
// credential-like names; every endpoint (errors included) is exercised on each platform, and no
// response, log line, runtime file or state file may contain any of their values. Only the
// variable NAMES may appear (the process credential backend reports names). Request header,
// cookie and query values must not show up anywhere either.
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { HttpResult, request, RequestOptions } from '../helpers/harness';
import {
  CliSandbox,
  readAllFiles,
  runCli,
  runCliInTty,
  RunResult,
  ServeHandle,
  startServe,
  trackedSandboxes
} from '../helpers/cli';
import { expectValid } from '../helpers/schemas';

const hex = () => randomBytes(12).toString('hex');

const SECRET_VARIABLES = [
  'JUPYTERHUB_API_TOKEN',
  'JPY_API_TOKEN',
  'VENDOR_A_API_KEY',
  'AWS_SECRET_ACCESS_KEY',
  'PROJECT_STARTUP_TOKEN'
] as const;

type Platform = 'generic' | 'hosted-notebook' | 'cluster';

interface Case {
  name: string;
  platform: Platform;
  /** Evidence variables besides the secrets (the sandbox root is the approved storage). */
  evidence: (s: CliSandbox) => Record<string, string>;
  serveArgs: string[];
  ingress: 'direct-loopback' | 'notebook-server-proxy';
  /** The interface (and method) through which initialization is confirmed. */
  confirm: { interface: 'web' | 'notebook' | 'terminal'; method?: string };
}

const CASES: Case[] = [
  {
    name: 'generic',
    platform: 'generic',
    evidence: () => ({}),
    serveArgs: [],
    ingress: 'direct-loopback',
    confirm: { interface: 'web', method: 'setup-page' }
  },
  {
    name: 'hosted-notebook (notebook-server proxy)',
    platform: 'hosted-notebook',
    evidence: () => ({
      JUPYTERHUB_API_URL: 'http://127.0.0.1:9/hub/api',
      JUPYTERHUB_USER: 'alice'
    }),
    // On TCP, as the suite's requests reach it (the proxy entry uses a Unix socket).
    serveArgs: [
      '--ingress',
      'notebook-server-proxy',
      '--allow-unauthenticated-tcp'
    ],
    ingress: 'notebook-server-proxy',
    confirm: { interface: 'notebook', method: 'jupyterlab-dialog' }
  },
  {
    name: 'hosted-notebook (direct loopback)',
    platform: 'hosted-notebook',
    evidence: () => ({
      JUPYTERHUB_API_URL: 'http://127.0.0.1:9/hub/api',
      JUPYTERHUB_USER: 'alice'
    }),
    serveArgs: ['--ingress', 'direct-loopback'],
    ingress: 'direct-loopback',
    confirm: { interface: 'notebook', method: 'jupyterlab-dialog' }
  },
  {
    name: 'cluster (inside an allocation)',
    platform: 'cluster',
    evidence: s => ({
      SLURM_JOB_ID: '4242',
      PROJECT_STARTUP_APPROVED_STORAGE: s.root
    }),
    serveArgs: [],
    ingress: 'direct-loopback',
    confirm: { interface: 'terminal', method: 'terminal-prompt' }
  }
];

const sandbox = trackedSandboxes();

interface Seen {
  where: string;
  text: string;
}

function renderResponse(r: HttpResult): string {
  return `${r.status}\n${JSON.stringify(r.headers)}\n${r.text}`;
}

function renderRun(r: RunResult): string {
  return `exit ${r.code}\n${r.stdout}\n${r.stderr}`;
}

describe.each(CASES)('no secret leaves the service: $name', c => {
  it('keeps every planted secret and request header value out of responses, logs and files', async () => {
    const s = sandbox();
    const secrets: Record<string, string> = Object.fromEntries(
      SECRET_VARIABLES.map(name => [name, `fake-secret-${hex()}`])
    );
    const token = secrets.PROJECT_STARTUP_TOKEN;
    const marks = {
      cookie: `cookie-secret-${hex()}`,
      header: `header-secret-${hex()}`,
      query: `query-secret-${hex()}`,
      wrongToken: `wrong-token-${hex()}`
    };
    const env = {
      ...s.env,
      ...c.evidence(s),
      ...secrets,
      PROJECT_STARTUP_LOG_LEVEL: 'debug'
    };
    const seen: Seen[] = [];

    const server: ServeHandle = await startServe(c.serveArgs, {
      env,
      cwd: s.projectDir
    });
    const api = server.url;
    const origin = new URL(api).origin;
    const direct = c.ingress === 'direct-loopback';

    /** Every request carries the marker cookie and header; direct loopback also the token. */
    const call = async (
      where: string,
      url: string,
      options: RequestOptions = {},
      anonymous = false
    ): Promise<HttpResult> => {
      const headers: Record<string, string> = {
        cookie: `c=${marks.cookie}; _xsrf=${marks.cookie}`,
        'x-custom': marks.header,
        ...options.headers
      };
      const withToken =
        direct && !anonymous && options.token === undefined ? { token } : {};
      const r = await request(url, { ...withToken, ...options, headers });
      seen.push({ where, text: renderResponse(r) });
      return r;
    };
    /** A same-origin JSON POST, as the setup page or JupyterLab sends it (with Jupyter's XSRF pair). */
    const post = (
      where: string,
      route: string,
      body: string,
      headers: Record<string, string> = {}
    ) =>
      call(where, `${api}${route}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'sec-fetch-site': 'same-origin',
          'x-xsrftoken': marks.cookie,
          origin,
          ...headers
        },
        body
      });

    // Read-only routes.
    const caps = await call(
      'GET capabilities',
      `${api}capabilities?x=${marks.query}`
    );
    expect(caps.status).toBe(200);
    expectValid('Manifest', caps.json);
    expect(caps.json.platform.id).toBe(c.platform);
    expect(
      (
        await call('GET capabilities (etag)', `${api}capabilities`, {
          headers: { 'if-none-match': caps.headers.etag as string }
        })
      ).status
    ).toBe(304);
    const startups: Record<string, HttpResult> = {};
    for (const iface of ['terminal', 'web', 'notebook']) {
      startups[iface] = await call(
        `GET startup ${iface}`,
        `${api}startup?interface=${iface}`
      );
      expect(startups[iface].status).toBe(200);
      expectValid('StartupProjection', startups[iface].json);
    }
    const projection = startups[c.confirm.interface].json;
    expect(projection.phase).toBe('awaiting-confirmation');
    // The process backend saw the credential variables: by name only.
    const credentials = projection.readinessChecks.find(
      (x: { id: string }) => x.id === 'credential-backends'
    );
    expect(credentials.observed).toContain('AWS_SECRET_ACCESS_KEY');
    expect((await call('GET startup (missing)', `${api}startup`)).status).toBe(
      400
    );
    expect(
      (await call('GET startup (browser)', `${api}startup?interface=browser`))
        .status
    ).toBe(400);
    const health = await call('GET health', `${api}health`);
    expect(health.status).toBe(200);
    expectValid('Health', health.json);
    expect((await call('GET openapi.json', `${api}openapi.json`)).status).toBe(
      200
    );

    // The setup page and its assets.
    // Only where the platform has a browser route (generic); elsewhere 404, naming what to use.
    const pageStatus = c.platform === 'generic' ? 200 : 404;
    const page = await call('GET setup page', api, {
      headers: { accept: 'text/html' }
    });
    expect(page.status).toBe(pageStatus);
    expect((await call('GET setup.js', `${api}setup.js`)).status).toBe(
      pageStatus
    );
    expect((await call('GET setup.css', `${api}setup.css`)).status).toBe(
      pageStatus
    );

    // Gateway: single calls, a batch with errors and a notification, a parse error.
    const rpc = (where: string, body: unknown) =>
      post(where, 'gateway', JSON.stringify(body));
    const g1 = await rpc('gateway capabilities', {
      jsonrpc: '2.0',
      id: 1,
      method: 'project.capabilities'
    });
    expect(g1.status).toBe(200);
    expectValid('GatewayResponse', g1.json);
    for (const iface of ['terminal', 'web', 'notebook']) {
      const g = await rpc(`gateway startup ${iface}`, {
        jsonrpc: '2.0',
        id: iface,
        method: 'project.startup',
        params: { interface: iface }
      });
      expect(g.status).toBe(200);
      expect(g.json.result.phase).toBe(startups[iface].json.phase);
    }
    const batch = await rpc('gateway batch', [
      { jsonrpc: '2.0', id: 'a', method: 'project.capabilities' },
      {
        jsonrpc: '2.0',
        id: 'b',
        method: 'project.startup',
        params: { interface: 'terminal' }
      },
      {
        jsonrpc: '2.0',
        id: 'c',
        method: 'project.startup',
        params: { interface: 'browser' }
      },
      { jsonrpc: '2.0', id: 'd', method: 'project.secrets' },
      { jsonrpc: '2.0', method: 'project.capabilities' },
      {
        jsonrpc: '2.0',
        id: 'e',
        method: 'project.initialize',
        params: {
          interface: 'terminal',
          confirm: { projectPath: 'x', statePath: 'y' }
        }
      }
    ]);
    expect(batch.status).toBe(200);
    expect(Array.isArray(batch.json)).toBe(true);
    expect(batch.json).toHaveLength(5);
    const parseError = await post(
      'gateway parse error',
      'gateway',
      '{"jsonrpc": "2.0", "id": '
    );
    expect(parseError.status).toBe(200);
    expect(parseError.json.error.code).toBe(-32700);

    // Errors.
    if (direct) {
      expect(
        (
          await call('401 wrong token', `${api}capabilities`, {
            token: marks.wrongToken
          })
        ).status
      ).toBe(401);
      expect(
        (
          await call(
            '401 no token',
            `${api}startup?interface=terminal`,
            {},
            true
          )
        ).status
      ).toBe(401);
      // The sign-in exists only with the setup page (generic); elsewhere 401 and no cookie.
      expect(
        (
          await call(
            '401 wrong query token',
            `${api}?token=${marks.wrongToken}`,
            { headers: { accept: 'text/html' } },
            true
          )
        ).status
      ).toBe(401);
      const signIn = await call(
        '303 query token sign-in',
        `${api}?token=${encodeURIComponent(token)}`,
        { headers: { accept: 'text/html' } },
        true
      );
      expect(signIn.status).toBe(c.platform === 'generic' ? 303 : 401);
      expect(signIn.headers['set-cookie'] !== undefined).toBe(
        c.platform === 'generic'
      );
      expect(
        (
          await call('403 forbidden host', `${api}capabilities`, {
            headers: { host: `evil.example:${server.port}` }
          })
        ).status
      ).toBe(403);
    }
    expect(
      (
        await post('403 cross-origin', 'initialize', '{}', {
          origin: 'http://evil.example',
          'sec-fetch-site': 'cross-site'
        })
      ).status
    ).toBe(403);
    expect((await call('404 in prefix', `${api}nope`)).status).toBe(404);
    expect((await call('404 elsewhere', `${origin}/elsewhere`)).status).toBe(
      404
    );
    expect(
      (await call('405', `${api}capabilities`, { method: 'DELETE' })).status
    ).toBe(405);
    expect(
      (
        await post(
          '413',
          'initialize',
          JSON.stringify({ filler: 'x'.repeat(17 * 1024) })
        )
      ).status
    ).toBe(413);
    expect(
      (await post('415', 'initialize', '{}', { 'content-type': 'text/plain' }))
        .status
    ).toBe(415);
    expect(
      (
        await post(
          '422',
          'initialize',
          JSON.stringify({ interface: c.confirm.interface, bogus: true })
        )
      ).status
    ).toBe(422);
    expect(
      (
        await post(
          '400 missing interface',
          'initialize',
          JSON.stringify({ bogus: true })
        )
      ).status
    ).toBe(400);
    const body = {
      interface: c.confirm.interface,
      ...(c.confirm.method ? { method: c.confirm.method } : {}),
      confirm: {
        projectPath: projection.projectPath,
        statePath: projection.statePath
      }
    };
    const stale = await post(
      '409 stale',
      'initialize',
      JSON.stringify({
        ...body,
        confirm: {
          ...body.confirm,
          statePath: `${projection.statePath}-elsewhere`
        }
      })
    );
    // On the cluster an API call is refused before its paths are looked at.
    expect(stale.status).toBe(c.confirm.interface === 'terminal' ? 403 : 409);
    expect(stale.json.code).toBe(
      c.confirm.interface === 'terminal'
        ? 'confirmation-not-allowed'
        : 'confirmation-stale'
    );
    expectValid('Problem', stale.json);
    const notAllowed = c.confirm.interface === 'terminal' ? 'web' : 'terminal';
    expect(
      (
        await post(
          '403 not allowed',
          'initialize',
          JSON.stringify({ ...body, interface: notAllowed, method: undefined })
        )
      ).status
    ).toBe(403);

    // The command line, through the running service, with the same environment.
    const cli = async (where: string, args: string[], input?: string) => {
      // init asks on a TTY only: the answer is typed into a pseudo-terminal.
      const r = await (input === undefined ? runCli : runCliInTty)(args, {
        env,
        cwd: s.projectDir,
        input
      });
      seen.push({ where, text: renderRun(r) });
      return r;
    };
    const [statusJson, capsJson, statusHuman, statusLocal] = await Promise.all([
      cli('cli status --json', ['status', '--json']),
      cli('cli capabilities --json', ['capabilities', '--json']),
      cli('cli status', ['status', '--interface', 'web']),
      cli('cli status --json --local', ['status', '--json', '--local'])
    ]);
    for (const r of [statusJson, capsJson, statusLocal]) {
      expect(r.code).toBe(0);
    }
    // status exits 3 where the interface is not offered (web beyond generic).
    expect(statusHuman.code).toBe(c.platform === 'generic' ? 0 : 3);
    expectValid('StartupProjection', JSON.parse(statusJson.stdout));
    expectValid('Manifest', JSON.parse(capsJson.stdout));

    // A successful initialize through the allowed interface (the prompt on the cluster).
    if (c.confirm.interface === 'terminal') {
      const init = await cli('cli init', ['init'], 'y\n');
      expect(init.code).toBe(0);
    } else {
      const created = await post(
        '201 initialize',
        'initialize',
        JSON.stringify(body)
      );
      expect(created.status).toBe(201);
      expectValid('InitializeResponse', created.json);
    }
    const again = await rpc('gateway initialize again', {
      jsonrpc: '2.0',
      id: 9,
      method: 'project.initialize',
      params: body
    });
    if (c.confirm.interface === 'terminal') {
      // On the cluster only the command line's TTY prompt confirms; an API call never does.
      expect(again.json.error.data.code).toBe('confirmation-not-allowed');
    } else {
      expect(again.json.result.created).toBe(false);
    }
    const ready = await call(
      'GET startup ready',
      `${api}startup?interface=${c.confirm.interface}`
    );
    expect(ready.json.phase).toBe('ready');
    const initCli = await cli('cli init (ready)', ['init']);
    // Already set up is success on every platform.
    expect(initCli.code).toBe(0);

    // Files while the service runs (runtime file included), then its output after it stopped.
    const statePath: string = projection.statePath;
    expect(fs.existsSync(path.join(statePath, 'initialization.json'))).toBe(
      true
    );
    for (const [file, text] of Object.entries(readAllFiles(s.root))) {
      seen.push({ where: `file ${file}`, text });
    }
    expect(Object.keys(readAllFiles(s.runtimeDir))).toHaveLength(1);
    const stopped = await server.stop();
    expect(stopped.code).toBe(0);
    seen.push({ where: 'serve stdout', text: server.stdout() });
    seen.push({ where: 'serve stderr', text: server.stderr() });
    for (const [file, text] of Object.entries(readAllFiles(s.root))) {
      seen.push({ where: `file after stop ${file}`, text });
    }

    // The log really was at debug level and saw the requests.
    expect(server.stderr()).toMatch(
      /"level":"debug","message":"request"|^\[D [^\]]* ProjectStartup\] request /m
    );

    const forbidden: Record<string, string> = {
      ...secrets,
      'Cookie value': marks.cookie,
      'X-Custom value': marks.header,
      'query value': marks.query,
      'wrong token': marks.wrongToken
    };
    const leaks: string[] = [];
    for (const [name, value] of Object.entries(forbidden)) {
      for (const { where, text } of seen) {
        if (text.includes(value)) {
          leaks.push(`${name} appears in ${where}`);
        }
      }
    }
    expect(leaks).toEqual([]);
  });
});
