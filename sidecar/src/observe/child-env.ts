// What each child process this service runs (a scheduler client, dbus-send) may see of its
// environment.
import type { SchedulerId } from '../core/platforms/types';
import type { Env } from '../core/env';

/** Variable names that look like they hold a credential. Only names are ever reported. */
export const CREDENTIAL_NAME =
  /(TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY|ACCESS_KEY|CREDENTIAL|PRIVATE_KEY)/i;

/**
 * The environment each child process gets: an allow-list per client, never the whole
 * environment, so provider credentials (API keys, cloud secrets) stay in this process, and one
 * client's credential never reaches another. Every client gets the search path and locale, the
 * home and temporary directories, and the library path a module system sets for a site's
 * scheduler client. Each scheduler client gets its own scheduler's variables only (configuration,
 * server, the job id): squeue gets SLURM_*, including SLURM_JWT, the Slurm credential that
 * clients at sites with auth/jwt present to slurmctld (without it squeue cannot ask there);
 * qstat, bjobs, flux and dbus-send never see it. dbus-send gets the D-Bus session address and
 * XDG_RUNTIME_DIR, where the bus socket lives. A name that looks like a credential is dropped
 * even under an allowed prefix. SQUEUE_* and the like are left out: they would change the output
 * format the probe parses.
 */
export type ChildClient = SchedulerId | 'dbus';
export type ChildEnvironments = Readonly<
  Record<ChildClient, NodeJS.ProcessEnv>
>;

const CHILD_ENV_NAMES = [
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'LANG',
  'LANGUAGE',
  'TZ',
  'TMPDIR',
  'LD_LIBRARY_PATH'
];
const CHILD_ENV_EXTRA_NAMES: Readonly<Record<ChildClient, readonly string[]>> =
  {
    slurm: [],
    pbs: [],
    lsf: [],
    flux: [],
    dbus: ['DBUS_SESSION_BUS_ADDRESS', 'XDG_RUNTIME_DIR']
  };
const CHILD_ENV_PREFIXES: Readonly<Record<ChildClient, readonly string[]>> = {
  slurm: ['LC_', 'SLURM_'],
  pbs: ['LC_', 'PBS_'],
  lsf: ['LC_', 'LSB_', 'LSF_'],
  flux: ['LC_', 'FLUX_'],
  dbus: ['LC_']
};

function childEnvironment(env: Env, client: ChildClient): NodeJS.ProcessEnv {
  const names = new Set([...CHILD_ENV_NAMES, ...CHILD_ENV_EXTRA_NAMES[client]]);
  const prefixes = CHILD_ENV_PREFIXES[client];
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || CREDENTIAL_NAME.test(name)) {
      continue;
    }
    if (names.has(name) || prefixes.some(prefix => name.startsWith(prefix))) {
      out[name] = value;
    }
  }
  return out;
}

/** Each child client's environment; probeAllocation and probeSecretService pick their own. */
export function childEnvironments(env: Env): ChildEnvironments {
  return {
    slurm: childEnvironment(env, 'slurm'),
    pbs: childEnvironment(env, 'pbs'),
    lsf: childEnvironment(env, 'lsf'),
    flux: childEnvironment(env, 'flux'),
    dbus: childEnvironment(env, 'dbus')
  };
}
