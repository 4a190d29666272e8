// Starts the service: checks the ingress against the platform, listens, verifies its own
// browser URL, and writes the runtime file. Everything that can fail at start fails here,
// with a message that says what to change. startService reads as its steps.
import { randomBytes } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConfigError, ENV, ServiceConfig } from '../config/config';
import type { FileExists } from '../observe/evidence';
import { SingleFlight } from '../observe/probes';
import type { StepHook } from '../observe/state';
import { createLogger, Logger } from '../service/log';
import {
  ensureRuntimeDir,
  removeRuntimeFile,
  runtimeFilePath,
  writeRuntimeFile
} from '../files/runtime-file';
import { StartupService } from '../service/service';
import type { IngressMode } from '../core/vocabulary';
import { createApp } from './app';
import { timeoutOptions } from './connections';
import { createGuard, origin, resolveBindAddress } from './ingress-setup';
import {
  DirectLoopbackGuard,
  IngressGuard,
  SecretMatcher
} from './ingress-guards';
import { answerOutsideTheApp, capConnections } from './server-refusals';
import { allocationRateLimiter, RateLimiter } from './rate-limit';
import type { DirectoryTraversal } from '../observe/state';
import { EarlyListener, listenOnSocketPath } from './listen-first';
import type { UnixListener } from './unix-socket';
import type { Env } from '../core/env';

export interface StartOptions {
  config: ServiceConfig;
  env: Env;
  fileExists?: FileExists;
  logger?: Logger;
  onCreationStep?: StepHook;
  stateTraversal?: DirectoryTraversal;
  /** The socket the bin listened on before the service was loaded (listen-first.ts). */
  listeningFirst?: EarlyListener;
  /** The clock sign-in sessions expire by (Date.now); tests give their own. */
  clock?: () => number;
}

export interface RunningService {
  service: StartupService;
  server: http.Server;
  /** The request listener the server hands every request to, once built (app.ts). */
  app: http.RequestListener;
  ingress: IngressMode;
  /** http://address:port{base}project/ for TCP listeners: the numeric address bound. */
  url?: string;
  socket?: string;
  port?: number;
  token?: string;
  runtimeFile: string;
  close(): Promise<void>;
}

/**
 * The ingress the service runs on. Direct loopback on every platform unless asked otherwise (the
 * manifest's default ingress is the operator's contract; it is not what a plain `serve` on a TCP
 * port may open). One the platform does not offer still answers, read-only: behind a notebook
 * server on a cluster node the panel must be able to say "use the terminal" rather than fail.
 */
function chosenIngress(config: ServiceConfig): IngressMode {
  return config.ingress ?? 'direct-loopback';
}

/**
 * The request listener of a server that listens before its app is built: a request that arrives
 * first waits for the app. Listening first lets the proxy's first readiness check connect
 * (jupyter-server-proxy polls at growing intervals: a refused check costs the next interval,
 * measured 70 ms against 150 ms in bench/README.md) while the app is still being built.
 */
function appWhenReady(): {
  listener: http.RequestListener;
  attach: (app: http.RequestListener) => void;
} {
  let attach: (app: http.RequestListener) => void = () => undefined;
  const ready = new Promise<http.RequestListener>(resolve => {
    attach = resolve;
  });
  let app: http.RequestListener | undefined;
  void ready.then(built => {
    app = built;
  });
  return {
    listener: (request, response) => {
      if (app) {
        app(request, response);
      } else {
        void ready.then(built => built(request, response));
      }
    },
    attach
  };
}

function createHttpServer(
  config: ServiceConfig,
  logger: Logger,
  listener: http.RequestListener
): http.Server {
  // requireHostHeader off: a missing Host is answered by the app's own forbidden-host check.
  const server = http.createServer(
    { ...timeoutOptions(config.requestTimeoutMs), requireHostHeader: false },
    listener
  );
  capConnections(server, config.maxConnections, logger);
  answerOutsideTheApp(server, config.requestTimeoutMs);
  return server;
}

/** Listens on the Unix socket or the TCP address; a TCP port in use is a ConfigError. */
async function listen(
  server: http.Server,
  config: ServiceConfig,
  address: string,
  early: EarlyListener | undefined
): Promise<UnixListener | undefined> {
  if (config.unixSocket !== undefined) {
    return listenOnSocketPath(server, config.unixSocket, early);
  }
  early?.close();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, address, () => {
      server.off('error', reject);
      resolve();
    });
  }).catch((error: NodeJS.ErrnoException) => {
    throw new ConfigError(
      error.code === 'EADDRINUSE'
        ? `Port ${config.port} on ${config.host} is in use; choose another with --port (0 picks a free one).`
        : error.code === 'EADDRNOTAVAIL'
          ? `${config.host} is not an address of this machine.`
          : `Could not listen (${error.code ?? 'error'}).`
    );
  });
  return undefined;
}

