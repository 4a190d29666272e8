// The command-line tool as a person runs it: real child processes of bin/project-startup.js
// with an explicit environment (never the developer's), a temporary project, piped stdin and a
// kill timeout. Run `npm run build:sidecar` first: the binary runs the compiled code.
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { request } from '../helpers/harness';
import {
  CliSandbox,
  listTree,
  looksLikeStack,
  REPO_ROOT,
  runCli,
  runCliInTty,
  runProcess,
  RunResult,
  startServe,
  trackedSandboxes
} from '../helpers/cli';
import { expectValid } from '../helpers/schemas';

const PACKAGE_VERSION = (
  JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
    version: string;
  }
).version;

const MATRIX_ROWS = [
  ['interfaces', 'Interfaces'],
  ['browser-route', 'Browser route'],
  ['gateway-ingress-modes', 'Gateway ingress modes'],
  ['inference-runtimes', 'Service-managed inference runtimes'],
  ['compute-model', 'Compute model'],
  ['durable-storage', 'Durable storage'],
  ['credential-backends', 'Credential backends'],
  ['model-credential-boundary', 'Model credential boundary'],
  ['model-sources', 'Model sources'],
  ['built-in-connections', 'Built-in institution-managed connection']
] as const;

const sandbox = trackedSandboxes();

function describeRun(r: RunResult): string {
  return `exit ${r.code} signal ${r.signal}${r.timedOut ? ' (timed out)' : ''}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`;
}

/** Asserts the exit code with the output in the failure message. */
function expectExit(r: RunResult, code: number): void {
  if (r.code !== code) {
    throw new Error(`expected exit ${code}, got ${describeRun(r)}`);
  }
}

function runtimeFiles(s: CliSandbox): string[] {
  try {
    return fs
      .readdirSync(s.runtimeDir)
      .filter(n => /^server-[0-9a-f]{12}\.json$/.test(n))
      .map(n => path.join(s.runtimeDir, n));
  } catch {
    return [];
  }
}

interface RuntimeInfo {
  url?: string;
  token?: string;
  tokenSource: string;
  pid: number;
  projectPath: string;
}

function readRuntime(s: CliSandbox): RuntimeInfo {
  const files = runtimeFiles(s);
  expect(files).toHaveLength(1);
  return JSON.parse(fs.readFileSync(files[0], 'utf8')) as RuntimeInfo;
}

function mode(p: string): number {
  return fs.lstatSync(p).mode & 0o777;
}

const hex = () => randomBytes(8).toString('hex');

describe('help, version and usage errors', () => {
  it('--help and <command> --help exit 0 and describe the options', async () => {
    const s = sandbox();
    const io = { env: s.env, cwd: s.projectDir };
    const cases: [string[], RegExp[]][] = [
      [
        ['--help'],
        [
          /^Usage: project-startup <command>/m,
          /serve/,
          /status/,
          /capabilities/,
          /init/,
          /url/,
          /--version/,
          /Exit codes/
        ]
      ],
      [
        ['serve', '--help'],
        [
          /^Usage: project-startup serve/m,
          /--host/,
          /--port/,
          /--project-dir/,
          /--ingress/,
          /--base-url/,
          /--unix-socket/
        ]
      ],
      [
        ['status', '--help'],
        [
          /^Usage: project-startup status/m,
          /--interface/,
          /--json/,
          /--project-dir/,
          /--local/
        ]
      ],
      [
        ['capabilities', '--help'],
        [/^Usage: project-startup capabilities/m, /--json/, /--project-dir/]
      ],
      [
        ['init', '--help'],
        [/^Usage: project-startup init/m, /--project-dir/, /--json/]
      ],
      [
        ['url', '--help'],
        [/^Usage: project-startup url/m, /--project-dir/]
      ]
    ];
    const results = await Promise.all(cases.map(([args]) => runCli(args, io)));
    results.forEach((r, i) => {
      expectExit(r, 0);
      expect(r.stderr).toBe('');
      for (const pattern of cases[i][1]) {
        expect(r.stdout).toMatch(pattern);
      }
    });
    // `serve --help` only describes: nothing listened, no runtime file.
    expect(runtimeFiles(s)).toEqual([]);
  });

  it('--version prints the package version', async () => {
    const s = sandbox();
    const r = await runCli(['--version'], { env: s.env, cwd: s.projectDir });
    expectExit(r, 0);
    expect(r.stdout).toBe(`${PACKAGE_VERSION}\n`);
  });

  it('no command prints the usage on stderr (a usage error) and exits 2', async () => {
    const s = sandbox();
    const r = await runCli([], { env: s.env, cwd: s.projectDir });
    expectExit(r, 2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^Usage: project-startup <command>/);
    expect(r.stderr).toMatch(
      /serve[\s\S]*status[\s\S]*capabilities[\s\S]*init[\s\S]*url/
    );
  });

  it('an unknown command or option exits 2 with a one-line message on stderr and no stack', async () => {
    const s = sandbox();
    const io = { env: s.env, cwd: s.projectDir };
    const cases: [string[], string][] = [
      [['frobnicate'], 'frobnicate'],
      [['--bogus'], '--bogus'],
      [['status', '--bogus'], '--bogus'],
      [['serve', '--nope'], '--nope'],
      [['capabilities', '--interface', 'web'], '--interface'],
      [['url', '--interface', 'web'], '--interface']
    ];
    const results = await Promise.all(cases.map(([args]) => runCli(args, io)));
    results.forEach((r, i) => {
      expectExit(r, 2);
      expect(r.stdout).toBe('');
      expect(looksLikeStack(r.stderr)).toBe(false);
      const lines = r.stderr.trimEnd().split('\n');
      // The message itself is one line naming what was wrong; at most a pointer to --help follows.
      expect(lines[0]).toMatch(/^project-startup: /);
      expect(lines[0]).toContain(cases[i][1]);
      expect(lines.length).toBeLessThanOrEqual(2);
      if (lines.length === 2) {
        expect(lines[1]).toMatch(/--help/);
      }
    });
    expect(runtimeFiles(s)).toEqual([]);
  });
});

