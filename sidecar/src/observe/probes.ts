// The I/O the projection needs on every request: each probe is bounded in time, and the slow
// ones (scheduler, HTTP) are single-flight and cached briefly so load never multiplies them.
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { HttpProbe, ProjectPathObservation } from '../core/observations';
import { Lstat, lstatOrUndefined } from './lstat';

export { currentJobUser, probeAllocation } from './allocation';
export { childEnvironments, CREDENTIAL_NAME } from './child-env';
export type { ChildClient, ChildEnvironments } from './child-env';
export {
  credentialVariableNames,
  MountedSecretsObserver,
  probeSecretService
} from './credential-backends';

// Loaded when first needed rather than at start-up: https only for https probe URLs.
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

/** Which directory a path named when the service started: the project path's identity. */
export interface DirectoryIdentity {
  dev: number;
  ino: number;
}

/** The identity of the directory at `p` now; undefined if there is none. */
export function directoryIdentity(p: string): DirectoryIdentity | undefined {
  try {
    const stat = fs.statSync(p, { throwIfNoEntry: false });
    return stat?.isDirectory() ? { dev: stat.dev, ino: stat.ino } : undefined;
  } catch {
    return undefined;
  }
}

const NOT_WHERE_IT_WAS = (projectPath: string): ProjectPathObservation => ({
  ok: false,
  observed:
    'is no longer the directory the service started in (a symbolic link took its place)',
  remedy: `Put the real directory back at ${projectPath}, or restart the service for the new location.`
});

/**
 * The project directory must exist, be a directory we can write, and still be where it was:
 * the very directory the service started with (`startedIn`, same device and inode) needs no
 * more looking; another one (recreated, or reached through a link) counts while no component
 * of its path is a symbolic link.
 */
export function observeProjectPath(
  projectPath: string,
  startedIn: DirectoryIdentity | undefined,
  lstat: Lstat = lstatOrUndefined
): ProjectPathObservation {
  let stat: fs.Stats | undefined;
  try {
    stat = lstat(projectPath);
  } catch {
    stat = undefined;
  }
  if (stat === undefined) {
    return {
      ok: false,
      observed: 'does not exist',
      remedy: `Create ${projectPath} or start the service in an existing project directory (--project-dir).`
    };
  }
  if (stat.isSymbolicLink()) {
    return NOT_WHERE_IT_WAS(projectPath);
  }
  if (!stat.isDirectory()) {
    return {
      ok: false,
      observed: 'is not a directory',
      remedy: `Point --project-dir at a directory; ${projectPath} is a file.`
    };
  }
  const same =
    startedIn !== undefined &&
    stat.dev === startedIn.dev &&
    stat.ino === startedIn.ino;
  if (!same && fs.realpathSync.native(projectPath) !== projectPath) {
    return NOT_WHERE_IT_WAS(projectPath);
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
