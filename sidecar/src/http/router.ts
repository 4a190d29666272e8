// The routes' router (express 5's own, the `router` package), registered in one loop over the
// route table: each route's methods go to its handler, any other method is 405 with the
// table's Allow.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type RouterModule = require('router');
import { ProblemError } from '../core/problems';
import type { AppContext, Method, Route } from './exchange';
import { gateLocals } from './gate';
import { ROUTES } from './route-table';

/** The router package, loaded when the app is made: after the server listens (server.ts). */
export const routerModule = () => require('router') as typeof RouterModule;

type RouterRoute = ReturnType<RouterModule.Router['route']>;
type Handler = (request: IncomingMessage, response: ServerResponse) => unknown;

/** The Allow header of a route: its methods, as the table lists them. */
export function allowOf(route: Route): string {
  return route.methods.join(', ');
}

function methodNotAllowed(allow: string) {
  return (request: IncomingMessage) => {
    throw new ProblemError(
      'method-not-allowed',
      `${request.method} is not allowed here; use ${allow}.`,
      {},
      { Allow: allow }
    );
  };
}

const REGISTER: Record<Method, (route: RouterRoute, handler: Handler) => void> =
  {
    GET: (route, handler) => route.get(handler),
    HEAD: (route, handler) => route.head(handler),
    POST: (route, handler) => route.post(handler)
  };

/** The router of every route below `{base}project`; the gate has run before it. */
export function createRouter(app: AppContext): RouterModule.Router {
  const Router = routerModule();
  const router = Router({ caseSensitive: true, strict: true });
  for (const route of ROUTES) {
    const handler = (request: IncomingMessage, response: ServerResponse) => {
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
