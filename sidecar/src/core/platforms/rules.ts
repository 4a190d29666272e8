// Platform selection as data: which signals exist, which rules read them, in which order.
// `selectPlatform` is pure: same evidence, same decision (no network, randomness or clock).
import { isPlatformId, PLATFORM_IDS, PlatformId } from '../vocabulary';

export type SignalKind = 'env' | 'file' | 'setting';

export interface SignalDefinition {
  /** An environment variable name or an absolute file path: what is looked at, never its value. */
  name: string;
  kind: 'env' | 'file';
  platform: PlatformId;
  meaning: string;
}

/** Everything the gatherer looks for, in the order it is reported. */
export const SIGNAL_DEFINITIONS: readonly SignalDefinition[] = [
  {
    name: 'SLURM_JOB_ID',
    kind: 'env',
    platform: 'cluster',
    meaning: 'Slurm allocation'
  },
  {
    name: 'PBS_JOBID',
    kind: 'env',
    platform: 'cluster',
    meaning: 'PBS allocation'
  },
  {
    name: 'LSB_JOBID',
    kind: 'env',
    platform: 'cluster',
    meaning: 'LSF allocation'
  },
  {
    name: 'FLUX_JOB_ID',
    kind: 'env',
    platform: 'cluster',
    meaning: 'Flux allocation'
  },
  {
    name: 'SLURM_CONF',
    kind: 'env',
    platform: 'cluster',
    meaning: 'Slurm client configuration'
  },
  {
    name: '/etc/slurm/slurm.conf',
    kind: 'file',
    platform: 'cluster',
    meaning: 'Slurm client configuration'
  },
  {
    name: 'JUPYTERHUB_API_URL',
    kind: 'env',
    platform: 'hosted-notebook',
    meaning: 'JupyterHub spawner'
  },
  {
    name: 'JUPYTERHUB_USER',
    kind: 'env',
    platform: 'hosted-notebook',
    meaning: 'JupyterHub spawner'
  },
  {
    name: '/.dockerenv',
    kind: 'file',
    platform: 'generic',
    meaning: 'Docker container'
  },
  {
    name: '/run/.containerenv',
    kind: 'file',
    platform: 'generic',
    meaning: 'Podman container'
  },
  {
    name: 'KUBERNETES_SERVICE_HOST',
    kind: 'env',
    platform: 'generic',
    meaning: 'Kubernetes pod'
  },
  {
    name: 'APPTAINER_CONTAINER',
    kind: 'env',
    platform: 'generic',
    meaning: 'Apptainer container'
  },
  {
    name: 'SINGULARITY_CONTAINER',
    kind: 'env',
    platform: 'generic',
    meaning: 'Singularity container'
  },
  {
    name: 'container',
    kind: 'env',
    platform: 'generic',
    meaning: 'container runtime (Podman, systemd-nspawn)'
  }
];

/** Container markers describe the host; they never select a platform on their own. */
export const CONTAINER_SIGNALS: readonly string[] = [
  '/.dockerenv',
  '/run/.containerenv',
  'KUBERNETES_SERVICE_HOST',
  'APPTAINER_CONTAINER',
  'SINGULARITY_CONTAINER',
  'container'
];

export const PLATFORM_SETTING = 'PROJECT_STARTUP_PLATFORM';

export type RuleId =
  | 'operator-setting'
  | 'batch-scheduler'
  | 'hosted-notebook-spawner'
  | 'default';

export interface PlatformRule {
  id: RuleId;
  platform: PlatformId;
  /** `any`: one of the signals decides; `all`: every one must be present. */
  match: 'any' | 'all';
  signals: readonly string[];
}

