// The HTTP layer: one request listener on node:http, built on express 5's own router (the
// `router` package) without express: a request meets the gate (gate.ts: Host, prefix, sign-in
// rule, credentials), then the router made from the one route table (route-table.ts), then 404;
// every failure is answered as problem details by respond.ts. Express itself is not used: its
// per-request work (swapping the prototypes of every request and response, its init and query
// middleware) cost about 300 µs of CPU per request against the router's 50, and loading it
// about 40 ms at start; the service reads bodies and writes answers itself (bench/README.md).
//
// Nothing is read or loaded on a request path: loading code or reading a file takes a
// descriptor, and a request can arrive when none is left (a flood of connections). The router
// is loaded when the app is made, after the server listens (server.ts); the setup page's files
// and the API description are read then too.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ProblemError } from '../core/problems';
import { EncodedBodies } from './encoded-bodies';
import type { AppContext, AppOptions } from './exchange';
import { createGate, gateLocals } from './gate';
import { buildOpenApi, withManifestExample } from './openapi';
import { readStaticFiles } from './pages';
import { answerFailure } from './respond';
import { ROUTES } from './route-table';
import { createRouter, routerModule } from './router';

export type { AppOptions } from './exchange';

/** What node:http calls for every request. */
export type RequestListener = (
  request: IncomingMessage,
  response: ServerResponse
) => void;

/** What every request may use, made (and every file read) now. */
function createContext(options: AppOptions): AppContext {
  const { service } = options;
  return {
    ...options,
    prefix: `${service.config.baseUrl}project`,
    encoded: new EncodedBodies(),
    healthJson: JSON.stringify({
      status: 'pass',
      version: service.version,
      instanceId: service.instanceId,
      platform: service.adapter.id
    }),
    openApiJson: JSON.stringify(
      withManifestExample(
        buildOpenApi(service.config.baseUrl, service.version),
        service.manifest.manifest
      )
    ),
    files: readStaticFiles(ROUTES)
  };
}

/** The app's router: the gate, then the routes below the prefix. */
export function createAppRouter(context: AppContext) {
  const Router = routerModule();
  const app = Router({ caseSensitive: true, strict: true });
  app.use(createGate(context));
  app.use(context.prefix, createRouter(context));
  return app;
}

/** The request listener, with the router it runs (for the route table's own test). */
export function createApp(
  options: AppOptions
): RequestListener & { router: ReturnType<typeof createAppRouter> } {
  const context = createContext(options);
  const app = createAppRouter(context);
  const listener: RequestListener = (request, response) => {
    // What no route answered (error undefined: not found) or what failed, as problem details.
    const done = (error?: unknown) => {
      // Should rendering the problem itself fail, end the exchange rather than the process.
      answerFailure(
        error ??
          new ProblemError(
            'not-found',
            `No such resource; see ${context.prefix}/openapi.json for the routes.`
          ),
        request,
        response,
        gateLocals(response).instance,
        context.logger
      ).catch(() => response.destroy());
    };
    app(request, response, done);
  };
  return Object.assign(listener, { router: app });
}