describe('--json usage errors', () => {
  it('`project-startup --json` with no command prints one invalid-arguments problem on stdout and exits 2', async () => {
    const s = sandbox();
    const io = { env: s.env, cwd: s.projectDir };
    for (const args of [
      ['--json'],
      ['--json', 'status'],
      ['frobnicate', '--json'],
      ['jupyter', '--json']
    ]) {
      const r = await runCli(args, io);
      expectExit(r, 2);
      const problem = JSON.parse(r.stdout);
      expectValid('Problem', problem);
      expect(problem.code).toBe('invalid-arguments');
      expect(problem.status).toBe(400);
      expect(r.stderr).toMatch(/^project-startup: /);
      expect(looksLikeStack(r.stderr)).toBe(false);
    }
    const bare = await runCli(['--json'], io);
    expect(JSON.parse(bare.stdout).detail).toMatch(
      /No command before the option "--json"/
    );
    expect(runtimeFiles(s)).toEqual([]);
  });
});

// D10: one code for one meaning on every interface, and each kind of bad input its own code.
describe('problem codes of the command line', () => {
  it('`status --interface browser --json` is the unknown-interface problem HTTP answers for the same name', async () => {
    const s = sandbox();
    const server = await startServe([], { env: s.env, cwd: s.projectDir });
    const { token } = readRuntime(s);
    const r = await runCli(['status', '--interface', 'browser', '--json'], {
      env: s.env,
      cwd: s.projectDir
    });
    expectExit(r, 2);
    const problem = JSON.parse(r.stdout);
    expectValid('Problem', problem);
    const http = await request(`${server.url}startup?interface=browser`, {
      token
    });
    const answer = http.json;
    expect(http.status).toBe(400);
    expect(problem.code).toBe('unknown-interface');
    expect(problem.code).toBe(answer.code);
    expect(problem.status).toBe(answer.status);
    expect(problem.title).toBe(answer.title);
    expect(problem.allowedValues).toEqual(answer.allowedValues);
  });

  it('an unknown option is invalid-arguments, a bad environment variable is misconfigured naming it: different titles, neither validation-failed', async () => {
    const s = sandbox();
    const option = await runCli(['status', '--frobnicate', '--json'], {
      env: s.env,
      cwd: s.projectDir
    });
    expectExit(option, 2);
    const optionProblem = JSON.parse(option.stdout);
    expectValid('Problem', optionProblem);
    expect(optionProblem.code).toBe('invalid-arguments');
    expect(optionProblem.detail).toMatch(/--frobnicate/);

    const variable = await runCli(['status', '--local', '--json'], {
      env: { ...s.env, PROJECT_STARTUP_LOW_RISK_AUTOMATION: 'maybe' },
      cwd: s.projectDir
    });
    expectExit(variable, 2);
    const variableProblem = JSON.parse(variable.stdout);
    expectValid('Problem', variableProblem);
    expect(variableProblem.code).toBe('misconfigured');
    expect(variableProblem.setting).toBe('PROJECT_STARTUP_LOW_RISK_AUTOMATION');

    expect(optionProblem.title).not.toBe(variableProblem.title);
    for (const p of [optionProblem, variableProblem]) {
      expect(p.title).not.toBe('The request does not have the expected shape');
    }
  });
});

