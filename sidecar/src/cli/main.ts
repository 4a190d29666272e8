// `project-startup`: serve the service, and the terminal interface to it (status,
// capabilities, init, url). Exit codes are documented in HELP and the README.
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import {
  ConfigError,
  ENV,
  resolveConfig,
  ServeOptions,
  SettingError
} from '../config';
import {
  DIAGNOSTICS_FILE_ENV,
  StderrTail,
  writeDiagnosticsFile
} from '../diagnostics-file';
import type { InstallScope } from './jupyter-install';
import { createLogger } from '../log';
import {
  configurationProblem,
  launchedByNotebookServerProxy,
  MisconfiguredListener,
  misconfiguredProblem,
  serveMisconfigured
} from '../http/misconfigured';
import { InvalidPlatformSetting } from '../core/platforms/rules';
import { asProblemError, ProblemCode, ProblemError } from '../core/problems';
import { startService } from '../http/server';
import { parseInterface } from '../service';
import type { StepHook } from '../observe/state';
import { line, terminalSafe, terminalSafeLines } from '../core/terminal-text';
import { VERSION } from '../version';
import { InterfaceId, labelOf } from '../core/vocabulary';
import { signInLine, urlAnswer } from '../core/sign-in';

// What only some commands need is loaded by those commands, so `serve` starts without it.
const clientModule = () => require('./client') as typeof import('./client');
const formatModule = () => require('./format') as typeof import('./format');
const jupyterInstallModule = () =>
  require('./jupyter-install') as typeof import('./jupyter-install');

export const EXIT = {
  ok: 0,
  failure: 1,
  usage: 2,
  refused: 3,
  declined: 4
} as const;

const HELP: Readonly<Record<string, string>> = {
  main: `Usage: project-startup <command> [options]

Tells what this platform offers each interface and walks a project from first open to set up.

Commands:
  serve          Run the service (direct loopback on 127.0.0.1 by default)
  status         Show the setup phase, next action and readiness checks
  capabilities   Show the platform capability manifest
  init           Show what would be created, ask, then create the project state
  url            Print the setup page address with a one-time login token
  jupyter        install | uninstall the JupyterLab extension and the proxy entry

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
  --project-dir D     Project directory (default $${ENV.projectDir} or the working directory)
  --ingress MODE      direct-loopback | notebook-server-proxy | trusted-proxy
                      (default: direct-loopback, on every platform)
  --base-url PATH     URL prefix, such as Jupyter's /user/alice/ (default /)
  --unix-socket PATH  Listen on a Unix socket instead of TCP
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
  url: `Usage: project-startup url [--project-dir D]

Prints the setup page address of the running service with its one-time login token,
for opening in a browser on this machine. Keep it to yourself. Only where the platform
has a browser route (the workstation or container platform) and the service listens on
loopback TCP; elsewhere it says what to use instead and exits 3.`
};

interface Io {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  stdin: NodeJS.ReadableStream;
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  /** Passed to the service `serve` starts: the crash-safety tests' entry (test/helpers) sets it. */
  onCreationStep?: StepHook;
}

function usage(
  message: string,
  code: ProblemCode = 'invalid-arguments',
  extensions: Record<string, unknown> = {}
): ProblemError & { usage: true } {
  return Object.assign(new ProblemError(code, message, extensions), {
    usage: true as const
  });
}

type OptionSpec = Record<string, { type: 'string' | 'boolean' }>;

function parse(
  args: string[],
  options: OptionSpec
): { values: Record<string, string | boolean | undefined> } {
  try {
    const { values } = parseArgs({
      args,
      options: { help: { type: 'boolean' }, ...options },
      allowPositionals: false,
      strict: true
    });
    return { values: values as Record<string, string | boolean | undefined> };
  } catch (error) {
    throw usage((error as Error).message);
  }
}

const CLIENT_OPTIONS = {
  'project-dir': { type: 'string' },
  json: { type: 'boolean' },
  local: { type: 'boolean' }
} as const;

export async function main(argv: string[], io: Io): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (
      command === undefined ||
      command === '--help' ||
      command === '-h' ||
      command === 'help'
    ) {
      const topic =
        command === 'help' && rest[0] && HELP[rest[0]] ? rest[0] : 'main';
      // Asked for, help is the answer (stdout, 0); without a command it explains a usage error.
      (command === undefined ? io.stderr : io.stdout).write(`${HELP[topic]}\n`);
      return command === undefined ? EXIT.usage : EXIT.ok;
    }
    if (command === '--version' || command === '-V') {
      io.stdout.write(`${VERSION}\n`);
      return EXIT.ok;
    }
    switch (command) {
      case 'serve':
        return await serveReporting(rest, io);
      case 'jupyter':
        return jupyter(rest, io);
      case 'status':
      case 'capabilities':
      case 'init':
      case 'url':
        return await clientCommand(command, rest, io);
      default:
        throw usage(
          command.startsWith('-')
            ? `No command before the option "${command}"; options follow a command, as in \`project-startup status --json\`. Commands: serve, status, capabilities, init, url, jupyter.`
            : `Unknown command "${command}". Commands: serve, status, capabilities, init, url, jupyter.`
        );
    }
  } catch (error) {
    // --json anywhere (`project-startup --json` included): the problem goes to stdout as JSON.
    return report(error, io, argv.includes('--json'));
  }
}

