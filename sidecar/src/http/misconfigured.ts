// A configuration error of a sidecar launched by jupyter-server-proxy. The proxy restarts a
// backend that exits non-zero at once, without back-off, until its start timeout (20 s for the
// Python package's entry): exiting would mean dozens of launches per request and, for the
// person, the proxy's bare 500 after the timeout. Launched with the proxy's flags, the sidecar
// instead stays on its socket and answers every request (health included) with the
// `misconfigured` problem: the setting, what is wrong, and the fix, at once.
import * as http from 'node:http';
import * as path from 'node:path';
import type { ServeOptions } from '../config/config';
import { Problem, problemOf } from '../core/problems';
import type { SiteProblem } from '../core/site-config-rules';
import { sendProblem } from './respond';
import { EarlyListener, listenOnSocketPath } from './listen-first';

/**
 * Whether `serve` runs as jupyter-server-proxy's backend: the proxy entry's command line (the
 * Python package's and `jupyter install`'s) passes `--ingress notebook-server-proxy` and
 * `--unix-socket {unix_socket}`. Decided by those flags alone, never guessed from the environment.
 */
export function launchedByNotebookServerProxy(options: ServeOptions): boolean {
  return (
    options.ingress === 'notebook-server-proxy' &&
    options.unixSocket !== undefined &&
    options.unixSocket !== ''
  );
}

/**
 * The setting a configuration message names: its first PROJECT_STARTUP_* variable (what an
 * operator sets; the proxy entry fixes the flags), else its first flag.
 */
export function settingNamed(message: string): string | undefined {
  return (
    /\bPROJECT_STARTUP_[A-Z0-9_]+/.exec(message)?.[0] ??
    /(?<![\w-])--[a-z][a-z-]*/.exec(message)?.[0]
  );
}

/**
 * A setting the command line or the service refuses, as a problem: `misconfigured`, naming the
 * setting, on every interface (the command line's --json prints it too).
 */
export function configurationProblem(message: string): Problem {
  const setting = settingNamed(message);
  return problemOf(
    'misconfigured',
    message,
    setting === undefined ? {} : { setting }
  );
}

/**
 * The problem every request gets while the configuration is bad. The detail is the
 * configuration message itself (written by config.ts and friends, which never echo a value they
 * refused); the fix says where an operator changes it.
 */
export function misconfiguredProblem(
  message: string,
  site: readonly SiteProblem[] = []
): Problem {
  if (site.length > 0) {
    // The site configuration file: its path, the first problem's line and key, and its fix.
    const [first] = site;
    return problemOf('misconfigured', message, {
      setting: first.key === '' ? first.file : first.key,
      file: first.file,
      ...(first.line === undefined ? {} : { line: first.line }),
      fix: `${first.fix} Then restart the Jupyter server (\`project-startup config check\` lists every problem).`
    });
  }
  const setting = settingNamed(message);
  const fix =
    setting === undefined
      ? "Correct what the detail names in the Jupyter server's environment or in the `project` proxy entry, then restart the Jupyter server."
      : setting.startsWith('--')
        ? `Correct ${setting} in the \`project\` proxy entry's command (\`project-startup jupyter install\` writes a working one), then restart the Jupyter server.`
        : `Correct or unset ${setting} in the Jupyter server's environment (for example the single-user image, or the hub's Spawner.environment or extraEnv), then restart the Jupyter server.`;
  return problemOf('misconfigured', message, {
    ...(setting === undefined ? {} : { setting }),
    fix
  });
}

export interface MisconfiguredListener {
  /** The socket's path, as listened on. */
  socket: string;
  close(): Promise<void>;
}

/**
 * Listens on the Unix socket and answers every request with `problem`. Throws a ConfigError
 * when it cannot listen there (the socket path itself is bad): then nothing can answer.
 */
export async function serveMisconfigured(
  unixSocket: string,
  cwd: string,
  problem: Problem,
  early?: EarlyListener
): Promise<MisconfiguredListener> {
  const server = http.createServer(
    { requireHostHeader: false },
    (request, response) => {
      // Answered once the request body (discarded) has arrived: answering before would let
      // Node close the connection while the proxy is still writing the body (a POST through
      // jupyter-server-proxy then fails with a broken pipe and the proxy's bare 500).
      request.resume();
      request.once('end', () => sendProblem(response, problem));
    }
  );
  const socket = path.resolve(cwd, unixSocket);
  const listener = await listenOnSocketPath(server, socket, early);
  return {
    socket,
    close: () =>
      new Promise<void>(resolve => {
        listener.release();
        server.close(() => resolve());
        server.closeAllConnections();
      })
  };
}
