// Turns command-line options and PROJECT_STARTUP_* variables into one checked configuration.
// Pure apart from resolving the project directory's real path and, when none is named, finding
// the initialized project above the working directory (observe/project-search.ts).
import * as os from 'node:os';
import * as path from 'node:path';
import {
  INGRESS_MODES,
  IngressMode,
  isIngressMode,
  LowRiskAutomationPolicy,
  PlatformId
} from '../core/vocabulary';
import { SettingError } from './errors';
import { platformSetting } from '../core/platforms/rules';
import {
  LayeredSettings,
  loadSiteConfig,
  LoadedSiteConfig,
  SiteConfigError,
  modelSourceOrigins,
  siteProblems,
  sitePlatform
} from './site-config-layer';
import {
  SettingOrigin,
  SITE_CONFIG_ENV,
  siteModelSources,
  SiteModelSources
} from '../core/site-config-rules';
import {
  jupyterRootProject,
  realOrResolved,
  resolveProjectDir
} from './project-dir';
import { searchesUpward } from '../core/project-search';
import { withJupyterSettings } from './jupyter-settings';
import { findInitializedProject } from '../observe/project-search';
import type { Env } from '../core/env';

export { ConfigError, SettingError } from './errors';
export { SiteConfigError } from './site-config-layer';
export {
  checkServiceToken,
  isPatternSecret,
  SECRET_MIN_DISTINCT_CHARACTERS,
  TOKEN_MAX_LENGTH,
  TOKEN_MIN_LENGTH
} from './token';

export interface ServeOptions {
  host?: string;
  port?: string | number;
  projectDir?: string;
  ingress?: string;
  baseUrl?: string;
  unixSocket?: string;
  /** --allow-unauthenticated-tcp: the notebook-server-proxy ingress on a TCP port. */
  allowUnauthenticatedTcp?: boolean;
  /** --config: the site configuration file, instead of $PROJECT_STARTUP_CONFIG or the search. */
  config?: string;
}

export interface RateLimit {
  count: number;
  seconds: number;
}

/** How long a browser session of direct loopback lives: since its last use, and at most. */
export interface SessionLimits {
  idleSeconds: number;
  maxSeconds: number;
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
  runtimeUrls: {
    'local-lightweight': string;
    'high-throughput-serving': string;
  };
  probeTimeoutMs: number;
  /** Connections kept open at once; undefined: derived from the descriptor limit. */
  maxConnections: number | undefined;
  /** Time for a request (headers and body) to arrive complete, else 408. */
  requestTimeoutMs: number;
  initializeRateLimit: RateLimit;
  /** New job ids per client in the allocation parameter (each costs one scheduler query). */
  allocationRateLimit: RateLimit;
  sessions: SessionLimits;
  /** How many proxies of the operator's each append to X-Forwarded-For (trusted-proxy ingress). */
  trustedProxyHops: number;
  logLevel: LogLevel;
  /** The platform setting ($PROJECT_STARTUP_PLATFORM, else the site file's); undefined: from evidence. */
  platform: PlatformId | undefined;
  /** What the site file says of each model source; {} without a file. */
  modelSources: SiteModelSources;
  /** The site configuration file read, if any. */
  siteConfigFile: string | undefined;
  /** Where it was looked for, in order (the diagnostics report names them when none was found). */
  siteConfigLooked?: readonly string[];
  /** Where each setting's value came from, by variable name (or flag, for flags only). */
  origins: Readonly<Record<string, SettingOrigin>>;
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
  allocationRateLimit: 'PROJECT_STARTUP_ALLOCATION_RATE_LIMIT',
  sessionIdleSeconds: 'PROJECT_STARTUP_SESSION_IDLE_SECONDS',
  sessionMaxSeconds: 'PROJECT_STARTUP_SESSION_MAX_SECONDS',
  trustedProxyHops: 'PROJECT_STARTUP_TRUSTED_PROXY_HOPS',
  logLevel: 'PROJECT_STARTUP_LOG_LEVEL',
  config: SITE_CONFIG_ENV
} as const;

