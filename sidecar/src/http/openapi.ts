// The OpenAPI 3.1 description of every route, built from the JSON Schemas kept in
// sidecar/schemas so the documentation and the tests validate against the same files.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { PROBLEM_CODES } from '../problems';

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

export function loadSchema(name: SchemaName): Record<string, unknown> {
  return JSON.parse(fs.readFileSync(path.join(SCHEMA_DIR, SCHEMA_FILES[name]), 'utf8')) as Record<string, unknown>;
}

const ref = (name: SchemaName) => ({ $ref: `#/components/schemas/${name}` });

function json(name: SchemaName, description: string, type = 'application/json') {
  return { description, content: { [type]: { schema: ref(name) } } };
}

function problems(...codes: (keyof typeof PROBLEM_CODES)[]) {
  const byStatus = new Map<number, string[]>();
  for (const code of codes) {
    const status = PROBLEM_CODES[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return Object.fromEntries(
    [...byStatus].map(([status, list]) => [String(status), json('Problem', `Problem details; code ${list.join(' or ')}`, 'application/problem+json')])
  );
}

const COMMON = ['unauthorized', 'forbidden-host', 'uri-too-long', 'request-timeout', 'rate-limited', 'overloaded', 'internal'] as const;
const POST_COMMON = ['unsupported-media-type', 'payload-too-large', 'invalid-json', 'cross-origin'] as const;

export function buildOpenApi(baseUrl: string, version: string): Record<string, unknown> {
  const p = (route: string) => `${baseUrl}project/${route}`;
  const security = [{ bearer: [] }, { cookie: [] }];
  return {
    openapi: '3.1.0',
    info: {
      title: 'Project startup service',
      version,
      description:
        'Capability manifest, read-only startup projection, initialization and a JSON-RPC 2.0 gateway. Errors are RFC 9457 problem details with a stable code.'
    },
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    servers: [{ url: '/' }],
    security,
    paths: {
      [p('capabilities')]: {
        get: {
          operationId: 'getCapabilities',
          summary: 'The platform capability manifest',
          parameters: [{ name: 'If-None-Match', in: 'header', required: false, schema: { type: 'string' } }],
          responses: {
            '200': { ...json('Manifest', 'The manifest'), headers: { ETag: { schema: { type: 'string' } } } },
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
            { name: 'interface', in: 'query', required: true, schema: { type: 'string', enum: ['terminal', 'web', 'notebook'] } }
          ],
          responses: {
            '200': json('StartupProjection', 'The projection'),
            ...problems('missing-interface', 'unknown-interface', ...COMMON)
          }
        }
      },
      [p('initialize')]: {
        post: {
          operationId: 'initialize',
          summary: 'Confirm and create the private project state (idempotent)',
          requestBody: { required: true, content: { 'application/json': { schema: ref('InitializeRequest') } } },
          responses: {
            '201': json('InitializeResponse', 'State created'),
            '200': json('InitializeResponse', 'State already existed; the same record'),
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
          summary: 'JSON-RPC 2.0: project.capabilities, project.startup, project.initialize; batches allowed',
          requestBody: { required: true, content: { 'application/json': { schema: ref('GatewayRequest') } } },
          responses: {
            '200': json('GatewayResponse', 'JSON-RPC response or batch of responses'),
            '204': { description: 'Every call was a notification' },
            ...problems('unsupported-media-type', 'payload-too-large', 'cross-origin', ...COMMON)
          }
        }
      },
      [p('health')]: {
        get: {
          operationId: 'getHealth',
          summary: 'Liveness, version and instance id (no authentication)',
          security: [],
          responses: { '200': json('Health', 'The service answers', 'application/health+json'), ...problems('forbidden-host') }
        }
      },
      [p('openapi.json')]: {
        get: {
          operationId: 'getOpenApi',
          summary: 'This document (no authentication)',
          security: [],
          responses: { '200': { description: 'OpenAPI 3.1 document', content: { 'application/json': {} } } }
        }
      }
    },
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'Direct loopback: the service token (Authorization: Bearer or token).' },
        cookie: { type: 'apiKey', in: 'cookie', name: 'project-startup-session-PORT', description: 'Set after opening a URL with ?token= once.' }
      },
      schemas: Object.fromEntries(Object.keys(SCHEMA_FILES).map(name => [name, loadSchema(name as SchemaName)]))
    }
  };
}
