// Crash safety of initialize: the real `project-startup serve`, started through the test-only
// entry test/helpers/crash-at-step.js with a hook that kills it with SIGKILL at each step of the
// state creation. Then, with nothing running: the state on disk is absent or complete and valid, and
// nothing in it is unsafe. Restarted without the hook: the phase says the same
// (awaiting-confirmation or ready), and a new initialize completes (201, or 200 with the record
// that survived). On generic (the state in the project) and on the hosted notebook (the state
// below $HOME, with parent directories to create).
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  CliSandbox,
  CRASH_AT_STEP,
  runCli,
  runCliInTty,
  runProcess,
  TTY_STDIN,
  startServe,
  trackedSandboxes
} from '../../helpers/cli';
import { HttpResult, request } from '../../helpers/harness';
import { expectValid } from '../../helpers/schemas';
import {
  CREATION_STEPS,
  CreationStep
} from '../../../sidecar/src/observe/state';
import { waitFor } from '../../helpers/wait';
import { alive, tree } from './support';

const sandbox = trackedSandboxes();
const TOKEN = 'crash-test-token-0123456789abcdef0123456789';
/** The variable an earlier version read to arm the crash hook: now it must do nothing. */
const FORMER_SWITCH = 'PROJECT_STARTUP_TEST_CRASH_AT';

interface Platform {
  name: string;
  env: Record<string, string>;
  args: string[];
  iface: 'web' | 'notebook';
}

const PLATFORMS: Platform[] = [
  { name: 'generic', env: {}, args: [], iface: 'web' },
  {
    name: 'hosted notebook',
    env: {
      JUPYTERHUB_API_URL: 'http://127.0.0.1:9/hub/api',
      JUPYTERHUB_USER: 'alice'
    },
    args: ['--ingress', 'direct-loopback'],
    iface: 'notebook'
  }
];

/** Whether the record exists after a crash at each step (the step's name says what is done). */
const RECORD_AFTER: Record<CreationStep, boolean> = {
  'parents-created': false,
  'directory-created': false,
  'record-written': false,
  'record-linked': true,
  'temporary-removed': true
};

function envFor(
  s: CliSandbox,
  p: Platform,
  extra: Record<string, string> = {}
): Record<string, string> {
  return { ...s.env, ...p.env, PROJECT_STARTUP_TOKEN: TOKEN, ...extra };
}

/** POST initialize; a connection that dies with the process resolves as undefined. */
async function initialize(
  url: string,
  body: unknown
): Promise<HttpResult | undefined> {
  try {
    return await request(`${url}initialize`, {
      method: 'POST',
      token: TOKEN,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      newConnection: true
    });
  } catch {
    return undefined;
  }
}

/** What is on disk at the state path, judged as design.md asks: absent, or complete and valid. */
function inspectState(statePath: string): {
  record: unknown | undefined;
  leftovers: string[];
} {
  let entries: string[];
  try {
    const stat = fs.lstatSync(statePath);
    expect(stat.isDirectory()).toBe(true);
    expect(stat.mode & 0o777).toBe(0o700);
    entries = fs.readdirSync(statePath);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      return { record: undefined, leftovers: [] };
    }
    throw error;
  }
  const leftovers = entries.filter(e => e !== 'initialization.json');
  for (const name of leftovers) {
    // Only temporaries of the record may be left, and only private regular files of ours.
    expect(name).toMatch(/^\.initialization\.json\.\d+\.[0-9a-f]{16}\.tmp$/);
    const stat = fs.lstatSync(path.join(statePath, name));
    expect(stat.isFile()).toBe(true);
    expect(stat.mode & 0o777).toBe(0o600);
  }
  if (!entries.includes('initialization.json')) {
    return { record: undefined, leftovers };
  }
  const file = path.join(statePath, 'initialization.json');
  const stat = fs.lstatSync(file);
  expect(stat.isFile()).toBe(true);
  expect(stat.mode & 0o777).toBe(0o600);
  const record = JSON.parse(fs.readFileSync(file, 'utf8'));
  expectValid('InitializationRecord', record);
  return { record, leftovers };
}

