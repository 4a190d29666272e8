// `project-startup config check [--json] [--config PATH]`: the site configuration file checked
// (every problem with its file, line, key and fix), the effective configuration with where each
// value came from (as `git config --show-origin`), and the manifest that would result.
import {
  ENV,
  resolveConfig,
  ServeOptions,
  ServiceConfig,
  SettingError
} from '../config/config';
import {
  loadSiteConfig,
  LoadedSiteConfig,
  siteProblems,
  sitePlatform
} from '../config/site-config-layer';
import {
  InvalidPlatformSetting,
  PLATFORM_SETTING
} from '../core/platforms/rules';
import {
  SettingOrigin,
  SITE_CONFIG_ENV,
  SITE_FILE_KEYS,
  siteProblemLine,
  SiteProblem,
  SiteVariable,
  valueAt
} from '../core/site-config-rules';
import { dottedKey } from '../core/site-config-validate';
import { terminalSafe } from '../core/terminal-text';
import type { Manifest } from '../core/manifest';
import { realOrResolved } from '../config/project-dir';
import { StartupService } from '../service/service';
import { jupyterOrigin, withJupyterSettings } from '../config/jupyter-settings';
import { unusedOn } from '../core/site-unused';
import { EXIT, HELP, Io, parse, usage } from './usage';

/** One value of the effective configuration. */
export interface EffectiveSetting {
  /** The file's dotted key, or the variable's name for what only a variable sets. */
  key: string;
  variable: string;
  value: string;
  origin: SettingOrigin;
}

export interface ConfigReport {
  file: string | undefined;
  looked: string[];
  problems: SiteProblem[];
  settings: EffectiveSetting[];
  /** How the file was found: named by --config or the variable, or which Jupyter directory. */
  foundBy: string | undefined;
  /** null while there are problems. */
  manifest: Manifest | null;
  /** Settings given that the selected platform does not use: accepted, without effect. */
  warnings: {
    key: string;
    variable: string;
    origin: SettingOrigin;
    message: string;
  }[];
}

export async function configCommand(args: string[], io: Io): Promise<number> {
  const [action, ...rest] = args;
  if (action === undefined || action === '--help' || action === '-h') {
    (action === undefined ? io.stderr : io.stdout).write(`${HELP.config}\n`);
    return action === undefined ? EXIT.usage : EXIT.ok;
  }
  if (action !== 'check') {
    throw usage(`Unknown config action "${action}". Actions: check.`);
  }
  const { values } = parse(rest, {
    json: { type: 'boolean' },
    config: { type: 'string' }
  });
  if (values.help) {
    io.stdout.write(`${HELP.config}\n`);
    return EXIT.ok;
  }
  const report = checkConfiguration(
    { config: values.config as string | undefined },
    io
  );
  io.stdout.write(
    values.json ? `${JSON.stringify(report, null, 2)}\n` : formatReport(report)
  );
  return report.problems.length === 0 ? EXIT.ok : EXIT.usage;
}

