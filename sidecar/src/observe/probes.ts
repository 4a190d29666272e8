// The I/O the projection needs on every request: each probe is bounded in time, and the slow
// ones (scheduler, HTTP) are single-flight and cached briefly so load never multiplies them.
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import * as os from 'node:os';
import {
  isJobId,
  isOwnJob,
  jobQuery,
  JobUser,
  parseJobAnswer
} from '../core/allocation-claim';
import type {
  AllocationEvidence,
  CredentialObservation,
  HttpProbe,
  ProjectPathObservation
} from '../core/observations';
import type {
  AllocationObservation,
  SchedulerId
} from '../core/platforms/types';

// Loaded when first needed rather than at start-up: a scheduler or D-Bus client is asked only
// on some platforms, and https only for https probe URLs.
const childProcess = () =>
  require('node:child_process') as typeof import('node:child_process');
const httpsModule = () => require('node:https') as typeof import('node:https');

/** SingleFlight.now()'s answer when only waiting would give the value. */
export const NOT_READY: unique symbol = Symbol('not ready');

/**
 * Caches one async value for `ttlMs`; concurrent callers share the call in flight. With
 * `serveStale`, an expired value is still answered at once while one refresh runs behind it,
 * so a slow probe delays only the very first request.
 */
export class SingleFlight<T> {
  private value: { at: number; result: T } | undefined;
  private inFlight: Promise<T> | undefined;

  constructor(
    private readonly ttlMs: number,
    private readonly load: () => Promise<T>,
    private readonly serveStale = false
  ) {}

  get(): Promise<T> {
    const value = this.value;
    if (value && Date.now() - value.at < this.ttlMs) {
      return Promise.resolve(value.result);
    }
    const refresh = this.refresh();
    return value && this.serveStale ? Promise.resolve(value.result) : refresh;
  }

  /**
   * What get() would resolve to at once, without the promise: the cached value (starting the
   * same refresh get() would start when it is stale), or NOT_READY when a caller would wait.
   */
  now(): T | typeof NOT_READY {
    const value = this.value;
    if (value && Date.now() - value.at < this.ttlMs) {
      return value.result;
    }
    this.refresh();
    return value && this.serveStale ? value.result : NOT_READY;
  }

  private refresh(): Promise<T> {
    if (!this.inFlight) {
      this.inFlight = this.load().then(
        result => {
          this.value = { at: Date.now(), result };
          this.inFlight = undefined;
          return result;
        },
        error => {
          this.inFlight = undefined;
          throw error;
        }
      );
      // A background refresh nobody awaits must not become an unhandled rejection.
      this.inFlight.catch(() => undefined);
    }
    return this.inFlight;
  }
}

/**
 * At most `limit` loads at once; one more is refused at once with `refuse()`'s error, never
 * queued, so callers cannot pile up processes behind it.
 */
export class ConcurrencyLimit {
  private running = 0;

  constructor(
    private readonly limit: number,
    private readonly refuse: () => Error
  ) {}

  run<T>(load: () => Promise<T>): Promise<T> {
    if (this.running >= this.limit) {
      return Promise.reject(this.refuse());
    }
    this.running += 1;
    let loading: Promise<T>;
    try {
      loading = load();
    } catch (error) {
      loading = Promise.reject(error);
    }
    return loading.finally(() => {
      this.running -= 1;
    });
  }
}

/** The project directory must exist, be a directory we can write, and still be where it was. */
export function observeProjectPath(
  projectPath: string
): ProjectPathObservation {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(projectPath);
  } catch {
    return {
      ok: false,
      observed: 'does not exist',
      remedy: `Create ${projectPath} or start the service in an existing project directory (--project-dir).`
    };
  }
  if (!stat.isDirectory()) {
    return {
      ok: false,
      observed: 'is not a directory',
      remedy: `Point --project-dir at a directory; ${projectPath} is a file.`
    };
  }
  if (fs.realpathSync.native(projectPath) !== projectPath) {
    return {
      ok: false,
      observed:
        'is no longer the directory the service started in (a symbolic link took its place)',
      remedy: `Put the real directory back at ${projectPath}, or restart the service for the new location.`
    };
  }
  try {
    fs.accessSync(projectPath, fs.constants.W_OK | fs.constants.X_OK);
  } catch {
    return {
      ok: false,
      observed: 'is not writable by you',
      remedy:
        'Choose a project directory you can write to, or ask its owner for write access.'
    };
  }
  return { ok: true, observed: 'is an existing directory you can write to' };
}

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

