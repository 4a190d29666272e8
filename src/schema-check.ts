// Checks a service answer against the reader's view of its JSON Schema (types, required
// members, enums, consts, and the applicators that combine them), reporting errors in the shape
// Ajv writes them (response-errors.ts reads that shape). The schemas themselves are data
// (src/generated/response-validators.ts): one small interpreter instead of code per schema keeps
// the labextension a third of the size generated validators made it. Pure.
import type { IResponseError, IResponseValidator } from './response-errors';

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

function hasType(value: unknown, type: string): boolean {
  switch (type) {
    case 'object':
      return isObject(value);
    case 'array':
      return Array.isArray(value);
    case 'null':
      return value === null;
    case 'integer':
      return Number.isInteger(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    default:
      return typeof value === type;
  }
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

function escape(member: string): string {
  return member.replace(/~/g, '~0').replace(/\//g, '~1');
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

  /** The errors of `data` at `path` against `schema` (in document `base`), in Ajv's order. */
  check(
    schema: ISchema | boolean,
    data: unknown,
    path: string,
    base: string
  ): IResponseError[] {
    if (typeof schema === 'boolean') {
      return schema
        ? []
        : [{ instancePath: path, keyword: 'false schema', params: {} }];
    }
    const errors: IResponseError[] = [];
    const fail = (keyword: string, params: Record<string, unknown> = {}) =>
      errors.push({ instancePath: path, keyword, params });
    const types = schema.type === undefined ? [] : [schema.type].flat();
    if (types.length > 0 && !types.some(type => hasType(data, type))) {
      fail('type', { type: schema.type });
    }
    if (schema.$ref !== undefined) {
      const target = this.resolve(schema.$ref, base);
      errors.push(...this.check(target.schema, data, path, target.base));
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
      errors.push(...this.check(part, data, path, base));
    }
    errors.push(...this.branches(schema, data, path, base));
    if (Array.isArray(data)) {
      errors.push(...this.checkArray(schema, data, path, base));
    }
    if (isObject(data)) {
      errors.push(...this.checkObject(schema, data, path, base));
    }
    return errors;
  }

  /** anyOf and oneOf: the errors of every branch when the rule fails, none when it holds. */
  private branches(
    schema: ISchema,
    data: unknown,
    path: string,
    base: string
  ): IResponseError[] {
    const errors: IResponseError[] = [];
    for (const keyword of ['anyOf', 'oneOf'] as const) {
      const branches = schema[keyword];
      if (branches === undefined) {
        continue;
      }
      const results = branches.map(branch =>
        this.check(branch, data, path, base)
      );
      const passed = results.filter(result => result.length === 0).length;
      if (keyword === 'anyOf' ? passed === 0 : passed !== 1) {
        errors.push(...results.flat(), {
          instancePath: path,
          keyword,
          params: keyword === 'oneOf' ? { passingSchemas: passed } : {}
        });
      }
    }
    return errors;
  }

  private checkArray(
    schema: ISchema,
    data: unknown[],
    path: string,
    base: string
  ): IResponseError[] {
    const prefix = schema.prefixItems ?? [];
    return data.flatMap((item, index) => {
      const itemSchema = index < prefix.length ? prefix[index] : schema.items;
      return itemSchema === undefined
        ? []
        : this.check(itemSchema, item, `${path}/${index}`, base);
    });
  }

  private checkObject(
    schema: ISchema,
    data: Record<string, unknown>,
    path: string,
    base: string
  ): IResponseError[] {
    const errors: IResponseError[] = [];
    for (const member of schema.required ?? []) {
      if (!Object.hasOwn(data, member)) {
        errors.push({
          instancePath: path,
          keyword: 'required',
          params: { missingProperty: member }
        });
      }
    }
    const properties = schema.properties ?? {};
    for (const [member, value] of Object.entries(data)) {
      const known = Object.hasOwn(properties, member);
      const memberSchema = known
        ? properties[member]
        : schema.additionalProperties;
      if (memberSchema !== undefined) {
        errors.push(
          ...this.check(memberSchema, value, `${path}/${escape(member)}`, base)
        );
      }
    }
    for (const [member, dependent] of Object.entries(
      schema.dependentSchemas ?? {}
    )) {
      if (Object.hasOwn(data, member)) {
        errors.push(...this.check(dependent, data, path, base));
      }
    }
    return errors;
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
    const errors = shared.check(schema, data, '', base);
    validate.errors = errors.length > 0 ? errors : null;
    return errors.length === 0;
  };
  return validate;
}
