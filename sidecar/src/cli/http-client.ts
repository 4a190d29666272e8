// The command line's HTTP clients in one: the routes it asks (capabilities, startup,
// initialize) and how a problem answer becomes an error are written here once; a client differs
// only in its transport (the running service on its proven connection, client.ts; the service
// behind this terminal's Jupyter server, jupyter-client.ts) and in the words it uses for where
// the answer came from.
import type { Manifest } from '../core/manifest';
import { Problem, ProblemError } from '../core/problems';
import type { InterfaceId } from '../core/vocabulary';
import type { InitializeResult, StartupResult } from '../service/service';
import type { ProjectClient } from './project-client';

/** One answer of the service: its status and its JSON (undefined: it was not JSON). */
export interface JsonAnswer {
  status: number;
  json: unknown;
}

/**
 * A problem answer as an error: the service's own problem as it sent it; anything else (a proxy's
 * page, an empty body) as an `internal` problem naming `where` and the status.
 */
export function problemFromAnswer(
  answer: JsonAnswer,
  where: string
): ProblemError {
  const problem = (answer.json ?? {}) as Partial<Problem>;
  if (typeof problem.code === 'string' && typeof problem.detail === 'string') {
    return ProblemError.fromProblem(problem as Problem);
  }
  return new ProblemError(
    'internal',
    `${where} answered HTTP ${answer.status}.`
  );
}

/** The body of a successful answer, or the problem it carries as an error. */
export function jsonOrProblem<T>(answer: JsonAnswer, where: string): T {
  if (answer.status >= 400 || answer.json === undefined) {
    throw problemFromAnswer(answer, where);
  }
  return answer.json as T;
}

export abstract class HttpProjectClient implements ProjectClient {
  abstract readonly source: string;
  /** Who answered, for a person: "The service at …", "The Jupyter server at …". */
  protected abstract readonly answerer: string;
  /** The job this terminal runs in (`slurm:1234`), for the service to verify with the scheduler. */
  protected readonly allocation: string | undefined = undefined;

  /**
   * One request of `route` (below the service's `project/`), answered as status and JSON.
   * `promptAnswered`: the initialize request whose prompt a person answered on a TTY.
   */
  protected abstract exchange(
    method: 'GET' | 'POST',
    route: string,
    body?: object,
    promptAnswered?: boolean
  ): Promise<JsonAnswer>;

  /** The error for a 401, where the client knows better than the service what went wrong. */
  protected unauthorized(): ProblemError | undefined {
    return undefined;
  }

  private async expect<T>(
    method: 'GET' | 'POST',
    route: string,
    body?: object,
    promptAnswered?: boolean
  ): Promise<{ status: number; json: T }> {
    const answer = await this.exchange(method, route, body, promptAnswered);
    if (answer.status === 401) {
      const unauthorized = this.unauthorized();
      if (unauthorized) {
        throw unauthorized;
      }
    }
    return {
      status: answer.status,
      json: jsonOrProblem<T>(answer, this.answerer)
    };
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
    const { status, json } = await this.expect<InitializeResult['body']>(
      'POST',
      'initialize',
      this.allocation ? { ...body, allocation: this.allocation } : body,
      promptAnswered
    );
    return { status: status === 201 ? 201 : 200, body: json };
  }
}
