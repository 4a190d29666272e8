// RFC 9457 problem details with the stable codes of docs/http-api.md. Messages are written here,
// never taken from exceptions, so no stack trace, internal path or secret can leak.

import type { PROBLEM_CODE_IDS } from './generated/schema-lists';

interface ProblemKind {
  status: number;
  title: string;
}

/** Each code of problem.schema.json (the list's source): a code missing or extra fails to compile. */
export const PROBLEM_CODES = {
  'missing-interface': { status: 400, title: 'The interface is missing' },
  'unknown-interface': { status: 400, title: 'Unknown interface' },
  'invalid-json': { status: 400, title: 'The request body is not valid JSON' },
  'unsupported-media-type': {
    status: 415,
    title: 'The request body must be application/json'
  },
  'payload-too-large': { status: 413, title: 'The request body is too large' },
  'uri-too-long': { status: 414, title: 'The request URL is too long' },
  'headers-too-large': {
    status: 431,
    title: 'The request headers are too large'
  },
  'malformed-request': { status: 400, title: 'The request is not valid HTTP' },
  'request-timeout': {
    status: 408,
    title: 'The request did not arrive in time'
  },
  'expectation-failed': {
    status: 417,
    title: 'The Expect header cannot be met'
  },
  'validation-failed': {
    status: 422,
    title: 'The request does not have the expected shape'
  },
  'confirmation-stale': {
    status: 409,
    title: 'The confirmation does not match the current projection'
  },
  'confirmation-not-allowed': {
    status: 403,
    title: 'Confirmation is not allowed from this interface'
  },
  'wrong-phase': {
    status: 409,
    title: 'Initialization is not possible in the current setup phase'
  },
  unauthorized: { status: 401, title: 'Authentication is required' },
  'forbidden-host': {
    status: 403,
    title: 'The Host header does not name this service'
  },
  'cross-origin': {
    status: 403,
    title: 'Cross-origin state-changing request refused'
  },
  'not-found': { status: 404, title: 'No such resource' },
  'method-not-allowed': { status: 405, title: 'Method not allowed' },
  'rate-limited': { status: 429, title: 'Too many requests' },
  'state-unsafe': { status: 409, title: 'The project state path is unsafe' },
  overloaded: { status: 503, title: 'The service is overloaded' },
  'invalid-arguments': {
    status: 400,
    title: 'The command line is not one the command takes'
  },
  misconfigured: {
    status: 503,
    title: 'The service cannot run with its configuration'
  },
  internal: { status: 500, title: 'Internal error' }
} as const satisfies Record<(typeof PROBLEM_CODE_IDS)[number], ProblemKind>;

export type ProblemCode = keyof typeof PROBLEM_CODES;

export const PROBLEM_TYPE_BASE = 'urn:jupyterlab-project-startup:problem:';

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ProblemCode;
  instance?: string;
  [extension: string]: unknown;
}

/** A failure with a stable code, thrown by the core and rendered by every interface. */
export class ProblemError extends Error {
  readonly code: ProblemCode;
  readonly status: number;
  readonly extensions: Record<string, unknown>;
  /** Extra response headers (Allow, Retry-After, WWW-Authenticate). */
  readonly headers: Record<string, string>;

  constructor(
    code: ProblemCode,
    detail: string,
    extensions: Record<string, unknown> = {},
    headers: Record<string, string> = {}
  ) {
    super(detail);
    this.name = 'ProblemError';
    this.code = code;
    this.status = PROBLEM_CODES[code].status;
    this.extensions = extensions;
    this.headers = headers;
  }

  toProblem(instance?: string): Problem {
    return problemOf(this.code, this.message, this.extensions, instance);
  }

  /** The error a service's problem body stands for: toProblem's inverse (its members beside the
   * standard ones are the extensions). */
  static fromProblem(problem: Problem): ProblemError {
    const {
      type: _t,
      title: _ti,
      status: _s,
      detail,
      code,
      instance: _i,
      ...extensions
    } = problem;
    return new ProblemError(code, detail, extensions);
  }
}

export function problemOf(
  code: ProblemCode,
  detail: string,
  extensions: Record<string, unknown> = {},
  instance?: string
): Problem {
  return {
    ...extensions,
    type: PROBLEM_TYPE_BASE + code,
    title: PROBLEM_CODES[code].title,
    status: PROBLEM_CODES[code].status,
    detail,
    code,
    ...(instance === undefined ? {} : { instance })
  };
}

/** Any thrown value as a problem: unknown failures become `internal` with a fixed message. */
export function asProblemError(error: unknown): ProblemError {
  if (error instanceof ProblemError) {
    return error;
  }
  const errno = (error as NodeJS.ErrnoException | undefined)?.code;
  if (errno === 'EMFILE' || errno === 'ENFILE') {
    // Out of descriptors (a flood of connections, or the system): a moment's overload, not a fault.
    return new ProblemError(
      'overloaded',
      'The service has no file descriptor left for this request; try again in a moment.',
      {},
      { 'Retry-After': '1' }
    );
  }
  return new ProblemError(
    'internal',
    'The service failed to answer. Try again; if it persists, restart the service and read its log.'
  );
}
