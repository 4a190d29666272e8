// Validates values against the JSON Schemas in sidecar/schemas, loaded through the same
// loadSchema the OpenAPI document uses, so the tests and the documentation share one source.
import * as fs from 'node:fs';
import * as path from 'node:path';
import Ajv2020, { ErrorObject, ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import {
  loadSchema,
  SCHEMA_FILES,
  SchemaName
} from '../../sidecar/src/http/openapi';
import type { HttpResult } from './harness';

export type { SchemaName };

export const SCHEMA_NAMES = Object.keys(SCHEMA_FILES) as SchemaName[];

/** sidecar/schemas/<file>.schema.json as written, a fresh copy each call (tests change it). */
export function schemaFile(file: string): Record<string, unknown> {
  return JSON.parse(
    fs.readFileSync(
      path.join(
        __dirname,
        '..',
        '..',
        'sidecar',
        'schemas',
        `${file}.schema.json`
      ),
      'utf8'
    )
  ) as Record<string, unknown>;
}

let ajv: Ajv2020 | undefined;
const validators = new Map<SchemaName, ValidateFunction>();

/** One Ajv instance holding every schema, so the urn: $refs between files resolve. */
function instance(): Ajv2020 {
  if (ajv === undefined) {
    const created = new Ajv2020({ strict: true, allErrors: true });
    addFormats(created);
    for (const name of SCHEMA_NAMES) {
      created.addSchema(loadSchema(name));
    }
    ajv = created;
  }
  return ajv;
}

function validatorFor(name: SchemaName): ValidateFunction {
  let validate = validators.get(name);
  if (validate === undefined) {
    const id = loadSchema(name).$id;
    if (typeof id !== 'string') {
      throw new Error(`${SCHEMA_FILES[name]} has no $id`);
    }
    const found = instance().getSchema(id);
    if (found === undefined) {
      throw new Error(`schema ${id} (${SCHEMA_FILES[name]}) is not registered`);
    }
    validate = found;
    validators.set(name, validate);
  }
  return validate;
}

function render(error: ErrorObject): string {
  const where = error.instancePath === '' ? '(root)' : error.instancePath;
  const params =
    Object.keys(error.params).length > 0
      ? ` ${JSON.stringify(error.params)}`
      : '';
  return `${where} ${error.message ?? 'is invalid'}${params} [${error.schemaPath}]`;
}

/** The validation errors of `value` against schema `name`, empty when it is valid. */
export function validateAgainst(name: SchemaName, value: unknown): string[] {
  const validate = validatorFor(name);
  return validate(value) ? [] : (validate.errors ?? []).map(render);
}

/** Throws an Error listing every validation error when `value` does not match schema `name`. */
export function expectValid(name: SchemaName, value: unknown): void {
  const errors = validateAgainst(name, value);
  if (errors.length > 0) {
    throw new Error(
      `value does not match ${SCHEMA_FILES[name]}:\n  ${errors.join('\n  ')}`
    );
  }
}

/** A problem-details answer: status and code, the problem media type, the Problem schema. */
export function expectProblem(
  r: HttpResult,
  status: number,
  code: string
): void {
  expect({ status: r.status, code: r.json?.code }).toEqual({ status, code });
  expect(r.headers['content-type']).toMatch(/^application\/problem\+json/);
  expectValid('Problem', r.json);
  expect(r.json.status).toBe(status);
}