/** Two hours since the last request, twelve hours at most: a working day, not a week. */
export const DEFAULT_SESSION_LIMITS: SessionLimits = {
  idleSeconds: 2 * 3600,
  maxSeconds: 12 * 3600
};
const WEEK_SECONDS = 7 * 24 * 3600;

function setting(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value === '' ? undefined : value;
}

/**
 * The configuration: for each value the flag, else the variable, else the site configuration
 * file (site-config-layer.ts), else the default. `site`: the file as loaded already (config check).
 */
export function resolveConfig(
  options: ServeOptions,
  env: Env,
  cwd = process.cwd(),
  site?: LoadedSiteConfig
): ServiceConfig {
  // Inside a Jupyter server, what its configuration passes on (jupyter-settings.ts).
  env = withJupyterSettings(env);
  // Each part checks its settings in this order, so the first wrong one is the one reported.
  const homeDir = setting(env, 'HOME') ?? safeHomedir();
  const realHome = homeDir === undefined ? undefined : realOrResolved(homeDir);
  const loaded = site ?? loadSiteConfig(options.config, env, cwd, realHome);
  const settings = new LayeredSettings(env, loaded.file);
  const platform = settings.platform();
  const problems = siteProblems(loaded, () => sitePlatform(env, platform));
  if (problems.length > 0) {
    throw new SiteConfigError(problems);
  }
  // Before the project is searched for (by the platform's placement) and before `serve` makes
  // anything: a value that names no platform is refused here, and only here.
  const platformId = platformSetting(platform);
  const named =
    options.projectDir ??
    setting(env, ENV.projectDir) ??
    jupyterRootProject(options.ingress, env);
  const resolved = resolveProjectDir(named ?? cwd, cwd);
  // Unnamed, the project is found upward from the working directory, as git finds a repository.
  const projectDir =
    named === undefined && searchesUpward(options.ingress)
      ? findInitializedProject(resolved, realHome, env, platformId)
      : resolved;
  const policy = policySettings(settings);
  const listening = listenSettings(options, cwd);
  const runtimeDir = runtimeDirectory(env, homeDir);
  return {
    projectDir,
    homeDir: realHome,
    ...policy,
    ...listening,
    runtimeDir,
    trustedProxySecretFile: settings.get(ENV.trustedProxySecretFile),
    secretsDir: settings.get(ENV.secretsDir),
    managedIdentityUrl: optionalUrl(settings, ENV.managedIdentityUrl),
    runtimeUrls: {
      'local-lightweight':
        optionalUrl(settings, ENV.localRuntimeUrl) ??
        DEFAULT_RUNTIME_URLS['local-lightweight'],
      'high-throughput-serving':
        optionalUrl(settings, ENV.servingRuntimeUrl) ??
        DEFAULT_RUNTIME_URLS['high-throughput-serving']
    },
    ...limitSettings(settings),
    logLevel: parseLogLevel(settings.get(ENV.logLevel) ?? 'info'),
    platform: platformId,
    modelSources: siteModelSources(loaded.file),
    siteConfigFile: loaded.file?.path,
    siteConfigLooked: loaded.looked.map(c => c.path),
    origins: {
      ...settings.origins,
      ...flagOrigins(options, env),
      ...modelSourceOrigins(loaded)
    }
  };
}

/** The origins of the values flags can set: the flag, else (the project) its variable, else the default. */
function flagOrigins(
  options: ServeOptions,
  env: Env
): Record<string, SettingOrigin> {
  const flags: [keyof ServeOptions, string][] = [
    ['host', '--host'],
    ['port', '--port'],
    ['ingress', '--ingress'],
    ['baseUrl', '--base-url'],
    ['unixSocket', '--unix-socket'],
    ['projectDir', '--project-dir']
  ];
  const origins: Record<string, SettingOrigin> = {};
  for (const [option, flag] of flags) {
    origins[flag] =
      options[option] !== undefined
        ? { source: 'flag', name: flag }
        : option === 'projectDir' && setting(env, ENV.projectDir) !== undefined
          ? { source: 'env', name: ENV.projectDir }
          : { source: 'default' };
  }
  return origins;
}

