// Starts the service: checks the ingress against the platform, listens, verifies its own
// browser URL, and writes the runtime file. Everything that can fail at start fails here,
// with a message that says what to change.
import { randomBytes } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import * as fs from 'node:fs';
import * as http from 'node:http';
import { AddressInfo, isIP } from 'node:net';
import type { Duplex } from 'node:stream';
import {
  checkServiceToken,
  ConfigError,
  ENV,
  isPatternSecret,
  SECRET_MIN_DISTINCT_CHARACTERS,
  ServiceConfig
} from '../config';
import type { FileExists } from '../observe/evidence';
import { createApp, URL_LIMIT } from './app';
import {
  defaultMaxConnections,
  limitConnections,
  readDescriptorLimit,
  timeoutOptions
} from './connections';
import {
  DirectLoopbackGuard,
  hostnameOf,
  IngressGuard,
  isLoopbackHostname,
  NotebookServerProxyGuard,
  SecretMatcher,
  TrustedProxyGuard
} from './ingress';
import { allocationRateLimiter, RateLimiter } from './rate-limit';
import { SessionStore } from './sessions';
import { createLogger, Logger } from '../log';
import { problemOf } from '../core/problems';
import { SingleFlight } from '../observe/probes';
import {
  ensureRuntimeDir,
  removeRuntimeFile,
  runtimeFilePath,
  writeRuntimeFile
} from '../runtime-file';
import { StartupService } from '../service';
import type { DirectoryTraversal, StepHook } from '../observe/state';
import {
  claimSocketPath,
  listenOnUnixSocket,
  UnixListener
} from './unix-socket';
import type { IngressMode } from '../core/vocabulary';

export interface StartOptions {
  config: ServiceConfig;
  env: Readonly<Record<string, string | undefined>>;
  fileExists?: FileExists;
  logger?: Logger;
  onCreationStep?: StepHook;
  stateTraversal?: DirectoryTraversal;
  /** Write the runtime file for the command line (default true). */
  runtimeFile?: boolean;
}

export interface RunningService {
  service: StartupService;
  server: http.Server;
  ingress: IngressMode;
  /** http://address:port{base}project/ for TCP listeners: the numeric address bound. */
  url?: string;
  socket?: string;
  port?: number;
  token?: string;
  runtimeFile?: string;
  close(): Promise<void>;
}

/** Whether --host names loopback (localhost, 127.0.0.0/8, ::1), before any lookup. */
function isLoopback(host: string): boolean {
  return isLoopbackHostname(
    host.includes(':') && !host.startsWith('[') ? host : hostnameOf(host)
  );
}

/**
 * The one address to bind for --host: an IP address as given; a name resolved once, to the
 * first address the system gives. Only that address is bound and written into every URL: a
 * name such as localhost may also stand for addresses the service does not hold (::1 beside
 * 127.0.0.1), and browsers try those first, so a URL naming it could reach whoever listens there.
 */
async function bindAddress(host: string): Promise<string> {
  const bare = host.startsWith('[') ? hostnameOf(host).slice(1, -1) : host;
  if (isIP(bare) !== 0) {
    return bare;
  }
  try {
    return (await lookup(bare)).address;
  } catch {
    throw new ConfigError(
      `--host ${host} does not resolve to an address; give an address such as 127.0.0.1.`
    );
  }
}

/** http://address:port: an IPv6 address in brackets. */
function origin(address: string, port: number): string {
  return `http://${address.includes(':') ? `[${address}]` : address}:${port}`;
}

