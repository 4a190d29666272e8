// Jupyter's XSRF rule, behind the notebook-server proxy: a request that carries the browser's
// cookies and changes state needs an X-XSRFToken header equal to one of its `_xsrf` cookies.
// JupyterLab's ServerConnection.makeRequest sends the header from `document.cookie`, so a page of
// Jupyter's own server can; another site's page (whose requests still carry the cookies) cannot,
// nor can another server's page on the same hub origin, which sees only the cookies of its own
// path. jupyter-server-proxy checks no XSRF token itself: its handler's check_xsrf_cookie defers
// to the proxied app, and JupyterHub 4.1+'s single-user auth calls the handler's own
// check_xsrf_cookie, so only this check runs.
// The two values are compared as tornado's check_xsrf_cookie compares them: each decoded to the
// token it stands for (a `2|mask|masked|time` value unmasked, a bare hex value from hex, anything
// else, such as JupyterHub 4.1+'s signed token, as it is).
import type { IncomingMessage } from 'node:http';
import { ProblemError } from '../core/problems';
import { IngressGuard, secretsEqual } from './ingress-guards';

const XSRF_COOKIE = '_xsrf';
/** More `_xsrf` cookies than this (one per cookie path is normal) are not looked at. */
const MAX_XSRF_COOKIES = 8;
/** Longer values are no token Jupyter made (tornado's are 85 characters, JupyterHub's about 200). */
const MAX_XSRF_LENGTH = 1024;

const HEX = /^(?:[0-9A-Fa-f]{2})*$/;
const VERSIONED = /^[1-9][0-9]*\|/;
const TIMESTAMP = /^[+-]?\d+$/;

/**
 * The token an `_xsrf` value stands for, as tornado's RequestHandler._decode_xsrf_token reads
 * it; undefined where tornado finds none (an unknown version, a malformed version 2, empty).
 */
export function xsrfTokenOf(value: string): Buffer | undefined {
  if (value === '' || value.length > MAX_XSRF_LENGTH) {
    return undefined;
  }
  if (VERSIONED.test(value)) {
    const parts = value.split('|');
    if (
      parts.length !== 4 ||
      parts[0] !== '2' ||
      !HEX.test(parts[1]) ||
      !HEX.test(parts[2]) ||
      parts[1].length !== 8 ||
      !TIMESTAMP.test(parts[3].trim())
    ) {
      return undefined;
    }
    const mask = Buffer.from(parts[1], 'hex');
    const token = Buffer.from(parts[2], 'hex');
    for (let i = 0; i < token.length; i += 1) {
      token[i] ^= mask[i % 4];
    }
    return token.length > 0 ? token : undefined;
  }
  return HEX.test(value)
    ? Buffer.from(value, 'hex')
    : Buffer.from(value, 'utf8');
}

function xsrfCookies(header: string | undefined): string[] {
  if (header === undefined) {
    return [];
  }
  const values: string[] = [];
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq !== -1 && part.slice(0, eq).trim() === XSRF_COOKIE) {
      const value = part
        .slice(eq + 1)
        .trim()
        .replace(/^"(.*)"$/, '$1');
      if (value !== '') {
        values.push(value);
      }
    }
  }
  return values.slice(0, MAX_XSRF_COOKIES);
}

/** True when X-XSRFToken is given once and stands for the token of an `_xsrf` cookie. */
export function carriesJupyterXsrf(request: IncomingMessage): boolean {
  const header = request.headers['x-xsrftoken'];
  const given =
    typeof header === 'string' ? xsrfTokenOf(header.trim()) : undefined;
  if (given === undefined) {
    return false;
  }
  const givenHex = given.toString('hex');
  let matched = false;
  // Every cookie is compared in constant time, without stopping at a match.
  for (const cookie of xsrfCookies(request.headers.cookie)) {
    const token = xsrfTokenOf(cookie);
    matched =
      (token !== undefined && secretsEqual(givenHex, token.toString('hex'))) ||
      matched;
  }
  return matched;
}

/**
 * Refuses a state change through the notebook-server proxy that carries cookies without Jupyter's
 * XSRF token. Any cookie counts, beside a token too: Jupyter accepts a request by its token or by
 * its login cookie, and nothing here can tell which it did, so only a request with no cookie at
 * all (a script with a token: the Python client, curl) goes without the token.
 */
export function checkJupyterXsrf(
  request: IncomingMessage,
  guard: IngressGuard
): void {
  if (
    guard.mode !== 'notebook-server-proxy' ||
    (request.headers.cookie ?? '').trim() === '' ||
    carriesJupyterXsrf(request)
  ) {
    return;
  }
  throw new ProblemError(
    'cross-origin',
    "This state-changing request carried the browser's cookies for Jupyter but no X-XSRFToken header equal to Jupyter's _xsrf cookie, which only a page of this Jupyter server can read (JupyterLab sends it). Send it from that page, or from a script with Jupyter's token in the Authorization header and no cookies."
  );
}
