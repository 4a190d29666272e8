// The terminal's allocation claim, pure parts: how each scheduler's client is asked about a job,
// what its answer says of the job's state and owner, and what the cluster platform makes of a
// job that belongs to someone else. (The service asking a real squeue: test/cluster.)
import {
  isOwnJob,
  jobQuery,
  parseAllocationClaim,
  parseJobAnswer
} from '../../sidecar/src/core/allocation-claim';
import { clusterPlatform } from '../../sidecar/src/core/platforms/cluster';
import { ConcurrencyLimit } from '../../sidecar/src/observe/probes';

describe('jobQuery asks for the state and the owner', () => {
  it.each([
    // squeue's -j takes an optional value (and squeue refuses `--`): the id is bound to it.
    ['slurm', 'squeue', ['-h', '-o', '%T %u', '-t', 'all', '--jobs=1234']],
    ['pbs', 'qstat', ['-f', '-x', '--', '1234']],
    ['lsf', 'bjobs', ['-noheader', '-o', 'stat user', '1234']],
    ['flux', 'flux', ['jobs', '-n', '-o', '{state} {username}', '--', '1234']]
  ] as const)('%s: %s %j', (scheduler, command, args) => {
    expect(jobQuery(scheduler, '1234')).toEqual([command, args]);
  });

  it('never builds a command for an id that would be read as an option', () => {
    expect(() => jobQuery('lsf', '-a')).toThrow(
      /starts with a letter or a digit/
    );
  });
});

describe('parseJobAnswer', () => {
  it.each([
    ['slurm', 'RUNNING alice\n', 'RUNNING', 'alice'],
    ['slurm', 'COMPLETED 1001\n', 'COMPLETED', '1001'],
    ['lsf', 'RUN bob\n', 'RUN', 'bob'],
    ['flux', 'RUN carol\n', 'RUN', 'carol'],
    ['flux', 'RUN\n', 'RUN', ''],
    ['slurm', '', '', ''],
    // Only the first line counts (one job was asked about).
    ['slurm', 'RUNNING alice\nRUNNING mallory\n', 'RUNNING', 'alice']
  ] as const)('%s %j: state %s, owner %s', (scheduler, out, state, owner) => {
    expect(parseJobAnswer(scheduler, out)).toEqual({ state, owner });
  });

  it('pbs: job_state and the user part of Job_Owner in the full record', () => {
    const record = [
      'Job Id: 4242.pbs01',
      '    Job_Name = STDIN',
      '    Job_Owner = alice@login01.example.org',
      '    job_state = R',
      '    queue = workq',
      ''
    ].join('\n');
    expect(parseJobAnswer('pbs', record)).toEqual({
      state: 'R',
      owner: 'alice'
    });
    expect(parseJobAnswer('pbs', 'Job Id: 1\n    job_state = R\n')).toEqual({
      state: 'R',
      owner: ''
    });
  });

  it('an owner that is not a user name (control characters, markup) is not taken as one', () => {
    expect(parseJobAnswer('slurm', 'RUNNING \u001b[2Jx\n').owner).toBe('');
    expect(parseJobAnswer('lsf', 'RUN <b>bob</b>\n').owner).toBe('');
  });
});

describe('isOwnJob', () => {
  const alice = { name: 'alice', uid: 1001 };
  it('by name, or by number where the scheduler prints the uid', () => {
    expect(isOwnJob('alice', alice)).toBe(true);
    expect(isOwnJob('1001', alice)).toBe(true);
    expect(isOwnJob('nobody', alice)).toBe(false);
    expect(isOwnJob('65534', alice)).toBe(false);
    expect(isOwnJob('', alice)).toBe(false);
    expect(isOwnJob('Alice', alice)).toBe(false);
  });
});

describe('the cluster platform and a job of someone else', () => {
  it('is not compute: unsatisfied, the reason and the salloc hint, whatever the state', () => {
    const compute = clusterPlatform.assessCompute({
      scheduler: 'slurm',
      jobId: '1234',
      live: false,
      state: 'RUNNING',
      otherOwner: 'nobody',
      detail: 'job 1234 belongs to nobody, not to alice'
    });
    expect(compute.satisfied).toBe(false);
    expect(compute.detail).toBe(
      'Job 1234 is not your allocation: job 1234 belongs to nobody, not to alice. Run inside a job of your own, or get one with `salloc --nodes=1 --time=01:00:00`.'
    );
    expect(compute.command).toMatch(/^salloc /);
    expect(compute.allocation).toEqual({
      scheduler: 'slurm',
      jobId: '1234',
      live: false,
      state: 'RUNNING'
    });
  });
});

describe('parseAllocationClaim', () => {
  it('takes <scheduler>:<job id> and refuses anything else with validation-failed', () => {
    expect(parseAllocationClaim('slurm:1234', '/allocation')).toEqual({
      scheduler: 'slurm',
      jobId: '1234'
    });
    expect(parseAllocationClaim(undefined, '/allocation')).toBeUndefined();
    for (const bad of ['1234', 'sge:1', 'slurm:', 'slurm:1;id', 7]) {
      expect(() => parseAllocationClaim(bad, '/allocation')).toThrow(
        expect.objectContaining({ code: 'validation-failed' })
      );
    }
  });
});

describe('ConcurrencyLimit', () => {
  it('runs at most `limit` loads at once and refuses one more at once, without starting it', async () => {
    const limit = new ConcurrencyLimit(2, () => new Error('busy'));
    const releases: Array<() => void> = [];
    let started = 0;
    const load = () =>
      new Promise<number>(resolve => {
        started += 1;
        releases.push(() => resolve(started));
      });
    const first = limit.run(load);
    const second = limit.run(load);
    await expect(limit.run(load)).rejects.toThrow('busy');
    expect(started).toBe(2);
    releases[0]();
    await first;
    const third = limit.run(load);
    expect(started).toBe(3);
    releases[1]();
    releases[2]();
    await Promise.all([second, third]);
    // A load that throws at once frees its place too.
    await expect(
      limit.run(() => {
        throw new Error('spawn failed');
      })
    ).rejects.toThrow('spawn failed');
    await expect(limit.run(() => Promise.resolve(1))).resolves.toBe(1);
  });
});