function readProxySecret(file: string | undefined): string {
  if (!file) {
    throw new ConfigError(
      `--ingress trusted-proxy needs ${ENV.trustedProxySecretFile}: a file (mode 0600) holding the secret the proxy sends.`
    );
  }
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch {
    throw new ConfigError(
      `${ENV.trustedProxySecretFile} names a file that does not exist.`
    );
  }
  if (!stat.isFile() || (stat.mode & 0o077) !== 0) {
    throw new ConfigError(
      `${ENV.trustedProxySecretFile} must be a regular file readable only by you (chmod 600).`
    );
  }
  const secret = fs.readFileSync(file, 'utf8').trim();
  if (secret.length < 16) {
    throw new ConfigError(
      `${ENV.trustedProxySecretFile} must hold a secret of at least 16 characters.`
    );
  }
  if (isPatternSecret(secret)) {
    throw new ConfigError(
      `${ENV.trustedProxySecretFile} holds a pattern, not a secret: it must hold at least ${SECRET_MIN_DISTINCT_CHARACTERS} different characters. Generate one with \`node -p "require('crypto').randomBytes(32).toString('hex')"\`.`
    );
  }
  return secret;
}

export async function startService(
  options: StartOptions
): Promise<RunningService> {
  const { config, env } = options;
  const logger = options.logger ?? createLogger(config.logLevel);
  const service = new StartupService({
    config,
    env,
    fileExists: options.fileExists,
    onCreationStep: options.onCreationStep,
    stateTraversal: options.stateTraversal
  });
  const adapter = service.adapter;
  // Direct loopback on every platform unless asked otherwise (the manifest's default ingress is
  // the operator's contract; it is not what a plain `serve` on a TCP port may open).
  const ingress = config.ingress ?? 'direct-loopback';
  // An ingress the platform does not offer still answers, read-only: behind a notebook server
  // on a cluster node the panel must be able to say "use the terminal" rather than fail.
  const offered = adapter.ingressModes.includes(ingress);
  // A name is looked up only when it names loopback (localhost): no lookup of a name that
  // would be refused anyway; and the address it resolves to must be loopback too.
  const loopbackOnly =
    config.unixSocket === undefined && ingress !== 'trusted-proxy';
  if (loopbackOnly && !isLoopback(config.host)) {
    throw new ConfigError(
      '--host may name a non-loopback address only with --ingress trusted-proxy.'
    );
  }
  const address =
    config.unixSocket === undefined ? await bindAddress(config.host) : '';
  if (loopbackOnly && !isLoopbackHostname(address)) {
    throw new ConfigError(
      `--host ${config.host} resolves to ${address}, which is not loopback; --host may name a non-loopback address only with --ingress trusted-proxy.`
    );
  }

  const cookiePath = `${config.baseUrl}project/`;
  let token: string | undefined;
  let guard: IngressGuard;
  switch (ingress) {
    case 'direct-loopback': {
      const fromEnv = env[ENV.token];
      token = fromEnv
        ? checkServiceToken(fromEnv)
        : randomBytes(32).toString('hex');
      guard = new DirectLoopbackGuard(
        token,
        'project-startup-session',
        cookiePath,
        new SessionStore(config.sessions)
      );
      break;
    }
    case 'notebook-server-proxy':
      guard = new NotebookServerProxyGuard();
      break;
    case 'trusted-proxy':
      guard = new TrustedProxyGuard(
        readProxySecret(config.trustedProxySecretFile),
        config.trustedProxyHops
      );
      break;
  }

  const rateLimiter = new RateLimiter(config.initializeRateLimit);
  const claimRateLimiter = allocationRateLimiter(config.allocationRateLimit);
  // The command line's proof that its confirmation prompt was answered on a TTY: only in the
  // private runtime file, never printed, logged or taken from the environment. Without a
  // runtime file no command line can find this service, so there is no key either.
  const promptKey =
    options.runtimeFile !== false
      ? randomBytes(32).toString('base64url')
      : undefined;
  const app = createApp({
    service,
    guard,
    logger,
    rateLimiter,
    claimRateLimiter,
    proofKey: token,
    promptKey: promptKey ? new SecretMatcher(promptKey) : undefined
  });
  // requireHostHeader off: a missing Host is answered by the app's own forbidden-host check.
  const server = http.createServer(
    { ...timeoutOptions(config.requestTimeoutMs), requireHostHeader: false },
    app
  );
  const descriptorLimit = readDescriptorLimit();
  const maxConnections =
    config.maxConnections ?? defaultMaxConnections(descriptorLimit);
  if (descriptorLimit !== undefined && maxConnections > descriptorLimit - 32) {
    logger.warn(
      'the connection limit is close to the descriptor limit: a flood of connections can exhaust descriptors',
      {
        maxConnections,
        descriptorLimit
      }
    );
  }
  let evictions = 0;
  let sheds = 0;
  let acceptFailures = 0;
  limitConnections(
    server,
    maxConnections,
    socket => {
      sheds += 1;
      writeRawProblem(
        socket,
        problemOf(
          'overloaded',
          'Every connection is busy; try again in a moment.'
        ),
        'Retry-After: 1\r\n'
      );
    },
    () => {
      evictions += 1;
    }
  );
  // Counted, and logged at most every 10 s: a flood must not turn into a flood of log lines.
  const pressureLog = setInterval(() => {
    if (evictions + sheds > 0) {
      logger.warn(
        'connection limit reached: idle connections closed, busy ones refused',
        { maxConnections, evicted: evictions, refused: sheds }
      );
    }
    if (acceptFailures > 0) {
      logger.error(
        'accepting connections failed (no descriptor or memory left)',
        { failures: acceptFailures }
      );
    }
    evictions = 0;
    sheds = 0;
    acceptFailures = 0;
  }, 10000);
  pressureLog.unref();
  server.on('close', () => clearInterval(pressureLog));
  // An Expect other than 100-continue: Node would answer a bare 417; answer problem details.
  server.on(
    'checkExpectation',
    (_request: http.IncomingMessage, response: http.ServerResponse) => {
      const body = JSON.stringify(
        problemOf(
          'expectation-failed',
          'Only "Expect: 100-continue" is understood; send the request without Expect.'
        )
      );
      response.writeHead(417, {
        'Content-Type': 'application/problem+json; charset=utf-8',
        Connection: 'close'
      });
      response.end(body);
    }
  );
  // CONNECT never reaches the app (Node would drop the socket without a word): this is no
  // forward proxy, so say so in problem details and close.
  server.on('connect', (_request: http.IncomingMessage, socket: Duplex) => {
    writeRawProblem(
      socket,
      problemOf(
        'method-not-allowed',
        'CONNECT is not supported: this service is not a proxy.'
      ),
      'Allow: GET, HEAD, POST\r\n'
    );
  });
  server.on(
    'clientError',
    (error: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket) => {
      // Node rejects these before express sees them; answer as problem details all the same.
      const problem =
        error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? problemOf(
              'request-timeout',
              `The request did not arrive complete within ${config.requestTimeoutMs} ms.`,
              {
                timeoutMs: config.requestTimeoutMs
              }
            )
          : error.code !== 'HPE_HEADER_OVERFLOW'
            ? problemOf(
                'malformed-request',
                'The request is not valid HTTP/1.1.'
              )
            : requestLineTooLong(error.rawPacket)
              ? problemOf(
                  'uri-too-long',
                  `Request URLs are limited to ${URL_LIMIT} bytes.`,
                  { limitBytes: URL_LIMIT }
                )
              : problemOf(
                  'headers-too-large',
                  'The request headers are too large.'
                );
      writeRawProblem(socket, problem);
    }
  );

  if (options.runtimeFile !== false) {
    ensureRuntimeDir(config.runtimeDir); // fail before listening, not after
  }
  let unixListener: UnixListener | undefined;
  if (config.unixSocket !== undefined) {
    await claimSocketPath(config.unixSocket);
    unixListener = await listenOnUnixSocket(server, config.unixSocket);
  } else {
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
  }
  // Once listening, an error of the listening socket (accept failing: no descriptor or memory
  // left where libuv could not shed the connection itself; without a listener Node would throw)
  // is counted for the log above; it must not end the process, which serves again as soon as
  // descriptors are free.
  server.on('error', () => {
    acceptFailures += 1;
  });

  let url: string | undefined;
  let port: number | undefined;
  if (config.unixSocket === undefined) {
    const bound = server.address() as AddressInfo;
    port = bound.port;
    url = `${origin(bound.address, port)}${config.baseUrl}project/`;
    if (guard instanceof DirectLoopbackGuard) {
      // Cookies ignore ports: naming the cookie after the port keeps two services' sessions apart.
      guard.cookieName = `project-startup-session-${port}`;
    }
  }
  const listening =
    config.unixSocket !== undefined
      ? `Unix socket ${config.unixSocket}`
      : new URL(url as string).host;
  const canVerifyBrowserUrl =
    url !== undefined &&
    ingress === 'direct-loopback' &&
    adapter.browserRoute === 'direct-loopback';
  const probeUrl = url;
  const browserUrlProbe = canVerifyBrowserUrl
    ? new SingleFlight(30000, () =>
        selfProbe(probeUrl as string, service.instanceId)
      )
    : undefined;
  service.setIngress({ mode: ingress, listening, offered }, browserUrlProbe);
  service.warmUp();
  if (browserUrlProbe) {
    await browserUrlProbe.get();
  }

  let runtimeFile: string | undefined;
  if (options.runtimeFile !== false) {
    runtimeFile = runtimeFilePath(config.runtimeDir, config.projectDir);
    const fromEnv = Boolean(env[ENV.token]);
    writeRuntimeFile(runtimeFile, {
      ...(url ? { url } : {}),
      ...(config.unixSocket ? { socket: config.unixSocket } : {}),
      baseUrl: config.baseUrl,
      pid: process.pid,
      instanceId: service.instanceId,
      projectPath: config.projectDir,
      version: service.version,
      ingress,
      platform: service.adapter.id,
      ...(token && !fromEnv ? { token } : {}),
      ...(promptKey ? { promptKey } : {}),
      tokenSource:
        token === undefined ? 'none' : fromEnv ? 'environment' : 'generated'
    });
  }

  if (!offered) {
    logger.warn(
      'the platform does not offer this ingress; answering read-only',
      {
        platform: adapter.id,
        ingress,
        offered: adapter.ingressModes
      }
    );
  }
  if (ingress === 'notebook-server-proxy' && config.unixSocket === undefined) {
    logger.warn(
      'notebook-server proxy ingress on a TCP port: other local users can reach it; use --unix-socket',
      {
        listening
      }
    );
  }
  if (service.decision.overruled.length > 0) {
    logger.warn('conflicting platform evidence', {
      platform: service.decision.platform,
      decidedBy: service.decision.decidedBy,
      overruled: service.decision.overruled.map(s => s.name)
    });
  }
  logger.info('service started', {
    version: service.version,
    platform: service.decision.platform,
    decidedBy: service.decision.decidedBy,
    ingress,
    listening,
    instanceId: service.instanceId
  });

  return {
    service,
    server,
    ingress,
    url,
    port,
    socket: config.unixSocket,
    token,
    runtimeFile,
    close: () =>
      new Promise<void>(resolve => {
        if (runtimeFile) {
          removeRuntimeFile(runtimeFile, service.instanceId);
        }
        unixListener?.release();
        server.close(() => resolve());
        server.closeAllConnections();
      })
  };
}

/** Whether the request line alone (method, URL, version) already passes the URL limit. */
function requestLineTooLong(packet: Buffer | undefined): boolean {
  if (!packet) {
    return false;
  }
  const end = packet.indexOf('\r\n');
  return end === -1 ? packet.length > URL_LIMIT : end > URL_LIMIT;
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

/** Problem details written straight to a socket that Node took away from the HTTP layer. */
function writeRawProblem(
  socket: Duplex,
  problem: ReturnType<typeof problemOf>,
  extraHeaders = ''
): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const body = JSON.stringify(problem);
  // Closed for good shortly after: a client that never closes its end must not keep the
  // descriptor (the server allows half-open connections).
  const linger = setTimeout(() => socket.destroy(), 2000);
  linger.unref();
  socket.once('close', () => clearTimeout(linger));
  socket.end(
    `HTTP/1.1 ${problem.status} ${http.STATUS_CODES[problem.status]}\r\n` +
      `${extraHeaders}Content-Type: application/problem+json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
  );
}
