// The system-keyring credential backend against a real Secret Service: Debian's
// gnome-keyring-daemon on a private D-Bus session bus (its own dbus-daemon, a config file in a
// temporary directory, no service activation), with a fresh HOME and XDG directories. An item
// with a recognisable fake secret is stored with `secret-tool`; the sidecar (command line and
// `serve`) must then say a Secret Service answers, and neither the secret, nor the item's label,
// nor its attributes may show up in any response, log line, runtime file or state file.
// Needs the Debian packages dbus-daemon, dbus-bin, gnome-keyring and libsecret-tools.
import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  HttpResult,
  request,
  RequestOptions,
  tempRoot
} from '../../helpers/harness';
import {
  killAllChildren,
  readAllFiles,
  runCli,
  runProcess,
  RunResult,
  startServe
} from '../../helpers/cli';
import { expectValid } from '../../helpers/schemas';
import type { StartupProjection } from '../../../sidecar/src/core/api-types';
import { waitFor } from '../../helpers/wait';

const hex = () => randomBytes(12).toString('hex');
const SYSTEM_PATH = '/usr/bin:/bin';
const TOOLS = {
  'dbus-daemon': 'dbus-daemon',
  'dbus-send': 'dbus-bin',
  'gnome-keyring-daemon': 'gnome-keyring',
  'secret-tool': 'libsecret-tools'
} as const;

function which(tool: string): string | undefined {
  for (const dir of SYSTEM_PATH.split(':')) {
    const candidate = path.join(dir, tool);
    if (fs.existsSync(candidate)) {
      return candidate;
    }
  }
  return undefined;
}

/** A daemon this file started: stopped by its own PID, never by name. */
interface Daemon {
  child: ChildProcess;
  output(): string;
}

