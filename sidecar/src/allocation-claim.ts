// The terminal interface's allocation: the command line names the job it runs in, and the
// service asks the scheduler about that job rather than judging the caller by its own
// environment (a service on a login node has no allocation; the person's salloc shell has one).
// Pure: parsing and rendering only; the scheduler is asked by probes.ts.
import { ALLOCATION_VARIABLES, AllocationEvidence } from './evidence';
import type { SchedulerId } from './platforms/types';
import { ProblemError } from './problems';

export type AllocationClaim = AllocationEvidence & { jobId: string };

const SCHEDULERS: readonly SchedulerId[] = ['slurm', 'pbs', 'lsf', 'flux'];
/** The same job ids probes.ts accepts (Flux's F58 ids may start with "ƒ"). */
const JOB_ID = /^ƒ?[A-Za-z0-9_.\-[\]]{1,128}$/u;

/** `slurm:1234`: the form the `allocation` query parameter and body member take. */
export function formatAllocationClaim(claim: AllocationClaim): string {
  return `${claim.scheduler}:${claim.jobId}`;
}

/** The allocation named by the caller's environment (SLURM_JOB_ID, PBS_JOBID, ...), if any. */
export function allocationClaimFromEnv(
  env: Readonly<Record<string, string | undefined>>
): AllocationClaim | undefined {
  for (const [name, scheduler] of ALLOCATION_VARIABLES) {
    const value = env[name];
    if (value !== undefined && value !== '' && JOB_ID.test(value)) {
      return { scheduler, jobId: value };
    }
  }
  return undefined;
}

/** Undefined when absent; a `validation-failed` problem naming the form when malformed. */
export function parseAllocationClaim(
  raw: unknown,
  pointer: string
): AllocationClaim | undefined {
  if (raw === undefined || raw === null || raw === '') {
    return undefined;
  }
  const text = typeof raw === 'string' ? raw : '';
  const colon = text.indexOf(':');
  const scheduler = text.slice(0, colon) as SchedulerId;
  const jobId = text.slice(colon + 1);
  if (colon === -1 || !SCHEDULERS.includes(scheduler) || !JOB_ID.test(jobId)) {
    throw new ProblemError(
      'validation-failed',
      `The allocation must be <scheduler>:<job id>, the scheduler one of ${SCHEDULERS.join(', ')} (for example slurm:1234).`,
      {
        errors: [
          {
            pointer,
            detail: `must be <scheduler>:<job id> with the scheduler one of ${SCHEDULERS.join(', ')}`
          }
        ]
      }
    );
  }
  return { scheduler, jobId };
}

/** The person this service runs as: the scheduler must name them as the job's owner. */
export interface JobUser {
  name: string;
  uid: number;
}

/** What one scheduler client said of a job: its state word and its owner ('' when not said). */
export interface JobAnswer {
  state: string;
  owner: string;
}

/**
 * How each scheduler's client is asked for one job's state and owner (no shell is involved):
 * Slurm's %u and Flux's {username} are the user name, LSF's `user` column too; PBS writes
 * `Job_Owner = user@host` in the full record.
 */
export function jobQuery(
  scheduler: SchedulerId,
  jobId: string
): [string, string[]] {
  switch (scheduler) {
    case 'slurm':
      return ['squeue', ['-h', '-j', jobId, '-o', '%T %u', '-t', 'all']];
    case 'pbs':
      return ['qstat', ['-f', '-x', jobId]];
    case 'lsf':
      return ['bjobs', ['-noheader', '-o', 'stat user', jobId]];
    case 'flux':
      return ['flux', ['jobs', '-n', '-o', '{state} {username}', jobId]];
  }
}

/** A user name as schedulers print it; anything else (control characters, spaces) is not one. */
const OWNER = /^[A-Za-z0-9_.@$-]{1,128}$/;

/** The state and owner in a client's answer to jobQuery. */
export function parseJobAnswer(
  scheduler: SchedulerId,
  stdout: string
): JobAnswer {
  let state: string;
  let owner: string;
  if (scheduler === 'pbs') {
    state = /job_state\s*=\s*(\w+)/.exec(stdout)?.[1] ?? '';
    owner = /Job_Owner\s*=\s*([^@\s]+)/i.exec(stdout)?.[1] ?? '';
  } else {
    const words = (stdout.trim().split('\n')[0] ?? '').trim().split(/\s+/);
    state = words[0] ?? '';
    owner = words[1] ?? '';
  }
  return { state, owner: OWNER.test(owner) ? owner : '' };
}

/** Schedulers print the owner's name, or the number where the account has no name. */
export function isOwnJob(owner: string, user: JobUser): boolean {
  return owner === user.name || owner === String(user.uid);
}