function report(error: unknown, io: Io, json = false): number {
  if ((error as { usage?: boolean }).usage) {
    io.stderr.write(
      `project-startup: ${terminalSafeLines((error as Error).message)}\nRun \`project-startup --help\` for usage.\n`
    );
    if (json) {
      io.stdout.write(
        `${JSON.stringify((error as ProblemError).toProblem(), null, 2)}\n`
      );
    }
    return EXIT.usage;
  }
  if (isConfigurationError(error)) {
    io.stderr.write(`project-startup: ${terminalSafeLines(error.message)}\n`);
    if (json) {
      io.stdout.write(
        `${JSON.stringify(configurationProblem(error.message), null, 2)}\n`
      );
    }
    return EXIT.usage;
  }
  if ((error as { unproven?: boolean }).unproven) {
    // The runtime file's address did not prove itself (client.ts): nothing was sent to it.
    io.stderr.write(
      `project-startup: ${terminalSafeLines((error as Error).message)}\n`
    );
    if (json) {
      // Authentication between the two failed (the service could not prove itself): unauthorized.
      io.stdout.write(
        `${JSON.stringify(new ProblemError('unauthorized', (error as Error).message).toProblem(), null, 2)}\n`
      );
    }
    return EXIT.failure;
  }
  const problem = asProblemError(error);
  io.stderr.write(formatModule().formatProblem(problem.toProblem()));
  if (json) {
    // Scripts read stdout: the same problem details the HTTP side answers.
    io.stdout.write(`${JSON.stringify(problem.toProblem(), null, 2)}\n`);
  }
  return [
    'confirmation-not-allowed',
    'wrong-phase',
    'confirmation-stale',
    'state-unsafe'
  ].includes(problem.code)
    ? EXIT.refused
    : EXIT.failure;
}

/**
 * `serve`, reporting to $PROJECT_STARTUP_DIAGNOSTICS_FILE when it is set (the Python package's
 * proxy entry sets it): "running" once listening, or "failed" with the message printed and the
 * last stderr lines when start-up fails, before exiting.
 */
async function serveReporting(args: string[], io: Io): Promise<number> {
  const file = io.env[DIAGNOSTICS_FILE_ENV];
  if (!file) {
    return serve(args, io);
  }
  const tail = new StderrTail(io.stderr);
  const tracked: Io = {
    stdout: io.stdout,
    stderr: tail.stream,
    get stdin() {
      return io.stdin;
    },
    env: io.env,
    cwd: io.cwd,
    onCreationStep: io.onCreationStep
  };
  // Reports the failure (stderr, once) and records it; the process may stay up (misconfigured).
  const failed = (error: unknown): number => {
    const mark = tail.count;
    const exitCode = report(error, tracked);
    const lastError = tail
      .linesSince(mark)
      .join('\n')
      .replace(/^project-startup: /, '')
      .trim();
    writeDiagnosticsFile(file, {
      state: 'failed',
      at: new Date().toISOString(),
      exitCode,
      lastError,
      logTail: tail.lines()
    });
    return exitCode;
  };
  try {
    return await serve(
      args,
      tracked,
      () =>
        writeDiagnosticsFile(file, {
          state: 'running',
          pid: process.pid,
          at: new Date().toISOString()
        }),
      failed
    );
  } catch (error) {
    return failed(error);
  }
}

