// The cluster platform proven on a real single-node Slurm cluster (Debian slurm-wlm + munge,
// brought up by ./slurm.ts in a private temporary directory): what a person sees on the login
// node, inside salloc/srun/sbatch, when the job ends under a running service, outside the
// approved storage, and at the terminal confirmation of `project-startup init`.
// The command line runs as real child processes of bin/project-startup.js (run
// `npm run build:sidecar` first), with an explicit environment: SLURM_CONF names the private
// slurm.conf and PATH holds /usr/bin, where squeue lives. Nothing touches /etc/slurm.
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  BIN,
  CliSandbox,
  listTree,
  looksLikeStack,
  runCli,
  runProcess,
  RunResult,
  runLog,
  startServe,
  trackedSandboxes,
  TTY_STDIN
} from '../../helpers/cli';
import { request } from '../../helpers/harness';
import { SlurmCluster, startSlurmCluster } from './slurm';

jest.setTimeout(60000);

const NODE = process.execPath;
/** The user the tests, the services and the jobs they submit run as (root: see slurm.ts). */
const ME = os.userInfo().username;
const CLIENT_PATH = '/usr/bin:/bin';
/** The allocation hint for Slurm, as cluster.ts documents it; the tests only rely on `salloc`. */
const SALLOC = /^salloc(\s|$)/;

let cluster: SlurmCluster;

beforeAll(async () => {
  cluster = await startSlurmCluster();
  // PS_SLURM_TIMINGS=1 prints how long the cluster took to come up.
  if (process.env.PS_SLURM_TIMINGS) {
    process.stderr.write(
      `slurm cluster up in ${cluster.startupMs} ms (${cluster.auth})\n`
    );
  }
}, 60000);

afterAll(async () => {
  await cluster?.stop();
}, 60000);

const sandbox = trackedSandboxes();
const hex = () => randomBytes(4).toString('hex');
const jobName = (what: string) => `ps-${what}-${hex()}`;

interface Site {
  s: CliSandbox;
  project: string;
  /** The approved storage root (created), whether or not the project lies inside it. */
  storage: string;
  statePath: string;
  /** A login node's environment: SLURM_CONF, squeue on PATH, the approved roots. */
  env: Record<string, string>;
}

/**
 * A project on the cluster. `inside`: below the approved root; `outside`: next to it;
 * `unconfigured`: no approved roots at all.
 */
function site(where: 'inside' | 'outside' | 'unconfigured' = 'inside'): Site {
  const s = sandbox(
    where === 'inside' ? 'storage/alice/project' : 'scratch/alice/project'
  );
  const storage = path.join(s.root, 'storage');
  fs.mkdirSync(storage, { recursive: true });
  const env: Record<string, string> = {
    ...s.env,
    PATH: CLIENT_PATH,
    SLURM_CONF: cluster.conf,
    // squeue gets twice this bound; generous so a loaded machine never turns "live" into "failed".
    PROJECT_STARTUP_PROBE_TIMEOUT_MS: '4000'
  };
  if (where !== 'unconfigured') {
    env.PROJECT_STARTUP_APPROVED_STORAGE = storage;
  }
  return {
    s,
    project: s.projectDir,
    storage,
    statePath: path.join(s.projectDir, '.project-startup'),
    env
  };
}

function describeRun(r: RunResult): string {
  return `exit ${r.code} signal ${r.signal}${r.timedOut ? ' (timed out)' : ''}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`;
}

