// The thin HTTP layer: routes, authentication order and problem rendering. Every decision
// is the core's; this file only turns requests into calls and answers into responses.
//
// Two lanes share one implementation of every route. The fast lane answers the requests a
// sidecar sees all day (capabilities, startup, gateway and health, authenticated) straight on
// node:http; every other request (redirects, refusals before a route is chosen, the setup page,
// initialize, the API description, other methods, unknown paths) goes to the express
// application. A request the fast lane cannot answer exactly as express would is handed over
// before anything is looked at but its URL and method.
//
// No request opens a file: loading code or reading a file takes a descriptor, and a request can
// arrive when none is left (a flood of connections); a `require('express')` that threw EMFILE
// inside the request listener used to end the process. The setup page's files and the API
// description are read when the app is made, at start-up. Express is loaded at start-up from
// node_modules (the TypeScript build); in the production bundle it is part of the one file
// already in memory, so it is only evaluated, on the first request that needs it, which takes no
// descriptor: evaluating it at every start would cost about 30 ms of CPU and 6 MiB (measured),
// most of a cold start. Should that evaluation fail all the same, the request gets a problem and
// the next one tries again.
import * as fs from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import * as nodePath from 'node:path';
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from '../log';
import { asProblemError, ProblemError } from '../core/problems';
import { etagOf } from '../core/manifest';
import { parseInterface, StartupService } from '../service';
import {
  healthProof,
  NONCE_PATTERN,
  serviceViewOf
} from '../core/health-proof';
import { readJsonBody } from './body';
import { handleRpc, parseErrorResponse } from './gateway';
import { buildOpenApi } from './openapi';
import {
  checkSameOrigin,
  IngressGuard,
  originForm,
  RequestIdentity,
  SecretMatcher
} from './ingress';
import {
  channelOf,
  ConfirmationChannel,
  PROMPT_KEY_HEADER
} from '../core/confirmation';
import { carriesJupyterXsrf } from './jupyter-xsrf';
import { parseAllocationClaim } from '../core/allocation-claim';
import type { RateLimiter } from './rate-limit';
import { addressTokenRefusal, addressTokenRule } from '../core/sign-in';
import { INTERFACE_IDS, labelOf } from '../core/vocabulary';

export const URL_LIMIT = 8 * 1024;

export interface AppOptions {
  service: StartupService;
  guard: IngressGuard;
  logger: Logger;
  rateLimiter: RateLimiter;
  /** New job ids per client in the allocation parameter (each costs a scheduler query). */
  claimRateLimiter: RateLimiter;
  /** The command line's prompt key (from the runtime file): proves a TTY prompt was answered. */
  promptKey?: SecretMatcher;
  /** The token the health route proves it holds (health-proof.ts); none, no proof. */
  proofKey?: string;
}

/** What node:http calls for every request. */
export type RequestListener = (
  request: IncomingMessage,
  response: ServerResponse
) => void;

/** The API docs page's Swagger UI files (scripts/api.js copies them from swagger-ui-dist at build time). */
const DOCS_ASSETS: Record<string, { file: string; type: string }> = {
  '/api-docs-assets/swagger-ui-bundle.js': {
    file: 'swagger-ui-bundle.js',
    type: 'text/javascript'
  },
  '/api-docs-assets/swagger-ui.css': {
    file: 'swagger-ui.css',
    type: 'text/css'
  }
};

/**
 * Routes that answer without authentication: liveness, the API description and its docs page,
 * the page icon. None of them holds anything but what the package itself ships.
 */
const PUBLIC_ROUTES = new Set([
  '/health',
  '/openapi.json',
  '/favicon.svg',
  '/api-docs',
  '/api-docs.js',
  ...Object.keys(DOCS_ASSETS)
]);

const STATIC_DIR = nodePath.join(__dirname, '..', '..', 'static');
/** sidecar/dist/api-docs, from dist/http, dist/bundle and (tests) src/http alike. */
const DOCS_DIR = nodePath.join(__dirname, '..', '..', 'dist', 'api-docs');
const PAGE_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
/**
 * The API docs page's policy: the setup page's, except that images may be data: URLs, which is
 * how Swagger UI's stylesheet draws its icons. Scripts stay 'self' only.
 */
