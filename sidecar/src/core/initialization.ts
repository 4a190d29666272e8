// Why initialize refuses, once the confirmation itself is allowed: the state path is unsafe, the
// phase is not the one that creates state, the paths confirmed are not the ones shown, or the
// file system refused. Pure: the projection and the error are handed in.
import type { Projection } from './projection';
import { ProblemError } from './problems';

/**
 * The state's own problem, when its path is unsafe: the one answer every interface gives for
 * it (HTTP, `project-startup init`, the Python client), whatever else would be refused.
 */
export function stateUnsafeProblem(
  projection: Pick<Projection, 'readinessChecks' | 'phase' | 'nextAction'>
): ProblemError | undefined {
  const unsafeState = projection.readinessChecks.find(
    c => c.id === 'state-path' && c.status === 'fail'
  );
  return unsafeState
    ? new ProblemError('state-unsafe', unsafeState.observed, {
        remedy: unsafeState.remedy,
        phase: projection.phase,
        nextAction: projection.nextAction
      })
    : undefined;
}

/** Throws the problem that stops initialize for this projection and these confirmed paths. */
export function refuseUnconfirmable(
  projection: Projection,
  confirm: { projectPath: string; statePath: string }
): void {
  const unsafe = stateUnsafeProblem(projection);
  if (unsafe) {
    throw unsafe;
  }
  if (
    projection.phase !== 'awaiting-confirmation' &&
    projection.phase !== 'ready'
  ) {
    throw new ProblemError(
      'wrong-phase',
      `Initialization needs phase awaiting-confirmation; the project is in phase ${projection.phase}. ${projection.nextAction.detail}`,
      { phase: projection.phase, nextAction: projection.nextAction }
    );
  }
  if (
    confirm.projectPath !== projection.projectPath ||
    confirm.statePath !== projection.statePath
  ) {
    throw new ProblemError(
      'confirmation-stale',
      'The confirmed paths differ from the ones the service shows now. Reload the startup projection and confirm again.',
      {
        current: {
          projectPath: projection.projectPath,
          statePath: projection.statePath
        }
      }
    );
  }
}

const ERRNO_TEXT: Readonly<Record<string, string>> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENOSPC: 'no space left on the device',
  EROFS: 'the file system is read-only',
  ENOENT: 'a directory above it does not exist',
  ENOTDIR: 'a path above it is not a directory',
  ELOOP: 'a symbolic link is in the way',
  EDQUOT: 'the disk quota is exhausted'
};

/** The problem of a failed state creation: what the errno means, never the error's own text. */
export function fileSystemProblem(
  error: unknown,
  statePath: string
): ProblemError {
  if (error instanceof ProblemError) {
    return error;
  }
  const code = (error as NodeJS.ErrnoException).code ?? '';
  const reason = ERRNO_TEXT[code];
  if (code === 'ELOOP') {
    return new ProblemError(
      'state-unsafe',
      `Could not create ${statePath}: ${reason}.`,
      {
        remedy: `Inspect ${statePath} and move the link aside; the service never follows links.`
      }
    );
  }
  return new ProblemError(
    'internal',
    reason
      ? `Could not create ${statePath}: ${reason}.`
      : `Could not create ${statePath}.`,
    code ? { errno: code } : {}
  );
}
