// `project-startup`: serve the service, and the terminal interface to it (status,
// capabilities, init, url). Exit codes are documented in HELP and the README.
import {
  ConfigError,
  ENV,
  resolveConfig,
  ServeOptions,
  ServiceConfig,
  SettingError,
  SiteConfigError
} from '../config/config';
import {
  DIAGNOSTICS_FILE_ENV,
  StderrTail,
  writeDiagnosticsFile
} from '../files/diagnostics-file';
import { createLogger, jupyterLine } from '../service/log';
import {
  configurationProblem,
  launchedByNotebookServerProxy,
  MisconfiguredListener,
  misconfiguredProblem,
  serveMisconfigured
} from '../http/misconfigured';
import { InvalidPlatformSetting } from '../core/platforms/rules';
import { asProblemError, ProblemError } from '../core/problems';
import { RunningService, startService } from '../http/server';
import { parseInterface } from '../core/requests';
import { line, terminalSafe, terminalSafeLines } from '../core/terminal-text';
import { SERVE_OPTIONS } from '../config/serve-options';
import { VERSION } from '../service/version';
import { InterfaceId, labelOf } from '../core/vocabulary';
import { signInLine, urlAnswer } from '../core/sign-in';
import { init } from './init-command';
import { configCommand } from './config-command';
import { jupyter } from './jupyter-command';
import { EXIT, HELP, Io, parse, usage } from './usage';

export { EXIT };

// What only some commands need is loaded by those commands, so `serve` starts without it.
const clientModule = () => require('./client') as typeof import('./client');
const formatModule = () => require('./format') as typeof import('./format');

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
      case 'config':
        return configCommand(rest, io);
      case 'status':
      case 'capabilities':
      case 'init':
      case 'url':
        return await clientCommand(command, rest, io);
      default:
        throw usage(
          command.startsWith('-')
            ? `No command before the option "${command}"; options follow a command, as in \`project-startup status --json\`. Commands: serve, status, capabilities, init, url, jupyter, config.`
            : `Unknown command "${command}". Commands: serve, status, capabilities, init, url, jupyter, config.`
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
    onCreationStep: io.onCreationStep,
    listeningFirst: io.listeningFirst
  };
  // Reports the failure (stderr, once) and records it; the process may stay up (misconfigured).
  const failed = (error: unknown, socket?: string): number => {
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
      logTail: tail.lines(),
      ...(socket === undefined ? {} : { socket, pid: process.pid })
    });
    return exitCode;
  };
  try {
    return await serve(
      args,
      tracked,
      (config, socket) =>
        writeDiagnosticsFile(file, {
          state: 'running',
          pid: process.pid,
          at: new Date().toISOString(),
          siteConfig: {
            file: config.siteConfigFile ?? null,
            looked: [...(config.siteConfigLooked ?? [])]
          },
          ...(socket === undefined ? {} : { socket })
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
  onListening?: (config: ServiceConfig, socket?: string) => void,
  onMisconfigured: (error: unknown, socket?: string) => number = error =>
    report(error, io)
): Promise<number> {
  const { values } = parse(args, SERVE_OPTIONS);
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
    allowUnauthenticatedTcp: values['allow-unauthenticated-tcp'] === true,
    config: values.config as string | undefined
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
      // The misconfigured listener answers on the proxy's socket from here on.
      onMisconfigured(error, options.unixSocket)
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
      misconfiguredProblem(
        error.message,
        error instanceof SiteConfigError ? error.problems : []
      ),
      io.listeningFirst
    );
  } catch (listenError) {
    report(listenError, io);
    return exitCode;
  }
  const logger = createLogger('info', line => io.stderr.write(line), 'jupyter');
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

/**
 * What `serve` prints when it listens: the service, the project, the address and how to sign in;
 * inside a Jupyter server, each as a line of the server's log.
 */
function printBanner(
  config: ServiceConfig,
  running: RunningService,
  io: Io,
  insideJupyter: boolean
): void {
  const { service } = running;
  const lines = [
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
    )}`
  ];
  io.stdout.write(
    insideJupyter
      ? lines.map(text => jupyterLine('info', text, undefined)).join('')
      : `${lines.join('\n')}\n`
  );
}

async function serveConfigured(
  options: ServeOptions,
  io: Io,
  onListening?: (config: ServiceConfig, socket?: string) => void
): Promise<number> {
  const config = resolveConfig(options, io.env, io.cwd);
  // Inside a Jupyter server its lines sit in the server's log, so they read as the server's do.
  const insideJupyter = launchedByNotebookServerProxy(options);
  const logger = createLogger(
    config.logLevel,
    line => io.stderr.write(line),
    insideJupyter ? 'jupyter' : 'json'
  );
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
    onCreationStep: io.onCreationStep,
    listeningFirst: io.listeningFirst
  });
  // Listening now; reported before the address is printed, so whoever reads it finds the report.
  onListening?.(config, running.socket);
  printBanner(config, running, io, insideJupyter);

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
    Boolean(values.local),
    io.onCreationStep
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
  // Beside JupyterLab the setup page is the one behind that Jupyter server, which signs the person in.
  const lookup = await clientModule().lookUpProject(config, io.env);
  const answer = urlAnswer({
    info: lookup.service?.info ?? lookup.proxied,
    envToken: io.env[ENV.token],
    jupyter: lookup.beside?.jupyter
  });
  for (const note of lookup.notes) {
    io.stderr.write(`project-startup: ${terminalSafeLines(note)}\n`);
  }
  if (!answer.ok) {
    io.stderr.write(`project-startup: ${terminalSafeLines(answer.message)}\n`);
    return answer.exit;
  }
  io.stdout.write(`${terminalSafe(answer.url)}\n`);
  return EXIT.ok;
}
