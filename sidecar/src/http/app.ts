// The HTTP layer: one request listener on node:http: a request meets the gate (before-route.ts: Host,
// prefix, sign-in rule, credentials), then the route the one route table names for its path
// (router.ts), then 404; every failure is answered as problem details by respond.ts. No web
// framework: its per-request work costs CPU that a proxied request pays on the proxy's core
// (bench/README.md); the service reads bodies and writes answers itself.
//
// Nothing is read or loaded on a request path: loading code or reading a file takes a
// descriptor, and a request can arrive when none is left (a flood of connections). The setup
// page's files and the schema files are read when the app is made, after the server listens
// (server.ts); the API description is built from the schemas on its first request.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ProblemError } from '../core/problems';
import { EncodedBodies } from './encoded-bodies';
import type { AppContext, AppOptions } from './types';
import { createGate, gateLocals } from './before-route';
import { exampleManifest } from '../core/example-manifest';
import { buildOpenApi, readSchemas, withManifestExample } from './openapi';
import { readStaticFiles } from './pages';
import { answerFailure } from './respond';
import { ROUTES } from './route-table';
import { dispatch } from './router';

export type { AppOptions } from './types';

/** What node:http calls for every request. */
export type RequestListener = (
  request: IncomingMessage,
  response: ServerResponse
) => void;

/** What every request may use, made (and every file read) now. */
function createContext(options: AppOptions): AppContext {
  const { service } = options;
  const schemas = readSchemas();
  let openApiJson: string | undefined;
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
    openApiJson: () =>
      (openApiJson ??= JSON.stringify(
        withManifestExample(
          buildOpenApi(service.config.baseUrl, service.version, schemas),
          exampleManifest()
        )
      )),
    files: readStaticFiles(ROUTES)
  };
}

/** The request listener. */
export function createApp(options: AppOptions): RequestListener {
  const context = createContext(options);
  const gate = createGate(context);
  return (request, response) => {
    const locals = gateLocals();
    // What no route answered (error undefined: not found) or what failed, as problem details.
    const failed = (error?: unknown) => {
      // Should rendering the problem itself fail, end the exchange rather than the process.
      answerFailure(
        error ??
          new ProblemError(
            'not-found',
            `No such resource; see ${context.prefix}/openapi.json for the routes.`
          ),
        request,
        response,
        locals.instance,
        context.logger
      ).catch(() => response.destroy());
    };
    try {
      if (gate(request, response, locals)) {
        dispatch(context, request, response, locals, failed);
      }
    } catch (error) {
      failed(error);
    }
  };
}
