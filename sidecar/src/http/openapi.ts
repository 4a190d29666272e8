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
import type { Manifest } from '../core/manifest';
import type { Route } from './types';
import {
  Operation,
  OperationId,
  OPERATIONS,
  SCHEMA_FILES,
  SchemaName
} from './openapi-operations';
import { ROUTES } from './route-table';

export const SCHEMA_DIR = path.join(__dirname, '..', '..', 'schemas');

export { SCHEMA_FILES };
export type { SchemaName };

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

export function loadSchema(name: SchemaName): Record<string, unknown> {
  return JSON.parse(
    fs.readFileSync(path.join(SCHEMA_DIR, SCHEMA_FILES[name]), 'utf8')
  ) as Record<string, unknown>;
}

/** Every schema file, read and parsed now, as buildOpenApi's `load`: no file read after. */
export function readSchemas(): (name: SchemaName) => Record<string, unknown> {
  const schemas = new Map(
    (Object.keys(SCHEMA_FILES) as SchemaName[]).map(name => [
      name,
      loadSchema(name)
    ])
  );
  return name => schemas.get(name) as Record<string, unknown>;
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

/** `value` with every `$ref` replaced by what `target` maps it to; data keywords left as they are. */
function rewriteRefs(
  value: Json,
  where: string,
  target: (ref: string, where: string) => string
): Json {
  if (Array.isArray(value)) {
    return value.map((item, i) => rewriteRefs(item, `${where}/${i}`, target));
  }
  if (value === null || typeof value !== 'object') {
    return value;
  }
  const out: JsonObject = {};
  for (const [key, child] of Object.entries(value)) {
    if (key === '$ref' && typeof child === 'string') {
      out.$ref = target(child, where);
    } else if (DATA_KEYWORDS.has(key)) {
      out[key] = child; // data, not schema: copied as it is
    } else {
      out[key] = rewriteRefs(child, `${where}/${key}`, target);
    }
  }
  return out;
}

const DATA_KEYWORDS = new Set(['const', 'enum', 'default', 'examples']);

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
  const rewrite = (owner: SchemaName, value: Json, where: string): Json =>
    rewriteRefs(value, where, (ref, at) => target(owner, ref, at));
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

/** An operation as the document shows it: its id, summary, description, security, the rest. */
function operationObject(operationId: OperationId, isPublic: boolean) {
  const { summary, description, ...details }: Operation =
    OPERATIONS[operationId];
  return {
    operationId,
    summary,
    ...(description === undefined ? {} : { description }),
    // A public route answers without credentials (except behind a trusted proxy: its secret).
    ...(isPublic ? { security: [] } : {}),
    ...details
  };
}

/** The document's paths: every route of the table with an operation, under `{baseUrl}project`. */
export function openApiPaths(
  baseUrl: string
): Record<string, Record<string, unknown>> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of ROUTES) {
    if (route.operationId === undefined) {
      continue;
    }
    const operation = operationObject(route.operationId, route.public);
    paths[`${baseUrl}project${route.path}`] = Object.fromEntries(
      documentedMethods(route).map(method => [method, operation])
    );
  }
  return paths;
}

/** The methods the document lists for a route: HEAD goes with GET, as HTTP has it. */
export function documentedMethods(route: Route): string[] {
  return route.methods
    .filter(method => method !== 'HEAD')
    .map(method => method.toLowerCase());
}

/** The document the service serves at `{baseUrl}project/openapi.json`; `load` reads the schema files. */
export function buildOpenApi(
  baseUrl: string,
  version: string,
  load: (name: SchemaName) => Record<string, unknown> = loadSchema
): Record<string, unknown> {
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
    paths: openApiPaths(baseUrl),
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

/**
 * `document` with `manifest` as the example answer of getCapabilities. The service serves it
 * without a token, so `manifest` is the fixed example (core/example-manifest.ts), never the
 * live one: that stays behind authentication.
 */
export function withManifestExample(
  document: Record<string, unknown>,
  manifest: Manifest
): Record<string, unknown> {
  const copy = structuredClone(document);
  type Answer = { content?: Record<string, Record<string, unknown>> };
  const paths = copy.paths as Record<
    string,
    Record<string, { operationId?: string; responses?: Record<string, Answer> }>
  >;
  for (const operation of Object.values(paths).flatMap(Object.values)) {
    const json = operation.responses?.['200']?.content?.['application/json'];
    if (operation.operationId === 'getCapabilities' && json !== undefined) {
      json.example = manifest;
    }
  }
  return copy;
}