describe.each(PLATFORMS)('a crash at each step of initialize: $name', p => {
  it.each([...CREATION_STEPS])(
    'killed at %s: the state is absent or complete, the phase says which, and initialize then completes',
    async step => {
      const s = sandbox();
      const crashing = await startServe(p.args, {
        env: envFor(s, p),
        cwd: s.projectDir,
        program: [CRASH_AT_STEP, 'serve', step]
      });
      expect(crashing.stderr()).toMatch(/TEST-ONLY fault injection armed/);
      const crashedPid = crashing.child.pid as number;
      const before = await request(
        `${crashing.url}startup?interface=${p.iface}`,
        { token: TOKEN }
      );
      expect(before.json.phase).toBe('awaiting-confirmation');
      const body = {
        interface: p.iface,
        confirm: {
          projectPath: before.json.projectPath,
          statePath: before.json.statePath
        }
      };
      const statePath: string = before.json.statePath;

      const answer = await initialize(crashing.url, body);
      expect(answer).toBeUndefined(); // the process died before answering
      await waitFor(
        () =>
          crashing.child.signalCode !== null ||
          crashing.child.exitCode !== null,
        { what: 'the crashing sidecar to exit', timeoutMs: 10000 }
      );
      expect(crashing.child.signalCode).toBe('SIGKILL');
      // Gone as a client sees it: its address refuses connections. Not judged by its pid: Node
      // reaped the process above, so the kernel may already have handed the pid to another.
      await expect(
        request(`${crashing.url}health`, { newConnection: true })
      ).rejects.toMatchObject({ code: 'ECONNREFUSED' });

      // With nothing running: absent or complete.
      const after = inspectState(statePath);
      expect(after.record !== undefined).toBe(RECORD_AFTER[step]);
      if (after.record !== undefined) {
        expect(after.record).toMatchObject({
          projectPath: body.confirm.projectPath,
          statePath,
          confirmation: { interface: p.iface }
        });
      }
      // The command line, with the dead process's runtime file still there, evaluates locally.
      const status = await runCli(
        ['status', '--json', '--interface', p.iface],
        { env: envFor(s, p), cwd: s.projectDir }
      );
      expect(status.code).toBe(0);
      const local = JSON.parse(status.stdout);
      expect(local.phase).toBe(
        RECORD_AFTER[step] ? 'ready' : 'awaiting-confirmation'
      );

      // Restarted without the hook.
      const restarted = await startServe(p.args, {
        env: envFor(s, p),
        cwd: s.projectDir
      });
      expect(restarted.stderr()).not.toMatch(/TEST-ONLY/);
      const projection = await request(
        `${restarted.url}startup?interface=${p.iface}`,
        { token: TOKEN }
      );
      expect(projection.status).toBe(200);
      expectValid('StartupProjection', projection.json);
      expect(projection.json.phase).toBe(
        RECORD_AFTER[step] ? 'ready' : 'awaiting-confirmation'
      );
      const check = projection.json.readinessChecks.find(
        (c: { id: string }) => c.id === 'state-path'
      );
      expect(check.status).toBe('pass');

      const pidTakenBefore = alive(crashedPid);
      const again = await initialize(restarted.url, body);
      const pidTaken = pidTakenBefore || alive(crashedPid);
      expect(again?.status).toBe(RECORD_AFTER[step] ? 200 : 201);
      expectValid('InitializeResponse', again?.json);
      expect(again?.json.phase).toBe('ready');
      if (after.record !== undefined) {
        expect(again?.json.record).toEqual(after.record);
      }
      const final = inspectState(statePath);
      expect(final.record).toEqual(again?.json.record);
      if (!RECORD_AFTER[step]) {
        // The creation that completed cleared the temporaries a crash left: all of them, unless
        // the kernel had already given the crashed writer's pid to another process. state.ts
        // never removes the temporary of a pid in use, so then it keeps that writer's, and only.
        const crashedWriters = new RegExp(
          `^\\.initialization\\.json\\.${crashedPid}\\.`
        );
        expect(
          final.leftovers.filter(
            name => !(pidTaken && crashedWriters.test(name))
          )
        ).toEqual([]);
      }
      expect((await restarted.stop()).code).toBe(0);
    },
    30000
  );
});