function spawnDaemon(
  file: string,
  args: string[],
  env: Record<string, string>,
  input?: string
): Daemon {
  const child = spawn(file, args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let output = '';
  child.stdout
    ?.setEncoding('utf8')
    .on('data', (chunk: string) => (output += chunk));
  child.stderr
    ?.setEncoding('utf8')
    .on('data', (chunk: string) => (output += chunk));
  child.stdin?.on('error', () => undefined);
  child.stdin?.end(input);
  return { child, output: () => output };
}

async function stopDaemon(daemon: Daemon | undefined): Promise<void> {
  if (
    !daemon ||
    daemon.child.exitCode !== null ||
    daemon.child.signalCode !== null
  ) {
    return;
  }
  const { child } = daemon;
  await new Promise<void>(resolve => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
    }, 3000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** A private session bus: no standard service directories, so nothing is ever auto-started. */
async function startBus(
  dir: string
): Promise<{ daemon: Daemon; address: string }> {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const socket = path.join(dir, 'bus');
  const config = path.join(dir, 'session.conf');
  fs.writeFileSync(
    config,
    `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:path=${socket}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
`
  );
  const daemon = spawnDaemon(
    'dbus-daemon',
    [`--config-file=${config}`, '--nofork', '--print-address=1'],
    { PATH: SYSTEM_PATH }
  );
  const address = await waitFor(
    () => {
      const line = /^(unix:\S+)$/m.exec(daemon.output());
      if (daemon.child.exitCode !== null) {
        throw new Error(`dbus-daemon exited: ${daemon.output()}`);
      }
      return line ? line[1] : undefined;
    },
    { what: 'the session bus printing its address', timeoutMs: 10000 }
  );
  return { daemon, address };
}

interface Session {
  root: string;
  home: string;
  /** HOME, XDG_* and DBUS_SESSION_BUS_ADDRESS of the private session. */
  env: Record<string, string>;
  bus: Daemon;
  keyring: Daemon;
}

function dbusSend(
  env: Record<string, string>,
  args: string[]
): Promise<RunResult> {
  return runProcess(
    'dbus-send',
    ['--session', '--print-reply', '--reply-timeout=2000', ...args],
    {
      env: { ...env, PATH: SYSTEM_PATH },
      cwd: '/',
      timeoutMs: 5000
    }
  );
}

const item = {
  secret: `fake-keyring-secret-${hex()}`,
  label: `Keyring item label ${hex()}`,
  attributes: {
    [`ps-attribute-${hex()}`]: `ps-attribute-value-${hex()}`,
    [`ps-account-${hex()}`]: `ps-account-value-${hex()}`
  }
};
const hubToken = `fake-hub-token-${hex()}`;
const serviceToken = `fake-service-token-${hex()}`;

const missingTools = Object.entries(TOOLS)
  .filter(([tool]) => which(tool) === undefined)
  .map(([tool, pkg]) => `${tool} (Debian package ${pkg})`);

let session: Session | undefined;
const roots: string[] = [];

beforeAll(async () => {
  if (missingTools.length > 0) {
    throw new Error(`the keyring tests need ${missingTools.join(', ')}`);
  }
  const root = tempRoot('ps-keyring-');
  roots.push(root);
  const home = path.join(root, 'home');
  const runtime = path.join(root, 'xdg-runtime');
  for (const dir of [home, runtime]) {
    fs.mkdirSync(dir, { mode: 0o700 });
  }
  const { daemon: bus, address } = await startBus(path.join(root, 'dbus'));
  const env = {
    HOME: home,
    XDG_RUNTIME_DIR: runtime,
    XDG_DATA_HOME: path.join(home, '.local', 'share'),
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_CACHE_HOME: path.join(home, '.cache'),
    DBUS_SESSION_BUS_ADDRESS: address
  };
  session = { root, home, env, bus, keyring: undefined as unknown as Daemon };
  // --unlock reads the login password on stdin and creates the "login" collection, unlocked.
  session.keyring = spawnDaemon(
    'gnome-keyring-daemon',
    ['--foreground', '--unlock', '--components=secrets'],
    { ...env, PATH: SYSTEM_PATH },
    'fake-login-password'
  );
  const keyring = session.keyring;
  await waitFor(
    async () => {
      if (keyring.child.exitCode !== null) {
        throw new Error(`gnome-keyring-daemon exited: ${keyring.output()}`);
      }
      const r = await dbusSend(env, [
        '--dest=org.freedesktop.DBus',
        '/',
        'org.freedesktop.DBus.NameHasOwner',
        'string:org.freedesktop.secrets'
      ]);
      return /boolean true/.test(r.stdout);
    },
    { what: 'the Secret Service appearing on the bus', timeoutMs: 10000 }
  );
  const collections = await dbusSend(env, [
    '--dest=org.freedesktop.secrets',
    '/org/freedesktop/secrets',
    'org.freedesktop.DBus.Properties.Get',
    'string:org.freedesktop.Secret.Service',
    'string:Collections'
  ]);
  expect(collections.stdout).toContain(
    '/org/freedesktop/secrets/collection/login'
  );

  const attributeArgs = Object.entries(item.attributes).flat();
  const tool = {
    env: { ...env, PATH: SYSTEM_PATH },
    cwd: home,
    timeoutMs: 10000
  };
  const stored = await runProcess(
    'secret-tool',
    ['store', `--label=${item.label}`, ...attributeArgs],
    { ...tool, input: item.secret }
  );
  expect({ code: stored.code, stderr: stored.stderr }).toEqual({
    code: 0,
    stderr: ''
  });
  // The item really is in the keyring, unlocked (so a reading service could have read it).
  const lookup = await runProcess(
    'secret-tool',
    ['lookup', ...attributeArgs],
    tool
  );
  expect(lookup.stdout).toBe(item.secret);
}, 30000);

afterEach(killAllChildren);

afterAll(async () => {
  await killAllChildren();
  await stopDaemon(session?.keyring);
  await stopDaemon(session?.bus);
  for (const root of roots) {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

/** A project with its own bin directory holding only dbus-send (no scheduler client). */
function project(
  name: string,
  home: string
): { dir: string; env: Record<string, string> } {
  const base = path.join((session as Session).root, name);
  const dir = path.join(base, 'project');
  const bin = path.join(base, 'bin');
  fs.mkdirSync(dir, { recursive: true });
  fs.mkdirSync(bin);
  fs.symlinkSync(which('dbus-send') as string, path.join(bin, 'dbus-send'));
  return {
    dir,
    env: {
      HOME: home,
      PATH: bin,
      PROJECT_STARTUP_RUNTIME_DIR: path.join(base, 'run'),
      PROJECT_STARTUP_LOCAL_RUNTIME_URL: 'http://127.0.0.1:9/',
      PROJECT_STARTUP_SERVING_RUNTIME_URL: 'http://127.0.0.1:9/'
    }
  };
}

interface Check {
  id: string;
  status: string;
  observed: string;
}

function credentialCheck(projection: { readinessChecks: Check[] }): Check {
  const check = projection.readinessChecks.find(
    c => c.id === 'credential-backends'
  );
  expect(check).toBeDefined();
  return check as Check;
}

/** "Label: observed" parts of the credential-backends check, by label. */
function backendParts(check: Check): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of check.observed.split(
    /; (?=(?:Process|System keyring|Mounted file|Managed identity): )/
  )) {
    const colon = part.indexOf(': ');
    out[part.slice(0, colon)] = part.slice(colon + 2);
  }
  return out;
}

function manifestBackends(manifest: {
  capabilities: { id: string; values: { id: string }[] }[];
}): string[] {
  return (
    manifest.capabilities.find(c => c.id === 'credential-backends')?.values ??
    []
  ).map(v => v.id);
}

async function statusLocal(
  env: Record<string, string>,
  cwd: string
): Promise<{ run: RunResult; projection: StartupProjection }> {
  const run = await runCli(['status', '--json', '--local'], { env, cwd });
  const projection = JSON.parse(run.stdout) as StartupProjection;
  expectValid('StartupProjection', projection);
  // `status` exits 3 where setup cannot go on until something changes (README: Command line).
  const stuck = ['blocked', 'unsupported-interface'].includes(projection.phase);
  expect({ code: run.code, stderr: run.stderr }).toEqual({
    code: stuck ? 3 : 0,
    stderr: ''
  });
  return { run, projection };
}

describe('system keyring on the generic platform, with a real Secret Service', () => {
  it('reports the keyring available, and keeps the item out of every response, log line and file', async () => {
    const s = session as Session;
    const p = project('generic', s.home);
    const base: Record<string, string> = { ...p.env, ...s.env };
    const env: Record<string, string> = {
      ...base,
      JUPYTERHUB_API_TOKEN: hubToken,
      PROJECT_STARTUP_TOKEN: serviceToken,
      PROJECT_STARTUP_LOG_LEVEL: 'debug'
    };
    const seen: { where: string; text: string }[] = [];
    const record = (where: string, r: HttpResult | RunResult) =>
      seen.push({
        where,
        text:
          'text' in r
            ? `${r.status} ${JSON.stringify(r.headers)}\n${r.text}`
            : `${r.code}\n${r.stdout}\n${r.stderr}`
      });

    // The command line, evaluating in this process; without credential variables, so that the
    // keyring is the only backend that can make the check pass.
    const local = await statusLocal(base, p.dir);
    record('status --json --local', local.run);
    expect(local.projection.platform).toBe('generic');
    const localCheck = credentialCheck(local.projection);
    expect(backendParts(localCheck)['System keyring']).toMatch(
      /Secret Service answers/
    );
    expect(localCheck.status).toBe('pass');
    expect(manifestBackends(local.projection.manifest)).toContain(
      'system-keyring'
    );

    // The service.
    const server = await startServe([], { env, cwd: p.dir });
    const api = server.url;
    const origin = new URL(api).origin;
    const get = async (route: string, options: RequestOptions = {}) => {
      const r = await request(`${api}${route}`, {
        token: serviceToken,
        ...options
      });
      record(`GET ${route}`, r);
      return r;
    };
    const startups: Record<string, HttpResult> = {};
    for (const iface of ['terminal', 'web', 'notebook']) {
      startups[iface] = await get(`startup?interface=${iface}`);
      expect(startups[iface].status).toBe(200);
      const check = credentialCheck(startups[iface].json);
      expect(check.status).toBe('pass');
      expect(backendParts(check)['System keyring']).toMatch(
        /Secret Service answers on the D-Bus session/
      );
    }
    expect((await get('capabilities')).status).toBe(200);
    expect((await get('health')).status).toBe(200);
    const gateway = await request(`${api}gateway`, {
      method: 'POST',
      token: serviceToken,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'project.startup',
          params: { interface: 'web' }
        },
        { jsonrpc: '2.0', id: 2, method: 'project.capabilities' }
      ])
    });
    record('POST gateway', gateway);
    expect(gateway.status).toBe(200);

    // Create the state through the web interface (the setup page's request), then read it back.
    const web = startups.web.json;
    const created = await request(`${api}initialize`, {
      method: 'POST',
      token: serviceToken,
      headers: {
        'content-type': 'application/json',
        origin,
        'sec-fetch-site': 'same-origin'
      },
      body: JSON.stringify({
        interface: 'web',
        method: 'setup-page',
        confirm: { projectPath: web.projectPath, statePath: web.statePath }
      })
    });
    record('POST initialize', created);
    expect(created.status).toBe(201);
    const ready = await get('startup?interface=web');
    expect(ready.json.phase).toBe('ready');
    const remote = await runCli(['status', '--json'], { env, cwd: p.dir });
    record('status --json (through the service)', remote);
    expect(remote.code).toBe(0);
    expect(
      backendParts(credentialCheck(JSON.parse(remote.stdout)))['System keyring']
    ).toMatch(/Secret Service answers/);

    // Files: the runtime file while it runs, the state file, and everything else the sidecar
    // could have written; the keyring's own storage is the keyring's, not the service's.
    const keyringStore = path.join(s.home, '.local', 'share', 'keyrings');
    const files = () =>
      Object.entries(readAllFiles(s.root)).filter(
        ([file]) => !file.startsWith(`${keyringStore}${path.sep}`)
      );
    const during = files();
    expect(during.map(([f]) => f)).toEqual(
      expect.arrayContaining([path.join(web.statePath, 'initialization.json')])
    );
    expect(
      during.filter(([f]) => f.startsWith(env.PROJECT_STARTUP_RUNTIME_DIR))
    ).toHaveLength(1);
    for (const [file, text] of during) {
      seen.push({ where: `file ${file}`, text });
    }
    const stopped = await server.stop();
    expect(stopped.code).toBe(0);
    expect(server.stderr()).toMatch(/"level":"debug","message":"request"/);
    seen.push(
      { where: 'serve stdout', text: server.stdout() },
      { where: 'serve stderr', text: server.stderr() }
    );
    for (const [file, text] of files()) {
      seen.push({ where: `file after stop ${file}`, text });
    }

    const forbidden: Record<string, string> = {
      'keyring secret': item.secret,
      'keyring item label': item.label,
      'hub token': hubToken,
      'service token': serviceToken
    };
    for (const [name, value] of Object.entries(item.attributes)) {
      forbidden[`attribute name ${name}`] = name;
      forbidden[`attribute value ${value}`] = value;
    }
    const leaks = Object.entries(forbidden).flatMap(([name, value]) =>
      seen
        .filter(x => x.text.includes(value))
        .map(x => `${name} appears in ${x.where}`)
    );
    expect(leaks).toEqual([]);
  });
});

