// The OpenAPI 3.1 description of every route, built from the JSON Schemas kept in
// sidecar/schemas so the documentation and the tests validate against the same files.
//
// The schema files are the one source of truth. They refer to each other by `$id` URNs and to
// their own `$defs` by `#/$defs/...`, which is right for JSON Schema but which OpenAPI tools
// (linters, renderers, client generators) resolve against the OpenAPI document instead. So the
// document gets a derived copy: each file becomes a component, each of its `$defs` a component
// of its own (`<File><Def>`, e.g. StartupProjectionNextAction), and every `$ref` points at
// `#/components/schemas/...`. Nothing here is written by hand twice.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { PROMPT_KEY_HEADER } from '../core/confirmation';
import { PROBLEM_CODES } from '../core/problems';

export const SCHEMA_DIR = path.join(__dirname, '..', '..', 'schemas');

/** Component name -> schema file in SCHEMA_DIR. */
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

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

export function loadSchema(name: SchemaName): Record<string, unknown> {
  return JSON.parse(
    fs.readFileSync(path.join(SCHEMA_DIR, SCHEMA_FILES[name]), 'utf8')
  ) as Record<string, unknown>;
}

/** `nextAction` -> `NextAction`, `platformId` -> `PlatformId`. */
function pascal(name: string): string {
  return name.replace(/(^|[-_])([a-z0-9])/g, (_m, _sep: string, c: string) =>
    c.toUpperCase()
  );
}

/** The component name of `$defs/<def>` of schema `owner`. */
export function defComponentName(owner: SchemaName, def: string): string {
  return `${owner}${pascal(def)}`;
}

const COMPONENT_REF = '#/components/schemas/';

/**
 * The schema files as OpenAPI components: `$id`, `$schema` and `$defs` removed, the definitions
 * hoisted to components of their own, every `$ref` rewritten to `#/components/schemas/<name>`.
 * A `$ref` it cannot map (a typo, a new kind of reference) stops the build with its location.
 */
export function schemaComponents(
  load: (name: SchemaName) => Record<string, unknown> = loadSchema
): Record<string, JsonObject> {
  const names = Object.keys(SCHEMA_FILES) as SchemaName[];
  const sources = new Map(names.map(name => [name, load(name) as JsonObject]));
  const byId = new Map<string, SchemaName>();
  for (const [name, schema] of sources) {
    if (typeof schema.$id !== 'string') {
      throw new Error(`${SCHEMA_FILES[name]} has no $id`);
    }
    byId.set(schema.$id, name);
  }
  const target = (owner: SchemaName, ref: string, where: string): string => {
    const hash = ref.indexOf('#');
    const base = hash === -1 ? ref : ref.slice(0, hash);
    const fragment = hash === -1 ? '' : ref.slice(hash + 1);
    const file = base === '' ? owner : byId.get(base);
    if (file === undefined) {
      throw new Error(`${where}: $ref ${ref} names no schema file`);
    }
    if (fragment === '') {
      return `${COMPONENT_REF}${file}`;
    }
    const def = /^\/\$defs\/([A-Za-z0-9_-]+)$/.exec(fragment);
    const defs = sources.get(file)?.$defs as JsonObject | undefined;
    if (def === null || defs === undefined || !(def[1] in defs)) {
      throw new Error(
        `${where}: $ref ${ref} is not a schema file or one of its $defs`
      );
    }
    return `${COMPONENT_REF}${defComponentName(file, def[1])}`;
  };
  const rewrite = (owner: SchemaName, value: Json, where: string): Json => {
    if (Array.isArray(value)) {
      return value.map((item, i) => rewrite(owner, item, `${where}/${i}`));
    }
    if (value === null || typeof value !== 'object') {
      return value;
    }
    const out: JsonObject = {};
    for (const [key, child] of Object.entries(value)) {
      if (key === '$ref' && typeof child === 'string') {
        out.$ref = target(owner, child, where);
      } else if (
        key === 'const' ||
        key === 'enum' ||
        key === 'default' ||
        key === 'examples'
      ) {
        out[key] = child; // data, not schema: copied as it is
      } else {
        out[key] = rewrite(owner, child, `${where}/${key}`);
      }
    }
    return out;
  };
  const components: Record<string, JsonObject> = {};
  for (const [name, schema] of sources) {
    const { $id: _id, $schema: _dialect, $defs, ...rest } = schema;
    void _id;
    void _dialect;
    components[name] = rewrite(name, rest, SCHEMA_FILES[name]) as JsonObject;
    for (const [def, definition] of Object.entries(
      ($defs ?? {}) as JsonObject
    )) {
      const component = defComponentName(name, def);
      if (component in components || (names as string[]).includes(component)) {
        throw new Error(
          `${SCHEMA_FILES[name]}: $defs/${def} would be component ${component}, which exists`
        );
      }
      components[component] = rewrite(
        name,
        definition,
        `${SCHEMA_FILES[name]}#/$defs/${def}`
      ) as JsonObject;
    }
  }
  return components;
}

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
const ALLOCATION_DECISION =
  "The caller's own batch allocation, <scheduler>:<job id> (the command line sends SLURM_JOB_ID, PBS_JOBID, LSB_JOBID or FLUX_JOB_ID). On the cluster platform the terminal's compute is this job, verified with the scheduler (squeue, qstat, bjobs, flux): a service on a login node never judges the caller by its own environment. The job must belong to the user the service runs as: a job of another user is never live compute (compute.satisfied false, the owner named in the compute-allocation check). Each job id not asked about yet costs one scheduler query: at most 2 run at once and each client may name 6 new job ids per 60 s (PROJECT_STARTUP_ALLOCATION_RATE_LIMIT); beyond that the answer is 429 rate-limited with Retry-After, and a job id already asked about is answered from a cache of about 2 s. Without it, the service's own allocation (if any) counts. Ignored elsewhere.";