const DOCS_POLICY = PAGE_POLICY.replace(
  "img-src 'self'",
  "img-src 'self' data:"
);

/** The setup page's and the docs page's files, read once when the app is made. */
const STATIC_FILES: Record<
  string,
  { file: string; type: string; policy?: string; body?: Buffer }
> = {
  '/': { file: 'setup.html', type: 'text/html' },
  '/setup.js': { file: 'setup.js', type: 'text/javascript' },
  '/setup.css': { file: 'setup.css', type: 'text/css' },
  '/favicon.svg': { file: 'favicon.svg', type: 'image/svg+xml' },
  '/api-docs': {
    file: 'api-docs.html',
    type: 'text/html',
    policy: DOCS_POLICY
  },
  '/api-docs.js': {
    file: 'api-docs.js',
    type: 'text/javascript',
    policy: DOCS_POLICY
  }
};

/** The setup page and what only it loads (the icon stays: it names no route). */
const PAGE_ROUTES = new Set(['/', '/setup.js', '/setup.css']);

function wantsHtml(request: IncomingMessage): boolean {
  return (
    request.headers['sec-fetch-mode'] === 'navigate' ||
    (request.headers.accept ?? '').includes('text/html')
  );
}

/** The answer to jupyter-server-proxy's readiness poll (GET / behind the notebook server). */
const READY = '{"status":"pass"}';

