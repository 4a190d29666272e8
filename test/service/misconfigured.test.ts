// A configuration error of `serve`: launched with jupyter-server-proxy's flags (--ingress
// notebook-server-proxy --unix-socket PATH) the process stays on its socket and answers every
// request with the `misconfigured` problem (the proxy would otherwise relaunch it at once, again
// and again); in a terminal it exits 2 with its message, as before. The pure parts, then the real
// command line on a real Unix socket (test/system/e2e/misconfigured-proxy.test.ts runs it behind the
// real proxy).
import { ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import { resolveConfig } from '../../sidecar/src/config/config';
import { InvalidPlatformSetting } from '../../sidecar/src/core/platforms/rules';
import {
  launchedByNotebookServerProxy,
  misconfiguredProblem,
  settingNamed
} from '../../sidecar/src/http/misconfigured';
import {
  BIN,
  killAllChildren,
  looksLikeStack,
  runCli,
  startServe,
  trackedSandboxes
} from '../helpers/cli';
import { expectValid } from '../helpers/schemas';
import { waitFor } from '../helpers/wait';

const sandbox = trackedSandboxes();
afterEach(() => killAllChildren());

describe('the pure parts', () => {
  test('launched by the proxy: decided by its flags alone', () => {
    const proxy = { ingress: 'notebook-server-proxy', unixSocket: '/s/x' };
    expect(launchedByNotebookServerProxy(proxy)).toBe(true);
    expect(
      launchedByNotebookServerProxy({ ...proxy, baseUrl: '/user/a/' })
    ).toBe(true);
    expect(launchedByNotebookServerProxy({})).toBe(false);
    expect(launchedByNotebookServerProxy({ unixSocket: '/s/x' })).toBe(false);
    expect(
      launchedByNotebookServerProxy({ ingress: 'notebook-server-proxy' })
    ).toBe(false);
    expect(launchedByNotebookServerProxy({ ...proxy, unixSocket: '' })).toBe(
      false
    );
    expect(
      launchedByNotebookServerProxy({ ...proxy, ingress: 'direct-loopback' })
    ).toBe(false);
  });

  test('the setting a message names: its first variable, else its first flag', () => {
    expect(
      settingNamed(
        'PROJECT_STARTUP_REQUEST_TIMEOUT_MS must be a whole number from 1000 to 300000.'
      )
    ).toBe('PROJECT_STARTUP_REQUEST_TIMEOUT_MS');
    expect(
      settingNamed(
        '--base-url must be an absolute URL path such as / or /user/alice/.'
      )
    ).toBe('--base-url');
    expect(
      settingNamed(
        '--ingress trusted-proxy needs PROJECT_STARTUP_TRUSTED_PROXY_SECRET_FILE: a file.'
      )
    ).toBe('PROJECT_STARTUP_TRUSTED_PROXY_SECRET_FILE');
    expect(
      settingNamed(
        'The runtime directory /tmp/a--b must be private (mode 0700): run `chmod 700 /tmp/a--b` or set PROJECT_STARTUP_RUNTIME_DIR.'
      )
    ).toBe('PROJECT_STARTUP_RUNTIME_DIR');
    expect(settingNamed('--port must be a whole number.')).toBe('--port');
    expect(settingNamed('The project directory has a bad name.')).toBe(
      undefined
    );
  });

  test('the problem: 503 misconfigured, the message as detail, the setting and where to fix it', () => {
    const message =
      'PROJECT_STARTUP_LOG_LEVEL must be one of error, warn, info, debug.';
    const env = misconfiguredProblem(message);
    expectValid('Problem', env);
    expect(env).toEqual({
      type: 'urn:jupyterlab-project-startup:problem:misconfigured',
      title: 'The service cannot run with its configuration',
      status: 503,
      code: 'misconfigured',
      detail: message,
      setting: 'PROJECT_STARTUP_LOG_LEVEL',
      fix: "Correct or unset PROJECT_STARTUP_LOG_LEVEL in the Jupyter server's environment (for example the single-user image, or the hub's Spawner.environment or extraEnv), then restart the Jupyter server."
    });

    const flag = misconfiguredProblem('--base-url must be an absolute path.');
    expectValid('Problem', flag);
    expect(flag.setting).toBe('--base-url');
    expect(flag.fix).toMatch(/`project` proxy entry's command/);
    expect(flag.fix).toMatch(/project-startup jupyter install/);

    const unnamed = misconfiguredProblem('The project directory is bad.');
    expectValid('Problem', unnamed);
    expect(unnamed).not.toHaveProperty('setting');
    expect(unnamed.fix).toMatch(/restart the Jupyter server/);
  });
});

/** GET over the Unix socket: status, content type and body. */
function overSocket(
  socketPath: string,
  urlPath: string,
  method = 'GET',
  body?: string
): Promise<{ status: number; type: string; text: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        socketPath,
        path: urlPath,
        method,
        timeout: 10000,
        headers:
          body === undefined
            ? {}
            : {
                'content-type': 'application/json',
                'content-length': String(Buffer.byteLength(body))
              }
      },
      response => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            type: String(response.headers['content-type']),
            text
          })
        );
      }
    );
    request.on('timeout', () => request.destroy(new Error('timed out')));
    request.on('error', reject);
    request.end(body);
  });
}