describe('serve', () => {
  it('prints platform, project and address but never the generated token; the runtime file is 0600 and goes on SIGTERM', async () => {
    const s = sandbox();
    const server = await startServe([], { env: s.env, cwd: s.projectDir });
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/project\/$/);
    const out = server.stdout();
    expect(out).toMatch(/Workstation or container \(generic\)/);
    expect(out).toContain(`Project: ${s.projectDir}`);
    expect(out).toMatch(
      new RegExp(
        `^Listening: http://127\\.0\\.0\\.1:${server.port}/project/$`,
        'm'
      )
    );

    const [file] = runtimeFiles(s);
    expect(file).toBeDefined();
    expect(mode(file)).toBe(0o600);
    expect(mode(s.runtimeDir)).toBe(0o700);
    const info = readRuntime(s);
    expect(info.tokenSource).toBe('generated');
    expect(info.url).toBe(server.url);
    expect(info.projectPath).toBe(s.projectDir);
    expect(info.pid).toBe(server.child.pid);
    const token = info.token as string;
    expect(token.length).toBeGreaterThanOrEqual(32);

    const health = await request(`${server.url}health`);
    expect(health.status).toBe(200);
    expectValid('Health', health.json);
    const authed = await request(`${server.url}capabilities`, { token });
    expect(authed.status).toBe(200);

    const stopped = await server.stop();
    expect(stopped).toEqual({ code: 0, signal: null, timedOut: false });
    expect(runtimeFiles(s)).toEqual([]);
    expect(server.stdout()).not.toContain(token);
    expect(server.stderr()).not.toContain(token);
  });

  it('never prints PROJECT_STARTUP_TOKEN nor copies it into the runtime file', async () => {
    const s = sandbox();
    const token = `env-token-${hex()}${hex()}`;
    const server = await startServe(['--project-dir', s.projectDir], {
      env: { ...s.env, PROJECT_STARTUP_TOKEN: token },
      cwd: s.root
    });
    expect(server.stdout()).toContain(`Project: ${s.projectDir}`);
    const [file] = runtimeFiles(s);
    expect(mode(file)).toBe(0o600);
    const raw = fs.readFileSync(file, 'utf8');
    expect(raw).not.toContain(token);
    expect(JSON.parse(raw).tokenSource).toBe('environment');
    expect((await request(`${server.url}capabilities`, { token })).status).toBe(
      200
    );

    const stopped = await server.stop();
    expect(stopped.code).toBe(0);
    expect(runtimeFiles(s)).toEqual([]);
    expect(server.stdout()).not.toContain(token);
    expect(server.stderr()).not.toContain(token);
  });

  it('startup failures exit 2 with a clear message, no stack and no runtime file', async () => {
    const s = sandbox();
    const cases: {
      name: string;
      args: string[];
      env?: Record<string, string>;
      says: RegExp[];
    }[] = [
      {
        name: 'unknown platform',
        args: [],
        env: { PROJECT_STARTUP_PLATFORM: 'bogus' },
        says: [
          /PROJECT_STARTUP_PLATFORM/,
          /generic/,
          /hosted-notebook/,
          /cluster/
        ]
      },
      {
        name: 'unknown ingress',
        args: ['--ingress', 'bogus'],
        says: [
          /--ingress/,
          /direct-loopback/,
          /notebook-server-proxy/,
          /trusted-proxy/
        ]
      },
      {
        name: 'port out of range',
        args: ['--port', '99999'],
        says: [/--port/, /65535/]
      },
      {
        name: 'non-loopback host',
        args: ['--host', '0.0.0.0'],
        says: [/--host/, /trusted-proxy/]
      },
      {
        name: 'bad low-risk policy',
        args: [],
        env: { PROJECT_STARTUP_LOW_RISK_AUTOMATION: 'maybe' },
        says: [/PROJECT_STARTUP_LOW_RISK_AUTOMATION/, /permitted/, /denied/]
      },
      {
        name: 'bad base URL',
        args: ['--base-url', 'no-slash'],
        says: [/--base-url/]
      }
    ];
    const results = await Promise.all(
      cases.map(c =>
        runCli(['serve', ...c.args], {
          env: { ...s.env, ...c.env },
          cwd: s.projectDir
        })
      )
    );
    results.forEach((r, i) => {
      const c = cases[i];
      if (r.code !== 2) {
        throw new Error(`${c.name}: expected exit 2, got ${describeRun(r)}`);
      }
      expect(r.stdout).not.toMatch(/Listening:/);
      expect(looksLikeStack(r.stderr)).toBe(false);
      expect(r.stderr).toMatch(/^project-startup: /);
      for (const pattern of c.says) {
        expect(r.stderr).toMatch(pattern);
      }
    });
    expect(runtimeFiles(s)).toEqual([]);
  });

  it('a runtime directory open to others stops start-up with exit 2 and names the directory', async () => {
    const s = sandbox();
    const open = path.join(s.root, 'open-runtime');
    fs.mkdirSync(open);
    fs.chmodSync(open, 0o755);
    const r = await runCli(['serve'], {
      env: { ...s.env, PROJECT_STARTUP_RUNTIME_DIR: open },
      cwd: s.projectDir
    });
    expect(r.timedOut).toBe(false);
    expect(looksLikeStack(r.stderr)).toBe(false);
    expect(r.stderr).toContain(open);
    expect(r.stderr).toMatch(/0700|private/);
    expectExit(r, 2);
    expect(fs.readdirSync(open)).toEqual([]);
  });

  it('a port already in use exits 2 and says so', async () => {
    const s = sandbox();
    const blocker = net.createServer();
    await new Promise<void>(resolve => blocker.listen(0, '127.0.0.1', resolve));
    try {
      const port = (blocker.address() as net.AddressInfo).port;
      const r = await runCli(['serve', '--port', String(port)], {
        env: s.env,
        cwd: s.projectDir
      });
      expectExit(r, 2);
      expect(r.stdout).not.toMatch(/Listening:/);
      expect(r.stderr).toContain(String(port));
      expect(r.stderr).toMatch(/in use/);
      expect(r.stderr).toMatch(/--port/);
      expect(looksLikeStack(r.stderr)).toBe(false);
      expect(runtimeFiles(s)).toEqual([]);
    } finally {
      await new Promise<void>(resolve => blocker.close(() => resolve()));
    }
  });
});

