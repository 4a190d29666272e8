// The terminal names the job it runs in (`allocation=slurm:1234`) and the service asks the
// scheduler about it. Attack: an authenticated caller varies the job id, and every new id used
// to start one more scheduler client process (CPU and process table on a shared login node,
// load on the scheduler's controller). And a job of another user was reported as live compute.
//
// The service runs for real (`project-startup serve`, a child process, loopback). squeue on its
// PATH is a STAND-IN (no Slurm runs for this suite; test/system/cluster asks the real one): a shell
// script that logs each start and end to a file and answers as `squeue -h -j ID -o '%T %u'`
// does for a running job, "RUNNING <owner>". The log counts the processes the service spawned.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runLog, startServe, trackedSandboxes } from '../../helpers/cli';
import { HttpResult, request } from '../../helpers/harness';
import { waitFor } from '../../helpers/wait';

jest.setTimeout(60000);

const sandbox = trackedSandboxes();
const ME = os.userInfo().username;

interface Scene {
  url: string;
  token: string;
  /** Processes the stand-in squeue ran as so far. */
  spawns(): number;
  /** The most stand-in processes that ran at the same time. */
  mostAtOnce(): number;
  /** The arguments of each run. */
  calls(): string[];
  stop(): Promise<{ timedOut: boolean }>;
  alive(): boolean;
}

/** serve on a cluster login node (SLURM_CONF set, no allocation) with the stand-in squeue. */
async function scene(options: {
  owner?: string;
  sleepSeconds?: string;
  env?: Record<string, string>;
}): Promise<Scene> {
  const s = sandbox('storage/project');
  const runs = runLog(path.join(s.root, 'squeue.log'));
  const log = runs.file;
  const args = path.join(s.root, 'squeue.args');
  fs.writeFileSync(args, '');
  fs.writeFileSync(
    path.join(s.bin, 'squeue'),
    [
      '#!/bin/sh',
      '# STAND-IN for squeue (test only): logs its start and end, answers for a running job.',
      `echo "start $$" >> '${log}'`,
      `printf '%s\\n' "$*" >> '${args}'`,
      `/bin/sleep ${options.sleepSeconds ?? '0.2'}`,
      `echo "end $$" >> '${log}'`,
      `printf '%s\\n' 'RUNNING ${options.owner ?? ME}'`,
      ''
    ].join('\n'),
    { mode: 0o755 }
  );
  const token = `tok-${Math.random().toString(36).slice(2)}-${Date.now()}`;
  const conf = path.join(s.root, 'slurm.conf');
  fs.writeFileSync(conf, '# evidence only\n');
  const server = await startServe([], {
    env: {
      ...s.env,
      SLURM_CONF: conf,
      PROJECT_STARTUP_APPROVED_STORAGE: path.join(s.root, 'storage'),
      PROJECT_STARTUP_TOKEN: token,
      // squeue gets twice this bound; generous so a loaded machine never turns "live" into "failed".
      PROJECT_STARTUP_PROBE_TIMEOUT_MS: '5000',
      ...options.env
    },
    cwd: s.projectDir,
    timeoutMs: 15000
  });
  return {
    url: server.url,
    token,
    spawns: runs.starts,
    mostAtOnce: runs.mostAtOnce,
    calls: () => fs.readFileSync(args, 'utf8').split('\n').filter(Boolean),
    stop: () => server.stop(),
    alive: () => server.child.exitCode === null
  };
}

function claim(sc: Scene, jobId: string): Promise<HttpResult> {
  return request(
    `${sc.url}startup?interface=terminal&allocation=slurm:${jobId}`,
    { token: sc.token }
  );
}

/** `project.startup` for the terminal interface with `allocation`, through the JSON-RPC gateway. */
function startupOverGateway(
  service: { url: string; token: string },
  allocation: string
): Promise<HttpResult> {
  return request(`${service.url}gateway`, {
    method: 'POST',
    token: service.token,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'project.startup',
      params: { interface: 'terminal', allocation }
    })
  });
}

/** Sends the claims `atOnce` at a time (bounded), in order; answers in the same order. */
async function inWaves(
  sc: Scene,
  jobIds: string[],
  atOnce: number
): Promise<HttpResult[]> {
  const answers: HttpResult[] = [];
  for (let i = 0; i < jobIds.length; i += atOnce) {
    answers.push(
      ...(await Promise.all(
        jobIds.slice(i, i + atOnce).map(id => claim(sc, id))
      ))
    );
  }
  return answers;
}

