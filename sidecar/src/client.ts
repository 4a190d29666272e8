// How the command line reaches the project: through a running service found by its runtime
// file, or, when none runs, by evaluating the same core in this process.
import * as http from 'node:http';
import { ENV, ServiceConfig } from './config';
import type { Manifest } from './manifest';
import { Problem, ProblemError } from './problems';
import { readRuntimeFile, runtimeFilePath, RuntimeInfo } from './runtime-file';
import { InitializeResult, parseInterface, StartupResult, StartupService } from './service';
import type { InterfaceId } from './vocabulary';
import { allocationClaimFromEnv, formatAllocationClaim } from './allocation-claim';
import { PROMPT_KEY_HEADER } from './confirmation';

export interface ProjectClient {
  /** Where the answers come from, for a person. */
  readonly source: string;
  capabilities(): Promise<Manifest>;
  startup(iface: InterfaceId): Promise<StartupResult>;
  /** `promptAnswered`: a person answered the command line's prompt on a TTY just now. */
  initialize(body: object, promptAnswered: boolean): Promise<InitializeResult>;
}

type Env = Readonly<Record<string, string | undefined>>;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function findRunningService(config: ServiceConfig): RuntimeInfo | undefined {
  const info = readRuntimeFile(runtimeFilePath(config.runtimeDir, config.projectDir));
  return info && info.projectPath === config.projectDir && alive(info.pid) ? info : undefined;
}

class RemoteClient implements ProjectClient {
  readonly source: string;

  constructor(
    private readonly info: RuntimeInfo,
    private readonly token: string | undefined,
    /** The job this terminal runs in (`slurm:1234`), for the service to verify with the scheduler. */
    private readonly allocation: string | undefined
  ) {
    this.source = `answered by the service at ${info.url ?? info.socket} (pid ${info.pid})`;
  }

  private request(method: 'GET' | 'POST', route: string, body?: object, extraHeaders: Record<string, string> = {}): Promise<{ status: number; json: unknown }> {
    const path = `${this.info.baseUrl}project/${route}`;
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const target = this.info.url ? new URL(this.info.url) : undefined;
    return new Promise((resolve, reject) => {
      const request = http.request(
        {
          method,
          path,
          ...(target ? { host: target.hostname.replace(/^\[|\]$/g, ''), port: target.port } : { socketPath: this.info.socket }),
          headers: {
            host: target ? target.host : 'localhost',
            accept: 'application/json',
            ...(this.token ? { authorization: `Bearer ${this.token}` } : {}),
            ...(payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}),
            ...extraHeaders
          },
          timeout: 15000
        },
        response => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => {
            try {
              resolve({ status: response.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
            } catch {
              reject(new ProblemError('internal', `The service at ${this.info.url ?? this.info.socket} sent an unreadable answer.`));
            }
          });
        }
      );
      request.on('timeout', () => request.destroy(new Error('timeout')));
      request.on('error', () =>
        reject(new ProblemError('internal', `Could not reach the service at ${this.info.url ?? this.info.socket}; is it still running?`))
      );
      request.end(payload);
    });
  }

  private async expect<T>(method: 'GET' | 'POST', route: string, body?: object, extraHeaders?: Record<string, string>): Promise<{ status: number; json: T }> {
    const { status, json } = await this.request(method, route, body, extraHeaders);
    if (status === 401) {
      // Say where this command line took its token from; the service cannot know.
      throw new ProblemError('unauthorized', unauthorizedDetail(this.info, this.token));
    }
    if (status >= 400) {
      const problem = json as Problem;
      const { type: _t, title: _ti, status: _s, detail, code, instance: _i, ...extensions } = problem;
      void _t, _ti, _s, _i;
      throw new ProblemError(code, detail, extensions);
    }
    return { status, json: json as T };
  }

  async capabilities(): Promise<Manifest> {
    return (await this.expect<Manifest>('GET', 'capabilities')).json;
  }

  async startup(iface: InterfaceId): Promise<StartupResult> {
    const allocation = this.allocation ? `&allocation=${encodeURIComponent(this.allocation)}` : '';
    return (await this.expect<StartupResult>('GET', `startup?interface=${encodeURIComponent(iface)}${allocation}`)).json;
  }

  async initialize(body: object, promptAnswered: boolean): Promise<InitializeResult> {
    const headers: Record<string, string> = promptAnswered && this.info.promptKey ? { [PROMPT_KEY_HEADER]: this.info.promptKey } : {};
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
export function unauthorizedDetail(info: Pick<RuntimeInfo, 'tokenSource' | 'ingress'>, token: string | undefined): string {
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
    return this.service.initialize(body, { ingress: 'command-line', channel: { kind: promptAnswered ? 'terminal-prompt' : 'api' } });
  }
}

export function connect(config: ServiceConfig, env: Env, local: boolean): ProjectClient {
  const info = local ? undefined : findRunningService(config);
  if (info) {
    const token = info.tokenSource === 'environment' ? env[ENV.token] : info.token;
    const claim = allocationClaimFromEnv(env);
    return new RemoteClient(info, token, claim ? formatAllocationClaim(claim) : undefined);
  }
  return new LocalClient(new StartupService({ config, env }));
}
