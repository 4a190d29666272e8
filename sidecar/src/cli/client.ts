// How the command line reaches the project: through a running service found by its runtime
// file, or, when none runs, by evaluating the same core in this process.
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { Socket } from 'node:net';
import { ENV, ServiceConfig } from '../config';
import type { Manifest } from '../core/manifest';
import { Problem, ProblemError } from '../core/problems';
import {
  clientViewOf,
  newNonce,
  ProofConnection,
  proofMatches
} from '../core/health-proof';
import { besideJupyterLab } from './jupyter-client';
import {
  readRuntimeFile,
  removeRuntimeFile,
  runtimeFilePath,
  RuntimeInfo
} from '../runtime-file';
import {
  InitializeResult,
  parseInterface,
  StartupResult,
  StartupService
} from '../service';
import type { InterfaceId } from '../core/vocabulary';
import {
  allocationClaimFromEnv,
  formatAllocationClaim
} from '../core/allocation-claim';
import { PROMPT_KEY_HEADER } from '../core/confirmation';

export interface ProjectClient {
  /** Where the answers come from, for a person. */
  readonly source: string;
  capabilities(): Promise<Manifest>;
  startup(iface: InterfaceId): Promise<StartupResult>;
  /** `promptAnswered`: a person answered the command line's prompt on a TTY just now. */
  initialize(body: object, promptAnswered: boolean): Promise<InitializeResult>;
}

type Env = Readonly<Record<string, string | undefined>>;

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
class UnprovenConnection extends Error {}

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
function askHealth(
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

class RemoteClient implements ProjectClient {
  readonly source: string;
  private readonly info: RuntimeInfo;
  private readonly token: string | undefined;
  private readonly agent: http.Agent;
  /** The connection that proved itself; undefined once it must be proven again. */
  private provenSocket: Socket | undefined;

  constructor(
    proven: ProvenService,
    /** The job this terminal runs in (`slurm:1234`), for the service to verify with the scheduler. */
    private readonly allocation: string | undefined
  ) {
    this.info = proven.info;
    this.token = proven.token;
    this.agent = proven.agent;
    this.provenSocket = proven.socket;
    this.source = `answered by the service at ${this.info.url ?? this.info.socket} (pid ${this.info.pid})`;
  }

  /** The agent's connection, proven: the one proven before, or a new one proven now. */
  private async provenConnection(): Promise<Socket> {
    if (this.provenSocket !== undefined && !this.provenSocket.destroyed) {
      return this.provenSocket;
    }
    // The service closed the idle connection (its keep-alive timeout, say while init waited at
    // the prompt): prove the new one before anything secret goes over it.
    const token = this.token as string;
    const nonce = newNonce();
    const answer = await askHealth(this.info, nonce, this.agent);
    const body = (answer.kind === 'answered' ? (answer.body ?? {}) : {}) as {
      instanceId?: unknown;
      proof?: unknown;
    };
    if (
      answer.kind !== 'answered' ||
      answer.status !== 200 ||
      body.instanceId !== this.info.instanceId ||
      !proofMatches(
        body.proof,
        token,
        nonce,
        this.info.instanceId,
        answer.connection
      )
    ) {
      throw new UnprovenService(
        `The service at ${this.info.url ?? this.info.socket} no longer proves it holds the token, so nothing more was sent. It may have stopped; run the command again.`
      );
    }
    this.provenSocket = answer.socket;
    return answer.socket;
  }

  private async request(
    method: 'GET' | 'POST',
    route: string,
    body?: object,
    secretHeaders: Record<string, string> = {}
  ): Promise<{ status: number; json: unknown }> {
    for (let attempt = 0; ; attempt++) {
      const proven =
        this.token === undefined ? undefined : await this.provenConnection();
      try {
        return await this.send(method, route, body, proven, secretHeaders);
      } catch (error) {
        if (!(error instanceof UnprovenConnection) || attempt > 0) {
          throw error instanceof UnprovenConnection
            ? new UnprovenService(error.message)
            : error;
        }
        this.provenSocket = undefined; // closed under us: prove a new connection, once
      }
    }
  }

  /**
   * One request on the agent. With a token, the Authorization header is added only once the
   * request has its connection and that is the proven one; otherwise nothing is sent. The same
   * holds for `secretHeaders` (the prompt key): never sent over a connection that is not proven.
   */
  private send(
    method: 'GET' | 'POST',
    route: string,
    body: object | undefined,
    proven: Socket | undefined,
    secretHeaders: Record<string, string>
  ): Promise<{ status: number; json: unknown }> {
    const path = `${this.info.baseUrl}project/${route}`;
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const target = this.info.url ? new URL(this.info.url) : undefined;
    return new Promise((resolve, reject) => {
      const request = http.request(
        {
          method,
          path,
          ...(target
            ? {
                host: target.hostname.replace(/^\[|\]$/g, ''),
                port: target.port
              }
            : { socketPath: this.info.socket }),
          headers: {
            host: target ? target.host : 'localhost',
            accept: 'application/json',
            ...(payload
              ? {
                  'content-type': 'application/json',
                  'content-length': Buffer.byteLength(payload)
                }
              : {})
          },
          timeout: 15000,
          agent: this.agent
        },
        response => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => {
            try {
              resolve({
                status: response.statusCode ?? 0,
                json: JSON.parse(Buffer.concat(chunks).toString('utf8'))
              });
            } catch {
              reject(
                new ProblemError(
                  'internal',
                  `The service at ${this.info.url ?? this.info.socket} sent an unreadable answer.`
                )
              );
            }
          });
        }
      );
      let unproven = false;
      request.on('timeout', () => request.destroy(new Error('timeout')));
      request.on('error', () =>
        reject(
          unproven
            ? new UnprovenConnection(
                `The connection to ${this.info.url ?? this.info.socket} is not the one that proved itself; nothing was sent.`
              )
            : new ProblemError(
                'internal',
                `Could not reach the service at ${this.info.url ?? this.info.socket}; is it still running?`
              )
        )
      );
      request.once('socket', (socket: Socket) => {
        if (proven !== undefined) {
          if (socket !== proven) {
            unproven = true;
            request.destroy(new Error('unproven connection'));
            return;
          }
          request.setHeader('authorization', `Bearer ${this.token}`);
          for (const [name, value] of Object.entries(secretHeaders)) {
            request.setHeader(name, value);
          }
        }
        request.end(payload);
      });
    });
  }

  private async expect<T>(
    method: 'GET' | 'POST',
    route: string,
    body?: object,
    extraHeaders?: Record<string, string>
  ): Promise<{ status: number; json: T }> {
    const { status, json } = await this.request(
      method,
      route,
      body,
      extraHeaders
    );
    if (status === 401) {
      // Say where this command line took its token from; the service cannot know.
      throw new ProblemError(
        'unauthorized',
        unauthorizedDetail(this.info, this.token)
      );
    }
    if (status >= 400) {
      const problem = json as Problem;
      const {
        type: _t,
        title: _ti,
        status: _s,
        detail,
        code,
        instance: _i,
        ...extensions
      } = problem;
      throw new ProblemError(code, detail, extensions);
    }
    return { status, json: json as T };
  }

  async capabilities(): Promise<Manifest> {
    return (await this.expect<Manifest>('GET', 'capabilities')).json;
  }

  async startup(iface: InterfaceId): Promise<StartupResult> {
    const allocation = this.allocation
      ? `&allocation=${encodeURIComponent(this.allocation)}`
      : '';
    return (
      await this.expect<StartupResult>(
        'GET',
        `startup?interface=${encodeURIComponent(iface)}${allocation}`
      )
    ).json;
  }

  async initialize(
    body: object,
    promptAnswered: boolean
  ): Promise<InitializeResult> {
    const headers: Record<string, string> =
      promptAnswered && this.info.promptKey
        ? { [PROMPT_KEY_HEADER]: this.info.promptKey }
        : {};
    const { status, json } = await this.expect<InitializeResult['body']>(
      'POST',
      'initialize',
      this.allocation ? { ...body, allocation: this.allocation } : body,
      headers
    );
    return { status: status === 201 ? 201 : 200, body: json };
  }
}