/** The answer is 429 rate-limited as RFC 9457 problem details with a Retry-After in seconds. */
function expectRateLimited(r: HttpResult): void {
  expect(r.status).toBe(429);
  expect(r.headers['content-type']).toMatch(/^application\/problem\+json/);
  const retryAfter = Number(r.headers['retry-after']);
  expect(Number.isInteger(retryAfter) && retryAfter >= 1).toBe(true);
  expect(r.json).toMatchObject({
    status: 429,
    code: 'rate-limited',
    retryAfterSeconds: retryAfter
  });
  expect(r.json.detail).toMatch(/try again in \d+ s/);
}

/** Every scheduler query asked for has been spawned (the one wait helper, bounded). */
const spawnsCaughtUp = (sc: { spawns(): number; calls(): unknown[] }) =>
  waitFor(() => sc.spawns() === sc.calls().length, {
    what: 'every scheduler query to be spawned',
    timeoutMs: 20000
  });

describe('a caller naming many job ids', () => {
  it('40 distinct job ids start at most the per-client limit of squeue processes (6 here, refilled over an hour, so none while the test runs); the rest are 429 rate-limited', async () => {
    // The default refills 6 per 60 s; over an hour the count no longer depends on how long a
    // loaded machine takes, so it is exact.
    const sc = await scene({
      env: { PROJECT_STARTUP_ALLOCATION_RATE_LIMIT: '6/3600' }
    });
    const ids = Array.from({ length: 40 }, (_, i) => String(5000 + i));
    const answers = await inWaves(sc, ids, 8);
    const allowed = 6;
    const ok = answers.filter(r => r.status === 200);
    const refused = answers.filter(r => r.status !== 200);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    expect(ok.length).toBeLessThanOrEqual(allowed);
    for (const r of refused) {
      expectRateLimited(r);
    }
    await spawnsCaughtUp(sc);
    expect(sc.spawns()).toBeLessThanOrEqual(allowed);
    expect(sc.mostAtOnce()).toBeLessThanOrEqual(2);
    // The stand-in was asked for the state and the owner of the named jobs only.
    for (const call of sc.calls()) {
      expect(call).toMatch(/^-h -o %T %u -t all --jobs=50\d\d$/);
    }
    const answered = ok.map(r => r.json.compute.allocation);
    for (const allocation of answered) {
      expect(allocation).toMatchObject({ live: true, state: 'RUNNING' });
    }
    expect(sc.alive()).toBe(true);
    expect((await sc.stop()).timedOut).toBe(false);
  });

  it('a job id already asked about is answered from the cache: no new process per request and no 429, even with no new ids left', async () => {
    const sc = await scene({
      env: { PROJECT_STARTUP_ALLOCATION_RATE_LIMIT: '2/3600' }
    });
    expect((await claim(sc, '7001')).status).toBe(200);
    expect((await claim(sc, '7002')).status).toBe(200);
    expectRateLimited(await claim(sc, '7003'));
    const before = sc.spawns();
    const began = Date.now();
    for (let i = 0; i < 20; i += 1) {
      const r = await claim(sc, i % 2 === 0 ? '7001' : '7002');
      expect(r.status).toBe(200);
      expect(r.json.compute.allocation).toMatchObject({ live: true });
    }
    const elapsedSeconds = (Date.now() - began) / 1000;
    await spawnsCaughtUp(sc);
    // Each answer is kept about 2 s: at most one refresh per id and started 2 s, not 20.
    expect(sc.spawns() - before).toBeLessThanOrEqual(
      2 * (Math.ceil(elapsedSeconds / 2) + 1)
    );
    expect((await sc.stop()).timedOut).toBe(false);
  });

  it('with a generous per-client limit, at most 2 squeue processes run at once; a claim beyond them is 429 with Retry-After: 1', async () => {
    const sc = await scene({
      sleepSeconds: '1',
      env: { PROJECT_STARTUP_ALLOCATION_RATE_LIMIT: '1000/60' }
    });
    const ids = Array.from({ length: 12 }, (_, i) => String(6000 + i));
    const answers = await inWaves(sc, ids, 12);
    for (const r of answers.filter(a => a.status !== 200)) {
      expectRateLimited(r);
      expect(r.headers['retry-after']).toBe('1');
      expect(r.json.detail).toBe(
        'The scheduler is already being asked about 2 other jobs; try again in 1 s.'
      );
    }
    await spawnsCaughtUp(sc);
    expect(sc.spawns()).toBeLessThanOrEqual(12);
    expect(sc.mostAtOnce()).toBeLessThanOrEqual(2);
    expect(sc.alive()).toBe(true);
    expect((await sc.stop()).timedOut).toBe(false);
  });

  it('the JSON-RPC gateway counts new job ids against the same per-client limit', async () => {
    const sc = await scene({
      env: { PROJECT_STARTUP_ALLOCATION_RATE_LIMIT: '1/3600' }
    });
    expect((await claim(sc, '8001')).status).toBe(200);
    const rpc = await startupOverGateway(sc, 'slurm:8002');
    expect(rpc.status).toBe(200);
    expect(rpc.json.error.data).toMatchObject({ code: 'rate-limited' });
    await spawnsCaughtUp(sc);
    expect(sc.spawns()).toBe(1);
    expect((await sc.stop()).timedOut).toBe(false);
  });
});