/**
 * A refused setting: it stays wrong until the launcher changes it, so under the proxy the
 * service answers `misconfigured` rather than exit. A file-system condition (the runtime
 * directory not private, the project directory's name) is a ConfigError too, but it can be put
 * right while Jupyter runs: the service exits, and the proxy's next launch finds it fixed.
 */
function isSettingError(
  error: unknown
): error is SettingError | InvalidPlatformSetting {
  return (
    error instanceof SettingError || error instanceof InvalidPlatformSetting
  );
}

/** A configuration error: the operator's setting or flag, not a fault of the service. */
function isConfigurationError(
  error: unknown
): error is ConfigError | InvalidPlatformSetting {
  return (
    error instanceof ConfigError || error instanceof InvalidPlatformSetting
  );
}

async function serve(
  args: string[],
  io: Io,
  onListening?: () => void,
  onMisconfigured: (error: unknown) => number = error => report(error, io)
): Promise<number> {
  const { values } = parse(args, {
    host: { type: 'string' },
    port: { type: 'string' },
    'project-dir': { type: 'string' },
    ingress: { type: 'string' },
    'base-url': { type: 'string' },
    'unix-socket': { type: 'string' },
    'allow-unauthenticated-tcp': { type: 'boolean' }
  });
  if (values.help) {
    io.stdout.write(`${HELP.serve}\n`);
    return EXIT.ok;
  }
  const options: ServeOptions = {
    host: values.host as string | undefined,
    port: values.port as string | undefined,
    projectDir: values['project-dir'] as string | undefined,
    ingress: values.ingress as string | undefined,
    baseUrl: values['base-url'] as string | undefined,
    unixSocket: values['unix-socket'] as string | undefined,
    allowUnauthenticatedTcp: values['allow-unauthenticated-tcp'] === true
  };
  try {
    return await serveConfigured(options, io, onListening);
  } catch (error) {
    if (!isSettingError(error) || !launchedByNotebookServerProxy(options)) {
      throw error;
    }
    return serveMisconfiguredUntilStopped(
      options,
      io,
      error,
      onMisconfigured(error)
    );
  }
}

/**
 * Launched by jupyter-server-proxy (its flags), a refused setting must not end the process:
 * the proxy would relaunch it at once, again and again until its timeout, and then answer a bare
 * 500. It is reported once (stderr, the diagnostics file) and every request gets the
 * `misconfigured` problem until the Jupyter server stops it. When not even its socket can be
 * listened on, it exits with that error as well (exit code of the configuration error).
 */
async function serveMisconfiguredUntilStopped(
  options: ServeOptions,
  io: Io,
  error: ConfigError | InvalidPlatformSetting,
  exitCode: number
): Promise<number> {
  let listener: MisconfiguredListener;
  try {
    listener = await serveMisconfigured(
      options.unixSocket as string,
      io.cwd,
      misconfiguredProblem(error.message)
    );
  } catch (listenError) {
    report(listenError, io);
    return exitCode;
  }
  const logger = createLogger('info', line => io.stderr.write(line));
  logger.error(
    'not started: a configuration error (above); every request is answered 503 misconfigured until it is fixed and the Jupyter server restarted',
    { listening: `Unix socket ${listener.socket}` }
  );
  return new Promise<number>(resolve => {
    const stop = (signal: string) => {
      logger.info('stopping', { signal });
      void listener.close().then(() => resolve(EXIT.ok));
    };
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
  });
}

