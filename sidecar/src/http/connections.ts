// Connection hygiene: how many connections the service keeps, how long a request may take to
// arrive, and what happens when either runs out. Whoever can open a TCP connection (every local
// user; in trusted-proxy mode maybe the network) can do this before any secret is checked, so
// none of it may depend on authentication, and none of it may end the process.
//
// - At most `maxConnections` connections are open at once, below the descriptor limit, so the
//   process always keeps descriptors for its own work (answering, the state files, probes).
// - At the limit, a new connection takes the place of the least recently used one that has no
//   request in progress (idle between requests, or still sending its headers): a flood of idle
//   connections only pushes out its own, and a client that sends its request at once is served.
//   When every connection is busy, the new one is answered 503 `overloaded` with Retry-After and
//   closed: load is shed, never queued.
// - A request must arrive complete (headers and body) within the request timeout, answered 408;
//   Node looks for late requests every `connectionsCheckingInterval` (30 s by default), so it is
//   set to a second: the timeout fires when it says, give or take that second.
import * as fs from 'node:fs';
import type * as http from 'node:http';
import type { Socket } from 'node:net';

/** Descriptors kept back from connections for everything else the process opens. */
export const DESCRIPTOR_RESERVE = 64;
/** The connection limit when the descriptor limit cannot be read (not Linux), and the cap. */
export const FALLBACK_MAX_CONNECTIONS = 256;
export const MAX_CONNECTIONS_CAP = 1024;
/** How often Node looks for requests past their timeout. */
export const TIMEOUT_CHECK_INTERVAL_MS = 1000;

/**
 * The soft "Max open files" of a /proc/PID/limits text, or undefined ("unlimited", or absent).
 */
export function descriptorLimitOf(procLimits: string): number | undefined {
  const match = /^Max open files\s+(\d+|unlimited)\s+/m.exec(procLimits);
  return match === null || match[1] === 'unlimited'
    ? undefined
    : Number(match[1]);
}

/**
 * This process's descriptor limit where the system says it without a child process: Linux's
 * /proc/self/limits. Node cannot read RLIMIT_NOFILE itself; elsewhere (macOS) this is undefined
 * and the fallback applies (Node raises the soft limit to the hard one at start, which on macOS
 * is at least 10240 unless an operator lowered it; then set PROJECT_STARTUP_MAX_CONNECTIONS).
 */
export function readDescriptorLimit(): number | undefined {
  try {
    return descriptorLimitOf(fs.readFileSync('/proc/self/limits', 'utf8'));
  } catch {
    return undefined;
  }
}

/**
 * The default connection limit: half of what the descriptor limit leaves after the reserve (the
 * other half covers what each connection's work may open at once), between 16 and the cap.
 */
export function defaultMaxConnections(
  descriptorLimit: number | undefined
): number {
  if (descriptorLimit === undefined) {
    return FALLBACK_MAX_CONNECTIONS;
  }
  return Math.max(
    16,
    Math.min(
      MAX_CONNECTIONS_CAP,
      Math.floor((descriptorLimit - DESCRIPTOR_RESERVE) / 2)
    )
  );
}

/** Node's server options for a request timeout: the headers and the whole request within it. */
export function timeoutOptions(requestTimeoutMs: number): http.ServerOptions {
  return {
    requestTimeout: requestTimeoutMs,
    headersTimeout: requestTimeoutMs,
    keepAliveTimeout: 5000,
    connectionsCheckingInterval: Math.min(
      TIMEOUT_CHECK_INTERVAL_MS,
      requestTimeoutMs
    )
  };
}

export interface ConnectionLimiter {
  /** Connections open now (for tests and logs). */
  readonly open: number;
}

/**
 * Puts `maxConnections` in front of the server's own connection handling. Node's http.Server
 * handles a connection with its one 'connection' listener; this takes that listener and calls it
 * only for the connections it admits. `shed` answers a connection that is not admitted.
 */
export function limitConnections(
  server: http.Server,
  maxConnections: number,
  shed: (socket: Socket) => void,
  onEvict: () => void = () => undefined
): ConnectionLimiter {
  const [handle, ...others] = server.listeners('connection') as ((
    socket: Socket
  ) => void)[];
  if (handle === undefined || others.length > 0) {
    throw new Error('limitConnections must be called on a fresh http.Server');
  }
  server.removeListener('connection', handle);
  // Insertion order is recency: a connection moves to the end when a request on it ends.
  const open = new Map<Socket, { active: number }>();

  const leastRecentlyUsedIdle = (): Socket | undefined => {
    for (const [socket, state] of open) {
      if (state.active === 0) {
        return socket;
      }
    }
    return undefined;
  };

  server.on('connection', (socket: Socket) => {
    if (open.size >= maxConnections) {
      const idle = leastRecentlyUsedIdle();
      if (idle === undefined) {
        shed(socket);
        return;
      }
      open.delete(idle);
      idle.destroy();
      onEvict();
    }
    open.set(socket, { active: 0 });
    socket.once('close', () => open.delete(socket));
    handle.call(server, socket);
  });

  server.on(
    'request',
    (request: http.IncomingMessage, response: http.ServerResponse) => {
      const socket = request.socket;
      const state = open.get(socket);
      if (state === undefined) {
        return;
      }
      state.active += 1;
      response.once('close', () => {
        state.active -= 1;
        if (open.delete(socket)) {
          open.set(socket, state); // most recently used
        }
      });
    }
  );

  return {
    get open() {
      return open.size;
    }
  };
}