/** Ordered, first match decides; the more restrictive platform comes first. */
export const PLATFORM_RULES: readonly PlatformRule[] = [
  {
    id: 'batch-scheduler',
    platform: 'cluster',
    match: 'any',
    signals: [
      'SLURM_JOB_ID',
      'PBS_JOBID',
      'LSB_JOBID',
      'FLUX_JOB_ID',
      'SLURM_CONF',
      '/etc/slurm/slurm.conf'
    ]
  },
  {
    id: 'hosted-notebook-spawner',
    platform: 'hosted-notebook',
    match: 'all',
    signals: ['JUPYTERHUB_API_URL', 'JUPYTERHUB_USER']
  },
  { id: 'default', platform: 'generic', match: 'any', signals: [] }
];

/** What was seen, as names only. */
export interface PlatformEvidence {
  /** Names of SIGNAL_DEFINITIONS entries that were present. */
  present: ReadonlySet<string>;
  /** The operator's PROJECT_STARTUP_PLATFORM, when set and not empty. */
  operatorSetting?: string;
  /**
   * Where the operator setting came from, as the evidence names it: the variable (the default)
   * or the site file's `platform` key, so a person is sent to the place that set it.
   */
  operatorSettingName?: string;
}

/** The evidence's name for a site file's `platform` key. */
export function siteFilePlatformSetting(file: string): string {
  return `platform in ${file}`;
}

export interface Signal {
  name: string;
  kind: SignalKind;
  platform: PlatformId;
}

export interface PlatformDecision {
  platform: PlatformId;
  decidedBy: RuleId;
  /** Every signal seen, in table order (the operator setting first). */
  signals: Signal[];
  /** Signals that point at a platform other than the one selected. */
  overruled: Signal[];
  host: 'workstation' | 'container';
}

export class InvalidPlatformSetting extends Error {
  constructor(readonly value: string) {
    super(
      `${PLATFORM_SETTING} must be one of ${PLATFORM_IDS.join(', ')}; ` +
        'it is set to an unknown value. Unset it to select the platform from evidence.'
    );
    this.name = 'InvalidPlatformSetting';
  }
}

/**
 * The platform a setting names, or undefined when it is unset: the one check of
 * PROJECT_STARTUP_PLATFORM. resolveConfig (config.ts) runs it before anything is made or
 * searched, so `serve`, the client commands and `config check` refuse the same value with the
 * same words.
 */
export function platformSetting(
  value: string | undefined
): PlatformId | undefined {
  if (value !== undefined && !isPlatformId(value)) {
    throw new InvalidPlatformSetting(value);
  }
  return value;
}

export function selectPlatform(evidence: PlatformEvidence): PlatformDecision {
  const seen: Signal[] = SIGNAL_DEFINITIONS.filter(d =>
    evidence.present.has(d.name)
  ).map(d => ({
    name: d.name,
    kind: d.kind,
    platform: d.platform
  }));
  const host = seen.some(s => CONTAINER_SIGNALS.includes(s.name))
    ? 'container'
    : 'workstation';

  let platform: PlatformId;
  let decidedBy: RuleId;
  const signals = [...seen];
  const setting = platformSetting(evidence.operatorSetting);
  if (setting !== undefined) {
    platform = setting;
    decidedBy = 'operator-setting';
    signals.unshift({
      name: evidence.operatorSettingName ?? PLATFORM_SETTING,
      kind: 'setting',
      platform
    });
  } else {
    const rule = PLATFORM_RULES.find(r =>
      ruleMatches(r, evidence.present)
    ) as PlatformRule;
    platform = rule.platform;
    decidedBy = rule.id;
  }
  const competing = new Set(PLATFORM_RULES.flatMap(r => r.signals));
  const overruled = seen.filter(
    s => competing.has(s.name) && s.platform !== platform
  );
  return { platform, decidedBy, signals, overruled, host };
}

function ruleMatches(
  rule: PlatformRule,
  present: ReadonlySet<string>
): boolean {
  if (rule.signals.length === 0) {
    return true;
  }
  return rule.match === 'all'
    ? rule.signals.every(name => present.has(name))
    : rule.signals.some(name => present.has(name));
}