const CHECK_TITLES = [
  'Platform evidence',
  'Interface support',
  'Project directory',
  'Private state location',
  'Compute',
  'Confirmation'
];

describe('status and capabilities', () => {
  it('without a running service answers "read directly" and changes nothing', async () => {
    const s = sandbox();
    const io = { env: s.env, cwd: s.projectDir };
    const before = listTree(s.root);
    const [human, json, web, caps, capsJson] = await Promise.all([
      runCli(['status'], io),
      runCli(['status', '--json'], io),
      runCli(['status', '--json', '--interface', 'web'], io),
      runCli(['capabilities'], io),
      runCli(['capabilities', '--json'], io)
    ]);
    for (const r of [human, json, web, caps, capsJson]) {
      expectExit(r, 0);
    }

    expect(human.stdout).toMatch(/read directly/);
    expect(human.stdout).toMatch(/Workstation or container \(generic\)/);
    expect(human.stdout).toMatch(/^Phase\s+awaiting-confirmation$/m);
    expect(human.stdout).toMatch(/^Next: \S/m);
    expect(human.stdout).toMatch(/^Readiness checks$/m);
    for (const title of CHECK_TITLES) {
      expect(human.stdout).toMatch(
        new RegExp(`^\\s+\\[(ok|warn|FAIL|skip)\\]\\s+${title}`, 'm')
      );
    }

    const projection = JSON.parse(json.stdout);
    expectValid('StartupProjection', projection);
    expect(projection).toMatchObject({
      platform: 'generic',
      interface: 'terminal',
      projectPath: s.projectDir,
      statePath: path.join(s.projectDir, '.project-startup')
    });
    expect(projection.browserUrl).toBeUndefined();

    const webProjection = JSON.parse(web.stdout);
    expectValid('StartupProjection', webProjection);
    expect(webProjection.interface).toBe('web');
    expect(webProjection.interfaceSupport.supported).toBe(true);
    expect(webProjection.browserUrl).toBeUndefined(); // nothing listens, so nothing is verified

    for (const [, label] of MATRIX_ROWS) {
      expect(caps.stdout).toMatch(new RegExp(`^\\s+${label}\\s{2,}\\S`, 'm'));
    }
    const manifest = JSON.parse(capsJson.stdout);
    expectValid('Manifest', manifest);
    expect(manifest.capabilities.map((c: { id: string }) => c.id)).toEqual(
      MATRIX_ROWS.map(([id]) => id)
    );
    expect(manifest).toEqual(projection.manifest);

    expect(listTree(s.root)).toEqual(before);
  });

  it('an unknown --interface is a usage error (exit 2) naming the allowed values', async () => {
    const s = sandbox();
    const r = await runCli(['status', '--interface', 'browser'], {
      env: s.env,
      cwd: s.projectDir
    });
    expect(looksLikeStack(r.stderr)).toBe(false);
    expect(r.stderr).toMatch(/terminal/);
    expect(r.stderr).toMatch(/web/);
    expect(r.stderr).toMatch(/notebook/);
    expectExit(r, 2);
  });

  it('with a running service answers through it, and --json equals GET startup', async () => {
    const s = sandbox();
    const server = await startServe([], { env: s.env, cwd: s.projectDir });
    const { token } = readRuntime(s);
    const io = { env: s.env, cwd: s.projectDir };
    const [human, json, webJson, webHuman, capsJson] = await Promise.all([
      runCli(['status'], io),
      runCli(['status', '--json'], io),
      runCli(['status', '--json', '--interface', 'web'], io),
      runCli(['status', '--interface', 'web'], io),
      runCli(['capabilities', '--json'], io)
    ]);
    for (const r of [human, json, webJson, webHuman, capsJson]) {
      expectExit(r, 0);
    }
    expect(human.stdout).toContain(`answered by the service at ${server.url}`);
    expect(human.stdout).toMatch(/^Phase\s+awaiting-confirmation$/m);
    expect(human.stdout).toMatch(/^Next: \S/m);
    expect(human.stdout).toMatch(/\[ok\]\s+Gateway ingress/);

    const fromCli = JSON.parse(json.stdout);
    expectValid('StartupProjection', fromCli);
    const direct = await request(`${server.url}startup?interface=terminal`, {
      token
    });
    expect(direct.status).toBe(200);
    expectValid('StartupProjection', direct.json);
    const pick = (p: Record<string, unknown>) => ({
      phase: p.phase,
      projectPath: p.projectPath,
      statePath: p.statePath,
      manifest: p.manifest
    });
    expect(pick(fromCli)).toEqual(pick(direct.json));

    const web = JSON.parse(webJson.stdout);
    expectValid('StartupProjection', web);
    expect(web.interface).toBe('web');
    expect(web.browserUrl).toBe(server.url);
    expect(webHuman.stdout).toMatch(
      new RegExp(`^Browser\\s+${server.url.replace(/[.]/g, '\\.')}$`, 'm')
    );

    const manifest = JSON.parse(capsJson.stdout);
    expectValid('Manifest', manifest);
    const caps = await request(`${server.url}capabilities`, { token });
    expect(manifest).toEqual(caps.json);

    expect((await server.stop()).code).toBe(0);
  });
});