/** Where the service listens: its URL and port on TCP (none on a Unix socket), and in words. */
function whereListening(
  server: http.Server,
  config: ServiceConfig,
  guard: IngressGuard
): { url?: string; port?: number; listening: string } {
  if (config.unixSocket !== undefined) {
    return { listening: `Unix socket ${config.unixSocket}` };
  }
  const bound = server.address() as AddressInfo;
  const url = `${origin(bound.address, bound.port)}${config.baseUrl}project/`;
  if (guard instanceof DirectLoopbackGuard) {
    // Cookies ignore ports: naming the cookie after the port keeps two services' sessions apart.
    guard.cookieName = `project-startup-session-${bound.port}`;
  }
  return { url, port: bound.port, listening: new URL(url).host };
}

/** When the slow probes start if no request has come (see warmUpAfterFirstAnswer). */
const WARM_UP_AFTER_MS = 1000;
/** How long after the first answer they start: the proxy's request follows its check at once. */
const WARM_UP_AFTER_FIRST_ANSWER_MS = 50;

/**
 * Starts the service's slow probes (service.warmUp) shortly after the first request has been
 * answered, or a second after start-up if none comes. On a cold start behind
 * jupyter-server-proxy the first request is the proxy's readiness check, and the request it
 * forwards comes a few milliseconds after that answer: the probes' first use of Node's HTTP client
 * (about 5 ms of CPU) would otherwise come before either. A startup request that comes first
 * starts the probes itself and waits for them, as it would for a slow probe.
 */
function warmUpAfterFirstAnswer(
  server: http.Server,
  service: StartupService
): () => void {
  let timer = setTimeout(() => start(), WARM_UP_AFTER_MS);
  timer.unref();
  const cancel = () => {
    clearTimeout(timer);
    server.off('request', onRequest);
  };
  const start = () => {
    cancel();
    service.warmUp();
  };
  const onRequest = (_request: unknown, response: http.ServerResponse) => {
    server.off('request', onRequest);
    response.once('close', () => {
      clearTimeout(timer);
      timer = setTimeout(start, WARM_UP_AFTER_FIRST_ANSWER_MS);
      timer.unref();
    });
  };
  server.on('request', onRequest);
  return cancel;
}

/**
 * Tells the service how it is reached, and where the platform's browser route is direct
 * loopback, checks that its own URL reaches this very process before anyone is sent there.
 */
async function verifyBrowserUrl(
  service: StartupService,
  ingress: { mode: IngressMode; listening: string; offered: boolean },
  url: string | undefined
): Promise<void> {
  const probe =
    url !== undefined &&
    ingress.mode === 'direct-loopback' &&
    service.adapter.browserRoute === 'direct-loopback'
      ? new SingleFlight(30000, () => selfProbe(url, service.instanceId))
      : undefined;
  service.setIngress(ingress, probe);
  if (probe) {
    await probe.get();
  }
}

/** The private runtime file the command line finds this service by; its path. */
function writeRuntime(
  options: StartOptions,
  running: Omit<RunningService, 'runtimeFile' | 'close' | 'server' | 'app'>,
  promptKey: string
): string {
  const { config, env } = options;
  const { service, token, url } = running;
  const file = runtimeFilePath(config.runtimeDir, config.projectDir);
  const fromEnv = Boolean(env[ENV.token]);
  writeRuntimeFile(file, {
    ...(url ? { url } : {}),
    ...(config.unixSocket ? { socket: config.unixSocket } : {}),
    baseUrl: config.baseUrl,
    pid: process.pid,
    instanceId: service.instanceId,
    projectPath: config.projectDir,
    version: service.version,
    ingress: running.ingress,
    platform: service.adapter.id,
    ...(token && !fromEnv ? { token } : {}),
    promptKey,
    tokenSource:
      token === undefined ? 'none' : fromEnv ? 'environment' : 'generated'
  });
  return file;
}

