// What the HTTP server answers before a request reaches the app: a connection over the limit,
// an Expect it cannot meet, CONNECT, a request Node could not parse. Each is problem details
// (respond.ts), and connection pressure is counted for a log line at most every 10 s.
import type * as http from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from '../service/log';
import { problemOf } from '../core/problems';
import {
  defaultMaxConnections,
  limitConnections,
  readDescriptorLimit
} from './connections';
import { URL_LIMIT } from './before-route';
import { sendProblem, writeProblemToSocket } from './respond';
import { methodsOfAllRoutes } from './route-table';

/** Whether the request line alone (method, URL, version) already passes the URL limit. */
function requestLineTooLong(packet: Buffer | undefined): boolean {
  if (!packet) {
    return false;
  }
  const end = packet.indexOf('\r\n');
  return end === -1 ? packet.length > URL_LIMIT : end > URL_LIMIT;
}

/** The problem for a request Node refused before the app saw it. */
function clientErrorProblem(
  error: NodeJS.ErrnoException & { rawPacket?: Buffer },
  requestTimeoutMs: number
) {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return problemOf(
      'request-timeout',
      `The request did not arrive complete within ${requestTimeoutMs} ms.`,
      { timeoutMs: requestTimeoutMs }
    );
  }
  if (error.code !== 'HPE_HEADER_OVERFLOW') {
    return problemOf('malformed-request', 'The request is not valid HTTP/1.1.');
  }
  return requestLineTooLong(error.rawPacket)
    ? problemOf(
        'uri-too-long',
        `Request URLs are limited to ${URL_LIMIT} bytes.`,
        {
          limitBytes: URL_LIMIT
        }
      )
    : problemOf('headers-too-large', 'The request headers are too large.');
}

/** Answers what Node takes away from the app (Expect, CONNECT, unparsable requests). */
export function answerOutsideTheApp(
  server: http.Server,
  requestTimeoutMs: number
): void {
  // An Expect other than 100-continue: Node would answer a bare 417.
  server.on(
    'checkExpectation',
    (_request: http.IncomingMessage, response: http.ServerResponse) => {
      const problem = problemOf(
        'expectation-failed',
        'Only "Expect: 100-continue" is understood; send the request without Expect.'
      );
      sendProblem(response, problem, { Connection: 'close' });
    }
  );
  // CONNECT never reaches the app (Node would drop the socket without a word): this is no
  // forward proxy, so say so and close.
  server.on('connect', (_request: http.IncomingMessage, socket: Duplex) => {
    const problem = problemOf(
      'method-not-allowed',
      'CONNECT is not supported: this service is not a proxy.'
    );
    writeProblemToSocket(socket, problem, {
      Allow: methodsOfAllRoutes().join(', ')
    });
  });
  server.on(
    'clientError',
    (error: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Duplex) => {
      writeProblemToSocket(socket, clientErrorProblem(error, requestTimeoutMs));
    }
  );
}

/**
 * Caps the open connections (connections.ts), answering a connection over the cap with
 * `overloaded`, and logs the pressure (evictions, refusals, failed accepts) at most every 10 s:
 * a flood must not turn into a flood of log lines. Call before the server listens.
 */
export function capConnections(
  server: http.Server,
  configured: number | undefined,
  logger: Logger
): void {
  const descriptorLimit = readDescriptorLimit();
  const maxConnections = configured ?? defaultMaxConnections(descriptorLimit);
  if (descriptorLimit !== undefined && maxConnections > descriptorLimit - 32) {
    logger.warn(
      'the connection limit is close to the descriptor limit: a flood of connections can exhaust descriptors',
      { maxConnections, descriptorLimit }
    );
  }
  const counts = { evicted: 0, refused: 0, acceptFailures: 0 };
  limitConnections(
    server,
    maxConnections,
    socket => {
      counts.refused += 1;
      const problem = problemOf(
        'overloaded',
        'Every connection is busy; try again in a moment.'
      );
      writeProblemToSocket(socket, problem, { 'Retry-After': '1' });
    },
    () => {
      counts.evicted += 1;
    }
  );
  // Once listening, an error of the listening socket (accept failing: no descriptor or memory
  // left where libuv could not shed the connection itself; without a listener Node would
  // throw) is counted; it must not end the process, which serves again once descriptors free.
  server.on('listening', () =>
    server.on('error', () => {
      counts.acceptFailures += 1;
    })
  );
  const pressureLog = setInterval(() => {
    logPressure(logger, maxConnections, counts);
    counts.evicted = 0;
    counts.refused = 0;
    counts.acceptFailures = 0;
  }, 10000);
  pressureLog.unref();
  server.on('close', () => clearInterval(pressureLog));
}

function logPressure(
  logger: Logger,
  maxConnections: number,
  counts: { evicted: number; refused: number; acceptFailures: number }
): void {
  if (counts.evicted + counts.refused > 0) {
    logger.warn(
      'connection limit reached: idle connections closed, busy ones refused',
      { maxConnections, evicted: counts.evicted, refused: counts.refused }
    );
  }
  if (counts.acceptFailures > 0) {
    logger.error(
      'accepting connections failed (no descriptor or memory left)',
      {
        failures: counts.acceptFailures
      }
    );
  }
}
