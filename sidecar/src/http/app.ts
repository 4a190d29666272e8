// The thin HTTP layer: routes, authentication order and problem rendering. Every decision
// is the core's; this file only turns requests into calls and answers into responses.
import express, { NextFunction, Request, Response } from 'express';
import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import type { Logger } from '../log';
import { asProblemError, ProblemError } from '../problems';
import { parseInterface, StartupService } from '../service';
import { readJsonBody } from './body';
import { handleRpc, parseErrorResponse } from './gateway';
import { checkSameOrigin, IngressGuard, RequestIdentity } from './ingress';
import { buildOpenApi } from './openapi';
import type { RateLimiter } from './rate-limit';
import { INTERFACE_IDS } from '../vocabulary';

export const URL_LIMIT = 8 * 1024;

export interface AppOptions {
  service: StartupService;
  guard: IngressGuard;
  logger: Logger;
  rateLimiter: RateLimiter;
}

/** Routes that answer without authentication: liveness, the API description, the page icon. */
const PUBLIC_ROUTES = new Set(['/health', '/openapi.json', '/favicon.svg']);

const STATIC_DIR = nodePath.join(__dirname, '..', '..', 'static');
const PAGE_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** The setup page's files, read once on first use. */
const STATIC_FILES: Record<string, { file: string; type: string; body?: Buffer }> = {
  '/': { file: 'setup.html', type: 'text/html' },
  '/setup.js': { file: 'setup.js', type: 'text/javascript' },
  '/setup.css': { file: 'setup.css', type: 'text/css' },
  '/favicon.svg': { file: 'favicon.svg', type: 'image/svg+xml' }
};

function wantsHtml(request: Request): boolean {
  return request.headers['sec-fetch-mode'] === 'navigate' || (request.headers.accept ?? '').includes('text/html');
}

