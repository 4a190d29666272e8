// What the validators generated from the JSON Schemas (src/generated/response-validators.ts,
// `node scripts/schema-code.js generate`) report, and how a report becomes the list of wrong
// fields a person reads in the panel's "unexpected answer" failure. Pure.

/** One error as Ajv writes it, and src/schema-check.ts after it (the members read here). */
export interface IResponseError {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
}

/** A validator generated from a schema: true when `data` has the shape, else `errors` says why. */
export interface IResponseValidator {
  (data: unknown): boolean;
  errors?: IResponseError[] | null;
}

/** Keywords whose failure is reported by the errors of the branches that failed under them. */
const BRANCHING = new Set(['anyOf', 'oneOf', 'allOf', 'if', 'not']);

/** "/nextAction/interfaces/0" → "nextAction.interfaces.0"; the body itself is "(body)". */
function fieldPath(pointer: string): string {
  if (pointer === '') {
    return '(body)';
  }
  return pointer
    .slice(1)
    .split('/')
    .map(part => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .join('.');
}

/**
 * The fields a failed validation names, each once, in the order found: a missing member by its
 * own path (`nextAction.title`), any other error by the path of the value that is wrong.
 */
export function wrongFields(
  errors: readonly IResponseError[] | null | undefined
): string[] {
  const fields: string[] = [];
  for (const error of errors ?? []) {
    if (BRANCHING.has(error.keyword)) {
      continue;
    }
    const pointer =
      error.keyword === 'required'
        ? `${error.instancePath}/${String(error.params.missingProperty)}`
        : error.instancePath;
    const field = fieldPath(pointer);
    if (!fields.includes(field)) {
      fields.push(field);
    }
  }
  return fields;
}

/** The wrong fields of `value` for `validate`: empty when it has the schema's shape. */
export function invalidFields(
  validate: IResponseValidator,
  value: unknown
): string[] {
  return validate(value) ? [] : wrongFields(validate.errors);
}
