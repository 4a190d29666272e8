// How the command line reaches the project: through a running service found by its runtime
// file (service-lookup.ts), the service behind this terminal's Jupyter server
// (jupyter-client.ts), or, when none answers, by evaluating the same core in this process (and
// creating state through the initialize route served by this process, in-process.ts).
import * as http from 'node:http';
import type { Socket } from 'node:net';
import { ENV, ServiceConfig } from '../config/config';
import type { StepHook } from '../observe/state';
import type { Manifest } from '../core/manifest';
import { ProblemError } from '../core/problems';
import { newNonce, proofMatches } from '../core/health-proof';
import { initializeInProcess, readJsonAnswer } from './in-process';
import { findJupyterService, JupyterService } from './jupyter-client';
import type { RuntimeInfo } from '../files/runtime-file';
import {
  InitializeResult,
  StartupResult,
  StartupService
} from '../service/service';
import { parseInterface } from '../core/requests';
import type { InterfaceId } from '../core/vocabulary';
import {
  allocationClaimFromEnv,
  formatAllocationClaim
} from '../core/allocation-claim';
import { PROMPT_KEY_HEADER } from '../core/confirmation';
import { HttpProjectClient } from './http-client';
import type { ProjectClient } from './project-client';
import {
  askHealth,
  findRunningService,
  ProvenService,
  ServiceLookup,
  UnprovenConnection,
  UnprovenService
} from './service-lookup';
import type { Env } from '../core/env';

export type { ProjectClient };
export { UnprovenService };

class RemoteClient extends HttpProjectClient {
  readonly source: string;
  protected readonly answerer: string;
  private readonly info: RuntimeInfo;
  private readonly token: string | undefined;
  private readonly agent: http.Agent;
  /** The connection that proved itself; undefined once it must be proven again. */
  private provenSocket: Socket | undefined;

  constructor(
    proven: ProvenService,
    protected readonly allocation: string | undefined
  ) {
    super();
    this.info = proven.info;
    this.token = proven.token;
    this.agent = proven.agent;
    this.provenSocket = proven.socket;
    this.source = `answered by the service at ${this.info.url ?? this.info.socket} (pid ${this.info.pid})`;
    this.answerer = `The service at ${this.info.url ?? this.info.socket}`;
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
  /** Where and how one request goes: the runtime file's address, on the proven agent. */
  private requestOptions(
    method: 'GET' | 'POST',
    route: string,
    payload: string | undefined
  ): http.RequestOptions {
    const target = this.info.url ? new URL(this.info.url) : undefined;
    return {
      method,
      path: `${this.info.baseUrl}project/${route}`,
      ...(target
        ? { host: target.hostname.replace(/^\[|\]$/g, ''), port: target.port }
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
    };
  }

  private send(
    method: 'GET' | 'POST',
    route: string,
    body: object | undefined,
    proven: Socket | undefined,
    secretHeaders: Record<string, string>
  ): Promise<{ status: number; json: unknown }> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const request = http.request(
        this.requestOptions(method, route, payload),
        response =>
          readJsonAnswer(
            response,
            `The service at ${this.info.url ?? this.info.socket} sent an unreadable answer.`
          ).then(resolve, reject)
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

  protected exchange(
    method: 'GET' | 'POST',
    route: string,
    body?: object,
    promptAnswered?: boolean
  ): Promise<{ status: number; json: unknown }> {
    return this.request(
      method,
      route,
      body,
      promptAnswered && this.info.promptKey
        ? { [PROMPT_KEY_HEADER]: this.info.promptKey }
        : {}
    );
  }

  protected unauthorized(): ProblemError {
    // Say where this command line took its token from; the service cannot know.
    return new ProblemError(
      'unauthorized',
      unauthorizedDetail(this.info, this.token)
    );
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
  constructor(
    private readonly service: StartupService,
    readonly source = 'read directly (no running service found for this project)'
  ) {}

  async capabilities(): Promise<Manifest> {
    return this.service.manifest.manifest;
  }

  startup(iface: InterfaceId): Promise<StartupResult> {
    return this.service.startup(parseInterface(iface));
  }

  initialize(body: object, promptAnswered: boolean): Promise<InitializeResult> {
    // Through the service's own POST /project/initialize, served by this process for the one
    // request; this very process asked the question and saw its input is a TTY, and says so
    // with the prompt key it made for that request.
    return initializeInProcess(this.service, body, promptAnswered);
  }
}

/** What the command line found for a project: every command reads the same. */
export interface ProjectLookup extends ServiceLookup {
  /**
   * Beside JupyterLab: the Jupyter server this terminal belongs to, asked whether the service
   * behind it serves this project. Asked when no service of ours was proven, or when the one
   * found runs behind the notebook-server proxy (then it tells which JupyterLab that is).
   */
  beside?: JupyterService;
}

/**
 * The running service for this project (its runtime file, proven), and beside JupyterLab the
 * Jupyter server whose proxied service serves it. `notes` is all a person should read.
 */
export async function lookUpProject(
  config: ServiceConfig,
  env: Env
): Promise<ProjectLookup> {
  const lookup = await findRunningService(config, env);
  const running = lookup.service?.info;
  if (running !== undefined && running.ingress !== 'notebook-server-proxy') {
    return lookup;
  }
  const beside = await findJupyterService(config, env);
  if (running === undefined) {
    return { ...lookup, beside, notes: [...lookup.notes, ...beside.notes] };
  }
  // Found by its runtime file: the JupyterLab it belongs to, once that server says it is so.
  const jupyter = beside.jupyter;
  return {
    ...lookup,
    beside,
    notes: [
      ...lookup.notes,
      ...(jupyter
        ? [
            `This service is the one jupyter-server-proxy runs for the ${jupyter.how}; JupyterLab: ${jupyter.url}lab`
          ]
        : [])
    ]
  };
}

export async function connect(
  config: ServiceConfig,
  env: Env,
  local: boolean,
  /** Test-only (crash-safety tests): the in-process service's hook between creation steps. */
  onCreationStep?: StepHook
): Promise<{ client: ProjectClient; notes: string[] }> {
  const lookup = local ? undefined : await lookUpProject(config, env);
  const service = lookup?.service;
  const notes = lookup?.notes ?? [];
  if (service === undefined && lookup?.beside?.client) {
    return { client: lookup.beside.client, notes };
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
  const proxied = lookup?.proxied;
  if (proxied === undefined) {
    return {
      client: new LocalClient(
        new StartupService({ config, env, onCreationStep })
      ),
      notes
    };
  }
  // Beside a service behind a trusted proxy the project is read here (only the proxy holds its
  // secret), but about the service that runs: the projection names the routes it serves, as its
  // own answer does, never a second service to start.
  const here = new StartupService({
    config: { ...config, baseUrl: proxied.baseUrl },
    env,
    onCreationStep
  });
  here.setIngress({
    mode: 'trusted-proxy',
    listening: proxied.url
      ? new URL(proxied.url).host
      : `Unix socket ${proxied.socket}`,
    offered: here.adapter.ingressModes.includes('trusted-proxy')
  });
  return {
    client: new LocalClient(
      here,
      `read directly: the service for this project (pid ${proxied.pid}) runs behind a trusted proxy, which the command line cannot pass`
    ),
    notes
  };
}