/** Loads, checks and resolves as `serve` would, collecting every problem instead of the first. */
export function checkConfiguration(
  options: ServeOptions,
  io: Io
): ConfigReport {
  // Inside a Jupyter server, what its configuration passes on (jupyter-settings.ts).
  const env = withJupyterSettings(io.env);
  const home = env.HOME;
  const loaded: LoadedSiteConfig = loadSiteConfig(
    options.config,
    env,
    io.cwd,
    home === undefined || home === '' ? undefined : realOrResolved(home)
  );
  const platformSetting =
    env[PLATFORM_SETTING] || valueOfFile(loaded, 'PROJECT_STARTUP_PLATFORM');
  const problems = siteProblems(loaded, () =>
    sitePlatform(env, platformSetting)
  );
  const base = {
    file: loaded.file?.path,
    foundBy: foundBy(loaded, options.config, env),
    looked: loaded.looked.map(c => `${c.path} (${c.scope})`),
    problems
  };
  if (problems.length > 0) {
    return { ...base, settings: [], manifest: null, warnings: [] };
  }
  let config: ServiceConfig;
  let service: StartupService;
  try {
    config = resolveConfig(options, env, io.cwd, loaded);
    // The manifest `serve` would serve: built by the service itself, from this configuration.
    service = new StartupService({ config, env });
  } catch (error) {
    if (!(
      error instanceof SettingError || error instanceof InvalidPlatformSetting
    )) {
      throw error;
    }
    const siteErrors = (error as { problems?: SiteProblem[] }).problems;
    return {
      ...base,
      problems: siteErrors ?? [
        {
          file: '(environment)',
          key: '',
          message: error.message,
          fix: 'Correct or unset the variable it names.'
        }
      ],
      settings: [],
      manifest: null,
      warnings: []
    };
  }
  const settings = effectiveSettings(config, env);
  const warnings = settings.flatMap(setting => {
    const message =
      setting.origin.source === 'default' ||
      !Object.hasOwn(SITE_FILE_KEYS, setting.variable)
        ? undefined
        : unusedOn(service.adapter, setting.variable as SiteVariable);
    return message === undefined
      ? []
      : [
          {
            key: setting.key,
            variable: setting.variable,
            origin: setting.origin,
            message
          }
        ];
  });
  return {
    ...base,
    settings,
    manifest: service.manifest.manifest,
    warnings
  };
}

function foundBy(
  loaded: LoadedSiteConfig,
  flag: string | undefined,
  env: Io['env']
): string | undefined {
  const scope = loaded.looked.find(c => c.path === loaded.file?.path)?.scope;
  switch (scope) {
    case undefined:
      return undefined;
    case 'explicit': {
      if (flag !== undefined) {
        return 'flag:--config';
      }
      const jupyter = jupyterOrigin(
        env,
        SITE_CONFIG_ENV,
        env[SITE_CONFIG_ENV] ?? ''
      );
      return jupyter ? `jupyter:${jupyter.name}` : `env:${SITE_CONFIG_ENV}`;
    }
    default:
      return `the ${scope} Jupyter config directory`;
  }
}

function valueOfFile(
  loaded: LoadedSiteConfig,
  variable: SiteVariable
): string | undefined {
  const value = valueAt(loaded.file?.document, SITE_FILE_KEYS[variable]);
  return typeof value === 'string' ? value : undefined;
}

