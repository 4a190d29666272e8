// What the generated validators (core/generated/request-validators.ts, from the JSON Schemas)
// report, and how a report becomes the validation-failed problem's errors: one JSON pointer and
// a few words per field, the same words whichever schema found them. Pure.

/** One error as Ajv's generated code writes it (the members read here). */
export interface SchemaError {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string;
}

/** A validator generated from a schema: true when `data` has the shape, else `errors` says why. */
export interface SchemaValidator {
  (data: unknown): boolean;
  errors?: SchemaError[] | null;
}

/** One entry of a validation-failed problem's `errors`. */
export interface FieldError {
  pointer: string;
  detail: string;
}

/** A member name in a JSON pointer: escaped (RFC 6901) and cut, so no body is echoed whole. */
export function pointerSegment(key: string): string {
  return key.slice(0, 64).replace(/~/g, '~0').replace(/\//g, '~1');
}

const TYPE_WORDS: Readonly<Record<string, string>> = {
  object: 'an object',
  array: 'an array',
  string: 'a string',
  number: 'a number',
  integer: 'an integer',
  boolean: 'true or false',
  null: 'null'
};

function typeWords(types: readonly string[]): string {
  const words = types.map(t => TYPE_WORDS[t] ?? t);
  return words.length > 1
    ? `${words.slice(0, -1).join(', ')} or ${words[words.length - 1]}`
    : words[0];
}

/**
 * The types a field may have: an anyOf of types (the JSON-RPC id) fails once per branch, and
 * the field's one error names them all.
 */
function typesByPointer(errors: readonly SchemaError[]): Map<string, string[]> {
  const types = new Map<string, string[]>();
  for (const error of errors) {
    if (error.keyword === 'type') {
      const list = types.get(error.instancePath) ?? [];
      list.push(...String(error.params.type).split(','));
      types.set(error.instancePath, list);
    }
  }
  return types;
}

function describe(
  error: SchemaError,
  types: Map<string, string[]>
): FieldError | undefined {
  const at = error.instancePath;
  const p = error.params;
  switch (error.keyword) {
    case 'additionalProperties':
      return {
        pointer: `${at}/${pointerSegment(String(p.additionalProperty))}`,
        detail: 'is not a known field'
      };
    case 'required':
      return {
        pointer: `${at}/${pointerSegment(String(p.missingProperty))}`,
        detail: 'is required'
      };
    case 'type':
      return {
        pointer: at,
        detail: `must be ${typeWords(types.get(at) ?? [])}`
      };
    case 'const':
      return {
        pointer: at,
        detail: `must be ${JSON.stringify(p.allowedValue)}`
      };
    case 'enum':
      return {
        pointer: at,
        detail: `must be one of ${(p.allowedValues as unknown[]).map(v => JSON.stringify(v)).join(', ')}`
      };
    case 'pattern':
      return { pointer: at, detail: 'does not have the expected form' };
    // The branch of an if/then, anyOf or oneOf that failed is reported by its own errors.
    case 'if':
    case 'anyOf':
    case 'oneOf':
      return undefined;
    default:
      return { pointer: at, detail: error.message ?? `fails ${error.keyword}` };
  }
}

/** The errors of a failed validation, one per field: unknown members, then the rest as found. */
export function fieldErrors(
  errors: readonly SchemaError[] | null | undefined
): FieldError[] {
  const seen = new Set<string>();
  const out: FieldError[] = [];
  const types = typesByPointer(errors ?? []);
  // Unknown members first, as they were named before the schemas checked the bodies.
  const ordered = [...(errors ?? [])].sort(
    (a, b) =>
      Number(b.keyword === 'additionalProperties') -
      Number(a.keyword === 'additionalProperties')
  );
  for (const error of ordered) {
    const field = describe(error, types);
    if (field === undefined || seen.has(field.pointer)) {
      continue;
    }
    seen.add(field.pointer);
    out.push(field);
  }
  return out;
}