describe('system keyring not available', () => {
  it('without a D-Bus session: not available, saying why', async () => {
    const s = session as Session;
    const p = project('no-session', s.home);
    const { DBUS_SESSION_BUS_ADDRESS: _omit, ...noBus } = s.env;
    void _omit;
    const { projection } = await statusLocal({ ...p.env, ...noBus }, p.dir);
    expect(projection.platform).toBe('generic');
    const check = credentialCheck(projection);
    expect(backendParts(check)['System keyring']).toMatch(/no D-Bus session/);
    // Nothing set up at this site (no D-Bus, no other backend): quiet, not a warning.
    expect(check.status).toBe('skip');
  });

  it('with a D-Bus session on which no Secret Service answers: not available', async () => {
    const s = session as Session;
    const bus = await startBus(path.join(s.root, 'empty-dbus'));
    try {
      const p = project('no-secret-service', s.home);
      const { projection } = await statusLocal(
        { ...p.env, ...s.env, DBUS_SESSION_BUS_ADDRESS: bus.address },
        p.dir
      );
      const check = credentialCheck(projection);
      expect(backendParts(check)['System keyring']).toMatch(
        /no Secret Service answers/
      );
      expect(check.status).toBe('skip');
    } finally {
      await stopDaemon(bus.daemon);
    }
  });

  it('with a session address where no bus listens: not available', async () => {
    const s = session as Session;
    const p = project('dead-bus', s.home);
    const dead = `unix:path=${path.join(s.root, 'no-such-bus')}`;
    const { projection } = await statusLocal(
      { ...p.env, ...s.env, DBUS_SESSION_BUS_ADDRESS: dead },
      p.dir
    );
    const check = credentialCheck(projection);
    expect(backendParts(check)['System keyring']).toMatch(
      /no Secret Service answers/
    );
    expect(check.status).toBe('skip');
  });

  it('without dbus-send: not available, saying it could not ask', async () => {
    const s = session as Session;
    const p = project('no-dbus-send', s.home);
    const { projection } = await statusLocal(
      { ...p.env, ...s.env, PATH: path.join(s.root, 'no-dbus-send', 'empty') },
      p.dir
    );
    const check = credentialCheck(projection);
    expect(backendParts(check)['System keyring']).toMatch(
      /dbus-send.*not installed/
    );
    expect(check.status).toBe('skip');
  });
});

describe('system keyring on platforms that do not offer it', () => {
  // The Secret Service is live on the session these runs see; the platform decides all the same.
  it.each([
    [
      'hosted-notebook',
      {
        JUPYTERHUB_API_URL: 'http://127.0.0.1:9/hub/api',
        JUPYTERHUB_USER: 'alice'
      }
    ],
    ['cluster', { SLURM_CONF: '/nonexistent/slurm.conf' }]
  ])('on %s the keyring is not reported at all', async (platform, evidence) => {
    const s = session as Session;
    const p = project(`not-offered-${platform}`, s.home);
    const { run, projection } = await statusLocal(
      { ...p.env, ...s.env, ...evidence },
      p.dir
    );
    expect(projection.platform).toBe(platform);
    expect(manifestBackends(projection.manifest)).not.toContain(
      'system-keyring'
    );
    const check = credentialCheck(projection);
    expect(Object.keys(backendParts(check))).not.toContain('System keyring');
    expect(check.observed).not.toMatch(/keyring|Secret Service/i);
    expect(JSON.stringify(projection)).not.toMatch(/Secret Service/);
    expect(run.stdout).not.toContain(item.label);
  });
});