describe('a job of another user', () => {
  it("is not this person's allocation: not live, needs-compute, and the compute check names the owner and the fix", async () => {
    const other = ME === 'nobody' ? 'root' : 'nobody';
    const sc = await scene({ owner: other });
    const r = await claim(sc, '9001');
    expect(r.status).toBe(200);
    const p = r.json;
    expect(p.compute.allocation).toEqual({
      scheduler: 'slurm',
      jobId: '9001',
      live: false,
      state: 'RUNNING'
    });
    expect(p.compute.satisfied).toBe(false);
    expect(p.compute.detail).toBe(
      `Job 9001 is not your allocation: job 9001 belongs to ${other}, not to ${ME}. Run inside a job of your own, or get one with \`salloc --nodes=1 --time=01:00:00\`.`
    );
    expect(p.phase).toBe('needs-compute');
    expect(p.nextAction.id).toBe('request-allocation');
    const check = p.readinessChecks.find(
      (c: { id: string }) => c.id === 'compute-allocation'
    );
    expect(check).toMatchObject({
      status: 'warn',
      required: true,
      observed: p.compute.detail
    });
    expect(check.remedy).toContain('salloc');
    expect((await sc.stop()).timedOut).toBe(false);
  });

  it('the same stand-in answering with this user: live (the owner check is what differs)', async () => {
    const sc = await scene({});
    const r = await claim(sc, '9002');
    expect(r.status).toBe(200);
    expect(r.json.compute.allocation).toMatchObject({
      live: true,
      state: 'RUNNING'
    });
    expect(r.json.phase).toBe('awaiting-confirmation');
    expect((await sc.stop()).timedOut).toBe(false);
  });
});