describe('init', () => {
  it('refuses on the workstation platform: confirmation happens in a browser; nothing is created', async () => {
    const s = sandbox();
    const hosted = sandbox();
    const before = listTree(s.root);
    const [generic, hostedRun] = await Promise.all([
      runCli(['init'], { env: s.env, cwd: s.projectDir, input: 'y\n' }),
      runCli(['init'], {
        env: {
          ...hosted.env,
          JUPYTERHUB_API_URL: 'http://127.0.0.1:9/hub/api',
          JUPYTERHUB_USER: 'alice'
        },
        cwd: hosted.projectDir,
        input: 'y\n'
      })
    ]);
    expectExit(generic, 3);
    const said = generic.stdout + generic.stderr;
    expect(said).toMatch(/Browser or Notebook/);
    expect(said).not.toMatch(/\[y\/N\]/);
    expect(looksLikeStack(said)).toBe(false);
    expect(listTree(s.root)).toEqual(before);

    expectExit(hostedRun, 3);
    expect(hostedRun.stdout + hostedRun.stderr).toMatch(/Notebook/);
    expect(fs.existsSync(path.join(hosted.home, '.project-startup'))).toBe(
      false
    );
  });

  it.each([
    ['generic', 'web', {}],
    [
      'hosted-notebook',
      'notebook',
      {
        JUPYTERHUB_API_URL: 'http://127.0.0.1:9/hub/api',
        JUPYTERHUB_USER: 'alice'
      }
    ]
  ])(
    'on %s, a project already set up (through %s) is success: exit 0, "Already set up: <state path>", --json the record with created false',
    async (platform, iface, extra) => {
      const s = sandbox();
      const env = { ...s.env, ...extra };
      const io = { env, cwd: s.projectDir };
      const server = await startServe([], io);
      const { token } = readRuntime(s);
      const p = (
        await request(`${server.url}startup?interface=${iface}`, { token })
      ).json;
      expect(p.platform).toBe(platform);
      const created = await request(`${server.url}initialize`, {
        method: 'POST',
        token,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          interface: iface,
          confirm: { projectPath: p.projectPath, statePath: p.statePath }
        })
      });
      expect(created.status).toBe(201);

      const human = await runCliInTty(['init'], io);
      expectExit(human, 0);
      expect(human.stdout).toContain(`Already set up: ${p.statePath}`);
      expect(human.stderr).not.toMatch(/\[y\/N\]/);

      const json = await runCli(['init', '--json'], io);
      expectExit(json, 0);
      const body = JSON.parse(json.stdout);
      expectValid('InitializeResponse', body);
      expect(body.created).toBe(false);
      expect(body.phase).toBe('ready');
      expect(body.record).toEqual(created.json.record);
      expect((await server.stop()).code).toBe(0);
    }
  );

  /** Inside a Slurm allocation; squeue is not on PATH, so liveness is unknown. */
  function clusterEnv(
    s: CliSandbox,
    extra: Record<string, string> = {}
  ): Record<string, string> {
    return {
      ...s.env,
      SLURM_JOB_ID: '4242',
      PROJECT_STARTUP_APPROVED_STORAGE: s.root,
      ...extra
    };
  }

  function expectStateCreated(
    s: CliSandbox,
    ingress: string
  ): Record<string, unknown> {
    const statePath = path.join(s.projectDir, '.project-startup');
    const recordPath = path.join(statePath, 'initialization.json');
    expect(mode(statePath)).toBe(0o700);
    expect(fs.lstatSync(statePath).isDirectory()).toBe(true);
    expect(mode(recordPath)).toBe(0o600);
    const record = JSON.parse(fs.readFileSync(recordPath, 'utf8'));
    expectValid('InitializationRecord', record);
    expect(record).toMatchObject({
      platform: 'cluster',
      projectPath: s.projectDir,
      statePath,
      confirmation: {
        interface: 'terminal',
        method: 'terminal-prompt',
        ingress
      }
    });
    return record;
  }

  it('on a cluster allocation shows the paths, asks, and honours no, end of input and yes', async () => {
    const s = sandbox();
    // Where the in-process initialize route's private socket directory goes, and is removed.
    const tmp = path.join(s.root, 'tmp');
    fs.mkdirSync(tmp, { mode: 0o700 });
    const io = { env: clusterEnv(s, { TMPDIR: tmp }), cwd: s.projectDir };
    const statePath = path.join(s.projectDir, '.project-startup');
    const before = listTree(s.root);

    const [no, eof] = await Promise.all([
      runCliInTty(['init'], { ...io, input: 'n\n' }),
      runCliInTty(['init'], io)
    ]);
    for (const r of [no, eof]) {
      expectExit(r, 4);
      expect(r.stdout).toContain(`${statePath}/`);
      expect(r.stdout).toContain(`${statePath}/initialization.json`);
      expect(r.stderr).toMatch(/\[y\/N\]/);
    }
    expect(no.stdout).toMatch(/nothing was created/i);
    expect(eof.stdout).toMatch(/nothing was created/i);
    expect(listTree(s.root)).toEqual(before);

    fs.utimesSync(tmp, 1000, 1000);
    const yes = await runCliInTty(['init'], { ...io, input: 'y\n' });
    expectExit(yes, 0);
    expect(yes.stdout).toContain(statePath);
    const record = expectStateCreated(s, 'command-line');
    expect(fs.readdirSync(tmp)).toEqual([]);
    // A directory came and went there: its modification time moved.
    expect(fs.statSync(tmp).mtimeMs).toBeGreaterThan(1000 * 1000);

    const again = await runCliInTty(['init'], { ...io, input: 'y\n' });
    expectExit(again, 0);
    expect(again.stdout).toMatch(/Already set up/);
    expect(again.stderr).not.toMatch(/\[y\/N\]/);
    expect(
      JSON.parse(
        fs.readFileSync(path.join(statePath, 'initialization.json'), 'utf8')
      )
    ).toEqual(record);

    const status = await runCli(['status', '--json'], io);
    expectExit(status, 0);
    const projection = JSON.parse(status.stdout);
    expectValid('StartupProjection', projection);
    expect(projection.phase).toBe('ready');
    const compute = projection.readinessChecks.find(
      (c: { id: string }) => c.id === 'compute-allocation'
    );
    expect(compute.status).toBe('warn');
    expect(compute.observed).toMatch(/squeue/);
  });

  it('init --json on a cluster allocation prints the initialize response on stdout', async () => {
    const s = sandbox();
    const r = await runCliInTty(['init', '--json'], {
      env: clusterEnv(s),
      cwd: s.projectDir,
      input: 'yes\n'
    });
    expectExit(r, 0);
    const body = JSON.parse(r.stdout);
    expectValid('InitializeResponse', body);
    expect(body.created).toBe(true);
    expect(body.phase).toBe('ready');
    expectStateCreated(s, 'command-line');
  });

  it('on a cluster allocation works the same through a running serve', async () => {
    const s = sandbox();
    const env = clusterEnv(s);
    const server = await startServe([], { env, cwd: s.projectDir });
    expect(server.stdout()).toMatch(/Cluster platform \(cluster\)/);
    const io = { env, cwd: s.projectDir };
    const before = listTree(s.projectDir);

    const status = await runCli(['status'], io);
    expectExit(status, 0);
    expect(status.stdout).toContain(`answered by the service at ${server.url}`);

    const no = await runCliInTty(['init'], { ...io, input: 'n\n' });
    expectExit(no, 4);
    const eof = await runCliInTty(['init'], io);
    expectExit(eof, 4);
    expect(listTree(s.projectDir)).toEqual(before);

    const yes = await runCliInTty(['init'], { ...io, input: 'y\n' });
    expectExit(yes, 0);
    // The service (direct loopback), not the command line, created the state.
    const record = expectStateCreated(s, 'direct-loopback');

    const again = await runCliInTty(['init'], io);
    expectExit(again, 0);
    expect(again.stdout).toMatch(/Already set up/);
    expect(
      JSON.parse(
        fs.readFileSync(
          path.join(s.projectDir, '.project-startup', 'initialization.json'),
          'utf8'
        )
      )
    ).toEqual(record);

    const { token } = readRuntime(s);
    const startup = await request(`${server.url}startup?interface=terminal`, {
      token
    });
    expect(startup.json.phase).toBe('ready');
    expect((await server.stop()).code).toBe(0);
  });

  it('a piped answer is no person at a terminal: `echo y | init` exits 3, asks nothing, creates nothing; --json says so in problem details', async () => {
    const s = sandbox();
    const io = { env: clusterEnv(s), cwd: s.projectDir };
    const before = listTree(s.projectDir);
    const piped = await runCli(['init'], { ...io, input: 'y\n' });
    expectExit(piped, 3);
    expect(piped.stderr).toMatch(/not a TTY/);
    expect(piped.stderr).not.toMatch(/\[y\/N\]/);
    const json = await runCli(['init', '--json'], { ...io, input: 'y\n' });
    expectExit(json, 3);
    const problem = JSON.parse(json.stdout);
    expectValid('Problem', problem);
    expect(problem.code).toBe('confirmation-not-allowed');
    // Through a running service too: the command line never sends the prompt key for a pipe.
    const server = await startServe([], { env: io.env, cwd: s.projectDir });
    expectExit(await runCli(['init'], { ...io, input: 'y\n' }), 3);
    expect((await server.stop()).code).toBe(0);
    expect(listTree(s.projectDir)).toEqual(before);
  });

  it('against a read-only service (notebook-server proxy on the cluster) init says --local before asking; --local then works', async () => {
    const s = sandbox();
    const env = clusterEnv(s);
    const io = { env, cwd: s.projectDir };
    const socket = path.join(s.root, 'nb.sock');
    const server = await startServe(
      ['--ingress', 'notebook-server-proxy', '--unix-socket', socket],
      { env, cwd: s.projectDir }
    );
    const status = JSON.parse((await runCli(['status', '--json'], io)).stdout);
    expect(status.phase).toBe('awaiting-confirmation');
    expect(status.nextAction.command).toBe('project-startup init --local');
    expect(status.nextAction.detail).toMatch(/read-only/);
    expect(status.nextAction.request).toBeUndefined();
    const refused = await runCliInTty(['init'], { ...io, input: 'y\n' });
    expectExit(refused, 3);
    expect(refused.stderr).toMatch(/project-startup init --local/);
    expect(refused.stderr).toMatch(/--ingress direct-loopback/);
    expect(refused.stderr).not.toMatch(/\[y\/N\]|cross-origin/);
    expect(fs.existsSync(path.join(s.projectDir, '.project-startup'))).toBe(
      false
    );
    const local = await runCliInTty(['init', '--local'], {
      ...io,
      input: 'y\n'
    });
    expectExit(local, 0);
    expectStateCreated(s, 'command-line');
    expect((await server.stop()).code).toBe(0);
  });

  it.each(['generic', 'cluster'])(
    "on %s, a state made 0755 after initialization: init says the state's own problem (409 state-unsafe, exit 3) and its remedy, as POST initialize does",
    async platform => {
      const s = sandbox();
      const env = platform === 'cluster' ? clusterEnv(s) : s.env;
      const io = { env, cwd: s.projectDir };
      if (platform === 'cluster') {
        expectExit(await runCliInTty(['init'], { ...io, input: 'y\n' }), 0);
      } else {
        const server = await startServe([], io);
        const { token } = readRuntime(s);
        const p = (
          await request(`${server.url}startup?interface=web`, { token })
        ).json;
        const created = await request(`${server.url}initialize`, {
          method: 'POST',
          token,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            interface: 'web',
            confirm: { projectPath: p.projectPath, statePath: p.statePath }
          })
        });
        expect(created.status).toBe(201);
        expect((await server.stop()).code).toBe(0);
      }
      const statePath = path.join(s.projectDir, '.project-startup');
      fs.chmodSync(statePath, 0o755);
      const human = await runCliInTty(['init'], io);
      expectExit(human, 3);
      expect(human.stderr).toContain('state-unsafe');
      expect(human.stderr).toContain(`chmod 700 ${statePath}`);
      expect(human.stderr).not.toMatch(/comes later|not at a terminal prompt/);
      const json = await runCli(['init', '--json'], io);
      expectExit(json, 3);
      expect(JSON.parse(json.stdout)).toMatchObject({
        code: 'state-unsafe',
        status: 409
      });
    }
  );

  it('on a cluster login node refuses with exit 3 and prints the salloc command', async () => {
    const s = sandbox();
    const before = listTree(s.root);
    const r = await runCli(['init'], {
      env: {
        ...s.env,
        SLURM_CONF: '/etc/slurm/slurm.conf',
        PROJECT_STARTUP_APPROVED_STORAGE: s.root
      },
      cwd: s.projectDir,
      input: 'y\n'
    });
    expectExit(r, 3);
    expect(r.stdout + r.stderr).toMatch(/salloc/);
    expect(r.stderr).not.toMatch(/\[y\/N\]/);
    expect(listTree(s.root)).toEqual(before);
  });

  it('outside approved storage refuses with exit 3 and the remedy', async () => {
    const s = sandbox();
    const approved = path.join(s.root, 'approved');
    fs.mkdirSync(approved);
    const before = listTree(s.root);
    const r = await runCli(['init'], {
      env: clusterEnv(s, { PROJECT_STARTUP_APPROVED_STORAGE: approved }),
      cwd: s.projectDir,
      input: 'y\n'
    });
    expectExit(r, 3);
    const said = r.stdout + r.stderr;
    expect(said).toMatch(/Approved project storage/i);
    expect(said).toContain(approved);
    expect(said).toMatch(/Move the project/);
    expect(listTree(s.root)).toEqual(before);
  });
});

