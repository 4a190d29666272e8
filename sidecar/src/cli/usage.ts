// The command line's usage: exit codes, help texts and option parsing, shared by its commands.
import { OptionSpec, parseFlags } from '../config/flags';
import { ENV } from '../config/config';
import { ProblemCode, ProblemError } from '../core/problems';
import type { StepHook } from '../observe/state';
import type { EarlyListener } from '../http/listen-first';
import type { Env } from '../core/env';

export const EXIT = {
  ok: 0,
  failure: 1,
  usage: 2,
  refused: 3,
  declined: 4
} as const;

export const HELP: Readonly<Record<string, string>> = {
  main: `Usage: project-startup <command> [options]

Tells what this platform offers each interface and walks a project from first open to set up.

Commands:
  serve          Run the service (direct loopback on 127.0.0.1 by default)
  status         Show the setup phase, next action and readiness checks
  capabilities   Show the platform capability manifest
  init           Show what would be created, ask, then create the project state
  url            Print the setup page address with a one-time login token
  jupyter        install | uninstall the JupyterLab extension and the proxy entry
  config         check: validate the site configuration, show each value's origin

Run \`project-startup <command> --help\` for a command's options.
Global: --help, --version

Exit codes: 0 done; 1 the service failed; 2 wrong usage or configuration;
3 refused (not allowed here, or setup not at that step); 4 declined at the prompt.
status: 0 when setup can go on (phase ready, awaiting-confirmation or needs-compute),
3 when it cannot (blocked, or the interface is not offered here).
With --json, errors are problem details (JSON) on stdout.`,
  serve: `Usage: project-startup serve [options]

Runs the service until interrupted. It selects the platform from the environment,
listens, and writes a private runtime file that the other commands read.

Options:
  --host H            Address to bind (default 127.0.0.1; non-loopback only with
                      --ingress trusted-proxy). A name is resolved once and only its
                      first address is bound; addresses printed are that address.
  --port N            TCP port (default 0: any free port)
  --project-dir D     Project directory (default $${ENV.projectDir}; else, as git
                      finds a repository, the nearest initialized project at or
                      above the working directory, else that directory; behind a
                      proxy, always the working directory)
  --ingress MODE      direct-loopback | notebook-server-proxy | trusted-proxy
                      (default: direct-loopback, on every platform)
  --base-url PATH     URL prefix, such as Jupyter's /user/alice/ (default /)
  --unix-socket PATH  Listen on a Unix socket instead of TCP
  --config PATH       The site configuration file (default $${ENV.config}, else
                      project-startup.json in Jupyter's config directories)
  --allow-unauthenticated-tcp
                      Allow --ingress notebook-server-proxy on a TCP port, where it
                      checks no credentials and every local user can call it
                      (otherwise it needs --unix-socket; exit 2)

The token comes from $${ENV.token} or is generated; it is never printed or logged.

A bad option or PROJECT_STARTUP_* setting exits 2 with what to fix. Launched as
jupyter-server-proxy launches it (--ingress notebook-server-proxy --unix-socket PATH),
it stays up instead (the proxy would relaunch it at once, again and again) and
answers every request with 503 problem "misconfigured" naming the setting and the fix.`,
  status: `Usage: project-startup status [--interface terminal|web|notebook] [--json] [--project-dir D] [--local]

Shows the platform, setup phase, next action and readiness checks. Reads nothing
into state and changes nothing. Uses the running service for this project when
there is one (--local: evaluate in this process instead). On a cluster, the
allocation this terminal runs in (SLURM_JOB_ID, PBS_JOBID, LSB_JOBID, FLUX_JOB_ID)
is sent to the service, which asks the scheduler whether it is live and yours.
Without --project-dir or $${ENV.projectDir}, the project is the nearest directory at or
above the working directory that holds its initialized state (as git finds a
repository), up to the home directory; else the working directory.
Exit: 0 when setup can go on (ready, awaiting-confirmation, needs-compute);
3 when it cannot (blocked, unsupported-interface).`,
  capabilities: `Usage: project-startup capabilities [--json] [--project-dir D] [--local]

Shows the capability manifest of the selected platform.`,
  init: `Usage: project-startup init [--project-dir D] [--json] [--local]

Shows the project and state paths that would be created and asks for confirmation
at the prompt, which must be answered in a terminal (its input a TTY, not a pipe).
Only where the platform offers no browser interface (the cluster platform) is a
terminal confirmation accepted; elsewhere it says where to confirm.`,
  jupyter: `Usage: project-startup jupyter install|uninstall [--user | --sys-prefix | --prefix P] [--skip-proxy-check]

install: copies the prebuilt JupyterLab extension and a runnable copy of this sidecar into
Jupyter's data directory, and writes the jupyter-server-proxy entry \`project\` (that copy on a
private Unix socket, under Jupyter's base URL) into Jupyter's config directory, for
jupyter_server 1.x and 2.x. Nothing written points back into this package, so it may move or go.
It refuses, changing nothing, when it cannot write there, or when the Jupyter's Python has no
jupyter-server-proxy >=4.1 (--skip-proxy-check installs anyway). Then says what remains.
uninstall: removes exactly what install wrote; with nothing installed it says so.

Jupyter's directories are asked from the Python that runs Jupyter: $PROJECT_STARTUP_PYTHON, else
the interpreter of \`jupyter\` on PATH; without one, jupyter_core's rules are followed
($JUPYTER_DATA_DIR, $JUPYTER_CONFIG_DIR, $JUPYTER_PLATFORM_DIRS, ~/Library/Jupyter on macOS).

  --user        the user's directories (~/.local/share/jupyter and ~/.jupyter on Linux); default
  --sys-prefix  the sys.prefix directories of the Python that runs Jupyter (share/jupyter, etc/jupyter)
  --prefix P    P/share/jupyter and P/etc/jupyter
  --skip-proxy-check  install even when that Python lacks jupyter-server-proxy >=4.1`,
  config: `Usage: project-startup config check [--json] [--config PATH]

Checks the site configuration file: --config PATH, else $${ENV.config}, else the first
project-startup.json in Jupyter's config directories (user, environment, system; see
docs/site-configuration.md). Names every problem with its file, line, key and fix; then
prints each value of the effective configuration with its origin (flag, environment
variable, file, default; secrets only as set or unset) and the manifest that would result.
Exit: 0 when clean, 2 on any problem.`,
  url: `Usage: project-startup url [--project-dir D]

Prints the setup page address of the running service with its one-time login token,
for opening in a browser on this machine. Keep it to yourself. Only where the platform
offers the web interface (the workstation or container platform) and the service listens on
loopback TCP. Beside JupyterLab (the Jupyter server's Project Startup service serves this
project) it prints the setup page's address through that Jupyter server, without a token:
the browser signed in to Jupyter opens it. Elsewhere it says what to use instead and exits 3.`
};

export function usage(
  message: string,
  code: ProblemCode = 'invalid-arguments',
  extensions: Record<string, unknown> = {}
): ProblemError & { usage: true } {
  return Object.assign(new ProblemError(code, message, extensions), {
    usage: true as const
  });
}

export type { OptionSpec };

export function parse(
  args: string[],
  options: OptionSpec
): { values: Record<string, string | boolean | undefined> } {
  try {
    return { values: parseFlags(args, options) };
  } catch (error) {
    throw usage((error as Error).message);
  }
}

export interface Io {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  stdin: NodeJS.ReadableStream;
  env: Env;
  cwd: string;
  /** Passed to the service `serve` starts: the crash-safety tests' entry (test/helpers) sets it. */
  onCreationStep?: StepHook;
  /** `serve`'s socket, listened on by the bin before the service was loaded (listen-first.ts). */
  listeningFirst?: EarlyListener;
}