/** The platform policy an operator may set: low-risk automation and the approved storage. */
function policySettings(
  settings: LayeredSettings
): Pick<ServiceConfig, 'lowRiskAutomation' | 'approvedStorage'> {
  const lowRisk = settings.get(ENV.lowRiskAutomation);
  if (
    lowRisk !== undefined &&
    lowRisk !== 'permitted' &&
    lowRisk !== 'denied'
  ) {
    throw settings.refuse(
      ENV.lowRiskAutomation,
      'must be "permitted" or "denied".'
    );
  }
  const approvedStorage = (settings.get(ENV.approvedStorage) ?? '')
    .split(':')
    .filter(p => p !== '')
    .map(p => {
      if (!path.isAbsolute(p)) {
        throw settings.refuse(
          ENV.approvedStorage,
          'holds a relative path; list absolute directories separated by ":".'
        );
      }
      return realOrResolved(p);
    });
  return {
    lowRiskAutomation: lowRisk as LowRiskAutomationPolicy | undefined,
    approvedStorage
  };
}

/** Where and how the service listens: the ingress, TCP host and port or Unix socket, base URL. */
function listenSettings(
  options: ServeOptions,
  cwd: string
): Pick<ServiceConfig, 'ingress' | 'host' | 'port' | 'unixSocket' | 'baseUrl'> {
  let ingress: IngressMode | undefined;
  if (options.ingress !== undefined) {
    if (!isIngressMode(options.ingress)) {
      throw new SettingError(
        `--ingress must be one of ${INGRESS_MODES.join(', ')}.`
      );
    }
    ingress = options.ingress;
  }
  // Behind the notebook-server proxy the service checks no credential (Jupyter did): on a TCP
  // port anyone on this machine could call it, so that takes a flag that says so.
  if (
    ingress === 'notebook-server-proxy' &&
    options.unixSocket === undefined &&
    options.allowUnauthenticatedTcp !== true
  ) {
    throw new SettingError(
      '--ingress notebook-server-proxy checks no credentials (Jupyter authenticates in front of it), so it needs --unix-socket PATH (what the Jupyter proxy entry passes). On a TCP port every local user could call it unauthenticated; to do that anyway, add --allow-unauthenticated-tcp. For a service of your own, leave out --ingress (direct loopback, with a token).'
    );
  }
  const host = options.host ?? '127.0.0.1';
  const port = parsePort(options.port ?? 0);
  const baseUrl = normalizeBaseUrl(options.baseUrl ?? '/');
  const unixSocket =
    options.unixSocket === undefined
      ? undefined
      : path.resolve(cwd, options.unixSocket);
  return { ingress, host, port, unixSocket, baseUrl };
}

/** Where the runtime file goes: the setting, else $XDG_RUNTIME_DIR, else below the home. */
function runtimeDirectory(env: Env, homeDir: string | undefined): string {
  const runtimeDir =
    setting(env, ENV.runtimeDir) ??
    (setting(env, 'XDG_RUNTIME_DIR')
      ? path.join(setting(env, 'XDG_RUNTIME_DIR') as string, 'project-startup')
      : path.join(
          homeDir ?? os.tmpdir(),
          '.local',
          'share',
          'project-startup',
          'runtime'
        ));
  return path.resolve(runtimeDir);
}

/** The bounds: probe and request time, connections, rate limits, sessions, proxy hops. */
function limitSettings(
  env: LayeredSettings
): Pick<
  ServiceConfig,
  | 'probeTimeoutMs'
  | 'maxConnections'
  | 'requestTimeoutMs'
  | 'initializeRateLimit'
  | 'allocationRateLimit'
  | 'sessions'
  | 'trustedProxyHops'