function childEnvironment(
  env: Readonly<Record<string, string | undefined>>,
  client: ChildClient
): NodeJS.ProcessEnv {
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
export function childEnvironments(
  env: Readonly<Record<string, string | undefined>>
): ChildEnvironments {
  return {
    slurm: childEnvironment(env, 'slurm'),
    pbs: childEnvironment(env, 'pbs'),
    lsf: childEnvironment(env, 'lsf'),
    flux: childEnvironment(env, 'flux'),
    dbus: childEnvironment(env, 'dbus')
  };
}

/** Scheduler states in which an allocation can run work. */
const LIVE_STATES: Readonly<Record<SchedulerId, readonly string[]>> = {
  // COMPLETING and STAGE_OUT are a job on its way out: no longer somewhere to work.
  slurm: ['RUNNING', 'CONFIGURING', 'SUSPENDED', 'RESIZING', 'SIGNALING'],
  pbs: ['R', 'E', 'B', 'S', 'U'],
  lsf: ['RUN', 'PSUSP', 'USUSP', 'SSUSP'],
  flux: ['RUN']
};

/** What each client says on stderr for a job it does not know. */
const UNKNOWN_JOB = /invalid job id|unknown job|does not exist|not found/i;

/** The user this process runs as (os.userInfo: getpwuid, on macOS too); undefined on Windows. */
export function currentJobUser(): JobUser | undefined {
  try {
    const { username, uid } = os.userInfo();
    if (username !== '') {
      return { name: username, uid };
    }
  } catch {
    // No account entry (a container's arbitrary uid): schedulers then print the number.
  }
  const uid = process.getuid?.();
  return uid === undefined ? undefined : { name: String(uid), uid };
}

/**
 * Asks the scheduler for the job's state and owner. Live only for a job of `user` in a live
 * state: a job of someone else is never this person's compute, whatever its state.
 */
export function probeAllocation(
  allocation: AllocationEvidence,
  timeoutMs: number,
  envs: ChildEnvironments,
  user: JobUser | undefined
): Promise<AllocationObservation> {
  const { scheduler, jobId } = allocation;
  if (jobId === undefined) {
    return Promise.resolve({
      scheduler,
      live: false,
      detail: 'no allocation in this environment'
    });
  }
  if (!isJobId(jobId)) {
    return Promise.resolve({
      scheduler,
      jobId,
      live: false,
      detail: 'the job id in the environment is malformed'
    });
  }
  const [command, args] = jobQuery(scheduler, jobId);
  return new Promise(resolve => {
    childProcess().execFile(
      command,
      args,
      { timeout: timeoutMs, env: envs[scheduler], maxBuffer: 64 * 1024 },
      (error, stdout, stderr) => {
        const code = (error as NodeJS.ErrnoException | null)?.code;
        if (code === 'ENOENT') {
          resolve({
            scheduler,
            jobId,
            live: null,
            detail: `\`${command}\` is not installed here, so the allocation's liveness is unknown`
          });
          return;
        }
        if (error && UNKNOWN_JOB.test(stderr)) {
          resolve({
            scheduler,
            jobId,
            live: false,
            detail: `the scheduler does not know job ${jobId}`
          });
          return;
        }
        if (error) {
          const why = (error as { killed?: boolean }).killed
            ? `did not answer within ${timeoutMs} ms`
            : 'failed';
          resolve({
            scheduler,
            jobId,
            live: false,
            detail: `\`${command}\` ${why} when asked about job ${jobId}`
          });
          return;
        }
        const { state, owner } = parseJobAnswer(scheduler, stdout);
        if (state === '') {
          resolve({
            scheduler,
            jobId,
            live: false,
            detail: `the scheduler does not know job ${jobId}`
          });
          return;
        }
        if (user === undefined || owner === '') {
          resolve({
            scheduler,
            jobId,
            live: false,
            state,
            detail:
              user === undefined
                ? `this service's user has no name, so job ${jobId} cannot be checked as yours`
                : `\`${command}\` did not say whose job ${jobId} is, so it cannot be checked as yours`
          });
          return;
        }
        if (!isOwnJob(owner, user)) {
          resolve({
            scheduler,
            jobId,
            live: false,
            state,
            otherOwner: owner,
            detail: `job ${jobId} belongs to ${owner}, not to ${user.name}`
          });
          return;
        }
        const live = LIVE_STATES[scheduler].includes(state);
        resolve({
          scheduler,
          jobId,
          live,
          state,
          detail: live
            ? `job ${jobId} is ${state}`
            : `job ${jobId} is ${state}, so the allocation is gone`
        });
      }
    );
  });
}

/** One bounded GET: reachable means an HTTP answer below 500 within the time bound. */
export function probeHttp(url: string, timeoutMs: number): Promise<HttpProbe> {
  const target = new URL(url);
  const display = `${target.protocol}//${target.host}${target.pathname}`;
  return new Promise(resolve => {
    const client = target.protocol === 'https:' ? httpsModule() : http;
    const done = (reachable: boolean, observed: string) =>
      resolve({ url: display, reachable, observed });
    const request = client.get(
      target,
      { timeout: timeoutMs, headers: { accept: 'application/json' } },
      response => {
        response.resume();
        const status = response.statusCode ?? 0;
        done(status < 500, `answered HTTP ${status} at ${display}`);
      }
    );
    request.on('timeout', () => request.destroy(new Error('timeout')));
    request.on('error', error => {
      const reason =
        error.message === 'timeout'
          ? `no answer within ${timeoutMs} ms`
          : 'not reachable';
      done(false, `${reason} at ${display}`);
    });
  });
}

/** Variable names that look like they hold a credential. Only names are ever reported. */
export const CREDENTIAL_NAME =
  /(TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY|ACCESS_KEY|CREDENTIAL|PRIVATE_KEY)/i;

/** Credential-like names in the environment; the service's own settings are not model credentials. */
export function credentialVariableNames(
  env: Readonly<Record<string, string | undefined>>
): string[] {
  return Object.keys(env)
    .filter(
      name =>
        !name.startsWith('PROJECT_STARTUP_') &&
        CREDENTIAL_NAME.test(name) &&
        env[name] !== undefined &&
        env[name] !== ''
    )
    .sort();
}

/**
 * The mounted-file backend: an operator-configured directory of secret files. Only existence
 * and permissions are looked at (stat); no secret is read. The directory is listed again only
 * when its mtime changes, so requests do not keep reading it.
 */
export class MountedSecretsObserver {
  private listing: { mtimeMs: number; names: string[] } | undefined;

  constructor(private readonly secretsDir: string | undefined) {}

  observe(): CredentialObservation {
    const backend = 'mounted-file' as const;
    if (this.secretsDir === undefined) {
      return {
        backend,
        available: false,
        observed: 'not configured (PROJECT_STARTUP_SECRETS_DIR)'
      };
    }
    const dir = path.resolve(this.secretsDir);
    let stat: fs.Stats;
    try {
      stat = fs.statSync(dir);
    } catch {
      return {
        backend,
        available: false,
        observed: 'the configured secrets directory does not exist'
      };
    }
    if (!stat.isDirectory()) {
      return {
        backend,
        available: false,
        observed: 'the configured secrets directory is not a directory'
      };
    }
    // Names in the directory are not secret, but others must not be able to swap the files:
    // writable by others is refused unless the sticky bit guards it (Kubernetes mounts: 1777).
    if ((stat.mode & 0o002) !== 0 && (stat.mode & 0o1000) === 0) {
      return {
        backend,
        available: false,
        observed: 'the configured secrets directory is writable by other users'
      };
    }
    if (this.listing?.mtimeMs !== stat.mtimeMs) {
      // Dot entries are the mount's own bookkeeping (Kubernetes' ..data links), not secrets.
      this.listing = {
        mtimeMs: stat.mtimeMs,
        names: fs
          .readdirSync(dir)
          .filter(n => !n.startsWith('.'))
          .sort()
      };
    }
    const files = this.listing.names.filter(name => {
      try {
        return fs.statSync(path.join(dir, name)).isFile();
      } catch {
        return false;
      }
    });
    if (files.length === 0) {
      return {
        backend,
        available: false,
        observed: 'the configured secrets directory holds no secret files'
      };
    }
    const open = files.filter(
      name => (fs.statSync(path.join(dir, name)).mode & 0o077) !== 0
    );
    if (open.length > 0) {
      return {
        backend,
        available: false,
        observed: `${open.length} of ${files.length} secret file(s) are readable by others (make them mode 0600 or 0400; for Kubernetes set defaultMode: 0400)`
      };
    }
    return {
      backend,
      available: true,
      observed: `${files.length} private secret file(s) present`
    };
  }
}

/**
 * The system keyring: asks the session bus whether a Secret Service (org.freedesktop.secrets)
 * answers, by reading its list of collections. No item, attribute or secret is read.
 */
export function probeSecretService(
  envs: ChildEnvironments,
  timeoutMs: number
): Promise<CredentialObservation> {
  const backend = 'system-keyring' as const;
  const env = envs.dbus;
  if (!env.DBUS_SESSION_BUS_ADDRESS) {
    return Promise.resolve({
      backend,
      available: false,
      observed: 'no D-Bus session, so no Secret Service can answer'
    });
  }
  const args = [
    '--session',
    '--print-reply',
    `--reply-timeout=${timeoutMs}`,
    '--dest=org.freedesktop.secrets',
    '/org/freedesktop/secrets',
    'org.freedesktop.DBus.Properties.Get',
    'string:org.freedesktop.Secret.Service',
    'string:Collections'
  ];
  return new Promise(resolve => {
    childProcess().execFile(
      'dbus-send',
      args,
      { env, timeout: timeoutMs + 500, maxBuffer: 64 * 1024 },
      (error, stdout) => {
        if ((error as NodeJS.ErrnoException | null)?.code === 'ENOENT') {
          resolve({
            backend,
            available: false,
            observed:
              '`dbus-send` is not installed, so the Secret Service could not be asked'
          });
        } else if (error) {
          resolve({
            backend,
            available: false,
            observed: 'no Secret Service answers on the D-Bus session'
          });
        } else {
          const collections = (stdout.match(/object path "/g) ?? []).length;
          resolve({
            backend,
            available: true,
            observed: `a Secret Service answers on the D-Bus session (${collections} collection(s))`
          });
        }
      }
    );
  });
}