const CONFIRMATION_DECISION =
  "The record's method is what the service observed, never what the body says: setup-page for the setup page's own session (the cookie only the sign-in route {base}project/?token= sets, same origin; web only), jupyterlab-dialog for a cookie-carried request through the notebook server whose X-XSRFToken equals Jupyter's _xsrf cookie (the sidecar checks it: jupyter-server-proxy does not; same origin; notebook only), terminal-prompt for `project-startup init` answered on a TTY (or the prompt key of the 0600 runtime file), http-api for any other call with the service's credential. An http-api call may confirm web and notebook on the workstation or container platform and notebook on the hosted notebook platform, through every ingress the platform offers; on the cluster platform it is refused (403 confirmation-not-allowed): only the terminal prompt confirms there. The startup projection's nextAction.request is present exactly where sending it verbatim with the credential succeeds.";
const FOREIGN_RECORD_DECISION =
  'A record confirmed on another platform does not count here: the phase is awaiting-confirmation, and a confirmation allowed on this platform replaces the record (201).';

/** The document the service serves at `{baseUrl}project/openapi.json`; `load` reads the schema files. */
export function buildOpenApi(
  baseUrl: string,
  version: string,
  load: (name: SchemaName) => Record<string, unknown> = loadSchema
): Record<string, unknown> {
  const p = (route: string) => `${baseUrl}project/${route}`;
  const security = [{ bearer: [] }, { cookie: [] }];
  // No jsonSchemaDialect: OpenAPI 3.1's default dialect is JSON Schema 2020-12 with OpenAPI's
  // vocabulary added, which reads every schema file as 2020-12 does, and docs renderers support
  // only that default.
  return {
    openapi: '3.1.0',
    info: {
      title: 'Project startup service',
      version,
      license: { name: 'BSD-3-Clause', identifier: 'BSD-3-Clause' },
      description:
        'Capability manifest, read-only startup projection, initialization and a JSON-RPC 2.0 gateway. Errors are RFC 9457 problem details with a stable code.'
    },
    servers: [{ url: '/' }],
    security,
    paths: {
      [p('capabilities')]: {
        get: {
          operationId: 'getCapabilities',
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
        }
      },
      [p('startup')]: {
        get: {
          operationId: 'getStartup',
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
        }
      },
      [p('initialize')]: {
        post: {
          operationId: 'initialize',
          summary: 'Confirm and create the private project state (idempotent)',
          description: `${CONFIRMATION_DECISION} ${FOREIGN_RECORD_DECISION}`,
          parameters: [
            {
              name: PROMPT_KEY_HEADER,
              in: 'header',
              required: false,
              schema: { type: 'string' },
              description:
                'Sent only by `project-startup init` after a person answered its prompt on a TTY: the prompt key of the private runtime file (never printed or logged). With it the record says terminal-prompt.'
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
        }
      },
      [p('gateway')]: {
        post: {
          operationId: 'gateway',
          summary:
            'JSON-RPC 2.0: project.capabilities, project.startup, project.initialize; batches allowed',
          requestBody: {
            required: true,
            content: { 'application/json': { schema: ref('GatewayRequest') } }
          },
          responses: {
            '200': json(
              'GatewayResponse',
              'JSON-RPC response or batch of responses'
            ),
            '204': { description: 'Every call was a notification' },
            ...problems(
              'unsupported-media-type',
              'payload-too-large',
              'cross-origin',
              ...COMMON
            )
          }
        }
      },
      [p('health')]: {
        get: {
          operationId: 'getHealth',
          summary:
            'Liveness, version and instance id (no authentication, except behind a trusted proxy: its secret); with ?nonce=, a proof that this service holds the token',
          security: [],
          parameters: [
            {
              name: 'nonce',
              in: 'query',
              required: false,
              description:
                'A fresh random value (32 to 128 lowercase hex characters); the answer then carries proof = HMAC-SHA256(token, context, nonce, instanceId, the service address and port and the client source port as the service sees the connection)',
              schema: { type: 'string', pattern: '^[0-9a-f]{32,128}$' }
            }
          ],
          responses: {
            '200': json(
              'Health',
              'The service answers',
              'application/health+json'
            ),
            ...problems(
              'validation-failed',
              'forbidden-host',
              'uri-too-long',
              'unauthorized'
            )
          }
        }
      },
      [p('openapi.json')]: {
        get: {
          operationId: 'getOpenApi',
          summary:
            'This document (no authentication, except behind a trusted proxy: its secret)',
          security: [],
          responses: {
            '200': {
              description: 'OpenAPI 3.1 document',
              content: { 'application/json': { schema: { type: 'object' } } }
            },
            ...problems('forbidden-host', 'uri-too-long', 'unauthorized')
          }
        }
      }
    },
    components: {
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description:
            'Direct loopback: the service token (Authorization: Bearer or token).'
        },
        cookie: {
          type: 'apiKey',
          in: 'cookie',
          name: 'project-startup-session-PORT',
          description: 'Set after opening a URL with ?token= once.'
        }
      },
      schemas: schemaComponents(load)
    }
  };
}