/** The start's log lines: what an operator should know (warnings), then "service started". */
function logStart(
  logger: Logger,
  service: StartupService,
  config: ServiceConfig,
  ingress: { mode: IngressMode; listening: string; offered: boolean }
): void {
  const { adapter, decision } = service;
  if (!ingress.offered) {
    logger.warn(
      'the platform does not offer this ingress; answering read-only',
      {
        platform: adapter.id,
        ingress: ingress.mode,
        offered: adapter.ingressModes
      }
    );
  }
  if (
    ingress.mode === 'notebook-server-proxy' &&
    config.unixSocket === undefined
  ) {
    logger.warn(
      'notebook-server proxy ingress on a TCP port: other local users can reach it; use --unix-socket',
      { listening: ingress.listening }
    );
  }
  if (decision.overruled.length > 0) {
    logger.warn('conflicting platform evidence', {
      platform: decision.platform,
      decidedBy: decision.decidedBy,
      overruled: decision.overruled.map(s => s.name)
    });
  }
  logger.info('service started', {
    version: service.version,
    platform: decision.platform,
    decidedBy: decision.decidedBy,
    ingress: ingress.mode,
    listening: ingress.listening,
    instanceId: service.instanceId
  });
}

/** The service and its app, made once the server listens (so a readiness check waits for them). */
function createServiceAndApp(
  options: StartOptions,
  logger: Logger,
  guard: IngressGuard,
  token: string | undefined,
  promptKey: string
): { service: StartupService; app: http.RequestListener } {
  const { config, env } = options;
  const service = new StartupService({
    config,
    env,
    fileExists: options.fileExists,
    onCreationStep: options.onCreationStep,
    stateTraversal: options.stateTraversal
  });
  const app = createApp({
    service,
    guard,
    logger,
    rateLimiter: new RateLimiter(config.initializeRateLimit),
    claimRateLimiter: allocationRateLimiter(config.allocationRateLimit),
    proofKey: token,
    promptKey: new SecretMatcher(promptKey)
  });
  return { service, app };
}

export async function startService(
  options: StartOptions
): Promise<RunningService> {
  const { config, env } = options;
  const logger = options.logger ?? createLogger(config.logLevel);
  const ingress = chosenIngress(config);
  const address = await resolveBindAddress(config, ingress);
  const { guard, token } = createGuard(ingress, config, env, options.clock);
  // The command line's proof that its confirmation prompt was answered on a TTY: only in the
  // private runtime file, never printed, logged or taken from the environment.
  const promptKey = randomBytes(32).toString('base64url');
  // Listening comes first: the service (platform evidence, the manifest) and the app (the
  // router, the API description, the page's files) are made while a readiness check waits.
  const { listener, attach } = appWhenReady();
  const server = createHttpServer(config, logger, listener);
  // Fail before the service listens; the bin's early socket, if any, goes at exit.
  ensureRuntimeDir(config.runtimeDir);
  const unixListener = await listen(
    server,
    config,
    address,
    options.listeningFirst
  );
  let made: { service: StartupService; app: http.RequestListener };
  try {
    made = createServiceAndApp(options, logger, guard, token, promptKey);
    attach(made.app);
  } catch (error) {
    // A refused setting is answered by the misconfigured listener, which claims the socket:
    // give it up, and drop whatever connected meanwhile (it would wait for an app forever).
    unixListener?.release();
    server.close();
    server.closeAllConnections();
    throw error;
  }
  const { service, app } = made;
  const offered = service.adapter.ingressModes.includes(ingress);
  const { url, port, listening } = whereListening(server, config, guard);
  const reached = { mode: ingress, listening, offered };
  const cancelWarmUp = warmUpAfterFirstAnswer(server, service);
  await verifyBrowserUrl(service, reached, url);
  const running = {
    service,
    ingress,
    url,
    port,
    socket: config.unixSocket,
    token
  };
  const runtimeFile = writeRuntime(options, running, promptKey);
  logStart(logger, service, config, reached);
  return {
    ...running,
    server,
    app,
    runtimeFile,
    close: () =>
      new Promise<void>(resolve => {
        cancelWarmUp();
        removeRuntimeFile(runtimeFile, service.instanceId);
        unixListener?.release();
        server.close(() => resolve());
        server.closeAllConnections();
      })
  };
}

/** The setup page URL, if a request to it reaches this very process (its instance id). */
function selfProbe(
  url: string,
  instanceId: string
): Promise<string | undefined> {
  return new Promise(resolve => {
    const request = http.get(`${url}health`, { timeout: 1000 }, response => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        try {
          const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
            instanceId?: string;
          };
          resolve(body.instanceId === instanceId ? url : undefined);
        } catch {
          resolve(undefined);
        }
      });
    });
    request.on('timeout', () => request.destroy());
    request.on('error', () => resolve(undefined));
  });
}
