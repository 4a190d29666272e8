// The one writer of answers that are not a route's own: problem details (RFC 9457), to a
// response or straight to a socket that Node took away from the HTTP layer, and the headers
// every answer of the service carries. Both problem writers serialise the same way, with the
// same headers, so a client cannot tell which layer refused it.
import * as http from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from '../service/log';
import { asProblemError, Problem } from '../core/problems';
import { VERSION } from '../service/version';
import { drainRequest } from './body';

export const PROBLEM_MEDIA_TYPE = 'application/problem+json';

/** The headers every answer of the service carries, set before anything else. */
export function setCommonHeaders(response: ServerResponse): void {
  response.setHeader('X-Project-Startup-Version', VERSION);
  response.setHeader('X-Content-Type-Options', 'nosniff');
  response.setHeader('Cache-Control', 'no-store');
}

export function sendJson(
  response: ServerResponse,
  status: number,
  body: string | Buffer,
  type = 'application/json'
): void {
  response.statusCode = status;
  response.setHeader('Content-Type', `${type}; charset=utf-8`);
  response.end(body);
}

/**
 * A problem's headers in the order they are written: the common ones, its media type, the
 * problem's own (Allow, Retry-After, WWW-Authenticate), then the length of `body`.
 */
function problemHeaders(
  body: string,
  headers: Readonly<Record<string, string>>
): [string, string][] {
  return [
    ['X-Project-Startup-Version', VERSION],
    ['X-Content-Type-Options', 'nosniff'],
    ['Cache-Control', 'no-store'],
    ['Content-Type', `${PROBLEM_MEDIA_TYPE}; charset=utf-8`],
    ...Object.entries(headers),
    ['Content-Length', String(Buffer.byteLength(body))]
  ];
}

/** Problem details as the answer of `response` (no body for HEAD: Node leaves it out). */
export function sendProblem(
  response: ServerResponse,
  problem: Problem,
  headers: Readonly<Record<string, string>> = {}
): void {
  const body = JSON.stringify(problem);
  response.statusCode = problem.status;
  for (const [name, value] of problemHeaders(body, headers)) {
    response.setHeader(name, value);
  }
  response.end(body);
}

/** How long a socket answered with a problem may stay open for a client that never closes. */
const SOCKET_LINGER_MS = 2000;

/**
 * Problem details written straight to a socket that Node took away from the HTTP layer (a
 * connection over the limit, CONNECT, a request Node could not parse), then closed.
 */
export function writeProblemToSocket(
  socket: Duplex,
  problem: Problem,
  headers: Readonly<Record<string, string>> = {}
): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const body = JSON.stringify(problem);
  // Closed for good shortly after: a client that never closes its end must not keep the
  // descriptor (the server allows half-open connections).
  const linger = setTimeout(() => socket.destroy(), SOCKET_LINGER_MS);
  linger.unref();
  socket.once('close', () => clearTimeout(linger));
  const lines = [...problemHeaders(body, headers), ['Connection', 'close']].map(
    ([name, value]) => `${name}: ${value}\r\n`
  );
  socket.end(
    `HTTP/1.1 ${problem.status} ${http.STATUS_CODES[problem.status]}\r\n${lines.join('')}\r\n${body}`
  );
}

/**
 * Any failure of a request as problem details, `instance` its path. An unexpected one is
 * logged (its name and errno only: messages may hold paths) and answered `internal`.
 */
export async function answerFailure(
  error: unknown,
  request: IncomingMessage,
  response: ServerResponse,
  instance: string,
  logger: Logger
): Promise<void> {
  const problem = asProblemError(error);
  if (problem.code === 'internal') {
    const e = error as { name?: string; code?: string };
    logger.error('request failed', {
      path: instance,
      method: request.method,
      error: e?.name,
      errno: e?.code
    });
  }
  if (response.headersSent) {
    response.destroy();
    return;
  }
  // Refused before its body was read: take the body first, or a client (or a proxy) still
  // writing it meets a closed socket and reports that instead of this answer.
  await drainRequest(request);
  if (!response.destroyed) {
    sendProblem(response, problem.toProblem(instance), problem.headers);
  }
}
