// The HTTP layer: one express application. A request meets the gate (gate.ts: Host, prefix,
// sign-in rule, credentials), then the router made from the one route table (route-table.ts),
// then 404; every failure is answered as problem details by respond.ts.
//
// Nothing is read or loaded on a request path: loading code or reading a file takes a
// descriptor, and a request can arrive when none is left (a flood of connections). Express is
// loaded with this module, at start-up; the setup page's files and the API description are read
// when the app is made.
import type { IncomingMessage, ServerResponse } from 'node:http';
import express = require('express');
import type { NextFunction, Request, Response } from 'express';
import { ProblemError } from '../core/problems';
import { EncodedBodies } from './encoded-bodies';
import type { AppContext, AppOptions } from './exchange';
import { createGate, gateLocals } from './gate';
import { buildOpenApi, withManifestExample } from './openapi';
import { readStaticFiles } from './pages';
import { answerFailure } from './respond';
import { ROUTES } from './route-table';
import { createRouter } from './router';

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

export function createApp(options: AppOptions): RequestListener {
  const context = createContext(options);
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(createGate(context));
  app.use(context.prefix, createRouter(context));
  app.use(() => {
    throw new ProblemError(
      'not-found',
      `No such resource; see ${context.prefix}/openapi.json for the routes.`
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
      // Should rendering the problem itself fail, end the exchange rather than the process.
      await answerFailure(
        error,
        request,
        response,
        gateLocals(response).instance,
        context.logger
      ).catch(() => response.destroy());
    }
  );
  return app;
}
