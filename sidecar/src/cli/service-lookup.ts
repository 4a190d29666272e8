// Finding the running service of a project: its runtime file, then a health proof before any
// credential is sent (health-proof.ts). Undefined when none runs.
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { Socket } from 'node:net';
import { ENV, ServiceConfig } from '../config/config';
import {
  clientViewOf,
  newNonce,
  ProofConnection,
  proofMatches
} from '../core/health-proof';
import {
  readRuntimeFile,
  removeRuntimeFile,
  runtimeFilePath,
  RuntimeInfo
} from '../files/runtime-file';
import type { Env } from '../core/env';

/**
 * The runtime file names a service that cannot be the one that wrote it: the command line
 * sends nothing to it (exit 1). Either something else listens at its address (an impostor,
 * or a process that took the port of a service that was killed), or PROJECT_STARTUP_TOKEN
 * differs from the token the service was started with.
 */
export class UnprovenService extends Error {
  readonly unproven = true;
}

/** A request's connection turned out not to be the proven one (it was closed and replaced). */
export class UnprovenConnection extends Error {}

/** A service the command line may talk to: it proved it holds `token` (when there is one). */
export interface ProvenService {
  info: RuntimeInfo;
  token: string | undefined;
  /** The agent holding the one connection... */
  agent: http.Agent;
  /** ...whose other end proved it holds the token. */
  socket: Socket;
}

export interface ServiceLookup {
  /** Undefined when no service runs for the project. */
  service: ProvenService | undefined;
  /** What was found on the way, for a person: a stale runtime file removed. */
  notes: string[];
  /** A service that runs behind a trusted proxy: only the proxy may call it. */
  proxied?: RuntimeInfo;
}

/**
 * Whether the pid can still be the service: a process of ours with that pid exists. ESRCH: it
 * is gone. EPERM: the pid now belongs to another user's process, and the service runs as us
 * (it wrote a 0600 file in our private directory), so that is not the service either. Only a
 * hint: our own pids are reused too, which the health proof catches.
 */
function pidMayBeOurs(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) {
    return false;
  }
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // kill() succeeds for root whoever owns the pid; where /proc tells the owner (Linux), ask it.
  // Elsewhere the health proof below is what decides.
  const owner =
    process.platform === 'linux'
      ? fs.statSync(`/proc/${pid}`, { throwIfNoEntry: false })?.uid
      : undefined;
  return (
    owner === undefined ||
    typeof process.getuid !== 'function' ||
    owner === process.getuid()
  );
}

type HealthAnswer =
  | {
      kind: 'answered';
      status: number;
      body: unknown;
      socket: Socket;
      /** The connection as this end saw it when the answer began (for the proof). */
      connection: ProofConnection;
    }
  | { kind: 'gone' }
  | { kind: 'unreachable'; why: string };

/**
 * One kept-alive connection per command, so the credentialed requests go over the very
 * connection whose other end proved itself: nobody can step in between (a process that takes
 * the port after the proof gets new connections only, and those are proven afresh).
 */
function connectionAgent(): http.Agent {
  return new http.Agent({ keepAlive: true, maxSockets: 1, maxFreeSockets: 1 });
}

/** GET health?nonce= without any credential, bounded in time and size, on `agent`'s connection. */
export function askHealth(
  info: RuntimeInfo,
  nonce: string,
  agent: http.Agent
): Promise<HealthAnswer> {
  const target = info.url ? new URL(info.url) : undefined;
  return new Promise(resolve => {
    const request = http.request(
      {
        method: 'GET',
        path: `${info.baseUrl}project/health?nonce=${nonce}`,
        ...(target
          ? { host: target.hostname.replace(/^\[|\]$/g, ''), port: target.port }
          : { socketPath: info.socket }),
        headers: {
          host: target ? target.host : 'localhost',
          accept: 'application/json'
        },
        timeout: 5000,
        agent
      },
      response => {
        // Taken now: once the answer ends, a kept-alive connection is detached from it, and a
        // closed one no longer knows its addresses.
        const socket = response.socket;
        const connection = clientViewOf(socket);
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > 64 * 1024) {
            request.destroy(new Error('too large'));
            return;
          }
          chunks.push(chunk);
        });
        response.on('end', () => {
          let body: unknown;
          try {
            body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
          } catch {
            body = undefined;
          }
          resolve({
            kind: 'answered',
            status: response.statusCode ?? 0,
            body,
            socket,
            connection
          });
        });
        response.on('error', () =>
          resolve({ kind: 'unreachable', why: 'the answer broke off' })
        );
      }
    );
    request.on('timeout', () => request.destroy(new Error('timeout')));
    request.on('error', (error: NodeJS.ErrnoException) => {
      // Nothing listens there any more (TCP port closed, socket file gone): the service stopped.
      if (error.code === 'ECONNREFUSED' || error.code === 'ENOENT') {
        resolve({ kind: 'gone' });
      } else {
        resolve({
          kind: 'unreachable',
          why:
            error.message === 'timeout'
              ? 'no answer within 5 s'
              : `connection failed (${error.code ?? 'error'})`
        });
      }
    });
    request.end();
  });
}

