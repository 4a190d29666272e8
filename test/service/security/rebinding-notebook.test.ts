// DNS rebinding against the notebook-server proxy ingress on a TCP port. A
// page of rebind.evil.example whose name now resolves to 127.0.0.1 is same-origin with itself:
// without a Host check it read the projection and initialized the project. jupyter-server-proxy
// passes the browser's own Host through (the hub's public name, or Jupyter's host:port), so the
// rule is: a Host naming the service's own port must name loopback (a browser names the port it
// connected to, and only a page that reaches this port directly does that); a Host naming
// another port came through a proxy. On a Unix socket no browser can connect: no Host check.
// Each case runs `project-startup serve` as a child process, as the repro does.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  BIN,
  CliSandbox,
  killAllChildren,
  makeSandbox,
  ServeHandle,
  startServe
} from '../../helpers/cli';
import { freePort } from '../../helpers/harness';
import { waitFor } from '../../helpers/wait';
import { exchange, rawHttp, tree } from '../reliability/support';
import { expectProblemAnswer, JSON_TYPE } from './support';

afterEach(killAllChildren);

interface Running {
  sandbox: CliSandbox;
  serve: ServeHandle;
  port: number;
}

const open: Running[] = [];
afterEach(async () => {
  for (const r of open.splice(0)) {
    await r.serve.stop();
    r.sandbox.remove();
  }
});

/** `project-startup serve --port P --ingress notebook-server-proxy`, as in the issue. */
async function serveOnPort(): Promise<Running> {
  const sandbox = makeSandbox();
  const port = await freePort();
  const serve = await startServe(
    [
      '--port',
      String(port),
      '--ingress',
      'notebook-server-proxy',
      // A TCP port now takes the flag that says it is unauthenticated.
      '--allow-unauthenticated-tcp'
    ],
    { env: sandbox.env, cwd: sandbox.projectDir }
  );
  const running = { sandbox, serve, port };
  open.push(running);
  return running;
}

function send(
  port: number,
  method: string,
  target: string,
  headers: [string, string][],
  body?: string
) {
  const all = [
    ...headers,
    ...(body === undefined
      ? []
      : [
          ['Content-Length', String(Buffer.byteLength(body))] as [
            string,
            string
          ]
        ]),
    ['Connection', 'close'] as [string, string]
  ];
  return exchange({ port }, rawHttp(method, target, all, body));
}

/** What a browser page at `origin` sends with a same-origin fetch, Host included. */
function browser(host: string): [string, string][] {
  return [
    ['Host', host],
    ['Origin', `http://${host}`],
    ['Sec-Fetch-Site', 'same-origin'],
    ['Cookie', 'username-rebind=whatever-the-page-set; _xsrf=xsrf-of-the-page'],
    ['X-XSRFToken', 'xsrf-of-the-page']
  ];
}

/** The initialize body the projection offers the notebook interface, asked for over loopback. */
async function initializeBody(port: number): Promise<string> {
  const p = await send(port, 'GET', '/project/startup?interface=notebook', [
    ['Host', `127.0.0.1:${port}`]
  ]);
  expect(p.status).toBe(200);
  return JSON.stringify(JSON.parse(p.body).nextAction.request.body);
}

