// The terminal interface's allocation: the command line names the job it runs in, and the
// service asks the scheduler about that job rather than judging the caller by its own
// environment (a service on a login node has no allocation; the person's salloc shell has one).
// Pure: parsing and rendering only; the scheduler is asked by probes.ts.
import { ALLOCATION_VARIABLES, AllocationEvidence } from './observations';
import type { SchedulerId } from './platforms/types';
import { ProblemError } from './problems';
import { SCHEDULERS } from './generated/schema-lists';
import type { Env } from './env';

export type AllocationClaim = AllocationEvidence & { jobId: string };

/**
 * What a job id may look like, for every scheduler and every source (the caller's claim, the
 * service's own environment): Slurm's 1234 and 1234_5, PBS's 1234.server and 1234[].server,
 * LSF's 1234 and 1234[5], Flux's F58 ƒ2Abc (a leading "ƒ" in UTF-8 locales), hexadecimal and
 * dotted ids. It starts with a letter or a digit: an id starting with "-" would reach the
 * scheduler client as an option (`squeue -j --usage` prints the usage, `flux jobs -a` lists every
 * job), and no scheduler makes such ids. No shell ever sees one.
 */
const JOB_ID = /^(?:ƒ|[A-Za-z0-9])[A-Za-z0-9_.\-[\]]{0,127}$/u;
export const JOB_ID_RULE =
  'a job id starts with a letter or a digit (Flux: ƒ) and holds at most 128 of A-Z a-z 0-9 _ . - [ ]';

/** Whether `jobId` may be handed to a scheduler client (see JOB_ID). */
export function isJobId(jobId: string): boolean {
  return JOB_ID.test(jobId);
}

/** `slurm:1234`: the form the `allocation` query parameter and body member take. */
export function formatAllocationClaim(claim: AllocationClaim): string {
  return `${claim.scheduler}:${claim.jobId}`;
}

/** The allocation named by the caller's environment (SLURM_JOB_ID, PBS_JOBID, ...), if any. */
export function allocationClaimFromEnv(env: Env): AllocationClaim | undefined {
  for (const [name, scheduler] of ALLOCATION_VARIABLES) {
    const value = env[name];
    if (value !== undefined && isJobId(value)) {
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
  if (
    colon === -1 ||
    !(SCHEDULERS as readonly string[]).includes(scheduler) ||
    !isJobId(jobId)
  ) {
    throw new ProblemError(
      'validation-failed',
      `The allocation must be <scheduler>:<job id>, the scheduler one of ${SCHEDULERS.join(', ')} and ${JOB_ID_RULE} (for example slurm:1234).`,
      {
        errors: [
          {
            pointer,
            detail: `must be <scheduler>:<job id> with the scheduler one of ${SCHEDULERS.join(', ')} and ${JOB_ID_RULE}`
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
 * `Job_Owner = user@host` in the full record. Besides the id rule (isJobId), the id is kept
 * out of option position where the client allows it: squeue's -j takes an OPTIONAL value and
 * squeue refuses `--` with a positional id, so the id is bound as `--jobs=ID`; qstat (getopt) and
 * `flux jobs` (argparse) take `--` before it. bjobs gets none: LSF documents no `--`, and an
 * unknown one would break every site; the id rule alone keeps a leading "-" from it.
 */
export function jobQuery(
  scheduler: SchedulerId,
  jobId: string
): [string, string[]] {
  if (!isJobId(jobId)) {
    // Callers check first; this keeps a future caller from handing a client an option.
    throw new Error(`not a job id (${JOB_ID_RULE})`);
  }
  switch (scheduler) {
    case 'slurm':
      return ['squeue', ['-h', '-o', '%T %u', '-t', 'all', `--jobs=${jobId}`]];
    case 'pbs':
      return ['qstat', ['-f', '-x', '--', jobId]];
    case 'lsf':
      return ['bjobs', ['-noheader', '-o', 'stat user', jobId]];
    case 'flux':
      return ['flux', ['jobs', '-n', '-o', '{state} {username}', '--', jobId]];
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
