// The routes' dispatch, straight from the one route table: the gate has found the request's
// route (routeAt, an exact, case-sensitive match of the path below the prefix); its methods go
// to its handler, any other method is 405 with the table's Allow, no route is 404. One lookup
// per request: no layers to walk, no URL trimmed and restored, no regular expression per route,
// and no router package to load at start (about 14 ms of CPU before the first answer;
// bench/README.md).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ProblemError } from '../core/problems';
import type { AppContext, Method, Route } from './types';
import type { GateLocals } from './before-route';

/** The Allow header of a route: its methods, as the table lists them. */
export function allowOf(route: Route): string {
  return route.methods.join(', ');
}

function methodNotAllowed(request: IncomingMessage, route: Route): never {
  const allow = allowOf(route);
  throw new ProblemError(
    'method-not-allowed',
    `${request.method} is not allowed here; use ${allow}.`,
    {},
    { Allow: allow }
  );
}

/**
 * Runs the route the gate found. Undefined (no route): not found. A failure, thrown or
 * rejected, goes to `failed`; a handler that answered returns nothing more.
 */
export function dispatch(
  app: AppContext,
  request: IncomingMessage,
  response: ServerResponse,
  locals: GateLocals,
  failed: (error?: unknown) => void
): void {
  const { route } = locals;
  if (route === undefined) {
    failed();
    return;
  }
  if (!route.methods.includes(request.method as Method)) {
    methodNotAllowed(request, route);
  }
  const pending = route.handle({
    request,
    response,
    app,
    route,
    query: locals.query,
    identity: locals.identity,
    instance: locals.instance
  });
  if (pending !== undefined) {
    pending.catch(failed);
  }
}
