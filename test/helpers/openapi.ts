// Checks an HTTP answer of the service against the OpenAPI document it serves (not against the
// separate schema files): the status must be one the operation documents, the media type one
// that status documents, and the body must validate against that response's schema, with the
// `#/components/schemas/...` references resolved inside the document. The body check is
// express-openapi-validator's response validator (OpenAPI 3.1, JSON Schema 2020-12).
//
// harness.ts's request() runs it on every answer of every suite that uses it, so a route that
// sends what its description does not say fails the test that saw it.
import { ResponseValidator } from 'express-openapi-validator/dist/middlewares/openapi.response.validator';
import { buildOpenApi } from '../../sidecar/src/http/openapi';

interface MediaType {
  schema?: unknown;
}
interface ResponseObject {
  description: string;
  content?: Record<string, MediaType>;
}
type Responses = Record<string, ResponseObject>;
interface Operation {
  operationId: string;
  responses: Responses;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
}

type Validators = Record<string, Record<string, unknown>>;

interface ValidatorInternals {
  buildValidators(responses: Responses, cacheKey: string): Validators;
  _validate(args: {
    validators: Validators;
    body: unknown;
    statusCode: number;
    path: string;
    accepts: string[];
  }): void;
}

/** Any problem details answer of a route the document does not describe (404, 405, ...). */
const UNDOCUMENTED: Responses = {
  default: {
    description: 'Problem details',
    content: {
      'application/problem+json': {
        schema: { $ref: '#/components/schemas/Problem' }
      }
    }
  }
};

let state:
  | {
      document: Document;
      validator: ValidatorInternals;
      cache: Map<string, Validators>;
    }
  | undefined;

function load(): NonNullable<typeof state> {
  if (state === undefined) {
    // The document as served at base URL "/": request paths are mapped onto it below.
    const document = buildOpenApi('/', '0.0.0') as unknown as Document;
    const validator = new ResponseValidator(
      document as never,
      {
        allErrors: true,
        strict: false,
        formats: {},
        ajvFormats: { mode: 'full' }
      } as never
    ) as unknown as ValidatorInternals;
    state = { document, validator, cache: new Map() };
  }
  return state;
}

/** The document's own copy, for tests that look at it. */
export function servedDocument(): Document {
  return load().document;
}

function mediaType(contentType: string | undefined): string | undefined {
  return contentType?.split(';')[0].trim().toLowerCase() || undefined;
}

export interface Answer {
  method: string;
  /** The request URL (any base URL: the part from `/project/` on is what the document names). */
  url: string;
  status: number;
  contentType: string | undefined;
  text: string;
  /**
   * Whether the service answered (it sets X-Project-Startup-Version on every answer); false for
   * what a proxy or Jupyter in front of it said, which the document does not describe.
   */
  fromService: boolean;
}

/**
 * Why the answer does not match the OpenAPI document; empty when it does or when it is not an
 * API answer (the setup page and its files, redirects, the API docs page, the proxy's `GET /`).
 */
export function openApiMismatches(answer: Answer): string[] {
  if (!answer.fromService) {
    return [];
  }
  const { document, validator, cache } = load();
  const pathname = new URL(answer.url, 'http://localhost').pathname;
  const at = pathname.indexOf('/project/');
  const route = at === -1 ? undefined : pathname.slice(at);
  const method =
    answer.method.toUpperCase() === 'HEAD'
      ? 'get'
      : answer.method.toLowerCase();
  const operation =
    route === undefined ? undefined : document.paths[route]?.[method];
  const type = mediaType(answer.contentType);
  const where = `${answer.method.toUpperCase()} ${route ?? pathname} -> ${answer.status} ${type ?? '(no content type)'}`;

  let responses: Responses;
  let key: string;
  // A 404 means the service found no route there (e.g. /project/... outside its base URL): the
  // path was not the operation it looks like, so the answer is held to problem details only.
  if (
    operation !== undefined &&
    !(answer.status === 404 && type === 'application/problem+json')
  ) {
    if (answer.status >= 300 && answer.status < 400 && answer.status !== 304) {
      return []; // the token-to-cookie redirects: no API answer
    }
    if (!(String(answer.status) in operation.responses)) {
      return [
        `${where}: status ${answer.status} is not documented for ${operation.operationId}`
      ];
    }
    responses = operation.responses;
    key = `${method} ${route}`;
  } else if (type === 'application/problem+json') {
    responses = UNDOCUMENTED;
    key = 'undocumented';
  } else {
    return []; // not an API route of the document: pages, static files, redirects
  }

  const declared = responses[String(answer.status)] ?? responses.default;
  const declaredTypes = Object.keys(declared.content ?? {});
  if (declaredTypes.length === 0) {
    return answer.text === ''
      ? []
      : [`${where}: the document says no content, the answer has a body`];
  }
  if (type === undefined || !declaredTypes.includes(type)) {
    return [
      `${where}: the document allows ${declaredTypes.join(', ')} for this status`
    ];
  }
  if (answer.method.toUpperCase() === 'HEAD') {
    return [];
  }
  let body: unknown;
  try {
    body = JSON.parse(answer.text);
  } catch {
    return [`${where}: the body is not JSON`];
  }
  let validators = cache.get(key);
  if (validators === undefined) {
    validators = validator.buildValidators(responses, key);
    cache.set(key, validators);
  }
  try {
    validator._validate({
      validators,
      body,
      statusCode: answer.status,
      path: route ?? pathname,
      accepts: [type]
    });
    return [];
  } catch (error) {
    const e = error as {
      message?: string;
      errors?: { path?: string; message?: string }[];
    };
    const details = (e.errors ?? []).map(d =>
      `${d.path ?? ''} ${d.message ?? ''}`.trim()
    );
    return [
      `${where}: ${e.message ?? String(error)}${details.length > 0 ? `\n    ${details.join('\n    ')}` : ''}`
    ];
  }
}