const SIGN_IN_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sign in: project startup</title>
<link rel="icon" href="favicon.svg" type="image/svg+xml"></head>
<body><main><h1>Sign in to the project startup page</h1>
<p>This page needs the service's token. In a terminal on this machine, run</p>
<pre>project-startup url</pre>
<p>and open the address it prints. The token is then kept in a private cookie.</p></main></body></html>
`;

interface Locals {
  query: URLSearchParams;
  identity: RequestIdentity;
  path: string;
}

function locals(response: Response): Locals {
  return response.locals as Locals;
}

function sendJson(response: Response, status: number, body: string, type = 'application/json'): void {
  response.status(status).setHeader('Content-Type', `${type}; charset=utf-8`);
  response.end(body);
}

function methodNotAllowed(allow: string) {
  return (request: Request) => {
    throw new ProblemError('method-not-allowed', `${request.method} is not allowed here; use ${allow}.`, {}, { Allow: allow });
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

export function createApp(options: AppOptions): express.Express {
  const { service, guard, logger, rateLimiter } = options;
  const baseUrl = service.config.baseUrl;
  const prefix = `${baseUrl}project`;
  const ingress = guard.mode;
  let openApiJson: string | undefined;

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);

  app.use((request: Request, response: Response, next: NextFunction) => {
    response.setHeader('X-Project-Startup-Version', service.version);
    response.setHeader('X-Content-Type-Options', 'nosniff');
    response.setHeader('Cache-Control', 'no-store');
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
    const url = request.url;
    const q = url.indexOf('?');
    const path = q === -1 ? url : url.slice(0, q);
    locals(response).path = path.length > 256 ? `${path.slice(0, 256)}...` : path;
    if (url.length > URL_LIMIT) {
      throw new ProblemError('uri-too-long', `Request URLs are limited to ${URL_LIMIT} bytes.`, { limitBytes: URL_LIMIT });
    }
    guard.checkHost(request);
    if (path === '/' && guard.mode === 'notebook-server-proxy' && (request.method === 'GET' || request.method === 'HEAD')) {
      // jupyter-server-proxy polls GET / until the backend answers; say only that it is up.
      sendJson(response, 200, '{"status":"pass"}', 'application/health+json');
      return;
    }
    if (path !== prefix && !path.startsWith(`${prefix}/`)) {
      throw new ProblemError('not-found', `Nothing is served here; the service lives under ${prefix}/.`);
    }
    const query = new URLSearchParams(q === -1 ? '' : url.slice(q + 1));
    locals(response).query = query;
    if (path === prefix) {
      response.redirect(308, `${prefix}/${q === -1 ? '' : url.slice(q)}`);
      return;
    }
    const route = path.slice(prefix.length);
    if (!(guard.publicRoutes && PUBLIC_ROUTES.has(route))) {
      try {
        locals(response).identity = guard.authenticate(request, response, query);
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
      if (locals(response).identity.via === 'query-token' && wantsHtml(request)) {
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
    .get((request: Request, response: Response) => {
      const { json, etag } = service.manifest;
      response.setHeader('ETag', etag);
      response.setHeader('Cache-Control', 'private, no-cache');
      if (matchesEtag(request.headers['if-none-match'], etag)) {
        response.status(304).end();
        return;
      }
      sendJson(response, 200, json);
    })
    .all(methodNotAllowed('GET, HEAD'));

  router
    .route('/startup')
    .get(async (_request: Request, response: Response) => {
      const values = locals(response).query.getAll('interface');
      if (values.length > 1) {
        throw new ProblemError('unknown-interface', `Give the interface parameter once: one of ${INTERFACE_IDS.join(', ')}.`, {
          allowedValues: [...INTERFACE_IDS]
        });
      }
      const projection = await service.startup(parseInterface(values[0]));
      sendJson(response, 200, JSON.stringify(projection));
    })
    .all(methodNotAllowed('GET, HEAD'));

  router
    .route('/initialize')
    .post(async (request: Request, response: Response) => {
      checkSameOrigin(request, guard, locals(response).identity);
      rateLimiter.take(locals(response).identity.clientKey);
      const body = await readJsonBody(request);
      const result = await service.initialize(body, { ingress });
      logger.info(result.status === 201 ? 'project state created' : 'project state already present', {
        interface: result.body.record.confirmation.interface,
        method: result.body.record.confirmation.method
      });
      sendJson(response, result.status, JSON.stringify(result.body));
    })
    .all(methodNotAllowed('POST'));

  router
    .route('/gateway')
    .post(async (request: Request, response: Response) => {
      const identity = locals(response).identity;
      checkSameOrigin(request, guard, identity);
      let body: unknown;
      try {
        body = await readJsonBody(request);
      } catch (error) {
        const problem = asProblemError(error);
        if (problem.code !== 'invalid-json') {
          throw problem;
        }
        sendJson(response, 200, JSON.stringify(parseErrorResponse(problem, locals(response).path)));
        return;
      }
      const result = await handleRpc(body, {
        service,
        ingress,
        instance: locals(response).path,
        beforeInitialize: () => rateLimiter.take(identity.clientKey)
      });
      if (result === undefined) {
        response.status(204).end();
        return;
      }
      sendJson(response, 200, JSON.stringify(result));
    })
    .all(methodNotAllowed('POST'));

  router
    .route('/health')
    .get((_request: Request, response: Response) => {
      sendJson(
        response,
        200,
        JSON.stringify({ status: 'pass', version: service.version, instanceId: service.instanceId, platform: service.adapter.id }),
        'application/health+json'
      );
    })
    .all(methodNotAllowed('GET, HEAD'));

  router
    .route('/openapi.json')
    .get((_request: Request, response: Response) => {
      openApiJson ??= JSON.stringify(buildOpenApi(baseUrl, service.version));
      sendJson(response, 200, openApiJson);
    })
    .all(methodNotAllowed('GET, HEAD'));

  for (const [route, entry] of Object.entries(STATIC_FILES)) {
    router
      .route(route)
      .get((_request: Request, response: Response) => {
        entry.body ??= fs.readFileSync(nodePath.join(STATIC_DIR, entry.file));
        response.setHeader('Content-Security-Policy', PAGE_POLICY);
        response.setHeader('Referrer-Policy', 'no-referrer');
        response.status(200).setHeader('Content-Type', `${entry.type}; charset=utf-8`);
        response.end(entry.body);
      })
      .all(methodNotAllowed('GET, HEAD'));
  }

  app.use(prefix, router);

  app.use(() => {
    throw new ProblemError('not-found', `No such resource; see ${prefix}/openapi.json for the routes.`);
  });

  // Express recognises error handlers by their four parameters.
  app.use(async (error: unknown, request: Request, response: Response, _next: NextFunction) => {
    void _next;
    const problem = asProblemError(problemFromExpress(error));
    if (problem.code === 'internal') {
      const e = error as { name?: string; code?: string };
      logger.error('request failed', { path: locals(response).path, method: request.method, error: e?.name, errno: e?.code });
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
    sendJson(response, problem.status, JSON.stringify(problem.toProblem(locals(response).path)), 'application/problem+json');
  });

  return app;
}

const DRAIN_MAX_BYTES = 1024 * 1024;
const DRAIN_MAX_MS = 2000;

/** Reads and discards what is left of a request body, within a size and a time bound. */
function drainRequest(request: Request): Promise<void> {
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
    return new ProblemError('payload-too-large', 'The request body is too large.');
  }
  if (e?.status === 400) {
    return new ProblemError('validation-failed', 'The request could not be understood.');
  }
  return error;
}