const SIGN_IN_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sign in: project startup</title>
<link rel="icon" href="favicon.svg" type="image/svg+xml"></head>
<body><main><h1>Sign in to the project startup page</h1>
<p>This page needs the service's token. In a terminal on this machine, run</p>
<pre>project-startup url</pre>
<p>and open the address it prints. The token is then kept in a private cookie.</p></main></body></html>
`;

/** What the first middleware learned about a request, for the routes and the error handler. */
interface Locals {
  query: URLSearchParams;
  identity: RequestIdentity;
  path: string;
}

function locals(response: Response): Locals {
  return response.locals as Locals;
}

function sendJson(
  response: ServerResponse,
  status: number,
  body: string | Buffer,
  type = 'application/json'
): void {
  response.statusCode = status;
  response.setHeader('Content-Type', `${type}; charset=utf-8`);
  response.end(body);
}

/**
 * The UTF-8 bytes of the JSON bodies that stay the same from request to request, encoded once:
 * a Buffer goes to the socket as it is, where a string would be copied and encoded every time.
 * (The same bytes and the same Content-Length either way.)
 */
class EncodedBodies {
  private readonly bodies = new Map<
    string,
    { json: string; bytes: Buffer; etag?: string }
  >();

  of(key: string, json: string): Buffer {
    return this.entry(key, json).bytes;
  }

  /** The bytes with their strong ETag (a hash of them), hashed once per distinct body. */
  tagged(key: string, json: string): { bytes: Buffer; etag: string } {
    const entry = this.entry(key, json);
    entry.etag ??= etagOf(json);
    return { bytes: entry.bytes, etag: entry.etag };
  }

  private entry(
    key: string,
    json: string
  ): { json: string; bytes: Buffer; etag?: string } {
    const known = this.bodies.get(key);
    if (known !== undefined && known.json === json) {
      return known;
    }
    const entry = { json, bytes: Buffer.from(json, 'utf8') };
    this.bodies.set(key, entry);
    return entry;
  }
}

function methodNotAllowed(allow: string) {
  return (request: Request) => {
    throw new ProblemError(
      'method-not-allowed',
      `${request.method} is not allowed here; use ${allow}.`,
      {},
      { Allow: allow }
    );
  };
}

/** Weak comparison, as RFC 9110 asks for If-None-Match. */
function matchesEtag(header: string | undefined, etag: string): boolean {
  if (!header) {
    return false;
  }
  if (header.trim() === '*') {
    return true;
  }
  return header.split(',').some(tag => tag.trim().replace(/^W\//, '') === etag);
}

/**
 * `JSON.stringify(result)`, as UTF-8 bytes, for what handleRpc returns: one response or a batch.
 * A successful response whose result the service has already serialized (the manifest, a startup
 * result) reuses those bytes, encoded once; everything else is serialized as usual.
 */
function rpcBody(
  result: unknown,
  service: StartupService,
  encoded: EncodedBodies
): string | Buffer {
  if (Array.isArray(result)) {
    return `[${result.map(response => responseJson(response, service)).join(',')}]`;
  }
  const r = result as {
    jsonrpc?: unknown;
    id?: unknown;
    result?: unknown;
  } | null;
  const prepared = preparedResult(r, service);
  if (prepared === undefined) {
    return JSON.stringify(result);
  }
  // Three pieces copied into one Buffer: the large middle one is never rebuilt as a string.
  // The same bytes as the capabilities or startup route's body, encoded once for both.
  const bytes = encoded.of(prepared.kind, prepared.json);
  return Buffer.concat([
    Buffer.from(rpcResultHead(r), 'utf8'),
    bytes,
    CLOSE_BRACE
  ]);
}

const CLOSE_BRACE = Buffer.from('}');

function responseJson(response: unknown, service: StartupService): string {
  const r = response as {
    jsonrpc?: unknown;
    id?: unknown;
    result?: unknown;
  } | null;
  const prepared = preparedResult(r, service);
  return prepared === undefined
    ? JSON.stringify(response)
    : `${rpcResultHead(r)}${prepared.json}}`;
}

/** A success response's JSON up to its result: `{"jsonrpc":…,"id":…,"result":`. */
function rpcResultHead(r: { jsonrpc?: unknown; id?: unknown } | null): string {
  return `{"jsonrpc":${JSON.stringify(r?.jsonrpc)},"id":${JSON.stringify(r?.id)},"result":`;
}

/** The prepared JSON of a successful { jsonrpc, id, result } (handleRpc's order), if known. */
function preparedResult(
  r: { jsonrpc?: unknown; id?: unknown; result?: unknown } | null,
  service: StartupService
): ReturnType<StartupService['preparedJson']> {
  if (r === null || typeof r !== 'object' || !('result' in r)) {
    return undefined;
  }
  const keys = Object.keys(r);
  if (
    keys.length !== 3 ||
    keys[0] !== 'jsonrpc' ||
    keys[1] !== 'id' ||
    keys[2] !== 'result' ||
    r.id === undefined
  ) {
    return undefined; // JSON.stringify would drop an undefined id; leave such a shape to it
  }
  return service.preparedJson(r.result);
}

/** The headers every answer of the service carries, set before anything else. */
function setCommonHeaders(response: ServerResponse, version: string): void {
  response.setHeader('X-Project-Startup-Version', version);
  response.setHeader('X-Content-Type-Options', 'nosniff');
  response.setHeader('Cache-Control', 'no-store');
}

/** The routes' work, shared by both lanes. */
interface Routes {
  capabilities(request: IncomingMessage, response: ServerResponse): void;
  startup(
    request: IncomingMessage,
    response: ServerResponse,
    query: URLSearchParams,
    identity: RequestIdentity
  ): Promise<void>;
  initialize(
    request: IncomingMessage,
    response: ServerResponse,
    identity: RequestIdentity
  ): Promise<void>;
  gateway(
    request: IncomingMessage,
    response: ServerResponse,
    identity: RequestIdentity,
    path: string
  ): Promise<void>;
  health(
    request: IncomingMessage,
    response: ServerResponse,
    query: URLSearchParams
  ): void;
  openapi(response: ServerResponse): void;
  staticFile(
    entry: (typeof STATIC_FILES)[string],
    response: ServerResponse
  ): void;
  docsAsset(
    entry: (typeof DOCS_ASSETS)[string],
    response: ServerResponse
  ): Promise<void>;
  /** Renders any failure as problem details (the express error handler does the same). */
  fail(
    error: unknown,
    request: IncomingMessage,
    response: ServerResponse,
    path: string
  ): Promise<void>;
}

function createRoutes(options: AppOptions): Routes {
  const { service, guard, logger, rateLimiter, claimRateLimiter, promptKey } =
    options;
  const ingress = guard.mode;
  /** What this request's transport shows about where a confirmation comes from. */
  const channel = (
    request: IncomingMessage,
    identity: RequestIdentity
  ): ConfirmationChannel => {
    const raw = request.headers[PROMPT_KEY_HEADER];
    const prompted =
      promptKey !== undefined &&
      typeof raw === 'string' &&
      promptKey.matches(raw);
    return channelOf(
      ingress,
      identity.via,
      identity.ambient,
      prompted,
      ingress === 'notebook-server-proxy' && carriesJupyterXsrf(request)
    );
  };
  const encoded = new EncodedBodies();
  const healthJson = JSON.stringify({
    status: 'pass',
    version: service.version,
    instanceId: service.instanceId,
    platform: service.adapter.id
  });
  const openApiJson = JSON.stringify(
    buildOpenApi(service.config.baseUrl, service.version)
  );
  for (const entry of Object.values(STATIC_FILES)) {
    entry.body ??= fs.readFileSync(nodePath.join(STATIC_DIR, entry.file));
  }
  return {
    capabilities(request, response) {
      const { json, etag } = service.manifest;
      response.setHeader('ETag', etag);
      response.setHeader('Cache-Control', 'private, no-cache');
      if (matchesEtag(request.headers['if-none-match'], etag)) {
        response.statusCode = 304;
        response.end();
        return;
      }
      sendJson(response, 200, encoded.of('capabilities', json));
    },

    async startup(request, response, query, identity) {
      const values = query.getAll('interface');
      if (values.length > 1) {
        throw new ProblemError(
          'unknown-interface',
          `Give the interface parameter once: one of ${INTERFACE_IDS.join(', ')}.`,
          {
            allowedValues: [...INTERFACE_IDS]
          }
        );
      }
      const iface = parseInterface(values[0]);
      const claims = query.getAll('allocation');
      if (claims.length > 1) {
        throw new ProblemError(
          'validation-failed',
          'Give the allocation parameter once, as <scheduler>:<job id>.'
        );
      }
      const pending = service.startupJson(
        iface,
        parseAllocationClaim(claims[0], '/allocation'),
        () => claimRateLimiter.take(identity.clientKey)
      );
      const json = typeof pending === 'string' ? pending : await pending;
      // The projection's JSON is the same string object while nothing observed has changed.
      const { bytes, etag } = encoded.tagged(`startup ${iface}`, json);
      // A poller that sends back the last ETag gets an empty 304 while the answer is the same
      // (the tag is a hash of the bytes). Still no-store: a projection names private paths.
      response.setHeader('ETag', etag);
      if (matchesEtag(request.headers['if-none-match'], etag)) {
        response.statusCode = 304;
        response.end();
        return;
      }
      sendJson(response, 200, bytes);
    },

    async initialize(request, response, identity) {
      checkSameOrigin(request, guard, identity);
      rateLimiter.take(identity.clientKey);
      const body = await readJsonBody(request);
      const result = await service.initialize(body, {
        ingress,
        channel: channel(request, identity),
        admitNewClaim: () => claimRateLimiter.take(identity.clientKey)
      });
      logger.info(
        result.status === 201
          ? 'project state created'
          : 'project state already present',
        {
          interface: result.body.record.confirmation.interface,
          method: result.body.record.confirmation.method
        }
      );
      sendJson(response, result.status, JSON.stringify(result.body));
    },

    async gateway(request, response, identity, path) {
      checkSameOrigin(request, guard, identity);
      let body: unknown;
      try {
        body = await readJsonBody(request);
      } catch (error) {
        const problem = asProblemError(error);
        if (problem.code !== 'invalid-json') {
          throw problem;
        }
        sendJson(
          response,
          200,
          JSON.stringify(parseErrorResponse(problem, path))
        );
        return;
      }
      const result = await handleRpc(body, {
        service,
        ingress,
        channel: channel(request, identity),
        instance: path,
        beforeInitialize: () => rateLimiter.take(identity.clientKey),
        admitNewClaim: () => claimRateLimiter.take(identity.clientKey)
      });
      if (result === undefined) {
        response.statusCode = 204;
        response.end();
        return;
      }
      sendJson(response, 200, rpcBody(result, service, encoded));
    },

    health(request, response, query) {
      const nonce = query.get('nonce');
      if (nonce === null || options.proofKey === undefined) {
        sendJson(
          response,
          200,
          encoded.of('health', healthJson),
          'application/health+json'
        );
        return;
      }
      if (query.getAll('nonce').length > 1 || !NONCE_PATTERN.test(nonce)) {
        throw new ProblemError(
          'validation-failed',
          'nonce must be given once, as 32 to 128 lowercase hexadecimal characters.',
          {
            errors: [
              { pointer: '/nonce', detail: 'must match ^[0-9a-f]{32,128}$' }
            ]
          }
        );
      }
      // The proof binds the client's nonce to this instance and this connection (a relay's
      // connection is another one); the token itself is never sent.
      const proof = healthProof(
        options.proofKey,
        nonce,
        service.instanceId,
        serviceViewOf(request.socket)
      );
      sendJson(
        response,
        200,
        `${healthJson.slice(0, -1)},"proof":${JSON.stringify(proof)}}`,
        'application/health+json'
      );
    },

    openapi(response) {
      sendJson(response, 200, openApiJson);
    },

    staticFile(entry, response) {
      response.setHeader(
        'Content-Security-Policy',
        entry.policy ?? PAGE_POLICY
      );
      response.setHeader('Referrer-Policy', 'no-referrer');
      response.statusCode = 200;
      response.setHeader('Content-Type', `${entry.type}; charset=utf-8`);
      response.end(entry.body);
    },

    async docsAsset(entry, response) {
      // Some 2 MB that a person may never ask for: read from disk on each request, never kept.
      const file = nodePath.join(DOCS_DIR, entry.file);
      let size: number;
      try {
        size = (await fs.promises.stat(file)).size;
      } catch (error) {
        if (
          ['EMFILE', 'ENFILE'].includes(
            (error as NodeJS.ErrnoException).code ?? ''
          )
        ) {
          throw error; // no descriptor left: answered 503 overloaded, not "not built"
        }
        throw new ProblemError(
          'not-found',
          'The API docs page is not built here: run `npm run build:sidecar`; the description itself is at openapi.json.'
        );
      }
      response.setHeader('Content-Security-Policy', DOCS_POLICY);
      response.setHeader('Referrer-Policy', 'no-referrer');
      response.setHeader('Content-Type', `${entry.type}; charset=utf-8`);
      response.setHeader('Content-Length', size);
      response.statusCode = 200;
      await new Promise<void>((resolve, reject) => {
        const stream = fs.createReadStream(file);
        stream.once('error', reject);
        response.once('close', resolve);
        stream.pipe(response);
      }).catch(() => response.destroy());
    },

    async fail(error, request, response, path) {
      const problem = asProblemError(problemFromExpress(error));
      if (problem.code === 'internal') {
        const e = error as { name?: string; code?: string };
        logger.error('request failed', {
          path,
          method: request.method,
          error: e?.name,
          errno: e?.code
        });
      }
      if (response.headersSent) {
        response.destroy();
        return;
      }
      // Refused before its body was read: take the body first, or a client (or a proxy) still
      // writing it meets a closed socket and reports that instead of this answer.
      await drainRequest(request);
      if (response.destroyed) {
        return;
      }
      for (const [name, value] of Object.entries(problem.headers)) {
        response.setHeader(name, value);
      }
      sendJson(
        response,
        problem.status,
        JSON.stringify(problem.toProblem(path)),
        'application/problem+json'
      );
    }
  };
}

/**
 * Whether this code runs from the webpack bundle (scripts/bundle-sidecar.js), where every module,
 * express included, is in memory: webpack evaluates `typeof __webpack_require__` to "function"
 * when it bundles; under plain Node the name is undeclared and typeof says "undefined".
 */
declare const __webpack_require__: unknown;
const MODULES_IN_MEMORY = typeof __webpack_require__ === 'function';

export function createApp(options: AppOptions): RequestListener {
  const routes = createRoutes(options);
  const fast = createFastLane(options, routes);
  let slow = MODULES_IN_MEMORY ? undefined : createExpressApp(options, routes);
  return (request, response) => {
    if (fast(request, response)) {
      return;
    }
    if (slow === undefined) {
      try {
        slow = createExpressApp(options, routes);
      } catch (error) {
        setCommonHeaders(response, options.service.version);
        void routes
          .fail(
            error,
            request,
            response,
            instancePath(originForm(request.url ?? '/').split('?')[0])
          )
          .catch(() => response.destroy());
        return;
      }
    }
    slow(request, response);
  };
}

/**
 * The fast lane: takes a request only when its answer cannot differ from the express lane's,
 * and returns false (having looked at nothing but the URL and method) otherwise. From the moment
 * it takes a request, every failure (Host, credentials, the route's own) is rendered by the same
 * code as express's error handler, so nothing is checked twice.
 */
function createFastLane(
  options: AppOptions,
  routes: Routes
): (request: IncomingMessage, response: ServerResponse) => boolean {
  const { service, guard, logger } = options;
  const prefix = `${service.config.baseUrl}project`;
  // The debug request log hangs off express's first middleware: with it on, take nothing.
  if (logger.enabled('debug')) {
    return () => false;
  }
  type Hot = 'capabilities' | 'startup' | 'gateway' | 'health';
  const hot = new Map<
    string,
    { route: Hot; method: string; isPublic: boolean }
  >();
  for (const [route, method] of [
    ['capabilities', 'GET'],
    ['startup', 'GET'],
    ['gateway', 'POST'],
    ['health', 'GET']
  ] as const) {
    hot.set(`${prefix}/${route}`, {
      route,
      method,
      isPublic: guard.publicRoutes && PUBLIC_ROUTES.has(`/${route}`)
    });
  }
  const version = service.version;
  const proxied = guard.mode === 'notebook-server-proxy';

  return (request, response) => {
    const url = request.url as string;
    if (url.length > URL_LIMIT) {
      return false;
    }
    const q = url.indexOf('?');
    const path = q === -1 ? url : url.slice(0, q);
    if (
      path === '/' &&
      proxied &&
      (request.method === 'GET' || request.method === 'HEAD')
    ) {
      // jupyter-server-proxy's readiness poll, answered without loading express.
      setCommonHeaders(response, version);
      try {
        guard.checkHost(request);
      } catch (error) {
        void routes
          .fail(error, request, response, path)
          .catch(() => response.destroy());
        return true;
      }
      sendJson(response, 200, READY, 'application/health+json');
      return true;
    }
    const entry = hot.get(path);
    if (entry === undefined || request.method !== entry.method) {
      return false;
    }
    const params = new URLSearchParams(q === -1 ? '' : url.slice(q + 1));
    // A token in the address, on any route: signed in or refused (sign-in.ts); express does that.
    if (params.has('token')) {
      return false;
    }
    const query = entry.isPublic ? undefined : params;
    // Taken: from here on this lane answers, as the express lane would.
    setCommonHeaders(response, version);
    // Should rendering a problem itself fail, end the exchange rather than the process.
    const onError = (error: unknown) =>
      routes
        .fail(error, request, response, path)
        .catch(() => response.destroy());
    let identity: RequestIdentity | undefined;
    try {
      guard.checkHost(request);
      if (query !== undefined) {
        identity = guard.authenticate(request, response, query);
      }
    } catch (error) {
      void onError(error);
      return true;
    }
    switch (entry.route) {
      case 'capabilities':
        routes.capabilities(request, response);
        break;
      case 'health':
        try {
          routes.health(request, response, params);
        } catch (error) {
          void onError(error);
        }
        break;
      case 'startup':
        routes
          .startup(
            request,
            response,
            query as URLSearchParams,
            identity as RequestIdentity
          )
          .catch(onError);
        break;
      case 'gateway':
        routes
          .gateway(request, response, identity as RequestIdentity, path)
          .catch(onError);
        break;
    }
    return true;
  };
}

/** Every request the fast lane leaves: the complete application, as express routes it. */
function createExpressApp(
  options: AppOptions,
  routes: Routes
): RequestListener {
  // Required here, not at the top: see createApp for when this runs.
  const express = require('express') as typeof import('express');
  const { service, guard, logger } = options;
  const baseUrl = service.config.baseUrl;
  const prefix = `${baseUrl}project`;
  // The setup page is the browser route: only where the platform has one (generic), through
  // whichever of its ingress modes the service runs on.
  const setupPageOffered = service.adapter.browserRoute === 'direct-loopback';

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);

  app.use((request: Request, response: Response, next: NextFunction) => {
    setCommonHeaders(response, service.version);
    if (logger.enabled('debug')) {
      const started = process.hrtime.bigint();
      response.on('finish', () => {
        logger.debug('request', {
          method: request.method,
          path: locals(response).path,
          status: response.statusCode,
          ms: Number(process.hrtime.bigint() - started) / 1e6
        });
      });
    }
    const url = originForm(request.url);
    const q = url.indexOf('?');
    const path = q === -1 ? url : url.slice(0, q);
    locals(response).path = instancePath(path);
    if (url.length > URL_LIMIT) {
      throw new ProblemError(
        'uri-too-long',
        `Request URLs are limited to ${URL_LIMIT} bytes.`,
        { limitBytes: URL_LIMIT }
      );
    }
    guard.checkHost(request);
    if (
      path === '/' &&
      guard.mode === 'notebook-server-proxy' &&
      (request.method === 'GET' || request.method === 'HEAD')
    ) {
      // jupyter-server-proxy polls GET / until the backend answers; say only that it is up.
      sendJson(response, 200, READY, 'application/health+json');
      return;
    }
    if (path !== prefix && !path.startsWith(`${prefix}/`)) {
      throw new ProblemError(
        'not-found',
        `Nothing is served here; the service lives under ${prefix}/.`
      );
    }
    const query = new URLSearchParams(q === -1 ? '' : url.slice(q + 1));
    locals(response).query = query;
    if (path === prefix) {
      response.redirect(308, `${prefix}/${q === -1 ? '' : url.slice(q)}`);
      return;
    }
    const route = path.slice(prefix.length);
    if (
      query.has('token') &&
      addressTokenRule(service.adapter.id, guard.mode, route) === 'refused'
    ) {
      // Only the sign-in route trades an address token for a session (sign-in.ts).
      throw new ProblemError(
        'unauthorized',
        addressTokenRefusal(service.adapter.id, `${prefix}/`),
        {},
        { 'WWW-Authenticate': 'Bearer realm="project-startup"' }
      );
    }
    if (!setupPageOffered && PAGE_ROUTES.has(route)) {
      // No browser route on this platform (or behind this ingress): no page, and no sign-in
      // that would trade a token for a cookie nobody can use.
      throw new ProblemError(
        'not-found',
        `The ${labelOf(service.adapter.id)} has no browser route; use ${service.adapter.interfaces
          .map(labelOf)
          .join(' or ')} (\`project-startup status\` in a terminal).`
      );
    }
    if (!(guard.publicRoutes && PUBLIC_ROUTES.has(route))) {
      try {
        locals(response).identity = guard.authenticate(
          request,
          response,
          query
        );
      } catch (error) {
        if (
          route === '/' &&
          guard.mode === 'direct-loopback' &&
          wantsHtml(request) &&
          error instanceof ProblemError &&
          error.code === 'unauthorized'
        ) {
          response.setHeader('Content-Security-Policy', PAGE_POLICY);
          sendJson(response, 401, SIGN_IN_PAGE, 'text/html');
          return;
        }
        throw error;
      }
      if (
        locals(response).identity.via === 'query-token' &&
        wantsHtml(request)
      ) {
        // The cookie is set; take the token out of the address bar and history.
        query.delete('token');
        const rest = query.toString();
        response.redirect(303, `${path}${rest ? `?${rest}` : ''}`);
        return;
      }
    }
    next();
  });

  const router = express.Router({ caseSensitive: true, strict: true });

  router
    .route('/capabilities')
    .get((request: Request, response: Response) =>
      routes.capabilities(request, response)
    )
    .all(methodNotAllowed('GET, HEAD'));

  router
    .route('/startup')
    .get((request: Request, response: Response) =>
      routes.startup(
        request,
        response,
        locals(response).query,
        locals(response).identity
      )
    )
    .all(methodNotAllowed('GET, HEAD'));

  router
    .route('/initialize')
    .post((request: Request, response: Response) =>
      routes.initialize(request, response, locals(response).identity)
    )
    .all(methodNotAllowed('POST'));

  router
    .route('/gateway')
    .post((request: Request, response: Response) =>
      routes.gateway(
        request,
        response,
        locals(response).identity,
        locals(response).path
      )
    )
    .all(methodNotAllowed('POST'));

  router
    .route('/health')
    .get((request: Request, response: Response) =>
      routes.health(request, response, locals(response).query)
    )
    .all(methodNotAllowed('GET, HEAD'));

  router
    .route('/openapi.json')
    .get((_request: Request, response: Response) => routes.openapi(response))
    .all(methodNotAllowed('GET, HEAD'));

  for (const [route, entry] of Object.entries(STATIC_FILES)) {
    router
      .route(route)
      .get((_request: Request, response: Response) =>
        routes.staticFile(entry, response)
      )
      .all(methodNotAllowed('GET, HEAD'));
  }

  for (const [route, entry] of Object.entries(DOCS_ASSETS)) {
    router
      .route(route)
      .get((_request: Request, response: Response) =>
        routes.docsAsset(entry, response)
      )
      .all(methodNotAllowed('GET, HEAD'));
  }

  app.use(prefix, router);

  app.use(() => {
    throw new ProblemError(
      'not-found',
      `No such resource; see ${prefix}/openapi.json for the routes.`
    );
  });

  // Express recognises error handlers by their four parameters.
  app.use(
    async (
      error: unknown,
      request: Request,
      response: Response,
      _next: NextFunction
    ) => {
      void _next;
      await routes.fail(error, request, response, locals(response).path);
    }
  );

  return app;
}

