// Turns command-line options and PROJECT_STARTUP_* variables into one checked configuration.
// Pure apart from resolving the project directory's real path.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { INGRESS_MODES, IngressMode, isIngressMode, LowRiskAutomationPolicy } from './vocabulary';

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

export interface ServeOptions {
  host?: string;
  port?: string | number;
  projectDir?: string;
  ingress?: string;
  baseUrl?: string;
  unixSocket?: string;
}

export interface RateLimit {
  count: number;
  seconds: number;
}

export interface ServiceConfig {
  projectDir: string;
  homeDir: string | undefined;
  /** Operator's low-risk automation policy, or undefined for the platform default. */
  lowRiskAutomation: LowRiskAutomationPolicy | undefined;
  approvedStorage: string[];
  ingress: IngressMode | undefined;
  host: string;
  port: number;
  unixSocket: string | undefined;
  baseUrl: string;
  runtimeDir: string;
  trustedProxySecretFile: string | undefined;
  secretsDir: string | undefined;
  managedIdentityUrl: string | undefined;
  runtimeUrls: { 'local-lightweight': string; 'high-throughput-serving': string };
  probeTimeoutMs: number;
  /** Connections kept open at once; undefined: derived from the descriptor limit. */
  maxConnections: number | undefined;
  /** Time for a request (headers and body) to arrive complete, else 408. */
  requestTimeoutMs: number;
  initializeRateLimit: RateLimit;
  logLevel: LogLevel;
}

