// What the OpenAPI document says about each operation of the route table (route-table.ts):
// summary, parameters, bodies and answers. The paths, methods and security come from the table.
import { PROMPT_KEY_HEADER } from '../core/confirmation';
import { PROBLEM_CODES } from '../core/problems';

/** Component name -> schema file in sidecar/schemas (openapi.ts SCHEMA_DIR). */
export const SCHEMA_FILES = {
  Manifest: 'manifest.schema.json',
  StartupProjection: 'startup.schema.json',
  InitializeRequest: 'initialize-request.schema.json',
  InitializeResponse: 'initialize-response.schema.json',
  InitializationRecord: 'initialization-record.schema.json',
  Problem: 'problem.schema.json',
  Health: 'health.schema.json',
  GatewayRequest: 'gateway-request.schema.json',
  GatewayResponse: 'gateway-response.schema.json'
} as const;

export type SchemaName = keyof typeof SCHEMA_FILES;

const ref = (name: SchemaName) => ({ $ref: `#/components/schemas/${name}` });

function json(
  name: SchemaName,
  description: string,
  type = 'application/json'
) {
  return { description, content: { [type]: { schema: ref(name) } } };
}

function problems(...codes: (keyof typeof PROBLEM_CODES)[]) {
  const byStatus = new Map<number, string[]>();
  for (const code of codes) {
    const status = PROBLEM_CODES[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return Object.fromEntries(
    [...byStatus].map(([status, list]) => [
      String(status),
      json(
        'Problem',
        `Problem details; code ${list.join(' or ')}`,
        'application/problem+json'
      )
    ])
  );
}

const COMMON = [
  'unauthorized',
  'forbidden-host',
  'uri-too-long',
  'request-timeout',
  'rate-limited',
  'overloaded',
  // A sidecar launched by jupyter-server-proxy with a bad setting answers it everywhere.
  'misconfigured',
  'internal'
] as const;
const POST_COMMON = [
  'unsupported-media-type',
  'payload-too-large',
  'invalid-json',
  'cross-origin'
] as const;

/** The decisions a client needs to know, stated once here and in the schemas' descriptions. */
const ALLOCATION_DECISION = [
  "The caller's own batch allocation, <scheduler>:<job id> (the command line sends SLURM_JOB_ID, PBS_JOBID, LSB_JOBID or FLUX_JOB_ID).",
  "On the cluster platform the terminal's compute is this job, verified with the scheduler (squeue, qstat, bjobs, flux): a service on a login node never judges the caller by its own environment.",
  'The job must belong to the user the service runs as: a job of another user is never live compute (compute.satisfied false, the owner named in the compute-allocation check).',
  'Each job id not asked about yet costs one scheduler query: at most 2 run at once and each client may name 6 new job ids per 60 s (PROJECT_STARTUP_ALLOCATION_RATE_LIMIT);',
  'beyond that the answer is 429 rate-limited with Retry-After, and a job id already asked about is answered from a cache of about 2 s.',
  "Without it, the service's own allocation (if any) counts. Ignored elsewhere."
].join(' ');
const CONFIRMATION_DECISION = [
  "The record's method is what the service observed, never what the body says:",
  "setup-page for the setup page's own session (the cookie only the sign-in route {base}project/?token= sets, same origin; web only),",
  "jupyterlab-dialog for a cookie-carried request through the notebook server whose X-XSRFToken equals Jupyter's _xsrf cookie",
  '(the sidecar checks it: jupyter-server-proxy does not; same origin; notebook only),',
  'terminal-prompt for `project-startup init` answered on a TTY (or the prompt key of the 0600 runtime file),',
  "http-api for any other call with the service's credential.",
  'An http-api call may confirm web and notebook on the workstation or container platform and notebook on the hosted notebook platform, through every ingress the platform offers;',
  'on the cluster platform it is refused (403 confirmation-not-allowed): only the terminal prompt confirms there.',
  "The startup projection's nextAction.request is present exactly where sending it verbatim with the credential succeeds."
].join(' ');
const FOREIGN_RECORD_DECISION =
  'A record confirmed on another platform does not count here: the phase is awaiting-confirmation, and a confirmation allowed on this platform replaces the record (201).';

/** An OpenAPI operation object, less what the route table gives (id, method, path, security). */
export interface Operation {
  summary: string;
  description?: string;
  parameters?: object[];
  requestBody?: object;
  responses: Record<string, object>;
}

/** Each operation of the document, by operation id, without its id, method or path. */
export const OPERATIONS = {
  getCapabilities: {
    summary: 'The platform capability manifest',
    parameters: [
      {
        name: 'If-None-Match',
        in: 'header',
        required: false,
        schema: { type: 'string' }
      }
    ],
    responses: {
      '200': {
        ...json('Manifest', 'The manifest'),
        headers: { ETag: { schema: { type: 'string' } } }
      },
      '304': { description: 'Not modified: the ETag matched' },
      ...problems(...COMMON)
    }
  },
  getStartup: {
    summary: 'The startup projection for one interface (read-only)',
    parameters: [
      {
        name: 'interface',
        in: 'query',
        required: true,
        schema: { type: 'string', enum: ['terminal', 'web', 'notebook'] }
      },
      {
        name: 'allocation',
        in: 'query',
        required: false,
        schema: { type: 'string', pattern: '^(slurm|pbs|lsf|flux):' },
        description: ALLOCATION_DECISION
      },
      {
        name: 'If-None-Match',
        in: 'header',
        required: false,
        schema: { type: 'string' },
        description:
          'The ETag of the last answer: while the projection is the same, the answer is 304 with no body (for pollers).'
      }
    ],
    responses: {
      '200': {
        ...json('StartupProjection', 'The projection'),
        headers: { ETag: { schema: { type: 'string' } } }
      },
      '304': {
        description:
          'Not modified: the ETag matched (the projection is the same as that answer)'
      },
      // validation-failed: a malformed allocation (or one given twice).
      ...problems(
        'missing-interface',
        'unknown-interface',
        'validation-failed',
        ...COMMON
      )
    }
  },
  initialize: {
    summary: 'Confirm and create the private project state (idempotent)',
    description: `${CONFIRMATION_DECISION} ${FOREIGN_RECORD_DECISION}`,
    parameters: [
      {
        name: PROMPT_KEY_HEADER,
        in: 'header',
        required: false,
        schema: { type: 'string' },
        description:
          'Sent only by `project-startup init` after a person answered its prompt on a TTY: ' +
          'the prompt key of the private runtime file (never printed or logged). ' +
          'With it the record says terminal-prompt.'
      }
    ],
    requestBody: {
      required: true,
      content: {
        'application/json': { schema: ref('InitializeRequest') }
      }
    },
    responses: {
      '201': json('InitializeResponse', 'State created'),
      '200': json(
        'InitializeResponse',
        'State already existed; the same record'
      ),
      ...problems(
        'missing-interface',
        'unknown-interface',
        'validation-failed',
        'confirmation-stale',
        'confirmation-not-allowed',
        'wrong-phase',
        'state-unsafe',
        ...POST_COMMON,
        ...COMMON
      )
    }
  },
  gateway: {
    summary:
      'JSON-RPC 2.0: project.capabilities, project.startup, project.initialize; batches allowed',
    requestBody: {
      required: true,
      content: { 'application/json': { schema: ref('GatewayRequest') } }
    },
    responses: {
      '200': json('GatewayResponse', 'JSON-RPC response or batch of responses'),
      '204': { description: 'Every call was a notification' },
      ...problems(
        'unsupported-media-type',
        'payload-too-large',
        'cross-origin',
        ...COMMON
      )
    }
  },
  getHealth: {
    summary:
      'Liveness, version and instance id (no authentication, except behind a trusted proxy: its secret); with ?nonce=, a proof that this service holds the token',
    parameters: [
      {
        name: 'nonce',
        in: 'query',
        required: false,
        description:
          'A fresh random value (32 to 128 lowercase hex characters); the answer then carries ' +
          'proof = HMAC-SHA256(token, context, nonce, instanceId, the service address and port ' +
          'and the client source port as the service sees the connection)',
        schema: { type: 'string', pattern: '^[0-9a-f]{32,128}$' }
      }
    ],
    responses: {
      '200': json('Health', 'The service answers', 'application/health+json'),
      ...problems(
        'validation-failed',
        'forbidden-host',
        'uri-too-long',
        'unauthorized'
      )
    }
  },
  getOpenApi: {
    summary:
      'This document (no authentication, except behind a trusted proxy: its secret)',
    responses: {
      '200': {
        description: 'OpenAPI 3.1 document',
        content: { 'application/json': { schema: { type: 'object' } } }
      },
      ...problems('forbidden-host', 'uri-too-long', 'unauthorized')
    }
  }
} satisfies Record<string, Operation>;

export type OperationId = keyof typeof OPERATIONS;