describe('url', () => {
  it('prints the sign-in address of a running direct-loopback service; it answers 303 with a cookie', async () => {
    const s = sandbox();
    const server = await startServe([], { env: s.env, cwd: s.projectDir });
    const { token } = readRuntime(s);
    const r = await runCli(['url'], { env: s.env, cwd: s.projectDir });
    expectExit(r, 0);
    expect(r.stdout).toBe(
      `http://127.0.0.1:${server.port}/project/?token=${token}\n`
    );

    const signIn = await request(r.stdout.trim(), {
      headers: { accept: 'text/html' }
    });
    expect(signIn.status).toBe(303);
    const cookies = ([] as string[]).concat(signIn.headers['set-cookie'] ?? []);
    expect(cookies).toHaveLength(1);
    expect(cookies[0]).toMatch(/HttpOnly/i);
    expect(cookies[0]).toMatch(/SameSite=Strict/i);
    expect(cookies[0]).not.toContain(token as string);
    expect(signIn.headers.location).toBe('/project/');

    const page = await request(server.url, {
      headers: { accept: 'text/html', cookie: cookies[0].split(';')[0] }
    });
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect((await server.stop()).code).toBe(0);
  });

  it('prints PROJECT_STARTUP_TOKEN when the service took its token from there', async () => {
    const s = sandbox();
    const token = `env-token-${hex()}`;
    const env = { ...s.env, PROJECT_STARTUP_TOKEN: token };
    const server = await startServe([], { env, cwd: s.projectDir });
    const r = await runCli(['url'], { env, cwd: s.projectDir });
    expectExit(r, 0);
    expect(r.stdout).toBe(`${server.url}?token=${token}\n`);
    expect((await server.stop()).code).toBe(0);
  });

  it('without a running service exits 1 with a message', async () => {
    const s = sandbox();
    const r = await runCli(['url'], { env: s.env, cwd: s.projectDir });
    expectExit(r, 1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^project-startup: .*serve/);
    expect(looksLikeStack(r.stderr)).toBe(false);
  });
});