/** Why the running service refused this command line's token, and what to do. */
export function unauthorizedDetail(
  info: Pick<RuntimeInfo, 'tokenSource' | 'ingress'>,
  token: string | undefined
): string {
  if (info.tokenSource === 'environment') {
    return token
      ? `The service took its token from ${ENV.token} when it started, and the value in this shell differs: set ${ENV.token} here to the same value (or restart \`project-startup serve\`).`
      : `The service took its token from ${ENV.token} when it started, which is not set in this shell: set it here to the same value.`;
  }
  if (info.tokenSource === 'generated') {
    return 'The service refused the token of its runtime file; it may have been restarted meanwhile: run the command again, or restart `project-startup serve`.';
  }
  return `The service (${info.ingress}) needs credentials this command line does not have; use \`--local\` to evaluate in this process.`;
}

class LocalClient implements ProjectClient {
  readonly source = 'read directly (no running service found for this project)';

  constructor(private readonly service: StartupService) {}

  async capabilities(): Promise<Manifest> {
    return this.service.manifest.manifest;
  }

  startup(iface: InterfaceId): Promise<StartupResult> {
    return this.service.startup(parseInterface(iface));
  }

  initialize(body: object, promptAnswered: boolean): Promise<InitializeResult> {
    // This very process asked the question and saw its input is a TTY.
    return this.service.initialize(body, {
      ingress: 'command-line',
      channel: { kind: promptAnswered ? 'terminal-prompt' : 'api' }
    });
  }
}

export async function connect(
  config: ServiceConfig,
  env: Env,
  local: boolean
): Promise<{ client: ProjectClient; notes: string[] }> {
  const { service, notes } = local
    ? { service: undefined, notes: [] }
    : await findRunningService(config, env);
  const beside = local
    ? { client: undefined, notes: [] }
    : await besideJupyterLab(service?.info, config, env);
  notes.push(...beside.notes);
  if (beside.client) {
    return { client: beside.client, notes };
  }

  if (service) {
    const claim = allocationClaimFromEnv(env);
    return {
      client: new RemoteClient(
        service,
        claim ? formatAllocationClaim(claim) : undefined
      ),
      notes
    };
  }
  return {
    client: new LocalClient(new StartupService({ config, env })),
    notes
  };
}
