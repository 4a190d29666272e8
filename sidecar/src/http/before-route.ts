// What every request passes before a route runs, in this order: the URL's length, the Host
// (DNS rebinding), jupyter-server-proxy's readiness poll, the service's prefix, a token in the
// address (the one sign-in rule), the setup page where the platform has none, then the
// credentials, unless the route table marks the route public. Each refusal is a thrown
// ProblemError, answered by the app's error handler (respond.ts).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ProblemError } from '../core/problems';
import { addressTokenRefusal, addressTokenRule } from '../core/sign-in';
import { labelOf } from '../core/vocabulary';
import type { AppContext, Route } from './types';
import { originForm, RequestIdentity } from './ingress-guards';
import { sendSignInPage } from './pages';
import { sendRedirect } from './redirect';
import { sendJson, setCommonHeaders } from './respond';
import { routeAt } from './route-table';
import { wantsHtml } from './routes';

export const URL_LIMIT = 8 * 1024;

/** What the gate learned about a request, for the route and the error handler. */
export interface GateLocals {
  /** The request path as problems' `instance` shows it. */
  instance: string;
  query: URLSearchParams;
  route?: Route;
  identity?: RequestIdentity;
}

const EMPTY_QUERY = new URLSearchParams();

/** A new exchange's locals, before the gate has looked at it. */
export function gateLocals(): GateLocals {
  return { instance: '', query: EMPTY_QUERY };
}

/** The answer of jupyter-server-proxy's readiness poll (GET / behind the notebook server). */
const READY = '{"status":"pass"}';

