// The express router, registered in one loop over the route table: each route's methods go to
// its handler, any other method is 405 with the table's Allow.
import express = require('express');
import type { Request, Response } from 'express';
import { ProblemError } from '../core/problems';
import type { AppContext, Method, Route } from './exchange';
import { gateLocals } from './gate';
import { ROUTES } from './route-table';

/** The Allow header of a route: its methods, as the table lists them. */
export function allowOf(route: Route): string {
  return route.methods.join(', ');
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

const REGISTER: Record<
  Method,
  (route: express.IRoute, handler: express.RequestHandler) => void
> = {
  GET: (route, handler) => route.get(handler),
  HEAD: (route, handler) => route.head(handler),
  POST: (route, handler) => route.post(handler)
};

/** The router of every route below `{base}project`; the gate has run before it. */
export function createRouter(app: AppContext): express.Router {
  const router = express.Router({ caseSensitive: true, strict: true });
  for (const route of ROUTES) {
    const handler = (request: Request, response: Response) => {
      const locals = gateLocals(response);
      return route.handle({
        request,
        response,
        app,
        route,
        query: locals.query,
        identity: locals.identity,
        instance: locals.instance
      });
    };
    const entry = router.route(route.path);
    for (const method of route.methods) {
      REGISTER[method](entry, handler);
    }
    entry.all(methodNotAllowed(allowOf(route)));
  }
  return router;
}
