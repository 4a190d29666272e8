// Who may ask, per ingress mode. Direct loopback: a token (header, or once in the query, then an
// HttpOnly cookie) and a loopback Host. Notebook-server proxy: Jupyter already authenticated the
// person. Trusted proxy: a shared secret. Every mode defends state changes against other origins.
import { createHash, hash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { DEFAULT_SESSION_LIMITS } from '../config/config';
import type { CredentialKind } from '../core/confirmation';
import { ProblemError } from '../core/problems';
import type { IngressMode } from '../core/vocabulary';
import { SessionStore } from './sessions';

export interface RequestIdentity {
  /** How the request proved itself. */
  via: CredentialKind;
  /** Browser-held credentials travel with cross-site requests, so those need an origin check. */
  ambient: boolean;
  /** Key for per-client rate limits. */
  clientKey: string;
}

export interface IngressGuard {
  readonly mode: IngressMode;
  /** Whether health, the API description and the page icon answer without credentials. */
  readonly publicRoutes: boolean;
  /** Refuses foreign Host headers (DNS rebinding) before anything else is looked at. */
  checkHost(request: IncomingMessage): void;
  authenticate(
    request: IncomingMessage,
    response: ServerResponse,
    query: URLSearchParams
  ): RequestIdentity;
  /** The host part the browser saw, to compare with Origin. */
  expectedHost(request: IncomingMessage): string | undefined;
}

/** An absolute-form request target (RFC 9112 3.2.2): scheme, then the authority (group 1). */
const ABSOLUTE_FORM = /^https?:\/\/([^/?#]*)/i;

/** The authority of an absolute-form request target (`http://host:port/path`), if it is one. */
export function absoluteFormAuthority(target: string): string | undefined {
  return ABSOLUTE_FORM.exec(target)?.[1];
}

/** The origin-form (`/path?query`) of a request target; absolute-form loses its scheme and authority. */
export function originForm(target: string): string {
  const match = ABSOLUTE_FORM.exec(target);
  if (!match) {
    return target;
  }
  const rest = target.slice(match[0].length);
  return rest.startsWith('/') ? rest : `/${rest}`;
}

export function secretsEqual(given: string, expected: string): boolean {
  // Hash both so the comparison takes the same time whatever the lengths.
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/**
 * `secretsEqual(given, secret)` for a secret fixed for the life of the process: its digest is
 * computed once, so each check hashes only what was given. The same single timingSafeEqual of
 * two 32-byte digests decides.
 */
export class SecretMatcher {
  private readonly digest: Buffer;

  constructor(secret: string) {
    this.digest = sha256(secret);
  }

  matches(given: string): boolean {
    return timingSafeEqual(sha256(given), this.digest);
  }
}

/** SHA-256 of a string: one-shot crypto.hash where Node has it (20.12+), else a Hash object. */
const sha256: (value: string) => Buffer =
  typeof hash === 'function'
    ? value => hash('sha256', value, 'buffer')
    : value => createHash('sha256').update(value).digest();

const LOOPBACK_HOSTS = new Set(['localhost', '[::1]', '::1']);

/** localhost, ::1 or any address of 127.0.0.0/8 (the service may bind any of them). */
export function isLoopbackHostname(hostname: string): boolean {
  return (
    LOOPBACK_HOSTS.has(hostname) ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname)
  );
}

export function hostnameOf(hostHeader: string): string {
  const host = hostHeader.trim().toLowerCase();
  if (host.startsWith('[')) {
    const end = host.indexOf(']');
    return end === -1 ? host : host.slice(0, end + 1);
  }
  const colon = host.indexOf(':');
  return colon === -1 ? host : host.slice(0, colon);
}

function firstHeader(
  request: IncomingMessage,
  name: string
): string | undefined {
  const value = request.headers[name];
  const first = Array.isArray(value) ? value[0] : value;
  return first?.split(',')[0].trim() || undefined;
}

function unauthorized(detail: string): ProblemError {
  return new ProblemError(
    'unauthorized',
    detail,
    {},
    { 'WWW-Authenticate': 'Bearer realm="project-startup"' }
  );
}

function readCookie(
  request: IncomingMessage,
  name: string
): string | undefined {
  const header = request.headers.cookie;
  if (!header) {
    return undefined;
  }
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq !== -1 && part.slice(0, eq).trim() === name) {
      return part.slice(eq + 1).trim();
    }
  }
  return undefined;
}

function authorizationToken(request: IncomingMessage): string | undefined {
  const header = request.headers.authorization;
  if (!header) {
    return undefined;
  }
  const match = /^(?:Bearer|token)\s+(\S+)\s*$/i.exec(header);
  return match ? match[1] : '';
}

export class DirectLoopbackGuard implements IngressGuard {
  readonly mode = 'direct-loopback' as const;
  readonly publicRoutes = true;
  private readonly tokenMatcher: SecretMatcher;

  constructor(
    token: string,
    public cookieName: string,
    private readonly cookiePath: string,
    /** One fresh session per sign-in, in memory: a restart ends them all. */
    private readonly sessions = new SessionStore(DEFAULT_SESSION_LIMITS)
  ) {
    this.tokenMatcher = new SecretMatcher(token);
  }

  checkHost(request: IncomingMessage): void {
    const host = request.headers.host;
    // Exactly one Host of the form name[:port] (RFC 9112 3.2); Node keeps only the first of two.
    const hostLines = request.rawHeaders.filter(
      (_v, i) => i % 2 === 0 && _v.toLowerCase() === 'host'
    ).length;
    if (
      host &&
      (hostLines > 1 ||
        !/^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?$/.test(host))
    ) {
      throw new ProblemError(
        'malformed-request',
        'The Host header must appear once and name a host and an optional port.'
      );
    }
    // RFC 9112 3.2.2: an absolute-form target's authority, not the Host header, names the host.
    const authority = absoluteFormAuthority(request.url ?? '');
    for (const name of authority === undefined ? [host] : [host, authority]) {
      if (!name || !isLoopbackHostname(hostnameOf(name))) {
        throw new ProblemError(
          'forbidden-host',
          'This service answers only to a loopback Host (127.0.0.1, localhost or [::1]); use one of those addresses.'
        );
      }
    }
  }

  expectedHost(request: IncomingMessage): string | undefined {
    return request.headers.host;
  }

  authenticate(
    request: IncomingMessage,
    response: ServerResponse,
    query: URLSearchParams
  ): RequestIdentity {
    // One key for every caller: all of them share the one token, and each address of
    // 127.0.0.0/8 (or a Unix socket) would otherwise be a fresh client with a fresh limit.
    const clientKey = 'direct-loopback';
    const bearer = authorizationToken(request);
    if (bearer !== undefined) {
      if (bearer !== '' && this.tokenMatcher.matches(bearer)) {
        return { via: 'bearer', ambient: false, clientKey };
      }
      throw unauthorized(
        'The token in the Authorization header is wrong. Use the token from the runtime file or PROJECT_STARTUP_TOKEN.'
      );
    }
    const cookie = readCookie(request, this.cookieName);
    if (cookie !== undefined && this.sessions.check(cookie)) {
      return { via: 'cookie', ambient: true, clientKey };
    }
    const queryToken = query.get('token');
    if (
      queryToken !== null &&
      (request.method === 'GET' || request.method === 'HEAD')
    ) {
      if (this.tokenMatcher.matches(queryToken)) {
        // Trade the token for a new session whose cookie the page's scripts cannot read. No
        // Max-Age: the browser forgets it when it closes; the service ends it sooner (sessions.ts).
        response.appendHeader(
          'Set-Cookie',
          `${this.cookieName}=${this.sessions.create()}; Path=${this.cookiePath}; HttpOnly; SameSite=Strict`
        );
        return { via: 'query-token', ambient: true, clientKey };
      }
      throw unauthorized(
        'The token in the address is wrong. Run `project-startup url` for a working address.'
      );
    }
    throw unauthorized(
      cookie !== undefined
        ? 'The session has ended (it expired, or the service restarted). Run `project-startup url` and open the address it prints to sign in again.'
        : 'Send the service token as "Authorization: Bearer <token>" (it is in the runtime file or PROJECT_STARTUP_TOKEN), or open the address `project-startup url` prints.'
    );
  }
}

/**
 * A Host as a proxy may pass it on: a name (any characters a name or address may hold, so
 * `my_container:8888` passes) or a bracketed IPv6 address, then an optional port.
 */
const FORWARDED_HOST = /^(\[[0-9A-Fa-f:.]+\]|[^\s:/?#@[\]]+)(?::(\d{1,5}))?$/;

export class NotebookServerProxyGuard implements IngressGuard {
  readonly mode = 'notebook-server-proxy' as const;
  readonly publicRoutes = true;

  /**
   * DNS rebinding on a TCP port. jupyter-server-proxy passes the browser's Host through
   * unchanged (the hub's public name, or Jupyter's own host:port), so Hosts cannot be listed in
   * advance. But a browser always names in Host the port it connected to, and scripts cannot
   * set Host (a forbidden header name): a page that reaches this port itself, through a name
   * rebound to 127.0.0.1, sends `Host: its-name:THIS_PORT`. Jupyter listens on another port, so
   * a Host naming this port came straight here, and is accepted only when it names loopback.
   * On a Unix socket no browser can connect at all (only processes that may open the 0600
   * socket: Jupyter, or this user), and Jupyter vetted the Host it passes on: no check there.
   */
  checkHost(request: IncomingMessage): void {
    const ownPort = request.socket.localPort;
    if (ownPort === undefined) {
      return; // a Unix socket
    }
    const authority = absoluteFormAuthority(request.url ?? '');
    for (const name of authority === undefined
      ? [request.headers.host]
      : [request.headers.host, authority]) {
      if (name === undefined) {
        continue; // no browser sends a request without Host
      }
      const parsed = FORWARDED_HOST.exec(name.trim());
      if (parsed === null) {
        throw new ProblemError(
          'malformed-request',
          'The Host header must name a host and an optional port.'
        );
      }
      // No port: the scheme's default. This service speaks plain HTTP, so a browser meant 80.
      const port = parsed[2] === undefined ? 80 : Number(parsed[2]);
      if (port === ownPort && !isLoopbackHostname(parsed[1].toLowerCase())) {
        throw new ProblemError(
          'forbidden-host',
          'On its own port this service answers only to a loopback Host (127.0.0.1, localhost or [::1]); reach it through Jupyter.'
        );
      }
    }
  }

  /**
   * The Host Jupyter vetted: jupyter-server-proxy copies the browser's request headers to the
   * backend, Host included, and Jupyter compares Origin with that same Host. Never
   * X-Forwarded-Host: the proxy passes the client's own on unchanged, so any client could name
   * its origin there.
   */
  expectedHost(request: IncomingMessage): string | undefined {
    return request.headers.host;
  }

  authenticate(
    request: IncomingMessage,
    _response: ServerResponse,
    query: URLSearchParams
  ): RequestIdentity {
    // Jupyter authenticated the person and forwards its own token and cookies: never read them
    // as credentials here, only note whether a browser cookie (ambient) carried the request.
    const scripted =
      request.headers.authorization !== undefined || query.has('token');
    return {
      via: 'notebook-server',
      ambient: !scripted,
      clientKey: 'notebook-server'
    };
  }
}

export const TRUSTED_PROXY_SECRET_HEADER = 'x-project-startup-proxy-secret';

export class TrustedProxyGuard implements IngressGuard {
  readonly mode = 'trusted-proxy' as const;
  /** It may listen beyond loopback: nothing answers without the secret. */
  readonly publicRoutes = false;

  private readonly secret: SecretMatcher;

  constructor(
    secret: string,
    /** How many of the operator's proxies each append one address to X-Forwarded-For. */
    private readonly hops = 1
  ) {
    this.secret = new SecretMatcher(secret);
  }

  checkHost(): void {
    // The operator's proxy owns the public host name; the shared secret is the gate.
  }

  expectedHost(request: IncomingMessage): string | undefined {
    return firstHeader(request, 'x-forwarded-host') ?? request.headers.host;
  }

  authenticate(request: IncomingMessage): RequestIdentity {
    // The whole header value: a secret may itself contain a comma.
    const raw = request.headers[TRUSTED_PROXY_SECRET_HEADER];
    const given = Array.isArray(raw) ? undefined : raw?.trim();
    if (given === undefined || !this.secret.matches(given)) {
      throw unauthorized(
        'Only the configured trusted proxy may call this service.'
      );
    }
    // Identity and forwarded headers are believed only now that the proxy proved itself, and
    // only the part the operator's proxies wrote (see forwardedClient).
    const clientKey =
      forwardedClient(request.headers['x-forwarded-for'], this.hops) ??
      request.socket.remoteAddress ??
      'proxy';
    return {
      via: 'trusted-proxy',
      ambient: request.headers.cookie !== undefined,
      clientKey
    };
  }
}

/**
 * The client address in X-Forwarded-For that the operator's proxies vouch for. Each proxy
 * appends the address it received the request from, so the list reads "whatever the client
 * wrote, then one entry per proxy": with `hops` proxies the client is the `hops`-th entry from
 * the right, and everything left of it is the client's own invention. A list shorter than
 * that (a proxy that did not append) gives its leftmost entry, which a proxy wrote.
 */
export function forwardedClient(
  header: string | string[] | undefined,
  hops: number
): string | undefined {
  if (header === undefined) {
    return undefined;
  }
  const entries = (Array.isArray(header) ? header.join(',') : header)
    .split(',')
    .map(e => e.trim())
    .filter(e => e !== '');
  if (entries.length === 0) {
    return undefined;
  }
  // Bounded: a key of the rate limiter's map, whatever length the header had.
  return entries[Math.max(0, entries.length - hops)].slice(0, 100);
}

/** State changes must come from this origin: checked from Origin and Sec-Fetch-Site. */
export function checkSameOrigin(
  request: IncomingMessage,
  guard: IngressGuard,
  identity: RequestIdentity
): void {
  const site = firstHeader(request, 'sec-fetch-site');
  if (site !== undefined && site !== 'same-origin' && site !== 'none') {
    throw crossOrigin();
  }
  const origin = request.headers.origin;
  if (origin !== undefined) {
    const expected = guard.expectedHost(request);
    let host: string | undefined;
    try {
      host = origin === 'null' ? undefined : new URL(origin).host;
    } catch {
      host = undefined;
    }
    if (
      host === undefined ||
      expected === undefined ||
      host.toLowerCase() !== expected.trim().toLowerCase()
    ) {
      throw crossOrigin();
    }
    return;
  }
  if (identity.ambient && site === undefined) {
    if (request.headers.cookie === undefined) {
      // Behind the notebook-server proxy nothing is read as a credential, so a request without
      // a cookie counts as a browser's too: say what was missing, not what was not there.
      throw unauthorized(
        'This state-changing request carried no credentials. Send the token in the Authorization header ("Authorization: token <token>"; behind Jupyter, Jupyter\'s token), or send it from the page.'
      );
    }
    throw crossOrigin(true);
  }
}

/** What the 403 names: a foreign origin seen, or a cookie with nothing to show where it came from. */
function crossOrigin(unproven = false): ProblemError {
  return new ProblemError(
    'cross-origin',
    unproven
      ? "This state-changing request carried a browser cookie but no Origin or Sec-Fetch-Site header to show it comes from this service's own page. Send it from the page, or from a script with the token in the Authorization header."
      : "This state-changing request came from another origin (its Origin or Sec-Fetch-Site header says so); only this service's own page may send it."
  );
}