/** Every value of the configuration a site sets, with its origin; the token only as set/unset. */
export function effectiveSettings(
  config: ServiceConfig,
  env: Io['env']
): EffectiveSetting[] {
  const rate = (r: { count: number; seconds: number }) =>
    `${r.count}/${r.seconds}`;
  const values: Record<SiteVariable, string | undefined> = {
    PROJECT_STARTUP_PLATFORM: config.platform,
    PROJECT_STARTUP_LOW_RISK_AUTOMATION: config.lowRiskAutomation,
    PROJECT_STARTUP_APPROVED_STORAGE:
      config.approvedStorage.join(':') || undefined,
    PROJECT_STARTUP_LOCAL_RUNTIME_URL: config.runtimeUrls['local-lightweight'],
    PROJECT_STARTUP_SERVING_RUNTIME_URL:
      config.runtimeUrls['high-throughput-serving'],
    PROJECT_STARTUP_MANAGED_IDENTITY_URL: config.managedIdentityUrl,
    PROJECT_STARTUP_SECRETS_DIR: config.secretsDir,
    PROJECT_STARTUP_TRUSTED_PROXY_SECRET_FILE: config.trustedProxySecretFile,
    PROJECT_STARTUP_INITIALIZE_RATE_LIMIT: rate(config.initializeRateLimit),
    PROJECT_STARTUP_ALLOCATION_RATE_LIMIT: rate(config.allocationRateLimit),
    PROJECT_STARTUP_MAX_CONNECTIONS: config.maxConnections?.toString(),
    PROJECT_STARTUP_REQUEST_TIMEOUT_MS: String(config.requestTimeoutMs),
    PROJECT_STARTUP_PROBE_TIMEOUT_MS: String(config.probeTimeoutMs),
    PROJECT_STARTUP_SESSION_IDLE_SECONDS: String(config.sessions.idleSeconds),
    PROJECT_STARTUP_SESSION_MAX_SECONDS: String(config.sessions.maxSeconds)
  };
  const fromFile = (Object.keys(values) as SiteVariable[]).map(variable => ({
    key: dottedKey(SITE_FILE_KEYS[variable]),
    variable,
    value: values[variable] ?? '(none)',
    origin: config.origins[variable] ?? { source: 'default' as const }
  }));
  const sources = Object.entries(config.modelSources).flatMap(([id, source]) =>
    Object.entries(source ?? {}).map(([field, value]) => ({
      key: `modelSources.${id}.${field}`,
      variable: '',
      value: String(value),
      origin: config.origins[`modelSources.${id}.${field}`] ?? {
        source: 'default' as const
      }
    }))
  );
  const token = env[ENV.token];
  const variableOnly: EffectiveSetting[] = [
    {
      key: ENV.token,
      variable: ENV.token,
      // A secret is never printed: only whether it is set.
      value: token ? 'set' : 'unset (serve generates one)',
      origin: token ? { source: 'env', name: ENV.token } : { source: 'default' }
    },
    {
      key: ENV.logLevel,
      variable: ENV.logLevel,
      value: config.logLevel,
      origin: config.origins[ENV.logLevel] ?? { source: 'default' }
    }
  ];
  return [...fromFile, ...sources, ...variableOnly];
}

export function originText(origin: SettingOrigin): string {
  switch (origin.source) {
    case 'default':
      return 'default';
    case 'file':
      return `file:${origin.path}${origin.line === undefined ? '' : `:${origin.line}`}`;
    default:
      return `${origin.source}:${origin.name}`;
  }
}

export function formatReport(report: ConfigReport): string {
  const out: string[] = [];
  out.push(
    report.file !== undefined
      ? `Site configuration: ${terminalSafe(report.file)} (${report.foundBy})`
      : report.problems.length > 0
        ? `Site configuration: ${terminalSafe(report.problems[0].file)} (refused)`
        : `Site configuration: none found (looked in ${report.looked.map(terminalSafe).join(', ') || `nothing: JUPYTER_NO_CONFIG is set; name one with --config or ${SITE_CONFIG_ENV}`})`
  );
  if (report.problems.length > 0) {
    out.push(
      `${report.problems.length} problem${report.problems.length === 1 ? '' : 's'}:`
    );
    out.push(
      ...report.problems.map(p => `  ${terminalSafe(siteProblemLine(p))}`)
    );
    return `${out.join('\n')}\n`;
  }
  out.push('', 'Effective configuration (origin, key=value):');
  const width = Math.max(
    ...report.settings.map(s => originText(s.origin).length)
  );
  for (const setting of report.settings) {
    out.push(
      `  ${originText(setting.origin).padEnd(width)}  ${terminalSafe(setting.key)}=${terminalSafe(setting.value)}`
    );
  }
  if (report.warnings.length > 0) {
    out.push(
      '',
      `${report.warnings.length} warning${report.warnings.length === 1 ? '' : 's'} (accepted, without effect):`,
      ...report.warnings.map(
        w =>
          `  ${terminalSafe(w.key)} (${terminalSafe(originText(w.origin))}): ${terminalSafe(w.message)}; remove it, or select the platform that uses it.`
      )
    );
  }
  if (report.manifest !== null) {
    out.push('', 'Manifest that would result:');
    const formatted = (
      require('./format') as typeof import('./format')
    ).formatManifest(report.manifest);
    out.push(
      ...formatted
        .trimEnd()
        .split('\n')
        .map(l => `  ${l}`)
    );
  }
  return `${out.join('\n')}\n`;
}
