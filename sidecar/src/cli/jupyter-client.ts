// The command line beside JupyterLab: a ProjectClient that reaches the Project Startup service
// jupyter-server-proxy runs behind this terminal's Jupyter server, through Jupyter with its token
// (Jupyter authenticates; the proxy starts the sidecar on the first request). Which server that
// is: ./jupyter-discovery.ts.
import type { ProjectClient } from './project-client';
import { HttpProjectClient, JsonAnswer } from './http-client';
import type { ServiceConfig } from '../config/config';
import {
  chooseJupyter,
  gatherJupyterEvidence,
  JupyterChoice,
  jupyterRequest
} from './jupyter-discovery';
import { Problem, ProblemError } from '../core/problems';
import { isPlatformId, PlatformId } from '../core/vocabulary';
import type { Env } from '../core/env';

/**
 * The service jupyter-server-proxy runs behind the Jupyter server this terminal belongs to,
 * reached through Jupyter (its token; Jupyter authenticates, the proxy starts the sidecar).
 */
class JupyterProxyClient extends HttpProjectClient {
  readonly source: string;
  protected readonly answerer: string;

  constructor(private readonly jupyter: JupyterChoice) {
    super();
    this.source = `answered by the Project Startup service behind the ${jupyter.how}; JupyterLab: ${jupyter.url}lab`;
    this.answerer = `The Jupyter server at ${jupyter.url}`;
  }

  // No prompt key goes through Jupyter: there, confirming is the browser's, not a terminal's.
  protected exchange(
    method: 'GET' | 'POST',
    route: string,
    body?: object
  ): Promise<JsonAnswer> {
    return jupyterRequest(this.jupyter, method, `project/${route}`, body).catch(
      (error: Error) => {
        throw new ProblemError(
          'internal',
          `Could not reach the Jupyter server at ${this.jupyter.url}: ${error.message}.`
        );
      }
    );
  }
}

/**
 * Beside JupyterLab: the Jupyter server this terminal belongs to, if the Project Startup service
 * behind it serves this very project. Anything else (no server, not enabled, another project)
 * is a note, and the command line reads the project itself.
 */
export interface JupyterService {
  client: ProjectClient | undefined;
  notes: string[];
  /** The Jupyter server whose service serves this project, and that service's platform. */
  jupyter?: { url: string; how: string; platform: PlatformId };
}

export async function findJupyterService(
  config: ServiceConfig,
  env: Env
): Promise<JupyterService> {
  const evidence = gatherJupyterEvidence(env);
  const choice = chooseJupyter(evidence, config.projectDir);
  if (!choice) {
    return {
      client: undefined,
      notes: (evidence.refused ?? []).map(
        why =>
          `Not a Jupyter server of yours, so its token was not sent: ${why}.`
      )
    };
  }
  let answer;
  try {
    answer = await jupyterRequest(
      choice,
      'GET',
      'project/startup?interface=terminal'
    );
  } catch (error) {
    return {
      client: undefined,
      notes: [
        `The ${choice.how} at ${choice.url} did not answer (${(error as Error).message}).`
      ]
    };
  }
  if (
    answer.status === 404 &&
    (answer.json as Partial<Problem> | undefined)?.code === undefined
  ) {
    return {
      client: undefined,
      notes: [
        `The Jupyter server at ${choice.url} has no Project Startup service (HTTP 404 for ${choice.url}project/): to enable it, install jupyterlab-project-startup into that Jupyter (pip install jupyterlab-project-startup, or project-startup jupyter install --sys-prefix) and restart it.`
      ]
    };
  }
  if (answer.status !== 200) {
    return {
      client: undefined,
      notes: [
        `The Jupyter server at ${choice.url} refused the command line (HTTP ${answer.status}) for ${choice.url}project/.`
      ]
    };
  }
  const { projectPath, platform } = (answer.json ?? {}) as {
    projectPath?: unknown;
    platform?: unknown;
  };
  if (projectPath !== config.projectDir) {
    return {
      client: undefined,
      notes: [
        `The Project Startup service behind ${choice.url} serves ${String(projectPath)}, not ${config.projectDir}.`
      ]
    };
  }
  return {
    client: new JupyterProxyClient(choice),
    notes: [],
    ...(typeof platform === 'string' && isPlatformId(platform)
      ? { jupyter: { url: choice.url, how: choice.how, platform } }
      : {})
  };
}