/**
 * The request path as problems' `instance` and the logs show it: a valid URI reference of at
 * most 256 characters, whatever the client sent (stray %, spaces, markup are percent-encoded).
 */
export function instancePath(raw: string): string {
  const cut = raw.length > 256 ? raw.slice(0, 256) : raw;
  const encoded = cut
    .replace(/%(?![0-9A-Fa-f]{2})/g, '%25')
    .replace(/[^A-Za-z0-9\-._~!$&'()*+,;=:@/%]/g, c => encodeURIComponent(c));
  return raw.length > 256 ? `${encoded}...` : encoded;
}

const DRAIN_MAX_BYTES = 1024 * 1024;
const DRAIN_MAX_MS = 2000;

/** Reads and discards what is left of a request body, within a size and a time bound. */
function drainRequest(request: IncomingMessage): Promise<void> {
  if (request.complete || request.readableEnded || request.destroyed) {
    return Promise.resolve();
  }
  return new Promise(resolve => {
    let seen = 0;
    const done = () => {
      clearTimeout(timer);
      request.off('data', onData);
      request.off('end', done);
      request.off('error', done);
      request.off('close', done);
      resolve();
    };
    const onData = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > DRAIN_MAX_BYTES) {
        done(); // too much to wait for: answer now, the socket closes after
      }
    };
    const timer = setTimeout(done, DRAIN_MAX_MS);
    request.on('data', onData);
    request.once('end', done);
    request.once('error', done);
    request.once('close', done);
    request.resume();
  });
}

/** Errors raised by express or its body machinery, as the problems they stand for. */
function problemFromExpress(error: unknown): unknown {
  if (error instanceof ProblemError) {
    return error;
  }
  const e = error as { type?: string; status?: number };
  if (e?.type === 'entity.too.large') {
    return new ProblemError(
      'payload-too-large',
      'The request body is too large.'
    );
  }
  if (e?.status === 400) {
    return new ProblemError(
      'validation-failed',
      'The request could not be understood.'
    );
  }
  return error;
}
