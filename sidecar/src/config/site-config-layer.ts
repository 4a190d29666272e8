// The site configuration file in the configuration's precedence: found and read once
// (observe/site-config-file.ts), checked (core/site-config-rules.ts), then asked for each setting
// after the environment and before the default, with where each value came from.
import * as path from 'node:path';
import { SettingError } from './errors';
import {
  checkSiteConfigText,
  fileTrustProblems,
  lineOf,
  matrixProblems,
  SITE_CONFIG_ENV,
  SITE_FILE_KEYS,
  siteConfigCandidates,
  SiteConfigCandidate,
  SiteConfigFile,
  siteModelSources,
  siteProblemLine,
  SiteProblem,
  siteSettingText,
  SettingOrigin,
  SiteVariable
} from '../core/site-config-rules';
import { dottedKey } from '../core/site-config-validate';
import { PLATFORM_SETTING, selectPlatform } from '../core/platforms/rules';
import { isPlatformId, PlatformId } from '../core/vocabulary';
import { gatherPlatformEvidence } from '../observe/evidence';
import { readSiteConfigFile } from '../observe/site-config-file';
import { jupyterOrigin } from './jupyter-settings';
import type { Env } from '../core/env';

/** The site configuration as found: the file (if any), where it was looked for, its problems. */
export interface LoadedSiteConfig {
  file: SiteConfigFile | undefined;
  /** The candidates in order; the file read is the first that exists. */
  looked: readonly SiteConfigCandidate[];
  problems: SiteProblem[];
}

/**
 * The site configuration's problems as one refused setting: under jupyter-server-proxy the
 * service answers `misconfigured` with them, in a terminal `serve` exits 2 (as for a variable).
 */
export class SiteConfigError extends SettingError {
  constructor(readonly problems: readonly SiteProblem[]) {
    super(
      problems.length === 1
        ? `The site configuration is refused: ${siteProblemLine(problems[0])}`
        : `The site configuration is refused (${problems.length} problems):\n${problems.map(siteProblemLine).join('\n')}`
    );
    this.name = 'SiteConfigError';
  }
}

/** Where to look: --config, else $PROJECT_STARTUP_CONFIG, else the Jupyter config directories. */
export function siteConfigLookup(
  flagPath: string | undefined,
  env: Env,
  cwd: string,
  homeDir: string | undefined
): { candidates: SiteConfigCandidate[]; problems: SiteProblem[] } {
  if (flagPath !== undefined && flagPath !== '') {
    return {
      candidates: [{ path: path.resolve(cwd, flagPath), scope: 'explicit' }],
      problems: []
    };
  }
  const named = env[SITE_CONFIG_ENV];
  if (named !== undefined && named !== '') {
    if (!path.isAbsolute(named)) {
      // The service's working directory differs per launch (a proxy starts it in the project).
      return {
        candidates: [],
        problems: [
          {
            file: named,
            key: '',
            message: `${SITE_CONFIG_ENV} is not an absolute path`,
            fix: `Set ${SITE_CONFIG_ENV} to the file's absolute path.`
          }
        ]
      };
    }
    return { candidates: [{ path: named, scope: 'explicit' }], problems: [] };
  }
  return { candidates: siteConfigCandidates(env, homeDir), problems: [] };
}

/** Finds, reads and checks the file (every problem, none thrown). */
export function loadSiteConfig(
  flagPath: string | undefined,
  env: Env,
  cwd: string,
  homeDir: string | undefined
): LoadedSiteConfig {
  const { candidates, problems } = siteConfigLookup(
    flagPath,
    env,
    cwd,
    homeDir
  );
  if (problems.length > 0) {
    return { file: undefined, looked: candidates, problems };
  }
  const read = readSiteConfigFile(candidates);
  if (read.kind === 'none') {
    return { file: undefined, looked: candidates, problems: [] };
  }
  if (read.kind === 'refused') {
    return { file: undefined, looked: candidates, problems: [read.problem] };
  }
  const checked = checkSiteConfigText(read.candidate.path, read.text);
  return {
    file: checked.file,
    looked: candidates,
    problems: [
      ...fileTrustProblems(read.facts, checked.file?.document),
      ...checked.problems
    ]
  };
}