/** A path of unreserved characters, sub-delimiters, ':', '@' and '/' only: a valid reference. */
const PLAIN_PATH = /^[A-Za-z0-9\-._~!$&'()*+,;=:@/]*$/;

/**
 * The request path as problems' `instance` and the logs show it: a valid URI reference of at
 * most 256 characters, whatever the client sent (stray %, spaces, markup are percent-encoded).
 */
export function instancePath(raw: string): string {
  if (raw.length <= 256 && PLAIN_PATH.test(raw)) {
    return raw; // what every route's path is: nothing to encode
  }
  const cut = raw.length > 256 ? raw.slice(0, 256) : raw;
  const encoded = cut
    .replace(/%(?![0-9A-Fa-f]{2})/g, '%25')
    .replace(/[^A-Za-z0-9\-._~!$&'()*+,;=:@/%]/g, c => encodeURIComponent(c));
  return raw.length > 256 ? `${encoded}...` : encoded;
}

/** Logs each request at debug level once its answer is sent. */
function logWhenFinished(
  app: AppContext,
  request: IncomingMessage,
  response: ServerResponse,
  locals: GateLocals
): void {
  const started = process.hrtime.bigint();
  response.on('finish', () => {
    app.logger.debug('request', {
      method: request.method,
      path: locals.instance,
      status: response.statusCode,
      ms: Number(process.hrtime.bigint() - started) / 1e6
    });
  });
}

/**
 * What every request meets first, filling in `locals`. False: answered here (a redirect, the
 * readiness poll, the sign-in page); true: on to the route. Refusals are thrown.
 */
export function createGate(app: AppContext) {
  return (
    request: IncomingMessage,
    response: ServerResponse,
    locals: GateLocals
  ): boolean => {
    setCommonHeaders(response);
    if (app.logger.enabled('debug')) {
      logWhenFinished(app, request, response, locals);
    }
    const url = originForm(request.url ?? '/');
    const q = url.indexOf('?');
    const path = q === -1 ? url : url.slice(0, q);
    locals.instance = instancePath(path);
    if (url.length > URL_LIMIT) {
      throw new ProblemError(
        'uri-too-long',
        `Request URLs are limited to ${URL_LIMIT} bytes.`,
        { limitBytes: URL_LIMIT }
      );
    }
    app.guard.checkHost(request);
    if (answerReadinessPoll(app, request, response, path)) {
      return false;
    }
    const search = q === -1 ? '' : url.slice(q);
    const routePath = pathBelowPrefix(app, request, response, path, search);
    if (routePath === undefined) {
      return false;
    }
    locals.query = new URLSearchParams(search);
    locals.route = routeAt(routePath);
    refuseAddressToken(app, locals.query, routePath);
    refuseSetupPageWithoutBrowserRoute(app, locals.route);
    return (
      (app.guard.publicRoutes && locals.route?.public === true) ||
      authenticate(app, request, response, path, locals)
    );
  };
}

/** jupyter-server-proxy polls GET / until the backend answers; say only that it is up. */
function answerReadinessPoll(
  app: AppContext,
  request: IncomingMessage,
  response: ServerResponse,
  path: string
): boolean {
  if (
    path !== '/' ||
    app.guard.mode !== 'notebook-server-proxy' ||
    (request.method !== 'GET' && request.method !== 'HEAD')
  ) {
    return false;
  }
  sendJson(response, 200, READY, 'application/health+json');
  return true;
}

/**
 * The route path below `{base}project` (`/` for the setup page). The prefix itself is
 * redirected to `{prefix}/` (undefined: answered); anything outside it is not found.
 */
function pathBelowPrefix(
  app: AppContext,
  request: IncomingMessage,
  response: ServerResponse,
  path: string,
  search: string
): string | undefined {
  const { prefix } = app;
  if (path === prefix) {
    sendRedirect(request, response, 308, `${prefix}/${search}`);
    return undefined;
  }
  if (!path.startsWith(`${prefix}/`)) {
    throw new ProblemError(
      'not-found',
      `Nothing is served here; the service lives under ${prefix}/.`
    );
  }
  return path.slice(prefix.length);
}

/** Only the sign-in route trades an address token for a session (core/sign-in.ts). */
function refuseAddressToken(
  app: AppContext,
  query: URLSearchParams,
  routePath: string
): void {
  const platform = app.service.adapter.id;
  if (
    query.has('token') &&
    addressTokenRule(platform, app.guard.mode, routePath) === 'refused'
  ) {
    throw new ProblemError(
      'unauthorized',
      addressTokenRefusal(platform, `${app.prefix}/`),
      {},
      { 'WWW-Authenticate': 'Bearer realm="project-startup"' }
    );
  }
}

/**
 * The setup page is the browser route: only where the platform has one (generic), through
 * whichever of its ingress modes the service runs on. Elsewhere no page, and no sign-in that
 * would trade a token for a cookie nobody can use.
 */
function refuseSetupPageWithoutBrowserRoute(
  app: AppContext,
  route: Route | undefined
): void {
  const adapter = app.service.adapter;
  if (route?.setupPage === true && adapter.browserRoute !== 'direct-loopback') {
    throw new ProblemError(
      'not-found',
      `The ${labelOf(adapter.id)} has no browser route; use ${adapter.interfaces
        .map(labelOf)
        .join(' or ')} (\`project-startup status\` in a terminal).`
    );
  }
}

/**
 * Checks the credentials (the ingress guard's rule). True: go on to the route. False: answered
 * here, with the sign-in page (a person opening the setup page without a session) or a
 * redirect that takes a just-used address token out of the address bar and history.
 */
function authenticate(
  app: AppContext,
  request: IncomingMessage,
  response: ServerResponse,
  path: string,
  locals: GateLocals
): boolean {
  try {
    locals.identity = app.guard.authenticate(request, response, locals.query);
  } catch (error) {
    if (
      locals.route?.path === '/' &&
      app.guard.mode === 'direct-loopback' &&
      wantsHtml(request) &&
      error instanceof ProblemError &&
      error.code === 'unauthorized'
    ) {
      sendSignInPage(response);
      return false;
    }
    throw error;
  }
  if (locals.identity.via === 'query-token' && wantsHtml(request)) {
    locals.query.delete('token');
    const rest = locals.query.toString();
    sendRedirect(request, response, 303, `${path}${rest ? `?${rest}` : ''}`);
    return false;
  }
  return true;
}
