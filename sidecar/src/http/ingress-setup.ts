// Who may ask, as configured at start: the address to bind (loopback unless behind a trusted
// proxy) and the ingress guard with its credential (a token, or the proxy's secret file).
import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import {
  checkServiceToken,
  ConfigError,
  ENV,
  isPatternSecret,
  SECRET_MIN_DISTINCT_CHARACTERS,
  ServiceConfig
} from '../config/config';
import type { IngressMode } from '../core/vocabulary';
import {
  DirectLoopbackGuard,
  hostnameOf,
  IngressGuard,
  isLoopbackHostname,
  NotebookServerProxyGuard,
  TrustedProxyGuard
} from './ingress-guards';
import { readOperatorFile } from '../observe/operator-file';
import { SessionStore } from './sessions';
import type { Env } from '../core/env';

// Loaded when a --host name is looked up, at start-up over TCP only: a Unix socket (how
// jupyter-server-proxy launches the service) never needs it, and its load costs a cold start.
const dnsModule = () =>
  require('node:dns/promises') as typeof import('node:dns/promises');

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
    return (await dnsModule().lookup(bare)).address;
  } catch {
    throw new ConfigError(
      `--host ${host} does not resolve to an address; give an address such as 127.0.0.1.`
    );
  }
}

/**
 * The TCP address to bind ('' on a Unix socket). A name is looked up only when it names
 * loopback (localhost): no lookup of a name that would be refused anyway; and the address it
 * resolves to must be loopback too, unless behind a trusted proxy.
 */
export async function resolveBindAddress(
  config: ServiceConfig,
  ingress: IngressMode
): Promise<string> {
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
  return address;
}

/** http://address:port: an IPv6 address in brackets. */
export function origin(address: string, port: number): string {
  return `http://${address.includes(':') ? `[${address}]` : address}:${port}`;
}

/** Far more than any secret; a bigger file is not one. */
const MAX_PROXY_SECRET_BYTES = 64 * 1024;

function readProxySecret(file: string | undefined): string {
  if (!file) {
    throw new ConfigError(
      `--ingress trusted-proxy needs ${ENV.trustedProxySecretFile}: a file (mode 0600) holding the secret the proxy sends.`
    );
  }
  // The same rule as for every file the configuration names, read through the descriptor it
  // was checked on: another user's file, even mode 0600, would let that user be the proxy.
  const read = readOperatorFile(file, {
    secret: true,
    maxBytes: MAX_PROXY_SECRET_BYTES
  });
  if (read.kind === 'missing') {
    throw new ConfigError(
      `${ENV.trustedProxySecretFile} names a file that does not exist.`
    );
  }
  if (read.kind === 'failed') {
    throw new ConfigError(
      `${ENV.trustedProxySecretFile} (${file}) cannot be read (${read.code}).`
    );
  }
  if (read.kind === 'refused') {
    throw new ConfigError(
      `${ENV.trustedProxySecretFile} (${file}) is refused: ${read.problem.message}. ${read.problem.fix}`
    );
  }
  const secret = read.text.trim();
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

/** The ingress guard, and on direct loopback the token it checks (from the environment or new). */
export function createGuard(
  ingress: IngressMode,
  config: ServiceConfig,
  env: Env,
  clock: () => number = Date.now
): { guard: IngressGuard; token?: string } {
  switch (ingress) {
    case 'direct-loopback': {
      const fromEnv = env[ENV.token];
      const token = fromEnv
        ? checkServiceToken(fromEnv)
        : randomBytes(32).toString('hex');
      const guard = new DirectLoopbackGuard(
        token,
        'project-startup-session',
        `${config.baseUrl}project/`,
        new SessionStore(config.sessions, clock)
      );
      return { guard, token };
    }
    case 'notebook-server-proxy':
      return { guard: new NotebookServerProxyGuard() };
    case 'trusted-proxy':
      return {
        guard: new TrustedProxyGuard(
          readProxySecret(config.trustedProxySecretFile),
          config.trustedProxyHops
        )
      };
  }
}