> {
  return {
    probeTimeoutMs: parseBoundedInt(env, ENV.probeTimeoutMs, 1000, 50, 30000),
    maxConnections:
      env.get(ENV.maxConnections) === undefined
        ? undefined
        : parseBoundedInt(env, ENV.maxConnections, 0, 1, 65536),
    requestTimeoutMs: parseBoundedInt(
      env,
      ENV.requestTimeoutMs,
      15000,
      1000,
      300000
    ),
    initializeRateLimit: parseRateLimit(env, ENV.initializeRateLimit, '30/60'),
    allocationRateLimit: parseRateLimit(env, ENV.allocationRateLimit, '6/60'),
    sessions: {
      idleSeconds: parseBoundedInt(
        env,
        ENV.sessionIdleSeconds,
        DEFAULT_SESSION_LIMITS.idleSeconds,
        1,
        WEEK_SECONDS
      ),
      maxSeconds: parseBoundedInt(
        env,
        ENV.sessionMaxSeconds,
        DEFAULT_SESSION_LIMITS.maxSeconds,
        1,
        WEEK_SECONDS
      )
    },
    trustedProxyHops: parseBoundedInt(env, ENV.trustedProxyHops, 1, 1, 10)
  };
}

function safeHomedir(): string | undefined {
  try {
    return os.homedir();
  } catch {
    return undefined;
  }
}

export function normalizeBaseUrl(value: string): string {
  if (
    !value.startsWith('/') ||
    /[?#\\\s]/.test(value) ||
    value.split('/').some(s => s === '..' || s === '.')
  ) {
    throw new SettingError(
      '--base-url must be an absolute URL path such as / or /user/alice/.'
    );
  }
  const collapsed = value.replace(/\/{2,}/g, '/');
  return collapsed.endsWith('/') ? collapsed : `${collapsed}/`;
}

function parsePort(value: string | number): number {
  const n =
    typeof value === 'number'
      ? value
      : /^\d+$/.test(value)
        ? Number(value)
        : NaN;
  if (!Number.isInteger(n) || n < 0 || n > 65535) {
    throw new SettingError(
      '--port must be a whole number from 0 (any free port) to 65535.'
    );
  }
  return n;
}

function optionalUrl(
  settings: LayeredSettings,
  name: string
): string | undefined {
  const value = settings.get(name);
  if (value === undefined) {
    return undefined;
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw settings.refuse(name, 'must be an http:// or https:// URL.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw settings.refuse(name, 'must be an http:// or https:// URL.');
  }
  return url.toString();
}

function parseBoundedInt(
  settings: LayeredSettings,
  name: string,
  fallback: number,
  min: number,
  max: number
): number {
  const value = settings.get(name);
  if (value === undefined) {
    return fallback;
  }
  const n = /^\d+$/.test(value) ? Number(value) : NaN;
  if (!(n >= min && n <= max)) {
    throw settings.refuse(
      name,
      `must be a whole number from ${min} to ${max}.`
    );
  }
  return n;
}

function parseRateLimit(
  settings: LayeredSettings,
  name: string,
  fallback: string
): RateLimit {
  const value = settings.get(name) ?? fallback;
  const match = /^(\d+)\/(\d+)$/.exec(value);
  const count = match ? Number(match[1]) : NaN;
  const seconds = match ? Number(match[2]) : NaN;
  if (!(count >= 1 && count <= 100000 && seconds >= 1 && seconds <= 86400)) {
    throw settings.refuse(name, 'must look like 30/60 (requests per seconds).');
  }
  return { count, seconds };
}

function parseLogLevel(value: string): LogLevel {
  if (!(LOG_LEVELS as readonly string[]).includes(value)) {
    throw new SettingError(
      `${ENV.logLevel} must be one of ${LOG_LEVELS.join(', ')}.`
    );
  }
  return value as LogLevel;
}