// A job id starting with "-" reached the scheduler client as an option. The
// real squeue's -j takes an OPTIONAL value, so `squeue -h -j --usage ...` printed its usage and
// exited 0; stand-ins answering "RUN <me>" for `flux jobs ... -a` and `bjobs ... -a` made the
// service report "job -a is RUN" and move to awaiting-confirmation with no job at all.
describe('a job id that a scheduler client would read as an option', () => {
  /** Stand-ins for qstat, bjobs and flux that log their argv and answer for a running job of ME. */
  function optionScene(bin: string, argvLog: string): void {
    const answers: Record<string, string> = {
      qstat: `Job Id: 4242.pbs01\\n    Job_Owner = ${ME}@login01\\n    job_state = R\\n`,
      bjobs: `RUN ${ME}\\n`,
      flux: `RUN ${ME}\\n`
    };
    for (const [client, answer] of Object.entries(answers)) {
      fs.writeFileSync(
        path.join(bin, client),
        [
          '#!/bin/sh',
          `# STAND-IN for ${client} (test only): logs its argv, answers for a running job.`,
          `printf '%s %s\\n' '${client}' "$*" >> '${argvLog}'`,
          `printf '${answer}'`,
          ''
        ].join('\n'),
        { mode: 0o755 }
      );
    }
  }

  async function serveWith(
    s: ReturnType<typeof sandbox>,
    slurmConf: string
  ): Promise<Awaited<ReturnType<typeof startServe>> & { token: string }> {
    const token = `tok-${Math.random().toString(36).slice(2)}-${Date.now()}`;
    const server = await startServe([], {
      env: {
        ...s.env,
        SLURM_CONF: slurmConf,
        PROJECT_STARTUP_APPROVED_STORAGE: path.join(s.root, 'storage'),
        PROJECT_STARTUP_TOKEN: token,
        PROJECT_STARTUP_PROBE_TIMEOUT_MS: '5000'
      },
      cwd: s.projectDir,
      timeoutMs: 15000
    });
    return Object.assign(server, { token });
  }

  function expectJobIdRefused(r: HttpResult): void {
    expect(r.status).toBe(422);
    expect(r.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(r.json).toMatchObject({
      code: 'validation-failed',
      errors: [
        {
          pointer: '/allocation',
          detail: expect.stringContaining(
            'a job id starts with a letter or a digit'
          )
        }
      ]
    });
    expect(r.json.phase).toBeUndefined();
  }

  it('flux:-a, lsf:-a and pbs:-a are refused as validation-failed and no client runs; a real id reaches each client after its `--` where it takes one', async () => {
    const s = sandbox('storage/project');
    const argvLog = path.join(s.root, 'clients.argv');
    fs.writeFileSync(argvLog, '');
    optionScene(s.bin, argvLog);
    const conf = path.join(s.root, 'slurm.conf');
    fs.writeFileSync(conf, '# evidence only\n');
    const server = await serveWith(s, conf);
    const ask = (allocation: string) =>
      request(
        `${server.url}startup?interface=terminal&allocation=${encodeURIComponent(allocation)}`,
        { token: server.token }
      );
    for (const allocation of [
      'flux:-a',
      'lsf:-a',
      'pbs:-a',
      'flux:--help',
      'lsf:-u all'
    ]) {
      expectJobIdRefused(await ask(allocation));
    }
    // The JSON-RPC gateway takes the same rule.
    const rpc = await startupOverGateway(server, 'flux:-a');
    expect(rpc.json.error.data).toMatchObject({ code: 'validation-failed' });
    expect(fs.readFileSync(argvLog, 'utf8')).toBe('');

    // The stand-ins do answer a real id: each got it after `--` (bjobs: LSF documents none).
    for (const allocation of ['flux:fD7j8aT', 'lsf:4242', 'pbs:4242.pbs01']) {
      const r = await ask(allocation);
      expect(r.status).toBe(200);
      expect(r.json.compute.allocation).toMatchObject({ live: true });
      expect(r.json.phase).toBe('awaiting-confirmation');
    }
    expect(
      fs.readFileSync(argvLog, 'utf8').split('\n').filter(Boolean)
    ).toEqual([
      'flux jobs -n -o {state} {username} -- fD7j8aT',
      'bjobs -noheader -o stat user 4242',
      'qstat -f -x -- 4242.pbs01'
    ]);
    expect((await server.stop()).timedOut).toBe(false);
  });

  const REAL_SQUEUE = '/usr/bin/squeue';
  (fs.existsSync(REAL_SQUEUE) ? it : it.skip)(
    'slurm:--usage never reaches the real squeue (whose -j took it and printed its usage); a real id is bound as --jobs=ID, which squeue reads as the id',
    async () => {
      const s = sandbox('storage/project');
      const argvLog = path.join(s.root, 'squeue.argv');
      fs.writeFileSync(argvLog, '');
      // The real squeue, behind a wrapper that logs its argv. No controller listens (port 1 on
      // loopback is closed): options are read before squeue asks the controller anything.
      fs.writeFileSync(
        path.join(s.bin, 'squeue'),
        `#!/bin/sh\nprintf '%s\\n' "$*" >> '${argvLog}'\nexec ${REAL_SQUEUE} "$@"\n`,
        { mode: 0o755 }
      );
      const conf = path.join(s.root, 'slurm.conf');
      fs.writeFileSync(
        conf,
        'ClusterName=ps\nSlurmctldHost=localhost(127.0.0.1)\nSlurmctldPort=1\nAuthType=auth/none\nMessageTimeout=1\n'
      );
      const server = await serveWith(s, conf);
      for (const jobId of ['--usage', '-a', '-u root']) {
        expectJobIdRefused(
          await request(
            `${server.url}startup?interface=terminal&allocation=${encodeURIComponent(`slurm:${jobId}`)}`,
            { token: server.token }
          )
        );
      }
      expect(fs.readFileSync(argvLog, 'utf8')).toBe('');
      expect((await server.stop()).timedOut).toBe(false);

      // What the service now passes, straight to the real squeue: the id is the value of
      // --jobs, never an option (squeue: "Invalid job id: --usage"), and no usage is printed.
      const { spawnSync } = await import('node:child_process');
      const bound = spawnSync(
        REAL_SQUEUE,
        ['-h', '-o', '%T %u', '-t', 'all', '--jobs=--usage'],
        {
          env: { PATH: '/usr/bin:/bin', SLURM_CONF: conf },
          encoding: 'utf8',
          timeout: 20000
        }
      );
      expect(bound.stdout).not.toContain('Usage:');
      expect(bound.stderr).toContain('Invalid job id: --usage');
      expect(bound.status).not.toBe(0);
    }
  );
});