export const LOG_LEVELS = ['error', 'warn', 'info', 'debug'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const DEFAULT_RUNTIME_URLS = {
  'local-lightweight': 'http://127.0.0.1:11434/api/version',
  'high-throughput-serving': 'http://127.0.0.1:8000/v1/models'
} as const;

/** Names every PROJECT_STARTUP_* variable the service reads (documented in the README). */
export const ENV = {
  platform: 'PROJECT_STARTUP_PLATFORM',
  projectDir: 'PROJECT_STARTUP_PROJECT_DIR',
  token: 'PROJECT_STARTUP_TOKEN',
  lowRiskAutomation: 'PROJECT_STARTUP_LOW_RISK_AUTOMATION',
  approvedStorage: 'PROJECT_STARTUP_APPROVED_STORAGE',
  runtimeDir: 'PROJECT_STARTUP_RUNTIME_DIR',
  trustedProxySecretFile: 'PROJECT_STARTUP_TRUSTED_PROXY_SECRET_FILE',
  secretsDir: 'PROJECT_STARTUP_SECRETS_DIR',
  managedIdentityUrl: 'PROJECT_STARTUP_MANAGED_IDENTITY_URL',
  localRuntimeUrl: 'PROJECT_STARTUP_LOCAL_RUNTIME_URL',
  servingRuntimeUrl: 'PROJECT_STARTUP_SERVING_RUNTIME_URL',
  probeTimeoutMs: 'PROJECT_STARTUP_PROBE_TIMEOUT_MS',
  maxConnections: 'PROJECT_STARTUP_MAX_CONNECTIONS',
  requestTimeoutMs: 'PROJECT_STARTUP_REQUEST_TIMEOUT_MS',
  initializeRateLimit: 'PROJECT_STARTUP_INITIALIZE_RATE_LIMIT',
  logLevel: 'PROJECT_STARTUP_LOG_LEVEL'
} as const;

type Env = Readonly<Record<string, string | undefined>>;

function setting(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value === '' ? undefined : value;
}

export function resolveConfig(options: ServeOptions, env: Env, cwd = process.cwd()): ServiceConfig {
  const projectDir = resolveProjectDir(options.projectDir ?? setting(env, ENV.projectDir) ?? cwd, cwd);
  const homeDir = setting(env, 'HOME') ?? safeHomedir();

  const lowRisk = setting(env, ENV.lowRiskAutomation);
  if (lowRisk !== undefined && lowRisk !== 'permitted' && lowRisk !== 'denied') {
    throw new ConfigError(`${ENV.lowRiskAutomation} must be "permitted" or "denied".`);
  }

  const approvedStorage = (setting(env, ENV.approvedStorage) ?? '')
    .split(':')
    .filter(p => p !== '')
    .map(p => {
      if (!path.isAbsolute(p)) {
        throw new ConfigError(`${ENV.approvedStorage} holds a relative path; list absolute directories separated by ":".`);
      }
      return realOrResolved(p);
    });

  let ingress: IngressMode | undefined;
  if (options.ingress !== undefined) {
    if (!isIngressMode(options.ingress)) {
      throw new ConfigError(`--ingress must be one of ${INGRESS_MODES.join(', ')}.`);
    }
    ingress = options.ingress;
  }

  const host = options.host ?? '127.0.0.1';
  const port = parsePort(options.port ?? 0);
  const baseUrl = normalizeBaseUrl(options.baseUrl ?? '/');
  const unixSocket = options.unixSocket === undefined ? undefined : path.resolve(cwd, options.unixSocket);

  const runtimeDir =
    setting(env, ENV.runtimeDir) ??
    (setting(env, 'XDG_RUNTIME_DIR')
      ? path.join(setting(env, 'XDG_RUNTIME_DIR') as string, 'project-startup')
      : path.join(homeDir ?? os.tmpdir(), '.local', 'share', 'project-startup', 'runtime'));

  return {
    projectDir,
    homeDir: homeDir === undefined ? undefined : realOrResolved(homeDir),
    lowRiskAutomation: lowRisk as LowRiskAutomationPolicy | undefined,
    approvedStorage,
    ingress,
    host,
    port,
    unixSocket,
    baseUrl,
    runtimeDir: path.resolve(runtimeDir),
    trustedProxySecretFile: setting(env, ENV.trustedProxySecretFile),
    secretsDir: setting(env, ENV.secretsDir),
    managedIdentityUrl: optionalUrl(env, ENV.managedIdentityUrl),
    runtimeUrls: {
      'local-lightweight': optionalUrl(env, ENV.localRuntimeUrl) ?? DEFAULT_RUNTIME_URLS['local-lightweight'],
      'high-throughput-serving':
        optionalUrl(env, ENV.servingRuntimeUrl) ?? DEFAULT_RUNTIME_URLS['high-throughput-serving']
    },
    probeTimeoutMs: parseBoundedInt(env, ENV.probeTimeoutMs, 1000, 50, 30000),
    maxConnections: setting(env, ENV.maxConnections) === undefined ? undefined : parseBoundedInt(env, ENV.maxConnections, 0, 1, 65536),
    requestTimeoutMs: parseBoundedInt(env, ENV.requestTimeoutMs, 15000, 1000, 300000),
    initializeRateLimit: parseRateLimit(setting(env, ENV.initializeRateLimit) ?? '30/60'),
    logLevel: parseLogLevel(setting(env, ENV.logLevel) ?? 'info')
  };
}

function safeHomedir(): string | undefined {
  try {
    return os.homedir();
  } catch {
    return undefined;
  }
}

/** The real path where the directory exists; otherwise the absolute path, checked later. */
function realOrResolved(p: string, cwd = process.cwd()): string {
  const absolute = path.resolve(cwd, p);
  try {
    return fs.realpathSync.native(absolute);
  } catch {
    return absolute;
  }
}

function resolveProjectDir(p: string, cwd: string): string {
  return realOrResolved(p, cwd);
}

export function normalizeBaseUrl(value: string): string {
  if (!value.startsWith('/') || /[?#\\\s]/.test(value) || value.split('/').some(s => s === '..' || s === '.')) {
    throw new ConfigError('--base-url must be an absolute URL path such as / or /user/alice/.');
  }
  const collapsed = value.replace(/\/{2,}/g, '/');
  return collapsed.endsWith('/') ? collapsed : `${collapsed}/`;
}

function parsePort(value: string | number): number {
  const n = typeof value === 'number' ? value : /^\d+$/.test(value) ? Number(value) : NaN;
  if (!Number.isInteger(n) || n < 0 || n > 65535) {
    throw new ConfigError('--port must be a whole number from 0 (any free port) to 65535.');
  }
  return n;
}

function optionalUrl(env: Env, name: string): string | undefined {
  const value = setting(env, name);
  if (value === undefined) {
    return undefined;
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(`${name} must be an http:// or https:// URL.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`${name} must be an http:// or https:// URL.`);
  }
  return url.toString();
}

function parseBoundedInt(env: Env, name: string, fallback: number, min: number, max: number): number {
  const value = setting(env, name);
  if (value === undefined) {
    return fallback;
  }
  const n = /^\d+$/.test(value) ? Number(value) : NaN;
  if (!(n >= min && n <= max)) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max}.`);
  }
  return n;
}

function parseRateLimit(value: string): RateLimit {
  const match = /^(\d+)\/(\d+)$/.exec(value);
  const count = match ? Number(match[1]) : NaN;
  const seconds = match ? Number(match[2]) : NaN;
  if (!(count >= 1 && count <= 100000 && seconds >= 1 && seconds <= 86400)) {
    throw new ConfigError(`${ENV.initializeRateLimit} must look like 30/60 (requests per seconds).`);
  }
  return { count, seconds };
}

function parseLogLevel(value: string): LogLevel {
  if (!(LOG_LEVELS as readonly string[]).includes(value)) {
    throw new ConfigError(`${ENV.logLevel} must be one of ${LOG_LEVELS.join(', ')}.`);
  }
  return value as LogLevel;
}