describe('a crash at each step of `init --local` on the cluster (its in-process initialize route)', () => {
  // With no service running, init creates the state through the initialize route served by its
  // own process: a kill of that process at each step leaves the state absent or complete too.
  it.each([...CREATION_STEPS])(
    'killed at %s: the state is absent or complete, and the next init completes it',
    async step => {
      const s = sandbox();
      const tmp = path.join(s.root, 'tmp');
      fs.mkdirSync(tmp, { mode: 0o700 });
      const env = {
        ...s.env,
        SLURM_JOB_ID: '4242',
        PROJECT_STARTUP_APPROVED_STORAGE: s.root,
        TMPDIR: tmp
      };
      const statePath = path.join(s.projectDir, '.project-startup');
      const crashed = await runProcess(
        '/usr/bin/python3',
        [TTY_STDIN, process.execPath, CRASH_AT_STEP, 'init', step, '--local'],
        {
          env: { PYTHONDONTWRITEBYTECODE: '1', ...env },
          cwd: s.projectDir,
          input: 'y\n'
        }
      );
      expect(crashed.stderr).toMatch(/TEST-ONLY fault injection armed/);
      expect(crashed.stderr).toMatch(/\[y\/N\]/);
      // tty-stdin.py exits 128 + the signal number for a child killed by a signal: 137, SIGKILL.
      expect(crashed.code).toBe(137);

      const after = inspectState(statePath);
      expect(after.record !== undefined).toBe(RECORD_AFTER[step]);
      if (after.record !== undefined) {
        expect(after.record).toMatchObject({
          statePath,
          confirmation: {
            interface: 'terminal',
            method: 'terminal-prompt',
            ingress: 'command-line'
          }
        });
      }
      const status = await runCli(['status', '--json'], {
        env,
        cwd: s.projectDir
      });
      expect(status.code).toBe(0);
      expect(JSON.parse(status.stdout).phase).toBe(
        RECORD_AFTER[step] ? 'ready' : 'awaiting-confirmation'
      );

      const again = await runCliInTty(['init', '--json'], {
        env,
        cwd: s.projectDir,
        input: 'y\n'
      });
      expect(again.code).toBe(0);
      const answer = JSON.parse(again.stdout);
      expect(answer.created).toBe(!RECORD_AFTER[step]);
      expect(answer.phase).toBe('ready');
      if (after.record !== undefined) {
        expect(answer.record).toEqual(after.record);
      }
      const final = inspectState(statePath);
      expect(final.record).toEqual(answer.record);
      // The completed run removed its own private socket directory; the killed one could not.
      expect(fs.readdirSync(tmp).length).toBe(1);
    },
    30000
  );
});

/** Every file below `dir` (the shipped sources and the built bundle). */
function filesBelow(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap(e =>
      e.isDirectory()
        ? filesBelow(path.join(dir, e.name))
        : [path.join(dir, e.name)]
    );
}

describe('the shipped program has no fault-injection switch', () => {
  it('no source of the sidecar or the Python package, nor the bundle, names a test variable', () => {
    const root = path.join(__dirname, '..', '..', '..');
    const shipped = [
      ...filesBelow(path.join(root, 'sidecar', 'src')),
      ...filesBelow(path.join(root, 'jupyterlab_project_startup')).filter(f =>
        f.endsWith('.py')
      ),
      ...filesBelow(path.join(root, 'sidecar', 'dist', 'bundle')).filter(f =>
        f.endsWith('.js')
      )
    ];
    expect(shipped.length).toBeGreaterThan(20);
    const naming = shipped.filter(f =>
      fs.readFileSync(f, 'latin1').includes('PROJECT_STARTUP_TEST_')
    );
    expect(naming).toEqual([]);
  });

  it('neither the former variable in its environment nor a request as header, query parameter or body member arms a crash', async () => {
    const s = sandbox();
    const server = await startServe([], {
      env: {
        ...s.env,
        PROJECT_STARTUP_TOKEN: TOKEN,
        [FORMER_SWITCH]: 'record-written'
      },
      cwd: s.projectDir
    });
    expect(server.stderr()).not.toMatch(/TEST-ONLY|fault injection/);
    const projection = await request(
      `${server.url}startup?interface=web&${FORMER_SWITCH}=record-written`,
      {
        token: TOKEN,
        headers: { [FORMER_SWITCH.toLowerCase()]: 'record-written' }
      }
    );
    const confirm = {
      projectPath: projection.json.projectPath,
      statePath: projection.json.statePath
    };
    const withMember = await request(
      `${server.url}initialize?${FORMER_SWITCH}=record-written`,
      {
        method: 'POST',
        token: TOKEN,
        headers: {
          'content-type': 'application/json',
          [FORMER_SWITCH.toLowerCase()]: 'record-written'
        },
        body: JSON.stringify({
          interface: 'web',
          confirm,
          [FORMER_SWITCH]: 'record-written'
        })
      }
    );
    expect(withMember.status).toBe(422); // an unknown member, refused like any other
    const created = await request(
      `${server.url}initialize?${FORMER_SWITCH}=record-written`,
      {
        method: 'POST',
        token: TOKEN,
        headers: {
          'content-type': 'application/json',
          [FORMER_SWITCH.toLowerCase()]: 'record-written'
        },
        body: JSON.stringify({ interface: 'web', confirm })
      }
    );
    expect(created.status).toBe(201);
    expect(alive(server.child.pid as number)).toBe(true);
    expect(tree(confirm.statePath)).toEqual(['initialization.json']);
    expect((await server.stop()).code).toBe(0);
  });
});
