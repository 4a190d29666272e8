// Whether the compute allocation named in the environment is live: the scheduler is asked for
// the job's state and owner, and only a live job of this very user counts.
import type { ExecFileException } from 'node:child_process';
import * as os from 'node:os';
import {
  isJobId,
  isOwnJob,
  jobQuery,
  JobUser,
  parseJobAnswer
} from '../core/allocation-claim';
import type { AllocationEvidence } from '../core/observations';
import type {
  AllocationObservation,
  SchedulerId
} from '../core/platforms/types';
import type { ChildEnvironments } from './child-env';

// Loaded when first needed rather than at start-up: a scheduler or D-Bus client is asked only
// on some platforms.
const childProcess = () =>
  require('node:child_process') as typeof import('node:child_process');

/** Scheduler states in which an allocation can run work. */
const LIVE_STATES: Readonly<Record<SchedulerId, readonly string[]>> = {
  // COMPLETING and STAGE_OUT are a job on its way out: no longer somewhere to work.
  slurm: ['RUNNING', 'CONFIGURING', 'SUSPENDED', 'RESIZING', 'SIGNALING'],
  pbs: ['R', 'E', 'B', 'S', 'U'],
  lsf: ['RUN', 'PSUSP', 'USUSP', 'SSUSP'],
  flux: ['RUN']
};

/** What each client says on stderr for a job it does not know. */
const UNKNOWN_JOB = /invalid job id|unknown job|does not exist|not found/i;

/** The user this process runs as (os.userInfo: getpwuid, on macOS too); undefined on Windows. */
export function currentJobUser(): JobUser | undefined {
  try {
    const { username, uid } = os.userInfo();
    if (username !== '') {
      return { name: username, uid };
    }
  } catch {
    // No account entry (a container's arbitrary uid): schedulers then print the number.
  }
  const uid = process.getuid?.();
  return uid === undefined ? undefined : { name: String(uid), uid };
}

/** What a failed query says: the client is missing, does not know the job, or failed. */
function failedQuery(
  query: { scheduler: SchedulerId; jobId: string; command: string },
  error: ExecFileException,
  stderr: string,
  timeoutMs: number
): AllocationObservation {
  const { scheduler, jobId, command } = query;
  if (error.code === 'ENOENT') {
    return {
      scheduler,
      jobId,
      live: null,
      detail: `\`${command}\` is not installed here, so the allocation's liveness is unknown`
    };
  }
  if (UNKNOWN_JOB.test(stderr)) {
    return {
      scheduler,
      jobId,
      live: false,
      detail: `the scheduler does not know job ${jobId}`
    };
  }
  const why = error.killed ? `did not answer within ${timeoutMs} ms` : 'failed';
  return {
    scheduler,
    jobId,
    live: false,
    detail: `\`${command}\` ${why} when asked about job ${jobId}`
  };
}

/** What the scheduler's answer says: live only for a job of `user` in a live state. */
function answeredQuery(
  query: { scheduler: SchedulerId; jobId: string; command: string },
  stdout: string,
  user: JobUser | undefined
): AllocationObservation {
  const { scheduler, jobId, command } = query;
  const { state, owner } = parseJobAnswer(scheduler, stdout);
  if (state === '') {
    return {
      scheduler,
      jobId,
      live: false,
      detail: `the scheduler does not know job ${jobId}`
    };
  }
  if (user === undefined || owner === '') {
    return {
      scheduler,
      jobId,
      live: false,
      state,
      detail:
        user === undefined
          ? `this service's user has no name, so job ${jobId} cannot be checked as yours`
          : `\`${command}\` did not say whose job ${jobId} is, so it cannot be checked as yours`
    };
  }
  if (!isOwnJob(owner, user)) {
    return {
      scheduler,
      jobId,
      live: false,
      state,
      otherOwner: owner,
      detail: `job ${jobId} belongs to ${owner}, not to ${user.name}`
    };
  }
  const live = LIVE_STATES[scheduler].includes(state);
  return {
    scheduler,
    jobId,
    live,
    state,
    detail: live
      ? `job ${jobId} is ${state}`
      : `job ${jobId} is ${state}, so the allocation is gone`
  };
}

/**
 * Asks the scheduler for the job's state and owner. Live only for a job of `user` in a live
 * state: a job of someone else is never this person's compute, whatever its state.
 */
export function probeAllocation(
  allocation: AllocationEvidence,
  timeoutMs: number,
  envs: ChildEnvironments,
  user: JobUser | undefined
): Promise<AllocationObservation> {
  const { scheduler, jobId } = allocation;
  if (jobId === undefined) {
    return Promise.resolve({
      scheduler,
      live: false,
      detail: 'no allocation in this environment'
    });
  }
  if (!isJobId(jobId)) {
    return Promise.resolve({
      scheduler,
      jobId,
      live: false,
      detail: 'the job id in the environment is malformed'
    });
  }
  const [command, args] = jobQuery(scheduler, jobId);
  const query = { scheduler, jobId, command };
  return new Promise(resolve => {
    childProcess().execFile(
      command,
      args,
      { timeout: timeoutMs, env: envs[scheduler], maxBuffer: 64 * 1024 },
      (error, stdout, stderr) =>
        resolve(
          error
            ? failedQuery(query, error, stderr, timeoutMs)
            : answeredQuery(query, stdout, user)
        )
    );
  });
}
