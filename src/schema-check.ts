// Checks a service answer against the reader's view of its JSON Schema (types, required
// members, enums, consts, and the applicators that combine them), reporting errors in the shape
// Ajv writes them (response-errors.ts reads that shape). The schemas themselves are data
// (src/generated/response-validators.ts): one small interpreter instead of code per schema keeps
// the labextension a third of the size generated validators made it. Pure.
import type { IResponseError, IResponseValidator } from './response-errors';
import { hasJsonType } from './generated/json-type';

/** A reader schema: the keywords scripts/schema-code.js keeps (it fails on any other). */
export interface ISchema {
  $id?: string;
  $ref?: string;
  $defs?: Record<string, ISchema>;
  type?: string | string[];
  const?: unknown;
  enum?: unknown[];
  allOf?: ISchema[];
  anyOf?: ISchema[];
  oneOf?: ISchema[];
  properties?: Record<string, ISchema>;
  required?: string[];
  additionalProperties?: ISchema | boolean;
  dependentSchemas?: Record<string, ISchema>;
  prefixItems?: ISchema[];
  items?: ISchema | boolean;
}

/** The keywords the interpreter knows; the generator refuses a reader schema with others. */
export const SCHEMA_KEYWORDS = [
  '$id',
  '$schema',
  '$ref',
  '$defs',
  'type',
  'const',
  'enum',
  'allOf',
  'anyOf',
  'oneOf',
  'properties',
  'required',
  'additionalProperties',
  'dependentSchemas',
  'prefixItems',
  'items'
];

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function equal(a: unknown, b: unknown): boolean {
  if (a === b) {
    return true;
  }
  if (
    typeof a !== 'object' ||
    typeof b !== 'object' ||
    a === null ||
    b === null
  ) {
    return false;
  }
  if (Array.isArray(a) !== Array.isArray(b)) {
    return false;
  }
  const keys = Object.keys(a);
  const other = b as Record<string, unknown>;
  return (
    keys.length === Object.keys(other).length &&
    keys.every(
      key =>
        Object.hasOwn(other, key) &&
        equal((a as Record<string, unknown>)[key], other[key])
    )
  );
}

/**
 * Where a value sits in the answer, built only when an error names it: a correct answer (every
 * poll) then costs no path strings at all.
 */
type Where = { readonly parent: Where; readonly segment: string } | null;

function pointer(where: Where): string {
  let text = '';
  for (let at = where; at !== null; at = at.parent) {
    text = `/${at.segment.replace(/~/g, '~0').replace(/\//g, '~1')}${text}`;
  }
  return text;
}

/** Resolves `$ref`s against the documents it was given, by their `$id`. */
class Checker {
  private readonly documents = new Map<string, ISchema>();
  /** Each reference resolved once: an answer is checked on every poll. */
  private readonly resolved = new Map<
    string,
    { schema: ISchema; base: string }
  >();

  constructor(schemas: readonly ISchema[]) {
    for (const schema of schemas) {
      this.documents.set(schema.$id ?? '', schema);
    }
  }

  /** The schema `ref` names, seen from document `base`, and the document it is in. */
  resolve(ref: string, base: string): { schema: ISchema; base: string } {
    const key = `${base} ${ref}`;
    let found = this.resolved.get(key);
    if (found === undefined) {
      found = this.lookUp(ref, base);
      this.resolved.set(key, found);
    }
    return found;
  }

  private lookUp(ref: string, base: string): { schema: ISchema; base: string } {
    const hash = ref.indexOf('#');
    const id = hash === 0 ? base : hash < 0 ? ref : ref.slice(0, hash);
    let schema: unknown = this.documents.get(id);
    const pointer = hash < 0 ? '' : ref.slice(hash + 1);
    for (const part of pointer.split('/').slice(1)) {
      schema = isObject(schema)
        ? schema[part.replace(/~1/g, '/').replace(/~0/g, '~')]
        : undefined;
    }
    if (!isObject(schema)) {
      throw new Error(`no schema at ${ref}`);
    }
    return { schema: schema as ISchema, base: id };
  }