describe('url and serve name only routes the platform offers', () => {
  it('cluster: serve points at the terminal, url exits 3 naming the terminal, no page and no cookie', async () => {
    const s = sandbox();
    const token = `env-token-${hex()}`;
    const env = {
      ...s.env,
      PROJECT_STARTUP_PLATFORM: 'cluster',
      PROJECT_STARTUP_TOKEN: token
    };
    const server = await startServe([], { env, cwd: s.projectDir });
    expect(server.stdout()).not.toMatch(/project-startup url|browser address/);
    expect(server.stdout()).toMatch(/project-startup status/);
    const r = await runCli(['url'], { env, cwd: s.projectDir });
    expectExit(r, 3);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/Cluster platform has no browser route/);
    expect(r.stderr).toMatch(/project-startup status/);
    const page = await request(`${server.url}?token=${token}`, {
      headers: { accept: 'text/html' }
    });
    // No route signs in where the platform has no browser route (sign-in.ts).
    expect(page.status).toBe(401);
    expect(page.json.code).toBe('unauthorized');
    expect(page.headers['set-cookie']).toBeUndefined();
    expect((await server.stop()).code).toBe(0);
  });

  it('hosted notebook with --ingress direct-loopback: url blames the missing browser route, not the ingress', async () => {
    const s = sandbox();
    const env = {
      ...s.env,
      JUPYTERHUB_API_URL: 'http://127.0.0.1:9/hub/api',
      JUPYTERHUB_USER: 'alice'
    };
    const server = await startServe(['--ingress', 'direct-loopback'], {
      env,
      cwd: s.projectDir
    });
    expect(server.stdout()).not.toMatch(/project-startup url/);
    const r = await runCli(['url'], { env, cwd: s.projectDir });
    expectExit(r, 3);
    expect(r.stderr).toMatch(/Hosted notebook platform has no browser route/);
    expect(r.stderr).not.toMatch(/ingress/);
    expect((await server.stop()).code).toBe(0);
  });

  it('the token came from PROJECT_STARTUP_TOKEN but this shell lacks it: url says so (not "no login token")', async () => {
    const s = sandbox();
    const env = { ...s.env, PROJECT_STARTUP_TOKEN: `env-token-${hex()}` };
    const server = await startServe([], { env, cwd: s.projectDir });
    expect(server.stdout()).toMatch(/token in PROJECT_STARTUP_TOKEN\)/);
    const r = await runCli(['url'], { env: s.env, cwd: s.projectDir });
    expectExit(r, 1);
    expect(r.stderr).toMatch(
      /PROJECT_STARTUP_TOKEN, which is not set in this shell/
    );
    expect(r.stderr).not.toMatch(/no login token/);
    expect((await server.stop()).code).toBe(0);
  });

  it('status with the token from PROJECT_STARTUP_TOKEN missing or different here: says so, never "in the runtime file"', async () => {
    const s = sandbox();
    const env = { ...s.env, PROJECT_STARTUP_TOKEN: `env-token-${hex()}` };
    const server = await startServe([], { env, cwd: s.projectDir });
    const missing = await runCli(['status'], { env: s.env, cwd: s.projectDir });
    expectExit(missing, 1);
    expect(missing.stderr).toMatch(
      /took its token from PROJECT_STARTUP_TOKEN when it started, which is not set in this shell/
    );
    expect(missing.stderr).not.toMatch(/runtime file/);
    const json = await runCli(['status', '--json'], {
      env: { ...s.env, PROJECT_STARTUP_TOKEN: 'another-value' },
      cwd: s.projectDir
    });
    expectExit(json, 1);
    const problem = JSON.parse(json.stdout);
    expectValid('Problem', problem);
    expect(problem.code).toBe('unauthorized');
    // The service cannot prove it holds this shell's token (client.ts), so nothing was sent.
    expect(problem.detail).toMatch(
      /PROJECT_STARTUP_TOKEN differs from the token the service was started with/
    );
    expect((await server.stop()).code).toBe(0);
  });

  it('a service on a Unix socket runs: url says a browser cannot open the socket (not "no service")', async () => {
    const s = sandbox();
    const socket = path.join(s.root, 'ps.sock');
    const child = await startServe(['--unix-socket', socket], {
      env: s.env,
      cwd: s.projectDir
    });
    const r = await runCli(['url'], { env: s.env, cwd: s.projectDir });
    expectExit(r, 3);
    expect(r.stderr).toContain(`Unix socket ${socket}`);
    expect(r.stderr).not.toMatch(/no service/);
    expect((await child.stop()).code).toBe(0);
  });
});

describe('npx', () => {
  it('`npx project-startup --help` works in the repository (README: after npm ci)', async () => {
    const s = sandbox();
    const r = await runProcess('npx', ['project-startup', '--help'], {
      cwd: REPO_ROOT,
      env: {
        HOME: s.home,
        PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
        // Never install or ask the network: the command must come from this package.
        npm_config_yes: 'false',
        npm_config_offline: 'true',
        npm_config_update_notifier: 'false',
        npm_config_cache: path.join(s.root, 'npm-cache')
      },
      timeoutMs: 60000
    });
    expectExit(r, 0);
    expect(r.stdout).toMatch(/^Usage: project-startup <command>/);
  }, 90000);
});