/**
 * The platform the file's model sources are checked against: the setting (variable, else the
 * file's), else the one the environment's evidence selects, as the service will. Undefined for
 * a platform setting that is no platform (selectPlatform reports it where the service starts).
 */
export function sitePlatform(
  env: Env,
  platformSetting: string | undefined
): PlatformId | undefined {
  if (platformSetting !== undefined) {
    return isPlatformId(platformSetting) ? platformSetting : undefined;
  }
  return selectPlatform(gatherPlatformEvidence(env)).platform;
}

/**
 * The loaded file's problems, with the matrix's for the platform selected. The platform is
 * asked for only when the file names model sources (the evidence costs a few stat calls).
 */
export function siteProblems(
  loaded: LoadedSiteConfig,
  platform: () => PlatformId | undefined
): SiteProblem[] {
  const file = loaded.file;
  const selected =
    file !== undefined && file.document.modelSources !== undefined
      ? platform()
      : undefined;
  return [
    ...loaded.problems,
    ...(file !== undefined && selected !== undefined
      ? matrixProblems(file, selected)
      : [])
  ];
}

/**
 * Each setting from the environment, else the file, else its default, with its origin. A value
 * the file gave that its parser refuses is a problem of the file (file, line, key), not of a
 * variable.
 */
export class LayeredSettings {
  readonly origins: Record<string, SettingOrigin> = {};

  constructor(
    private readonly env: Env,
    private readonly file: SiteConfigFile | undefined
  ) {}

  /** The value of a variable's setting, or undefined for its default. */
  get(name: string): string | undefined {
    const fromEnv = this.env[name];
    if (fromEnv !== undefined && fromEnv !== '') {
      this.origins[name] = jupyterOrigin(this.env, name, fromEnv) ?? {
        source: 'env',
        name
      };
      return fromEnv;
    }
    const fromFile =
      this.file !== undefined && Object.hasOwn(SITE_FILE_KEYS, name)
        ? siteSettingText(this.file, name as SiteVariable)
        : undefined;
    if (fromFile !== undefined && this.file !== undefined) {
      const line = lineOf(
        this.file.lines,
        SITE_FILE_KEYS[name as SiteVariable]
      );
      this.origins[name] = { source: 'file', path: this.file.path, line };
      return fromFile;
    }
    this.origins[name] = { source: 'default' };
    return undefined;
  }

  /** The platform setting (the variable, else the file's), read by the platform's selection. */
  platform(): string | undefined {
    return this.get(PLATFORM_SETTING);
  }

  /** A refusal of the setting's value: `${name} ${rule}` for a variable, a file problem for the file's. */
  refuse(name: string, rule: string, fix?: string): SettingError {
    const origin = this.origins[name];
    if (origin?.source !== 'file') {
      return new SettingError(
        `${name} ${rule}${fix === undefined ? '' : ` ${fix}`}`
      );
    }
    const key = dottedKey(SITE_FILE_KEYS[name as SiteVariable]);
    return new SiteConfigError([
      {
        file: origin.path,
        line: origin.line,
        key,
        message: `${key} ${rule.replace(/\.$/, '')}`,
        fix: fix ?? `Correct ${key}, or remove it for the default.`
      }
    ]);
  }
}

/** Each model source field the file sets, with its line (modelSources.<id>.<field>). */
export function modelSourceOrigins(
  loaded: LoadedSiteConfig
): Record<string, SettingOrigin> {
  const file = loaded.file;
  const origins: Record<string, SettingOrigin> = {};
  for (const [id, source] of Object.entries(siteModelSources(file))) {
    for (const field of Object.keys(source ?? {})) {
      origins[`modelSources.${id}.${field}`] = {
        source: 'file',
        path: file?.path ?? '',
        line: file?.lines.get(`/modelSources/${id}/${field}`)
      };
    }
  }
  return origins;
}