describe('notebook-server proxy on a TCP port: a rebinding page is refused', () => {
  it("the issue's repro: GET startup and POST initialize with Host rebind.evil.example:P and a matching Origin are 403 forbidden-host, nothing created", async () => {
    const { sandbox, port } = await serveOnPort();
    const body = await initializeBody(port);
    const before = tree(sandbox.root);
    const host = `rebind.evil.example:${port}`;

    const startup = await send(
      port,
      'GET',
      '/project/startup?interface=notebook',
      browser(host)
    );
    expectProblemAnswer(startup, 403, 'forbidden-host');
    expect(startup.body).not.toContain(sandbox.projectDir);

    const initialize = await send(
      port,
      'POST',
      '/project/initialize',
      [...browser(host), JSON_TYPE],
      body
    );
    expectProblemAnswer(initialize, 403, 'forbidden-host');

    // Every other route too: the manifest, the gateway (which can initialize), the readiness poll.
    expectProblemAnswer(
      await send(port, 'GET', '/project/capabilities', browser(host)),
      403,
      'forbidden-host'
    );
    const rpc = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'project.initialize',
      params: JSON.parse(body)
    });
    expectProblemAnswer(
      await send(
        port,
        'POST',
        '/project/gateway',
        [...browser(host), JSON_TYPE],
        rpc
      ),
      403,
      'forbidden-host'
    );
    expectProblemAnswer(
      await send(port, 'GET', '/', browser(host)),
      403,
      'forbidden-host'
    );
    // A name that merely starts like loopback is no loopback.
    expectProblemAnswer(
      await send(
        port,
        'GET',
        '/project/startup?interface=notebook',
        browser(`127.0.0.1.evil.example:${port}`)
      ),
      403,
      'forbidden-host'
    );
    // An absolute-form target names the host instead of the Host header (RFC 9112 3.2.2).
    expectProblemAnswer(
      await send(
        port,
        'POST',
        `http://${host}/project/initialize`,
        [['Host', `127.0.0.1:${port}`], JSON_TYPE],
        body
      ),
      403,
      'forbidden-host'
    );

    expect(tree(sandbox.root)).toEqual(before);
    expect(
      fs.existsSync(path.join(sandbox.projectDir, '.project-startup'))
    ).toBe(false);
  });

  it('loopback Hosts on its own port still work (the proxy polls GET / as localhost:P), and the proxied Hosts of a real deployment too', async () => {
    const { sandbox, port } = await serveOnPort();
    for (const host of [
      `127.0.0.1:${port}`,
      `localhost:${port}`,
      `[::1]:${port}`
    ]) {
      const r = await send(port, 'GET', '/project/startup?interface=notebook', [
        ['Host', host]
      ]);
      expect([host, r.status]).toEqual([host, 200]);
    }
    expect(
      (await send(port, 'GET', '/', [['Host', `localhost:${port}`]])).status
    ).toBe(200);
    // What jupyter-server-proxy passes on: the Host the browser gave Jupyter, on Jupyter's port
    // (a hub's public name without a port, or host:port of a Jupyter server).
    for (const host of [
      'hub.example.org',
      'hub.example.org:443',
      '127.0.0.1:8888',
      'lab.example.org:8888',
      'my_container:8888',
      '[2001:db8::1]:8888'
    ]) {
      const r = await send(
        port,
        'GET',
        '/project/startup?interface=notebook',
        browser(host)
      );
      expect([host, r.status]).toEqual([host, 200]);
    }
    const body = await initializeBody(port);
    const created = await send(
      port,
      'POST',
      '/project/initialize',
      [...browser('hub.example.org'), JSON_TYPE],
      body
    );
    expect(created.status).toBe(201);
    expect(JSON.parse(created.body).record.confirmation.ingress).toBe(
      'notebook-server-proxy'
    );
    expect(
      fs.existsSync(
        path.join(sandbox.projectDir, '.project-startup', 'initialization.json')
      )
    ).toBe(true);
  });

  it('a Host that is not one host and port is 400 malformed-request on its TCP port', async () => {
    const { port } = await serveOnPort();
    for (const host of [
      `127.0.0.1:${port}@rebind.evil.example`,
      `rebind.evil.example:${port}:80`,
      'a b',
      `127.0.0.1:${port}, rebind.evil.example`
    ]) {
      expectProblemAnswer(
        await send(port, 'GET', '/project/startup?interface=notebook', [
          ['Host', host]
        ]),
        400,
        'malformed-request'
      );
    }
  });
});

describe('notebook-server proxy on a Unix socket', () => {
  it('answers whatever Host Jupyter passes on: only processes allowed to open the 0600 socket reach it, never a browser', async () => {
    const sandbox = makeSandbox();
    const socketPath = path.join(
      fs.mkdtempSync(path.join(sandbox.root, 'sock-')),
      'sidecar.sock'
    );
    const child = spawn(
      process.execPath,
      [
        BIN,
        'serve',
        '--ingress',
        'notebook-server-proxy',
        '--unix-socket',
        socketPath
      ],
      {
        cwd: sandbox.projectDir,
        env: sandbox.env,
        stdio: ['ignore', 'pipe', 'pipe']
      }
    );
    let stdout = '';
    child.stdout
      ?.setEncoding('utf8')
      .on('data', (chunk: string) => (stdout += chunk));
    try {
      await waitFor(
        () =>
          /^(?:\[I [^\]]* ProjectStartup\] )?Listening: unix socket /m.test(
            stdout
          ),
        {
          what: 'the sidecar to listen on its Unix socket',
          timeoutMs: 10000
        }
      );
      const r = await exchange(
        { socketPath },
        rawHttp('GET', '/project/startup?interface=notebook', [
          ...browser('rebind.evil.example:8888'),
          ['Connection', 'close']
        ])
      );
      expect(r.status).toBe(200);
      expect((fs.statSync(socketPath).mode & 0o777).toString(8)).toBe('600');
    } finally {
      child.kill('SIGTERM');
      await new Promise(resolve =>
        child.exitCode !== null
          ? resolve(undefined)
          : child.once('exit', resolve)
      );
      sandbox.remove();
    }
  });
});
