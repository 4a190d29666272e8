// Whether a request that came through the notebook-server proxy carries Jupyter's XSRF token:
// an X-XSRFToken header equal to one of its `_xsrf` cookies. JupyterLab's
// ServerConnection.makeRequest sends the header from `document.cookie`, so a page of Jupyter's
// origin can, and another site's page (whose requests still carry the cookies) cannot.
// jupyter-server-proxy checks no XSRF token itself: its handler's check_xsrf_cookie defers to the
// proxied app, and JupyterHub 4.1+'s single-user auth calls the handler's own check_xsrf_cookie,
// so behind a hub too only this check runs. Raw comparison: JupyterLab sends the cookie's value
// as it is (Jupyter Server's `2|…` tornado token and JupyterHub 4.1+'s signed token alike).
import type { IncomingMessage } from 'node:http';
import { secretsEqual } from './ingress';

const XSRF_COOKIE = '_xsrf';
/** More `_xsrf` cookies than this (one per cookie path is normal) are not looked at. */
const MAX_XSRF_COOKIES = 8;

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

/** True when X-XSRFToken is given once and equals an `_xsrf` cookie (constant-time compare). */
export function carriesJupyterXsrf(request: IncomingMessage): boolean {
  const header = request.headers['x-xsrftoken'];
  if (typeof header !== 'string' || header.trim() === '') {
    return false;
  }
  let matched = false;
  // Every cookie is compared, without stopping at a match.
  for (const cookie of xsrfCookies(request.headers.cookie)) {
    matched = secretsEqual(header.trim(), cookie) || matched;
  }
  return matched;
}
