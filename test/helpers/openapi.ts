// Checks an HTTP answer of the service against the OpenAPI document it serves (not against the
// separate schema files): the status must be one the operation documents, the media type one
// that status documents, and the body must validate against that response's schema, with the
// `#/components/schemas/...` references resolved inside the document. The body check is Ajv's
// JSON Schema 2020-12 (the dialect of OpenAPI 3.1) with every format, the document registered
// whole so a response schema is compiled by its JSON pointer and its references resolve there.
//
// harness.ts's request() runs it on every answer of every suite that uses it, so a route that
// sends what its description does not say fails the test that saw it.
import Ajv2020, { ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
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

/** The id the document is registered under, so a pointer into it names a response schema. */
const DOCUMENT_ID = 'urn:jupyterlab-project-startup:openapi';

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
      ajv: Ajv2020;
      cache: Map<string, ValidateFunction>;
    }
  | undefined;

function load(): NonNullable<typeof state> {
  if (state === undefined) {
    // The document as served at base URL "/": request paths are mapped onto it below.
    const document = buildOpenApi('/', '0.0.0') as unknown as Document;
    // Not strict: the document's own keywords (openapi, paths, ...) are not JSON Schema ones.
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema({ ...document, $id: DOCUMENT_ID });
    state = { document, ajv, cache: new Map() };
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
  const { document, ajv, cache } = load();
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
  const cacheKey = `${key} ${answer.status} ${type}`;
  let validate = cache.get(cacheKey);
  if (validate === undefined) {
    // The response's schema, its `#/components/...` references pointed into the document.
    const schema = JSON.stringify(declared.content?.[type]?.schema ?? {});
    validate = ajv.compile(
      JSON.parse(
        schema.replaceAll('"#/components/', `"${DOCUMENT_ID}#/components/`)
      ) as object
    );
    cache.set(cacheKey, validate);
  }
  if (validate(body)) {
    return [];
  }
  const details = (validate.errors ?? []).map(e =>
    `/response${e.instancePath} ${e.message ?? ''}`.trim()
  );
  return [
    `${where}: the body does not match its schema\n    ${details.join('\n    ')}`
  ];
}