async function serveConfigured(
  options: ServeOptions,
  io: Io,
  onListening?: () => void
): Promise<number> {
  const config = resolveConfig(options, io.env, io.cwd);
  const logger = createLogger(config.logLevel, line => io.stderr.write(line));
  // Signals are caught from here on: one that arrives while the service is still starting stops
  // it as soon as it is up (and cleans up its runtime file), rather than killing it half-made.
  let stopRequested: string | undefined;
  let stop = (signal: string) => {
    stopRequested ??= signal;
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
  const running = await startService({
    config,
    env: io.env,
    logger,
    onCreationStep: io.onCreationStep
  });
  const { service } = running;
  // Listening now; reported before the address is printed, so whoever reads it finds the report.
  onListening?.();
  io.stdout.write(
    [
      `Project startup ${service.version}: ${labelOf(service.adapter.id)} (${service.adapter.id}), ${labelOf(running.ingress).toLowerCase()} ingress`,
      line`Project: ${config.projectDir}`,
      line`Listening: ${running.url ?? `unix socket ${running.socket}`}`,
      // The runtime file's path is escaped like every other value from the file system.
      line`${signInLine(
        {
          platform: service.adapter.id,
          ingress: running.ingress,
          url: running.url,
          socket: running.socket
        },
        // A token from the environment is never copied into the runtime file.
        io.env[ENV.token] ? ENV.token : `${running.runtimeFile}`
      )}`,
      ''
    ].join('\n')
  );

  return new Promise<number>(resolve => {
    stop = (signal: string) => {
      logger.info('stopping', { signal });
      void running.close().then(() => resolve(EXIT.ok));
    };
    if (stopRequested !== undefined) {
      stop(stopRequested);
    }
  });
}

async function clientCommand(
  command: 'status' | 'capabilities' | 'init' | 'url',
  args: string[],
  io: Io
): Promise<number> {
  const { values } = parse(
    args,
    command === 'url'
      ? { 'project-dir': { type: 'string' } }
      : {
          ...CLIENT_OPTIONS,
          ...(command === 'status' ? { interface: { type: 'string' } } : {})
        }
  );
  if (values.help) {
    io.stdout.write(`${HELP[command]}\n`);
    return EXIT.ok;
  }
  const config = resolveConfig(
    { projectDir: values['project-dir'] as string | undefined },
    io.env,
    io.cwd
  );
  if (command === 'url') {
    return await printUrl(config, io);
  }
  const { client, notes } = await connectClient(
    config,
    io.env,
    Boolean(values.local)
  );
  for (const note of notes) {
    io.stderr.write(`project-startup: ${terminalSafeLines(note)}\n`);
  }
  const json = Boolean(values.json);
  switch (command) {
    case 'capabilities': {
      const manifest = await client.capabilities();
      io.stdout.write(
        json
          ? `${JSON.stringify(manifest, null, 2)}\n`
          : formatModule().formatManifest(manifest)
      );
      return EXIT.ok;
    }
    case 'status': {
      const projection = await client.startup(
        interfaceOption(values.interface)
      );
      io.stdout.write(
        json
          ? `${JSON.stringify(projection, null, 2)}\n`
          : formatModule().formatProjection(projection, client.source)
      );
      // Scripts can branch on it: setup cannot go on in these phases until something changes.
      return projection.phase === 'blocked' ||
        projection.phase === 'unsupported-interface'
        ? EXIT.refused
        : EXIT.ok;
    }
    case 'init':
      return init(client, json, io);
  }
}

function connectClient(
  ...args: Parameters<typeof import('./client').connect>
): ReturnType<typeof import('./client').connect> {
  return clientModule().connect(...args);
}

function jupyter(args: string[], io: Io): number {
  const [action, ...rest] = args;
  if (action === undefined || action === '--help' || action === '-h') {
    // Without an action it is a usage error: help on stderr, as for a bare project-startup.
    (action === undefined ? io.stderr : io.stdout).write(`${HELP.jupyter}\n`);
    return action === undefined ? EXIT.usage : EXIT.ok;
  }
  if (action !== 'install' && action !== 'uninstall') {
    throw usage(
      `Unknown jupyter action "${action}"; use install or uninstall.`
    );
  }
  const { values } = parse(rest, {
    user: { type: 'boolean' },
    'sys-prefix': { type: 'boolean' },
    prefix: { type: 'string' },
    ...(action === 'install' ? { 'skip-proxy-check': { type: 'boolean' } } : {})
  } as OptionSpec);
  if (values.help) {
    io.stdout.write(`${HELP.jupyter}\n`);
    return EXIT.ok;
  }
  const chosen = [
    values.user,
    values['sys-prefix'],
    values.prefix !== undefined
  ].filter(Boolean).length;
  if (chosen > 1) {
    throw usage('Choose one of --user, --sys-prefix and --prefix.');
  }
  const scope: InstallScope = values['sys-prefix']
    ? { kind: 'sys-prefix' }
    : values.prefix !== undefined
      ? {
          kind: 'prefix',
          prefix: path.resolve(io.cwd, values.prefix as string)
        }
      : { kind: 'user' };
  if (action === 'uninstall') {
    const report = jupyterInstallModule().uninstallJupyter(scope, io.env);
    const lines: string[] = [];
    if (report.removed.length > 0) {
      lines.push('Removed:', ...report.removed.map(p => `  ${p}`));
    }
    if (report.kept.length > 0) {
      // Only what the install manifest lists, unchanged, is removed: the rest is the operator's call.
      lines.push(
        'Left in place (uninstall removes only what the install wrote, unchanged):',
        ...report.kept.map(k => `  ${k.path}: ${k.reason}`)
      );
    }
    lines.push(
      report.removed.length > 0
        ? 'Restart the Jupyter server to unload them.'
        : report.kept.length > 0
          ? 'Nothing was removed.'
          : `Nothing of ${jupyterInstallModule().PACKAGE_NAME} is installed under ${report.paths.data} or ${report.paths.config}.`
    );
    io.stdout.write(`${lines.join('\n')}\n`);
    return EXIT.ok;
  }
  const report = jupyterInstallModule().installJupyter(scope, io.env, {
    skipProxyCheck: values['skip-proxy-check'] === true
  });
  io.stdout.write(
    [
      `Installed the JupyterLab extension: ${report.labextension}`,
      `Installed the sidecar the proxy runs: ${report.sidecar}`,
      'Wrote the notebook-server proxy entry "project":',
      `  ${report.configFiles[0]} (jupyter_server 2.x)`,
      `  ${report.configFiles[1]} (jupyter_server 1.x)`,
      'What remains:',
      ...report.remaining.map(line => `  - ${line}`),
      ''
    ].join('\n')
  );
  return EXIT.ok;
}

function interfaceOption(value: string | boolean | undefined): InterfaceId {
  try {
    return parseInterface(value ?? 'terminal');
  } catch (error) {
    // The same problem as the HTTP routes' for the same name (unknown-interface, missing-interface).
    const problem = asProblemError(error);
    throw usage(
      `--interface: ${problem.message}`,
      problem.code,
      problem.extensions
    );
  }
}

async function printUrl(
  config: ReturnType<typeof resolveConfig>,
  io: Io
): Promise<number> {
  // The token goes into an address a person opens: only for a service that proved it holds it.
  const { service, notes } = await clientModule().findRunningService(
    config,
    io.env
  );
  for (const note of notes) {
    io.stderr.write(`project-startup: ${terminalSafeLines(note)}\n`);
  }
  // Only where a browser can use it: the platform's browser route, loopback TCP (sign-in.ts).
  const answer = urlAnswer({
    info: service?.info,
    envToken: io.env[ENV.token]
  });
  if (!answer.ok) {
    io.stderr.write(`project-startup: ${terminalSafeLines(answer.message)}\n`);
    return answer.exit;
  }
  io.stdout.write(`${terminalSafe(answer.url)}\n`);
  return EXIT.ok;
}

async function init(
  client: import('./client').ProjectClient,
  json: boolean,
  io: Io
): Promise<number> {
  const projection = await client.startup('terminal');
  const say = (text: string) => (json ? io.stderr : io.stdout).write(text);
  // Already set up is success on every platform, wherever the confirmation happened (as POST
  // initialize answers 200 with the record): nothing to confirm, so nothing to refuse.
  if (projection.phase === 'ready') {
    say(
      `${line`Already set up: ${projection.statePath} holds this project's state. Nothing to do.`}\n`
    );
    if (json) {
      // The shape of POST initialize's 200: the record, created false.
      const answer = {
        schemaVersion: projection.schemaVersion,
        created: false,
        record: projection.confirmation.record,
        phase: projection.phase,
        nextAction: projection.nextAction
      };
      io.stdout.write(`${JSON.stringify(answer, null, 2)}\n`);
    }
    return EXIT.ok;
  }
  if (!projection.confirmation.allowedInterfaces.includes('terminal')) {
    throw new ProblemError(
      'confirmation-not-allowed',
      `On the ${labelOf(projection.platform)} the project state is created after a confirmation in ${projection.confirmation.allowedInterfaces
        .map(labelOf)
        .join(
          ' or '
        )}, not at a terminal prompt. ${projection.nextAction.detail}`,
      { allowedInterfaces: projection.confirmation.allowedInterfaces }
    );
  }
  if (projection.phase !== 'awaiting-confirmation') {
    const command = projection.nextAction.command
      ? ` Run \`${projection.nextAction.command}\`.`
      : '';
    throw new ProblemError(
      'wrong-phase',
      `Setup is in phase ${projection.phase}; initialization comes later. Next: ${projection.nextAction.title}. ${projection.nextAction.detail}${
        projection.nextAction.detail.includes(
          projection.nextAction.command ?? '\0'
        )
          ? ''
          : command
      }`,
      { phase: projection.phase, nextAction: projection.nextAction }
    );
  }
  const readOnly = projection.readinessChecks.find(
    c => c.id === 'gateway-ingress' && c.status === 'warn'
  );
  if (readOnly) {
    // A service on an ingress the platform does not offer changes nothing: say what works.
    throw new ProblemError(
      'confirmation-not-allowed',
      `${readOnly.observed}. Run \`project-startup init --local\` (this command line checks and creates the state itself), or serve with \`--ingress direct-loopback\`.`,
      { allowedInterfaces: projection.confirmation.allowedInterfaces }
    );
  }
  if (!(io.stdin as NodeJS.ReadStream).isTTY) {
    // An explicit confirmation is a person at a terminal: `echo y |` answers nobody's question.
    throw new ProblemError(
      'confirmation-not-allowed',
      'init asks a person and needs an interactive terminal: its input is not a TTY (a pipe or a file). Run `project-startup init` in a terminal and answer the question there.',
      { allowedInterfaces: projection.confirmation.allowedInterfaces }
    );
  }
  say(
    [
      line`Project:  ${projection.projectPath}`,
      line`Platform: ${labelOf(projection.platform)}`,
      'This will create, readable only by you:',
      ...projection.confirmation.creates.map(
        (p: string) => line`  ${p}/ (directory, mode 0700)`
      ),
      line`  ${projection.statePath}/initialization.json (mode 0600: what you confirmed, when, and how; no credentials)`,
      ''
    ].join('\n')
  );
  const answer = await ask('Create the private project state? [y/N] ', io);
  if (answer === undefined || !/^(y|yes)$/i.test(answer.trim())) {
    say(
      answer === undefined
        ? '\nNo answer; nothing was created.\n'
        : 'Declined; nothing was created.\n'
    );
    if (json) {
      io.stdout.write(
        `${JSON.stringify({ created: false, declined: true, phase: projection.phase }, null, 2)}\n`
      );
    }
    return EXIT.declined;
  }
  const result = await client.initialize(
    {
      interface: 'terminal',
      confirm: {
        projectPath: projection.projectPath,
        statePath: projection.statePath
      }
    },
    true
  );
  if (json) {
    io.stdout.write(`${JSON.stringify(result.body, null, 2)}\n`);
  } else {
    io.stdout.write(
      `${line`${result.body.created ? 'Created' : 'Already present'}: ${result.body.record.statePath} (phase ${result.body.phase}).`}\n`
    );
  }
  return EXIT.ok;
}

/** One line from the person; undefined at end of input. The question goes to stderr. */
function ask(question: string, io: Io): Promise<string | undefined> {
  return new Promise(resolve => {
    const rl = (
      require('node:readline') as typeof import('node:readline')
    ).createInterface({ input: io.stdin, output: io.stderr, terminal: false });
    let answered = false;
    io.stderr.write(question);
    rl.once('line', line => {
      answered = true;
      rl.close();
      resolve(line);
    });
    rl.once('close', () => {
      if (!answered) {
        resolve(undefined);
      }
    });
  });
}
