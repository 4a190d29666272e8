// Listening before the service is loaded. Behind jupyter-server-proxy the first answer waits for
// the proxy's readiness check, which polls at doubling intervals (about 10, 30, 70 and 150 ms
// after the launch). Loading and building the service takes until about 75 ms: the check at 70 ms
// was refused in most launches and the answer came at 150 (bench/README.md). So the bin runs this
// first, from a small bundle of its own, for `serve --unix-socket PATH`: the socket listens some
// 35 ms earlier, and the check that connects waits for the service instead of being refused.
//
// - Nothing is read before the service takes over: connections are accepted paused, so no
//   request is parsed without the service's limits and timeouts, and at most PENDING_MAX wait.
// - The service takes over (handOver) by listening privately and renaming its socket onto the
//   name (unix-socket.ts), then hands the waiting connections to its server. The early socket,
//   nameless now, stays open beside it so a connection still in its queue is handed over too.
// - Otherwise (a refused setting, a runtime directory not private, a crash) the name is removed
//   at exit while it still is this socket: no dead socket is left behind. So it is when SIGTERM,
//   SIGINT or SIGHUP ends the process before the service catches signals itself (the proxy
//   stopping a server that has only just started): the name goes, then the signal ends the
//   process as it would have.
// - Any failure here leaves the socket to the service, which listens as before and says why not.
import * as net from 'node:net';
import { serveUnixSocket } from '../config/serve-options';
import {
  claimSocketPath,
  listenOnUnixSocket,
  UnixListener
} from './unix-socket';

/** Connections that may wait for the service; the proxy's readiness check is the one expected. */
export const PENDING_MAX = 64;

/** The signals that end a process by default and that a process manager sends to stop one. */
const STOPPING_SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;

export interface EarlyListener {
  /** The socket's path, absolute. */
  readonly socketPath: string;
  /**
   * Gives `server` the socket and the connections waiting on it, once; undefined when this
   * listener holds another path (it is closed then) or was handed over or closed already.
   */
  handOver(
    server: net.Server,
    socketPath: string
  ): Promise<UnixListener | undefined>;
  /** Removes the name (while it still is this socket) and closes every connection waiting. */
  close(): void;
}

/**
 * Until the function it returns is called, runs `release` when the process ends: at exit, and
 * on a stopping signal that nothing else in the process watches yet, which is then raised again
 * with no listener left, so it ends the process as it would have.
 */
function releaseWhenEnding(release: () => void): () => void {
  const onSignal = (signal: NodeJS.Signals): void => {
    if (process.listenerCount(signal) > 1) {
      return; // the service catches it from here on and stops in its own way
    }
    stopWatching();
    release();
    process.kill(process.pid, signal);
  };
  const stopWatching = (): void => {
    process.off('exit', release);
    for (const signal of STOPPING_SIGNALS) {
      process.off(signal, onSignal);
    }
  };
  process.once('exit', release);
  for (const signal of STOPPING_SIGNALS) {
    process.on(signal, onSignal);
  }
  return stopWatching;
}

/** Listens on the Unix socket that `serve ARGS` names, before the service exists; or undefined. */
export async function listenFirst(
  args: readonly string[],
  cwd: string
): Promise<EarlyListener | undefined> {
  const socketPath = serveUnixSocket(args, cwd);
  if (socketPath === undefined) {
    return undefined;
  }
  const early = net.createServer({ pauseOnConnect: true });
  const waiting = new Set<net.Socket>();
  let deliver = (socket: net.Socket): void => {
    if (waiting.size >= PENDING_MAX) {
      socket.destroy();
      return;
    }
    waiting.add(socket);
  };
  early.on('connection', socket => deliver(socket));
  // An accept that fails (no descriptor left) must not end the process.
  early.on('error', () => undefined);
  let listener: UnixListener;
  try {
    await claimSocketPath(socketPath);
    listener = await listenOnUnixSocket(early, socketPath);
  } catch {
    early.close();
    return undefined;
  }
  const stopWatching = releaseWhenEnding(() => close());
  let waitingForService = true; // until handed over or closed; either happens once
  const shutDown = (): void => {
    stopWatching();
    listener.release();
    early.close();
    for (const socket of waiting) {
      socket.destroy();
    }
    waiting.clear();
  };
  const close = (): void => {
    if (waitingForService) {
      waitingForService = false;
      shutDown();
    } else {
      listener.release(); // mid-hand-over: removes the name only while it still is ours
    }
  };
  return {
    socketPath,
    async handOver(server, requested) {
      const own = listener.identity;
      if (!waitingForService || requested !== socketPath || own === undefined) {
        close();
        return undefined;
      }
      waitingForService = false;
      let taken: UnixListener;
      try {
        taken = await listenOnUnixSocket(server, socketPath, own);
      } catch (error) {
        shutDown();
        throw error;
      }
      stopWatching();
      deliver = socket => {
        server.emit('connection', socket);
        socket.resume();
      };
      for (const socket of waiting) {
        deliver(socket);
      }
      waiting.clear();
      server.once('close', () => early.close());
      return taken;
    },
    close
  };
}

/**
 * Listens on `socketPath` with `server`: in place of the early listener when it holds that
 * path, else on the path once it is free (claimSocketPath).
 */
export async function listenOnSocketPath(
  server: net.Server,
  socketPath: string,
  early: EarlyListener | undefined
): Promise<UnixListener> {
  const handed = await early?.handOver(server, socketPath);
  if (handed !== undefined) {
    return handed;
  }
  await claimSocketPath(socketPath);
  return listenOnUnixSocket(server, socketPath);
}