function expectExit(r: RunResult, code: number): void {
  if (r.code !== code) {
    throw new Error(
      `expected exit ${code}, got ${describeRun(r)}\n${cluster.logTail(10)}`
    );
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

/** status --json's projection; status exits 3 where setup cannot go on (blocked, unsupported). */
function json(r: RunResult, code = 0): Json {
  expectExit(r, code);
  try {
    return JSON.parse(r.stdout);
  } catch {
    throw new Error(`stdout is not JSON: ${describeRun(r)}`);
  }
}

function check(p: Json, id: string): Json {
  const found = (p.readinessChecks as Json[]).find(c => c.id === id);
  if (!found) {
    throw new Error(
      `no readiness check ${id} in ${JSON.stringify(p.readinessChecks)}`
    );
  }
  return found;
}

const signalNames = (p: Json): string[] =>
  (p.manifest.platform.evidence.signals as Json[]).map(s => s.name);

/**
 * `srun` running the command line as the job step's task, on this cluster's node. `tty`: the
 * command line's stdin is a pseudo-terminal (tty-stdin.py), as a person's terminal gives it.
 */
function srun(
  name: string,
  cliArgs: readonly string[],
  where: Site,
  extra: { input?: string; env?: Record<string, string>; tty?: boolean } = {}
) {
  const command = extra.tty
    ? ['/usr/bin/python3', TTY_STDIN, NODE, BIN, ...cliArgs]
    : [NODE, BIN, ...cliArgs];
  return runProcess(
    '/usr/bin/srun',
    ['-N1', '-n1', '-t', '5', '-J', name, '--quiet', ...command],
    {
      env: { ...where.env, PYTHONDONTWRITEBYTECODE: '1', ...extra.env },
      cwd: where.project,
      input: extra.input,
      timeoutMs: 30000
    }
  );
}

/** What every user inside a live Slurm allocation in approved storage sees. */
function expectLiveAllocation(p: Json, jobId: string, where: Site): void {
  expect(p.platform).toBe('cluster');
  expect(p.manifest.platform.evidence.decidedBy).toBe('batch-scheduler');
  expect(signalNames(p)).toEqual(
    expect.arrayContaining(['SLURM_JOB_ID', 'SLURM_CONF'])
  );
  expect(p.projectPath).toBe(where.project);
  expect(p.statePath).toBe(where.statePath);
  expect(p.compute).toMatchObject({
    model: 'batch-allocation',
    satisfied: true
  });
  expect(p.compute.allocation).toEqual({
    scheduler: 'slurm',
    jobId,
    live: true,
    state: 'RUNNING'
  });
  expect(p.phase).toBe('awaiting-confirmation');
  expect(p.nextAction).toMatchObject({
    id: 'confirm-initialization',
    command: 'project-startup init'
  });
  expect(p.nextAction.detail).toContain(where.statePath);
  expect(check(p, 'compute-allocation')).toMatchObject({
    status: 'pass',
    required: true
  });
  expect(check(p, 'compute-allocation').observed).toContain(
    `job ${jobId} is RUNNING`
  );
  expect(check(p, 'approved-storage')).toMatchObject({
    status: 'pass',
    required: true
  });
  expect(check(p, 'approved-storage').observed).toContain(where.storage);
  expect(check(p, 'platform-evidence').status).toBe('pass');
  expect(check(p, 'platform-evidence').observed).toContain('SLURM_JOB_ID');
  expect(p.confirmation).toMatchObject({
    required: true,
    confirmed: false,
    allowedInterfaces: ['terminal'],
    method: 'terminal-prompt'
  });
  expect(p.confirmation.creates).toEqual([where.statePath]);
}

describe('a login node: Slurm is configured (SLURM_CONF), no allocation', () => {
  it('status --json: cluster by batch-scheduler evidence, phase needs-compute, next action salloc', async () => {
    const where = site();
    const p = json(
      await runCli(['status', '--json'], { env: where.env, cwd: where.project })
    );

    expect(p.platform).toBe('cluster');
    expect(p.interface).toBe('terminal');
    expect(p.manifest.platform.id).toBe('cluster');
    expect(p.manifest.platform.evidence.decidedBy).toBe('batch-scheduler');
    expect(signalNames(p)).toContain('SLURM_CONF');
    expect(signalNames(p)).not.toContain('SLURM_JOB_ID');
    expect(p.projectPath).toBe(where.project);
    expect(p.statePath).toBe(where.statePath);
    expect(p.interfaceSupport).toMatchObject({
      supported: true,
      supportedInterfaces: ['terminal']
    });

    expect(p.phase).toBe('needs-compute');
    expect(p.nextAction.id).toBe('request-allocation');
    expect(p.nextAction.command).toMatch(SALLOC);
    expect(p.nextAction.detail).toContain(p.nextAction.command);
    expect(p.compute).toMatchObject({
      model: 'batch-allocation',
      satisfied: false,
      command: p.nextAction.command
    });
    expect(p.compute.allocation).toBeUndefined();

    const compute = check(p, 'compute-allocation');
    expect(compute).toMatchObject({ status: 'warn', required: true });
    expect(compute.observed).toMatch(/no batch allocation/i);
    expect(compute.remedy).toContain(p.nextAction.command);

    // Everything else a person needs is in order: only compute is missing.
    for (const id of [
      'platform-evidence',
      'interface-support',
      'project-path',
      'state-path',
      'approved-storage'
    ]) {
      expect(check(p, id)).toMatchObject({ status: 'pass', required: true });
    }
    expect(check(p, 'platform-evidence').observed).toContain('SLURM_CONF');
    expect(check(p, 'approved-storage').observed).toContain(where.storage);
    expect(check(p, 'browser-route').status).toBe('skip');
    expect(check(p, 'confirmation')).toMatchObject({
      status: 'warn',
      required: true
    });
    expect(p.confirmation).toMatchObject({
      confirmed: false,
      allowedInterfaces: ['terminal'],
      method: 'terminal-prompt'
    });
    expect(listTree(where.project)).toEqual([]);
  });

  it('human status says the same: needs-compute, the salloc command and the warning with its fix', async () => {
    const where = site();
    const r = await runCli(['status'], { env: where.env, cwd: where.project });
    expectExit(r, 0);
    expect(r.stderr).toBe('');
    expect(looksLikeStack(r.stdout)).toBe(false);
    expect(r.stdout).toMatch(
      /^Project startup: .+ \(cluster\), terminal interface$/m
    );
    expect(r.stdout).toMatch(/read directly/);
    expect(r.stdout).toContain(`Project    ${where.project}`);
    expect(r.stdout).toContain(`State      ${where.statePath}`);
    expect(r.stdout).toMatch(/^Phase\s+needs-compute$/m);
    expect(r.stdout).toMatch(/^Compute\s+.+: missing$/m);
    expect(r.stdout).toMatch(/^Next: Get a compute allocation$/m);
    expect(r.stdout).toMatch(/^ {2}\$ salloc /m);
    expect(r.stdout).toMatch(/\[warn\] Compute: No batch allocation/);
    expect(r.stdout).toMatch(/fix: Run `salloc /);
  });

  it('init refuses with exit 3 and names salloc; nothing is created', async () => {
    const where = site();
    const r = await runCli(['init'], {
      env: where.env,
      cwd: where.project,
      input: 'y\n'
    });
    expectExit(r, 3);
    expect(looksLikeStack(r.stdout + r.stderr)).toBe(false);
    expect(r.stderr).toContain('needs-compute');
    expect(r.stderr).toMatch(/`salloc /);
    expect(listTree(where.project)).toEqual([]);
  });

  it('the browser interfaces are not offered on the cluster: --interface web says to use the terminal', async () => {
    const where = site();
    const p = json(
      await runCli(['status', '--json', '--interface', 'web'], {
        env: where.env,
        cwd: where.project
      }),
      3
    );
    expect(p.phase).toBe('unsupported-interface');
    expect(p.nextAction.id).toBe('switch-interface');
    expect(p.nextAction.interfaces.map((i: Json) => i.id)).toEqual([
      'terminal'
    ]);
  });
});

describe('inside an allocation: the scheduler is asked and the phase moves on', () => {
  it('srun: status --json sees its own job live (RUNNING), phase awaiting-confirmation', async () => {
    const where = site();
    const name = jobName('srun');
    const p = json(await srun(name, ['status', '--json'], where));
    const jobId = await cluster.jobIdByName(name);
    expect(jobId).toMatch(/^\d+$/);
    expectLiveAllocation(p, jobId as string, where);
    // The step ended with the command, and the scheduler agrees the job is over.
    expect(await cluster.waitForJobState(jobId as string, ['COMPLETED'])).toBe(
      'COMPLETED'
    );
    expect(listTree(where.project)).toEqual([]);
  });

  it('salloc with the command the login node printed: inside it, srun and the salloc shell both see the job live', async () => {
    const where = site();
    const login = json(
      await runCli(['status', '--json'], { env: where.env, cwd: where.project })
    );
    const [salloc, ...sallocArgs] = (login.nextAction.command as string).split(
      /\s+/
    );
    expect(salloc).toBe('salloc');

    const name = jobName('salloc');
    const viaSrun = await runProcess(
      '/usr/bin/salloc',
      [
        ...sallocArgs,
        '-J',
        name,
        '/usr/bin/srun',
        '--quiet',
        NODE,
        BIN,
        'status',
        '--json'
      ],
      { env: where.env, cwd: where.project, timeoutMs: 30000 }
    );
    const granted = /Granted job allocation (\d+)/.exec(viaSrun.stderr)?.[1];
    expect(granted).toBeDefined();
    expectLiveAllocation(json(viaSrun), granted as string, where);

    // The command salloc runs itself (on the login node, in the allocation's environment).
    const shellName = jobName('salloc-shell');
    const inShell = await runProcess(
      '/usr/bin/salloc',
      [...sallocArgs, '-J', shellName, NODE, BIN, 'status', '--json'],
      {
        env: where.env,
        cwd: where.project,
        timeoutMs: 30000
      }
    );
    const shellJob = /Granted job allocation (\d+)/.exec(inShell.stderr)?.[1];
    expect(shellJob).toBeDefined();
    expect(shellJob).not.toBe(granted);
    expectLiveAllocation(json(inShell), shellJob as string, where);
  });

  it('sbatch: a batch job writes status --json to its output file; the job is live in it', async () => {
    const where = site();
    const name = jobName('sbatch');
    const script = path.join(where.s.root, 'status.sbatch');
    const output = path.join(where.s.root, 'status.out');
    const errors = path.join(where.s.root, 'status.err');
    fs.writeFileSync(
      script,
      `#!/bin/sh\nexec '${NODE}' '${BIN}' status --json\n`,
      { mode: 0o755 }
    );
    const submitted = await runProcess(
      '/usr/bin/sbatch',
      [
        '--parsable',
        '-N1',
        '-n1',
        '-t',
        '5',
        '-J',
        name,
        '-o',
        output,
        '-e',
        errors,
        `--chdir=${where.project}`,
        script
      ],
      { env: where.env, cwd: where.project, timeoutMs: 20000 }
    );
    expectExit(submitted, 0);
    const jobId = submitted.stdout.trim().split(';')[0];
    expect(jobId).toMatch(/^\d+$/);
    const finished = await cluster.waitForJobState(jobId, [
      'COMPLETED',
      'FAILED',
      'CANCELLED',
      'TIMEOUT',
      'NODE_FAIL',
      'OUT_OF_MEMORY'
    ]);
    const out = fs.readFileSync(output, 'utf8');
    if (finished !== 'COMPLETED') {
      throw new Error(
        `batch job ${jobId} ended ${finished}\n--- out\n${out}\n--- err\n${fs.readFileSync(errors, 'utf8')}`
      );
    }
    expectLiveAllocation(JSON.parse(out), jobId, where);
  });
});

describe('the same long-running service sees the allocation end', () => {
  it('serve started in an allocation says live; after scancel the same process says it is gone (needs-compute)', async () => {
    const where = site();
    const jobId = await cluster.allocate(jobName('serve'));
    const token = `tok-${hex()}${hex()}${hex()}${hex()}`;
    const env = {
      ...where.env,
      SLURM_JOB_ID: jobId,
      PROJECT_STARTUP_TOKEN: token
    };
    const server = await startServe([], {
      env,
      cwd: where.project,
      timeoutMs: 15000
    });
    const startup = async () => {
      const r = await request(`${server.url}startup?interface=terminal`, {
        token
      });
      expect(r.status).toBe(200);
      return r.json as Json;
    };

    const before = await startup();
    expectLiveAllocation(before, jobId, where);
    // The command line in another terminal is answered by this service.
    const viaCli = await runCli(['status'], { env, cwd: where.project });
    expectExit(viaCli, 0);
    expect(viaCli.stdout).toContain(`answered by the service at ${server.url}`);
    expect(viaCli.stdout).toMatch(/^Phase\s+awaiting-confirmation$/m);

    await cluster.cancel(jobId);
    expect(await cluster.waitForJobState(jobId, ['CANCELLED'])).toBe(
      'CANCELLED'
    );

    // Liveness is cached for about 2 s: poll (bounded) until the service notices.
    const deadline = Date.now() + 30000;
    let after = await startup();
    while (after.compute.allocation?.live !== false && Date.now() < deadline) {
      await new Promise(resolve => setTimeout(resolve, 250));
      after = await startup();
    }
    expect(after.compute.allocation).toEqual({
      scheduler: 'slurm',
      jobId,
      live: false,
      state: 'CANCELLED'
    });
    expect(after.compute.satisfied).toBe(false);
    expect(after.compute.detail).toContain(`Allocation ${jobId} is not live`);
    expect(after.compute.detail).toContain('CANCELLED');
    expect(after.phase).toBe('needs-compute');
    expect(after.nextAction.id).toBe('request-allocation');
    expect(after.nextAction.command).toMatch(SALLOC);
    const compute = check(after, 'compute-allocation');
    expect(compute).toMatchObject({ status: 'warn', required: true });
    expect(compute.remedy).toContain(after.nextAction.command);
    expect(server.child.exitCode).toBeNull();

    const later = await runCli(['status'], { env, cwd: where.project });
    expectExit(later, 0);
    expect(later.stdout).toContain(`(pid ${server.child.pid})`);
    expect(later.stdout).toMatch(/^Phase\s+needs-compute$/m);
    expect(later.stdout).toMatch(/^ {2}\$ salloc /m);

    const stopped = await server.stop();
    expect(stopped.timedOut).toBe(false);
    expect(listTree(where.project)).toEqual([]);
  });
});

describe("the ordinary path: the service on the login node, the person in salloc's default shell", () => {
  it('inside the allocation status and init reach ready through the login-node service; when the job ends it is needs-compute again', async () => {
    const where = site();
    const token = `tok-${hex()}${hex()}${hex()}${hex()}`;
    // The login node: Slurm configured, no allocation; the service runs here.
    const loginEnv = { ...where.env, PROJECT_STARTUP_TOKEN: token };
    const server = await startServe([], {
      env: loginEnv,
      cwd: where.project,
      timeoutMs: 15000
    });
    const login = json(
      await runCli(['status', '--json'], { env: loginEnv, cwd: where.project })
    );
    expect(login.phase).toBe('needs-compute');
    expect(check(login, 'gateway-ingress').observed).toContain(
      `:${server.port}`
    );
    const [salloc, ...sallocArgs] = (login.nextAction.command as string).split(
      /\s+/
    );
    expect(salloc).toBe('salloc');

    // salloc without a command: Slurm's default, a shell on the login node in the allocation's
    // environment. The person types into it; here its stdin is the script.
    const out = (name: string) => path.join(where.s.root, name);
    const script = [
      `echo "$SLURM_JOB_ID" > '${out('job')}'`,
      `'${NODE}' '${BIN}' status --json > '${out('inside.json')}' 2> '${out('inside.err')}'; echo "status $?" >> '${out('codes')}'`,
      `printf 'y\\n' | /usr/bin/python3 '${TTY_STDIN}' '${NODE}' '${BIN}' init > '${out('init.out')}' 2> '${out('init.err')}'; echo "init $?" >> '${out('codes')}'`,
      `'${NODE}' '${BIN}' status --json > '${out('ready.json')}' 2> '${out('ready.err')}'; echo "ready $?" >> '${out('codes')}'`,
      'exit 0',
      ''
    ].join('\n');
    const shell = await runProcess(
      '/usr/bin/salloc',
      [...sallocArgs, '-J', jobName('login-shell')],
      {
        env: { ...loginEnv, SHELL: '/bin/sh', PYTHONDONTWRITEBYTECODE: '1' },
        cwd: where.project,
        input: script,
        timeoutMs: 60000
      }
    );
    const read = (name: string) =>
      fs.existsSync(out(name))
        ? fs.readFileSync(out(name), 'utf8')
        : `(no ${name})`;
    const story = () =>
      `${describeRun(shell)}\n--- codes\n${read('codes')}\n--- inside.err\n${read('inside.err')}\n--- init.out\n${read('init.out')}\n--- init.err\n${read('init.err')}`;
    const jobId = /Granted job allocation (\d+)/.exec(shell.stderr)?.[1];
    if (
      jobId === undefined ||
      read('codes') !== 'status 0\ninit 0\nready 0\n'
    ) {
      throw new Error(
        `the salloc shell did not go as a person's would:\n${story()}`
      );
    }
    expect(read('job').trim()).toBe(jobId);

    // Inside: the login-node service answered, with the shell's job verified by the scheduler.
    const inside = JSON.parse(read('inside.json'));
    expect(check(inside, 'gateway-ingress').observed).toContain(
      `:${server.port}`
    );
    expect(inside.compute.allocation).toEqual({
      scheduler: 'slurm',
      jobId,
      live: true,
      state: 'RUNNING'
    });
    expect(inside.phase).toBe('awaiting-confirmation');
    expect(inside.nextAction).toMatchObject({
      id: 'confirm-initialization',
      command: 'project-startup init'
    });
    expect(inside.nextAction.request).toBeUndefined();
    expect(read('init.err')).toContain('[y/N]');
    expect(read('init.out')).toContain(
      `Created: ${where.statePath} (phase ready)`
    );
    const ready = JSON.parse(read('ready.json'));
    expect(ready.phase).toBe('ready');
    // The service created the state; the prompt was answered on a TTY (the command line's key).
    expect(ready.confirmation.record.confirmation).toMatchObject({
      interface: 'terminal',
      method: 'terminal-prompt',
      ingress: 'direct-loopback'
    });

    // The shell exited: the job is over. From the login node, and from a shell that still names
    // the finished job, the same service says needs-compute again.
    expect(await cluster.waitForJobState(jobId, ['COMPLETED'])).toBe(
      'COMPLETED'
    );
    const fromLogin = json(
      await runCli(['status', '--json'], { env: loginEnv, cwd: where.project })
    );
    expect(fromLogin.phase).toBe('needs-compute');
    const staleEnv = { ...loginEnv, SLURM_JOB_ID: jobId };
    const deadline = Date.now() + 30000;
    let stale = json(
      await runCli(['status', '--json'], { env: staleEnv, cwd: where.project })
    );
    while (stale.compute.allocation?.live !== false && Date.now() < deadline) {
      await new Promise(resolve => setTimeout(resolve, 250));
      stale = json(
        await runCli(['status', '--json'], {
          env: staleEnv,
          cwd: where.project
        })
      );
    }
    expect(stale.compute.allocation).toEqual({
      scheduler: 'slurm',
      jobId,
      live: false,
      state: 'COMPLETED'
    });
    expect(stale.phase).toBe('needs-compute');
    expect(stale.nextAction.command).toMatch(SALLOC);
    expect(server.child.exitCode).toBeNull();
    expect((await server.stop()).timedOut).toBe(false);
  });
});

describe('a job id the scheduler does not know', () => {
  it('SLURM_JOB_ID=999999: not live, phase needs-compute with the salloc hint', async () => {
    expect(await cluster.jobState('999999')).toBeUndefined();
    const where = site();
    const p = json(
      await runCli(['status', '--json'], {
        env: { ...where.env, SLURM_JOB_ID: '999999' },
        cwd: where.project
      })
    );
    expect(p.platform).toBe('cluster');
    expect(p.compute.allocation).toMatchObject({
      scheduler: 'slurm',
      jobId: '999999',
      live: false
    });
    expect(p.compute.allocation.state).toBeUndefined();
    expect(p.compute.satisfied).toBe(false);
    expect(p.compute.detail).toContain('999999');
    expect(p.phase).toBe('needs-compute');
    expect(p.nextAction.id).toBe('request-allocation');
    expect(p.nextAction.command).toMatch(SALLOC);
    expect(check(p, 'compute-allocation')).toMatchObject({
      status: 'warn',
      required: true
    });
  });
});

describe('approved storage, with a live allocation', () => {
  let held: string;
  beforeAll(async () => {
    held = await cluster.allocate(jobName('held'));
  });
  afterAll(async () => {
    if (held) {
      await cluster.cancel(held);
    }
  });

  it('outside the approved roots (srun): blocked, fix-check on approved-storage naming the roots; init exits 3', async () => {
    const where = site('outside');
    const name = jobName('outside');
    const p = json(await srun(name, ['status', '--json'], where), 3);
    const jobId = await cluster.jobIdByName(name);
    expect(p.platform).toBe('cluster');
    // The allocation is fine; the storage is what blocks.
    expect(p.compute.allocation).toEqual({
      scheduler: 'slurm',
      jobId,
      live: true,
      state: 'RUNNING'
    });
    expect(check(p, 'compute-allocation').status).toBe('pass');
    expect(p.phase).toBe('blocked');
    expect(p.nextAction).toMatchObject({
      id: 'fix-check',
      checkId: 'approved-storage'
    });
    expect(p.nextAction.detail).toContain(where.storage);
    const storage = check(p, 'approved-storage');
    expect(storage).toMatchObject({ status: 'fail', required: true });
    expect(storage.observed).toContain(where.project);
    expect(storage.observed).toContain(where.storage);
    expect(storage.remedy).toContain(where.storage);

    const r = await runCli(['init'], {
      env: { ...where.env, SLURM_JOB_ID: held },
      cwd: where.project,
      input: 'y\n'
    });
    expectExit(r, 3);
    expect(r.stderr).toContain('blocked');
    expect(r.stderr).toContain(where.storage);
    expect(looksLikeStack(r.stdout + r.stderr)).toBe(false);
    expect(listTree(where.project)).toEqual([]);
  });

  it('no approved roots configured: blocked, the remedy asks for PROJECT_STARTUP_APPROVED_STORAGE; init exits 3', async () => {
    const where = site('unconfigured');
    const env = { ...where.env, SLURM_JOB_ID: held };
    const p = json(
      await runCli(['status', '--json'], { env, cwd: where.project }),
      3
    );
    expect(p.compute.allocation).toEqual({
      scheduler: 'slurm',
      jobId: held,
      live: true,
      state: 'RUNNING'
    });
    expect(p.phase).toBe('blocked');
    expect(p.nextAction).toMatchObject({
      id: 'fix-check',
      checkId: 'approved-storage'
    });
    expect(p.nextAction.detail).toContain('PROJECT_STARTUP_APPROVED_STORAGE');
    expect(check(p, 'approved-storage')).toMatchObject({
      status: 'fail',
      required: true
    });

    const r = await runCli(['init'], { env, cwd: where.project, input: 'y\n' });
    expectExit(r, 3);
    expect(r.stderr).toContain('PROJECT_STARTUP_APPROVED_STORAGE');
    expect(listTree(where.project)).toEqual([]);
  });
});

describe('project-startup init at the terminal prompt, inside approved storage and an allocation', () => {
  it('answering "y" inside srun creates the private state; a second init says already set up', async () => {
    const where = site();
    const name = jobName('init');
    // No service runs: init serves POST /project/initialize from its own process, on a socket in
    // a private directory of $TMPDIR that it removes when done.
    const tmp = fs.mkdtempSync(path.join(where.storage, 'tmp-'));
    fs.utimesSync(tmp, 1000, 1000); // its modification time moves when an entry comes and goes
    const r = await srun(name, ['init'], where, {
      input: 'y\n',
      tty: true,
      env: { TMPDIR: tmp }
    });
    expectExit(r, 0);
    expect(fs.readdirSync(tmp)).toEqual([]);
    expect(fs.statSync(tmp).mtimeMs).toBeGreaterThan(1000 * 1000);
    expect(r.stdout).toContain(`Project:  ${where.project}`);
    expect(r.stdout).toContain(`${where.statePath}/initialization.json`);
    expect(r.stdout).toContain(`Created: ${where.statePath} (phase ready)`);
    expect(r.stderr).toContain('[y/N]');

    const stat = fs.lstatSync(where.statePath);
    expect(stat.isDirectory()).toBe(true);
    expect(stat.mode & 0o777).toBe(0o700);
    expect(fs.readdirSync(where.statePath)).toEqual(['initialization.json']);
    const recordFile = path.join(where.statePath, 'initialization.json');
    expect(fs.lstatSync(recordFile).mode & 0o777).toBe(0o600);
    const record = JSON.parse(fs.readFileSync(recordFile, 'utf8'));
    expect(record).toMatchObject({
      kind: 'project-startup-state',
      platform: 'cluster',
      projectPath: where.project,
      statePath: where.statePath,
      confirmation: {
        interface: 'terminal',
        method: 'terminal-prompt',
        ingress: 'command-line'
      }
    });
    expect(Number.isNaN(Date.parse(record.confirmation.confirmedAt))).toBe(
      false
    );

    const again = await srun(jobName('init-again'), ['init'], where, {
      input: 'y\n',
      tty: true
    });
    expectExit(again, 0);
    expect(again.stdout).toContain('Already set up');
    expect(JSON.parse(fs.readFileSync(recordFile, 'utf8'))).toEqual(record);

    const p = json(await srun(jobName('ready'), ['status', '--json'], where));
    expect(p.phase).toBe('ready');
    expect(p.nextAction.id).toBe('none');
    expect(p.confirmation).toMatchObject({ confirmed: true, record });
    expect(check(p, 'state-path').status).toBe('pass');
    expect(check(p, 'confirmation').status).toBe('pass');
  });

  it('answering "n" creates nothing and exits 4', async () => {
    const where = site();
    const r = await srun(jobName('init-no'), ['init'], where, {
      input: 'n\n',
      tty: true
    });
    expectExit(r, 4);
    expect(r.stdout).toContain(where.statePath);
    expect(r.stdout).toMatch(/Declined; nothing was created/);
    expect(listTree(where.project)).toEqual([]);
  });
});

describe('PBS, LSF and Flux allocations whose scheduler client is absent here', () => {
  const cases = [
    {
      variable: 'PBS_JOBID',
      jobId: '4242.pbs01',
      scheduler: 'pbs',
      client: 'qstat'
    },
    { variable: 'LSB_JOBID', jobId: '4242', scheduler: 'lsf', client: 'bjobs' },
    // The ASCII F58 form Flux uses outside a UTF-8 locale.
    {
      variable: 'FLUX_JOB_ID',
      jobId: 'fD7j8aT',
      scheduler: 'flux',
      client: 'flux'
    }
  ] as const;

  it.each(cases)(
    '$variable: cluster platform, allocation $scheduler with liveness unknown (null)',
    async c => {
      const s = sandbox('storage/project');
      const storage = path.join(s.root, 'storage');
      // s.env's PATH is an empty directory: no qstat, bjobs, flux (nor squeue) can be found.
      const env = {
        ...s.env,
        PROJECT_STARTUP_APPROVED_STORAGE: storage,
        [c.variable]: c.jobId
      };
      const p = json(
        await runCli(['status', '--json'], { env, cwd: s.projectDir })
      );
      expect(p.platform).toBe('cluster');
      expect(p.manifest.platform.evidence.decidedBy).toBe('batch-scheduler');
      expect(signalNames(p)).toContain(c.variable);
      expect(p.compute.allocation).toEqual({
        scheduler: c.scheduler,
        jobId: c.jobId,
        live: null
      });
      const compute = check(p, 'compute-allocation');
      expect(compute).toMatchObject({ status: 'warn', required: true });
      expect(compute.observed).toContain(c.client);
      expect(compute.observed).toMatch(/liveness is unknown/);
      // The variable is the best evidence there is: setup may go on.
      expect(p.compute.satisfied).toBe(true);
      expect(p.phase).toBe('awaiting-confirmation');
    }
  );

  it('FLUX_JOB_ID in the F58 form Flux sets in a UTF-8 locale ("ƒ" prefix): liveness unknown, not "malformed"', async () => {
    // flux-environment(7): FLUX_JOB_ID is "the current jobid in F58 form"; F58 starts with
    // U+0192 "ƒ" wherever the locale is multibyte (flux-core fluid.c), e.g. ƒD7j8aT.
    const s = sandbox('storage/project');
    const env = {
      ...s.env,
      PROJECT_STARTUP_APPROVED_STORAGE: path.join(s.root, 'storage'),
      FLUX_JOB_ID: 'ƒD7j8aT'
    };
    const p = json(
      await runCli(['status', '--json'], { env, cwd: s.projectDir })
    );
    expect(p.platform).toBe('cluster');
    expect(p.compute.allocation).toEqual({
      scheduler: 'flux',
      jobId: 'ƒD7j8aT',
      live: null
    });
    expect(check(p, 'compute-allocation').observed).toMatch(
      /liveness is unknown/
    );
    expect(p.phase).toBe('awaiting-confirmation');
  });
});

describe('PBS, LSF and Flux clients answering for a running job (stand-in clients printing their documented output)', () => {
  // Not real schedulers: each stand-in prints what the real client prints for a running job,
  // so the state mapping of observe/allocation.ts is checked end to end. (s.env's PATH holds only them.)
  const FLUX_JOBS = [
    '#!/bin/sh',
    '# `flux jobs [-n] -o FORMAT ID` for a running job, per flux-jobs(1): status RUNNING,',
    '# status_abbrev R, state RUN, state_single R.',
    '[ "$1" = jobs ] || exit 1',
    "fmt='{status_abbrev}'",
    'while [ $# -gt 0 ]; do',
    '  case "$1" in',
    '    -o|--format) fmt="$2"; shift 2 ;;',
    '    --format=*) fmt="${1#--format=}"; shift ;;',
    '    *) shift ;;',
    '  esac',
    'done',
    `printf '%s\\n' "$fmt" | /bin/sed -e 's/{username[^}]*}/${ME}/g' -e 's/{status_abbrev[^}]*}/R/g' -e 's/{status[^}]*}/RUNNING/g' -e 's/{state_single[^}]*}/R/g' -e 's/{state[^}]*}/RUN/g'`,
    ''
  ].join('\n');
  const cases = [
    // qstat -f -x ID: the full record, with "job_state = R" for a running job of ME.
    {
      variable: 'PBS_JOBID',
      jobId: '4242.pbs01',
      scheduler: 'pbs',
      client: 'qstat',
      script: `#!/bin/sh\nprintf 'Job Id: 4242.pbs01\\n    Job_Owner = ${ME}@login01\\n    job_state = R\\n'\n`,
      states: ['R']
    },
    // bjobs -noheader -o 'stat user' ID: "RUN <user>".
    {
      variable: 'LSB_JOBID',
      jobId: '4242',
      scheduler: 'lsf',
      client: 'bjobs',
      script: `#!/bin/sh\nprintf 'RUN ${ME}\\n'\n`,
      states: ['RUN']
    },
    {
      variable: 'FLUX_JOB_ID',
      jobId: 'fD7j8aT',
      scheduler: 'flux',
      client: 'flux',
      script: FLUX_JOBS,
      states: ['R', 'RUN', 'RUNNING']
    }
  ] as const;

  it.each(cases)(
    '$client answering for a running job: the $scheduler allocation is live',
    async c => {
      const s = sandbox('storage/project');
      fs.writeFileSync(path.join(s.bin, c.client), c.script, { mode: 0o755 });
      const env = {
        ...s.env,
        PROJECT_STARTUP_APPROVED_STORAGE: path.join(s.root, 'storage'),
        [c.variable]: c.jobId
      };
      const p = json(
        await runCli(['status', '--json'], { env, cwd: s.projectDir })
      );
      expect(p.compute.allocation).toMatchObject({
        scheduler: c.scheduler,
        jobId: c.jobId,
        live: true
      });
      expect(c.states).toContain(p.compute.allocation.state);
      expect(check(p, 'compute-allocation').status).toBe('pass');
      expect(p.phase).toBe('awaiting-confirmation');
    }
  );
});

describe('the terminal names its job to the login-node service: bounded scheduler queries, only the own job counts', () => {
  /**
   * serve on the login node with a PATH shim in front of the real squeue: the shim logs each
   * start and end to a file, then runs /usr/bin/squeue with the same arguments.
   */
  async function shimmedService(where: Site) {
    const shim = path.join(where.s.root, 'shim');
    const runs = runLog(path.join(where.s.root, 'squeue.log'));
    const log = runs.file;
    fs.mkdirSync(shim);
    fs.writeFileSync(
      path.join(shim, 'squeue'),
      [
        '#!/bin/sh',
        '# PATH shim (test only): counts the runs, then asks the real squeue.',
        `echo "start $$" >> '${log}'`,
        '/usr/bin/squeue "$@"',
        'code=$?',
        `echo "end $$" >> '${log}'`,
        'exit $code',
        ''
      ].join('\n'),
      { mode: 0o755 }
    );
    const token = `tok-${hex()}${hex()}${hex()}${hex()}`;
    const server = await startServe([], {
      env: {
        ...where.env,
        PATH: `${shim}:${CLIENT_PATH}`,
        PROJECT_STARTUP_TOKEN: token
      },
      cwd: where.project,
      timeoutMs: 15000
    });
    return {
      server,
      token,
      claim: (jobId: string) =>
        request(
          `${server.url}startup?interface=terminal&allocation=slurm:${jobId}`,
          { token }
        ),
      ...runs
    };
  }

  it('30 claims with distinct job ids run squeue at most 6 times (the per-client limit), at most 2 at once; the rest are 429 rate-limited', async () => {
    const where = site();
    const own = await cluster.allocate(jobName('claims'));
    const svc = await shimmedService(where);
    const began = Date.now();
    const first = await svc.claim(own);
    expect(first.status).toBe(200);
    expect(first.json.compute.allocation).toEqual({
      scheduler: 'slurm',
      jobId: own,
      live: true,
      state: 'RUNNING'
    });
    // Then 29 ids the scheduler does not know, 6 requests at a time.
    const ids = Array.from({ length: 29 }, (_, i) => String(900000 + i));
    const answers = [];
    for (let i = 0; i < ids.length; i += 6) {
      answers.push(
        ...(await Promise.all(ids.slice(i, i + 6).map(id => svc.claim(id))))
      );
    }
    const elapsedSeconds = (Date.now() - began) / 1000;
    const allowed = 6 + Math.ceil((elapsedSeconds * 6) / 60);
    const until = Date.now() + 20000;
    while (svc.ends() < svc.starts() && Date.now() < until) {
      await new Promise(resolve => setTimeout(resolve, 100));
    }
    // PS_SLURM_TIMINGS=1 prints the figure for the report.
    if (process.env.PS_SLURM_TIMINGS) {
      process.stderr.write(
        `30 distinct claims: ${svc.starts()} squeue runs, at most ${svc.mostAtOnce()} at once, ${answers.filter(r => r.status === 429).length} answered 429\n`
      );
    }
    expect(svc.starts()).toBeLessThanOrEqual(allowed);
    expect(svc.mostAtOnce()).toBeLessThanOrEqual(2);
    for (const r of answers) {
      if (r.status === 200) {
        expect(r.json.compute.allocation.live).toBe(false);
        expect(r.json.phase).toBe('needs-compute');
      } else {
        expect(r.status).toBe(429);
        expect(r.json.code).toBe('rate-limited');
        expect(Number(r.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      }
    }
    expect(answers.filter(r => r.status === 429).length).toBeGreaterThan(0);
    expect(svc.server.child.exitCode).toBeNull();
    expect((await svc.server.stop()).timedOut).toBe(false);
  });

  it("a running job of another user (uid 65534) is not this person's allocation: not live, needs-compute, the owner named", async () => {
    const where = site();
    // The job is nobody's: salloc runs as uid 65534 (setpriv; this test runs as root), from
    // /tmp, a directory that user may enter (Slurm 22.05's salloc has no --uid).
    const name = jobName('nobody');
    const submitted = await runProcess(
      '/usr/bin/setpriv',
      [
        '--reuid=65534',
        '--regid=65534',
        '--clear-groups',
        '/usr/bin/salloc',
        '--no-shell',
        '-N1',
        '-n1',
        '-t',
        '10',
        '-J',
        name
      ],
      { env: cluster.env, cwd: '/tmp', timeoutMs: 30000 }
    );
    const jobId = /Granted job allocation (\d+)/.exec(submitted.stderr)?.[1];
    if (jobId === undefined) {
      throw new Error(
        `salloc as uid 65534 did not grant an allocation: ${describeRun(submitted)}\n${cluster.logTail(10)}`
      );
    }
    const owner = await cluster.slurm('squeue', [
      '-h',
      '-j',
      jobId,
      '-o',
      '%u'
    ]);
    const other = owner.stdout.trim();
    expect(other).not.toBe(ME);
    expect(await cluster.waitForJobState(jobId, ['RUNNING'])).toBe('RUNNING');

    const svc = await shimmedService(where);
    const r = await svc.claim(jobId);
    expect(r.status).toBe(200);
    const p = r.json as Json;
    expect(p.compute.allocation).toEqual({
      scheduler: 'slurm',
      jobId,
      live: false,
      state: 'RUNNING'
    });
    expect(p.compute.satisfied).toBe(false);
    expect(p.compute.detail).toContain(
      `Job ${jobId} is not your allocation: job ${jobId} belongs to ${other}, not to ${ME}.`
    );
    expect(p.phase).toBe('needs-compute');
    expect(p.nextAction.command).toMatch(SALLOC);
    const compute = check(p, 'compute-allocation');
    expect(compute).toMatchObject({ status: 'warn', required: true });
    expect(compute.observed).toBe(p.compute.detail);
    expect(compute.remedy).toContain(p.nextAction.command);

    // The command line in a shell that names that job says the same.
    const viaCli = json(
      await runCli(['status', '--json'], {
        env: {
          ...where.env,
          SLURM_JOB_ID: jobId,
          PROJECT_STARTUP_TOKEN: svc.token
        },
        cwd: where.project
      })
    );
    expect(viaCli.compute.allocation.live).toBe(false);
    expect(viaCli.phase).toBe('needs-compute');
    await cluster.cancel(jobId);
    expect((await svc.server.stop()).timedOut).toBe(false);
  });
});