/**
 * The running service for this project, proven before any credential is sent: the runtime file
 * is read; a pid that is gone or not ours, a closed address, or an answer from another instance
 * means the file is stale, and it is removed. Then the health route must answer a fresh nonce
 * with HMAC(token, nonce, instance id, this connection): only the process holding the token, at
 * the other end of this very connection, can (health-proof.ts). If it cannot,
 * nothing is sent and UnprovenService says why. Undefined when no service runs.
 */
export async function findRunningService(
  config: ServiceConfig,
  env: Env
): Promise<ServiceLookup> {
  const file = runtimeFilePath(config.runtimeDir, config.projectDir);
  const info = readRuntimeFile(file);
  if (!info || info.projectPath !== config.projectDir) {
    return { service: undefined, notes: [] };
  }
  const where = info.url ?? info.socket ?? 'its address';
  const stale = (why: string): ServiceLookup => {
    removeRuntimeFile(file, info.instanceId);
    return {
      service: undefined,
      notes: [`Removed the stale runtime file ${file}: ${why}.`]
    };
  };
  if (!pidMayBeOurs(info.pid)) {
    return stale(`the service that wrote it (pid ${info.pid}) no longer runs`);
  }
  if (info.ingress === 'trusted-proxy') {
    // Every request needs the proxy's secret, which the command line never holds: it reads the
    // project itself, so that `project-startup init`, the next action the service names, works.
    return {
      service: undefined,
      proxied: info,
      notes: [
        `The service for this project (pid ${info.pid}) runs behind a trusted proxy, which the command line cannot pass; it reads the project itself.`
      ]
    };
  }
  const token =
    info.tokenSource === 'environment' ? env[ENV.token] : info.token;
  const agent = connectionAgent();
  const nonce = newNonce();
  const answer = await askHealth(info, nonce, agent);
  if (answer.kind === 'gone') {
    return stale(`nothing listens at ${where} any more`);
  }
  if (answer.kind === 'unreachable') {
    throw new UnprovenService(
      `The service at ${where} (pid ${info.pid}) could not be asked who it is: ${answer.why}. Nothing was sent. If it is stuck, stop it; --local evaluates without it.`
    );
  }
  const body = (answer.body ?? {}) as { instanceId?: unknown; proof?: unknown };
  if (answer.status !== 200) {
    // Behind a trusted proxy even health needs the proxy's secret, which the command line never has.
    throw new UnprovenService(
      `The service at ${where} (pid ${info.pid}, ${info.ingress} ingress) did not let the command line ask who it is (HTTP ${answer.status}); nothing was sent. Use --local to evaluate without it.`
    );
  }
  if (body.instanceId !== info.instanceId) {
    return stale(`what answers at ${where} is not the service that wrote it`);
  }
  if (
    token !== undefined &&
    !proofMatches(body.proof, token, nonce, info.instanceId, answer.connection)
  ) {
    if (info.tokenSource === 'environment') {
      throw new UnprovenService(
        `The service at ${where} could not prove it holds the token in ${ENV.token}, so the token was not sent. Either ${ENV.token} differs from the token the service was started with (set it to that one), or another process took its address (stop it; then remove ${file}).`
      );
    }
    removeRuntimeFile(file, info.instanceId);
    throw new UnprovenService(
      `Something else answers at ${where}: it could not prove it holds the token of the service that wrote ${file}, so the token was not sent and the file was removed. The service probably stopped and another process took its address; find out which, and start the service again.`
    );
  }
  return { service: { info, token, agent, socket: answer.socket }, notes: [] };
}