/**
 * `serve` as jupyter-server-proxy launches it (its flags, a Unix socket in a private directory),
 * with `env` added to the sandbox's: once it reports the misconfigured listener, or has exited.
 */
const PROXY_FLAGS = ['--ingress', 'notebook-server-proxy', '--unix-socket'];

async function launchedAsTheProxyWould(
  s: ReturnType<typeof sandbox>,
  env: Record<string, string>,
  args: string[] = []
) {
  const socketDir = path.join(s.root, 'sock');
  fs.mkdirSync(socketDir, { mode: 0o700 });
  const socket = path.join(socketDir, 'project.sock');
  const child: ChildProcess = spawn(
    process.execPath,
    [BIN, 'serve', ...PROXY_FLAGS, socket, ...args],
    {
      cwd: s.projectDir,
      env: { ...s.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe']
    }
  );
  let stderr = '';
  let stdout = '';
  child.stderr?.setEncoding('utf8').on('data', c => (stderr += c));
  child.stdout?.setEncoding('utf8').on('data', c => (stdout += c));
  const exited = new Promise<number | null>(resolve =>
    child.once('exit', code => resolve(code))
  );
  let exitCode: number | null | undefined;
  void exited.then(code => (exitCode = code));
  await waitFor(
    () =>
      /not started: a configuration error/.test(stderr) ||
      exitCode !== undefined,
    { what: 'the misconfigured listener', timeoutMs: 20000 }
  );
  return {
    socket,
    child,
    exited,
    exitCode: () => exitCode,
    stderr: () => stderr,
    stdout: () => stdout
  };
}

describe('`serve` with a bad setting', () => {
  const BAD = { PROJECT_STARTUP_REQUEST_TIMEOUT_MS: '15s-not-a-number' };
  const MESSAGE =
    'PROJECT_STARTUP_REQUEST_TIMEOUT_MS must be a whole number from 1000 to 300000.';

  test("with the proxy's flags: stays up, answers every request with the problem, reports once, stops on SIGTERM", async () => {
    const s = sandbox();
    const diagnosticsFile = path.join(s.root, 'diagnostics.json');
    const served = await launchedAsTheProxyWould(
      s,
      { ...BAD, PROJECT_STARTUP_DIAGNOSTICS_FILE: diagnosticsFile },
      ['--base-url', '/user/alice/']
    );
    const { socket, child, exited } = served;
    expect(served.exitCode()).toBeUndefined();

    for (const [method, route] of [
      ['GET', '/user/alice/project/health'],
      ['GET', '/user/alice/project/startup?interface=notebook'],
      ['POST', '/user/alice/project/initialize'],
      ['GET', '/']
    ]) {
      const answer = await overSocket(socket, route, method);
      expect(`${method} ${route} ${answer.status}`).toBe(
        `${method} ${route} 503`
      );
      expect(answer.type).toMatch(/^application\/problem\+json/);
      const problem = JSON.parse(answer.text);
      expectValid('Problem', problem);
      expect(problem).toMatchObject({
        code: 'misconfigured',
        detail: MESSAGE,
        setting: 'PROJECT_STARTUP_REQUEST_TIMEOUT_MS'
      });
      expect(answer.text).not.toContain('15s-not-a-number');
    }
    // A request with a body (as the panel's initialize through the proxy): answered once the
    // body has arrived, never with the connection closed under the sender.
    const big = JSON.stringify({
      interface: 'notebook',
      pad: 'x'.repeat(1 << 20)
    });
    for (let i = 0; i < 3; i++) {
      const posted = await overSocket(
        socket,
        '/user/alice/project/initialize',
        'POST',
        big
      );
      expect(posted.status).toBe(503);
      expect(JSON.parse(posted.text).code).toBe('misconfigured');
    }
    const head = await overSocket(socket, '/user/alice/project/health', 'HEAD');
    expect(head.status).toBe(503);
    expect(head.text).toBe('');

    // Reported once: the message on stderr, as in a terminal, and in the diagnostics file that
    // the Python server extension's diagnostics route reads.
    expect(served.stderr().split(MESSAGE).length - 1).toBe(1);
    expect(served.stderr()).toMatch(
      /^project-startup: PROJECT_STARTUP_REQUEST_TIMEOUT_MS/
    );
    expect(served.stderr()).not.toContain('15s-not-a-number');
    expect(looksLikeStack(served.stderr())).toBe(false);
    expect(served.stdout()).not.toMatch(/Listening:/);
    const record = JSON.parse(fs.readFileSync(diagnosticsFile, 'utf8'));
    expect(record).toMatchObject({
      state: 'failed',
      exitCode: 2,
      lastError: MESSAGE
    });
    // No runtime file: no command line can find this process, there is nothing to find.
    expect(
      fs.existsSync(s.runtimeDir) ? fs.readdirSync(s.runtimeDir) : []
    ).toEqual([]);

    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(fs.existsSync(socket)).toBe(false);
  }, 40000);

  test('in a terminal (no proxy flags), even on a Unix socket: exits 2 at once with its message', async () => {
    const s = sandbox();
    const socket = path.join(s.root, 'project.sock');
    for (const args of [
      [],
      ['--unix-socket', socket],
      ['--ingress', 'notebook-server-proxy', '--allow-unauthenticated-tcp']
    ]) {
      const r = await runCli(['serve', ...args], {
        env: { ...s.env, ...BAD },
        cwd: s.projectDir
      });
      expect(`${args.join(' ')}: ${r.code}`).toBe(`${args.join(' ')}: 2`);
      expect(r.timedOut).toBe(false);
      expect(r.stderr).toBe(`project-startup: ${MESSAGE}\n`);
      expect(fs.existsSync(socket)).toBe(false);
    }
  });

  test("with the proxy's flags, a condition on disk (the runtime directory not private) still exits 2: it can be put right while Jupyter runs, and the proxy's next launch then starts", async () => {
    const s = sandbox();
    const socket = path.join(s.root, 'project.sock');
    fs.mkdirSync(s.runtimeDir, { recursive: true });
    fs.chmodSync(s.runtimeDir, 0o770);
    const args = [
      'serve',
      '--ingress',
      'notebook-server-proxy',
      '--unix-socket',
      socket
    ];
    const r = await runCli(args, { env: s.env, cwd: s.projectDir });
    expect(r.code).toBe(2);
    expect(r.timedOut).toBe(false);
    expect(r.stderr).toMatch(/must be private \(mode 0700/);
    expect(fs.existsSync(socket)).toBe(false);
    // Put right, the next launch serves.
    fs.chmodSync(s.runtimeDir, 0o700);
    const server = await startServe(args.slice(1), {
      env: s.env,
      cwd: s.projectDir
    });
    expect(server.socket).toBe(socket);
    expect((await server.stop()).code).toBe(0);
  });

  test("with the proxy's flags but a socket path it cannot listen on: exits 2 with both messages", async () => {
    const s = sandbox();
    const socket = path.join(s.root, 'no-such-dir', 'project.sock');
    const r = await runCli(
      ['serve', '--ingress', 'notebook-server-proxy', '--unix-socket', socket],
      { env: { ...s.env, ...BAD }, cwd: s.projectDir }
    );
    expect(r.code).toBe(2);
    expect(r.timedOut).toBe(false);
    expect(r.stderr).toContain(`project-startup: ${MESSAGE}\n`);
    expect(r.stderr).toMatch(
      /--unix-socket must name a path in a directory you can write/
    );
    expect(looksLikeStack(r.stderr)).toBe(false);
  });
});

/** Every path below `dir`, relative, sorted: what a run made there. */
function treeOf(dir: string): string[] {
  return fs.existsSync(dir)
    ? (fs.readdirSync(dir, { recursive: true }) as string[]).sort()
    : [];
}

describe('a platform setting that names no platform (one check: resolveConfig)', () => {
  const PLATFORM_MESSAGE =
    'PROJECT_STARTUP_PLATFORM must be one of generic, hosted-notebook, cluster; it is set to an unknown value. Unset it to select the platform from evidence.';

  test.each(['bogus', 'Generic', ' cluster'])(
    "resolveConfig refuses %p with the platform rules' error, and takes each known platform",
    value => {
      const s = sandbox();
      const resolve = (platform: string) =>
        resolveConfig(
          {},
          { ...s.env, PROJECT_STARTUP_PLATFORM: platform },
          s.projectDir
        );
      expect(() => resolve(value)).toThrow(InvalidPlatformSetting);
      expect(() => resolve(value)).toThrow(PLATFORM_MESSAGE);
      for (const known of ['generic', 'hosted-notebook', 'cluster']) {
        expect(resolve(known).platform).toBe(known);
      }
      expect(resolve('').platform).toBeUndefined();
    }
  );

  test('`serve` in a terminal exits 2 with the message before anything is made: no runtime directory, no socket, nothing in the project', async () => {
    const s = sandbox();
    const socket = path.join(s.root, 'project.sock');
    const before = treeOf(s.root);
    for (const args of [[], ['--unix-socket', socket]]) {
      const r = await runCli(['serve', ...args], {
        env: { ...s.env, PROJECT_STARTUP_PLATFORM: 'bogus' },
        cwd: s.projectDir
      });
      expect(`${args.join(' ')}: ${r.code}`).toBe(`${args.join(' ')}: 2`);
      expect(r.stderr).toBe(`project-startup: ${PLATFORM_MESSAGE}\n`);
      expect(r.stdout).not.toMatch(/Listening:/);
      expect(fs.existsSync(s.runtimeDir)).toBe(false);
      expect(fs.existsSync(socket)).toBe(false);
      expect(treeOf(s.root)).toEqual(before);
    }
  });

  test('the command line and `config check` refuse it with the same words', async () => {
    const s = sandbox();
    const env = { ...s.env, PROJECT_STARTUP_PLATFORM: 'bogus' };
    const status = await runCli(['status'], { env, cwd: s.projectDir });
    expect(status.code).toBe(2);
    expect(status.stderr).toBe(`project-startup: ${PLATFORM_MESSAGE}\n`);
    const check = await runCli(['config', 'check', '--json'], {
      env,
      cwd: s.projectDir
    });
    expect(
      (JSON.parse(check.stdout) as { problems: { message: string }[] }).problems
    ).toEqual([expect.objectContaining({ message: PLATFORM_MESSAGE })]);
    // Read by a person: the message's own full stop, then the fix (once "evidence.. Fix:").
    const text = await runCli(['config', 'check'], { env, cwd: s.projectDir });
    expect(text.stdout).toContain(
      `  (environment): ${PLATFORM_MESSAGE} Fix: Correct or unset the variable it names.\n`
    );
    expect(fs.existsSync(s.runtimeDir)).toBe(false);
  });

  test("with the proxy's flags: the socket answers misconfigured naming PROJECT_STARTUP_PLATFORM, and no runtime directory is made", async () => {
    const s = sandbox();
    const served = await launchedAsTheProxyWould(s, {
      PROJECT_STARTUP_PLATFORM: 'bogus'
    });
    const { socket, child, exited } = served;
    expect(served.exitCode()).toBeUndefined();
    const answer = await overSocket(socket, '/project/health', 'GET');
    expect(answer.status).toBe(503);
    expect(JSON.parse(answer.text)).toMatchObject({
      code: 'misconfigured',
      detail: PLATFORM_MESSAGE,
      setting: 'PROJECT_STARTUP_PLATFORM'
    });
    expect(fs.existsSync(s.runtimeDir)).toBe(false);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  }, 40000);
});