  /** Adds the errors of `data` at `where` against `schema` (in document `base`) to `errors`, in Ajv's order. */
  check(
    schema: ISchema | boolean,
    data: unknown,
    where: Where,
    base: string,
    errors: IResponseError[]
  ): void {
    const fail = (keyword: string, params: Record<string, unknown> = {}) =>
      errors.push({ instancePath: pointer(where), keyword, params });
    if (typeof schema === 'boolean') {
      if (!schema) {
        fail('false schema');
      }
      return;
    }
    const type = schema.type;
    if (
      type !== undefined &&
      !(typeof type === 'string'
        ? hasJsonType(data, type)
        : type.some(one => hasJsonType(data, one)))
    ) {
      fail('type', { type });
    }
    if (schema.$ref !== undefined) {
      const target = this.resolve(schema.$ref, base);
      this.check(target.schema, data, where, target.base, errors);
    }
    if ('const' in schema && !equal(data, schema.const)) {
      fail('const', { allowedValue: schema.const });
    }
    if (
      schema.enum !== undefined &&
      !schema.enum.some(value => equal(data, value))
    ) {
      fail('enum', { allowedValues: schema.enum });
    }
    for (const part of schema.allOf ?? []) {
      this.check(part, data, where, base, errors);
    }
    if (schema.anyOf !== undefined || schema.oneOf !== undefined) {
      this.branches(schema, data, where, base, errors);
    }
    if (Array.isArray(data)) {
      this.checkArray(schema, data, where, base, errors);
    } else if (isObject(data)) {
      this.checkObject(schema, data, where, base, errors);
    }
  }

  /** anyOf and oneOf: the errors of every branch when the rule fails, none when it holds. */
  private branches(
    schema: ISchema,
    data: unknown,
    where: Where,
    base: string,
    errors: IResponseError[]
  ): void {
    for (const keyword of ['anyOf', 'oneOf'] as const) {
      const branches = schema[keyword];
      if (branches === undefined) {
        continue;
      }
      const results = branches.map(branch => {
        const found: IResponseError[] = [];
        this.check(branch, data, where, base, found);
        return found;
      });
      const passed = results.filter(result => result.length === 0).length;
      if (keyword === 'anyOf' ? passed === 0 : passed !== 1) {
        errors.push(...results.flat(), {
          instancePath: pointer(where),
          keyword,
          params: keyword === 'oneOf' ? { passingSchemas: passed } : {}
        });
      }
    }
  }

  private checkArray(
    schema: ISchema,
    data: unknown[],
    where: Where,
    base: string,
    errors: IResponseError[]
  ): void {
    const prefix = schema.prefixItems ?? [];
    data.forEach((item, index) => {
      const itemSchema = index < prefix.length ? prefix[index] : schema.items;
      if (itemSchema !== undefined) {
        const at = { parent: where, segment: String(index) };
        this.check(itemSchema, item, at, base, errors);
      }
    });
  }

  private checkObject(
    schema: ISchema,
    data: Record<string, unknown>,
    where: Where,
    base: string,
    errors: IResponseError[]
  ): void {
    for (const member of schema.required ?? []) {
      if (!Object.hasOwn(data, member)) {
        errors.push({
          instancePath: pointer(where),
          keyword: 'required',
          params: { missingProperty: member }
        });
      }
    }
    const properties = schema.properties;
    for (const member in data) {
      if (!Object.hasOwn(data, member)) {
        continue;
      }
      const memberSchema =
        properties !== undefined && Object.hasOwn(properties, member)
          ? properties[member]
          : schema.additionalProperties;
      if (memberSchema !== undefined) {
        const at = { parent: where, segment: member };
        this.check(memberSchema, data[member], at, base, errors);
      }
    }
    const dependents = schema.dependentSchemas;
    if (dependents !== undefined) {
      for (const [member, dependent] of Object.entries(dependents)) {
        if (Object.hasOwn(data, member)) {
          this.check(dependent, data, where, base, errors);
        }
      }
    }
  }
}

/** One checker per set of schemas, shared by its validators. */
const checkers = new WeakMap<readonly ISchema[], Checker>();

/** A validator of the schema `ref` names among `schemas`, with Ajv's interface. */
export function validatorFor(
  schemas: readonly ISchema[],
  ref: string
): IResponseValidator {
  let checker = checkers.get(schemas);
  if (checker === undefined) {
    checker = new Checker(schemas);
    checkers.set(schemas, checker);
  }
  const shared = checker;
  const { schema, base } = shared.resolve(ref, '');
  const validate: IResponseValidator = (data: unknown) => {
    const errors: IResponseError[] = [];
    shared.check(schema, data, null, base, errors);
    validate.errors = errors.length > 0 ? errors : null;
    return errors.length === 0;
  };
  return validate;
}
