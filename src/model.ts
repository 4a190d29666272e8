// The panel's model: what the service last said, what is in flight, the poll that keeps it
// current, and the initialize flow. No JupyterLab import: the server calls and the dialog are
// injected, so the model is tested with fakes and the real projections the sidecar builds.
import { JSONExt, JSONValue } from '@lumino/coreutils';
import { Poll } from '@lumino/polling';
import { ISignal, Signal } from '@lumino/signaling';
import { networkFailure } from './responses';
import {
  DEFAULT_REFRESH_INTERVAL,
  MAX_REFRESH_INTERVAL,
  MIN_REFRESH_INTERVAL
} from './generated/schema-lists';
import {
  Failure,
  InitializeRequest,
  InitializeResponse,
  INTERFACE,
  IStartupClient,
  Phase,
  RECORD_FILE,
  StartupProjection
} from './tokens';

/** What the panel shows as its main content. */
export type View =
  | { kind: 'loading' }
  /** {base_url}project/startup is a 404 of the Jupyter server: the sidecar is not set up. */
  | { kind: 'not-enabled'; failure: Failure }
  /** The sidecar answered with an error, not at all, or with something unexpected. */
  | { kind: 'failing'; failure: Failure }
  /** A startup projection; its phase decides the rest (unsupported, blocked, ..., ready). */
  | { kind: 'loaded'; projection: StartupProjection };

export interface IPanelState {
  view: View;
  /** A refresh is in flight (the view still shows the previous answer). */
  refreshing: boolean;
  /** An initialize request is in flight. */
  initializing: boolean;
  /** Why the last initialize failed; the panel stays usable. */
  initializeFailure?: Failure;
  /** The last successful initialize answer. */
  initialized?: InitializeResponse;
}

/** What the confirmation dialog names. */
export interface IConfirmationTargets {
  projectPath: string;
  statePath: string;
  /** Every path initialize creates: directories outermost first, then the record file. */
  creates: string[];
}

export type InitializeOutcome =
  'initialized' | 'cancelled' | 'failed' | 'unavailable';

/** Shows the confirmation dialog; resolves true only when the person accepted. */
export type ConfirmFunction = (
  targets: IConfirmationTargets,
  projection: StartupProjection
) => Promise<boolean>;

export interface IStartupModelOptions {
  client: IStartupClient;
  confirm: ConfirmFunction;
}

export interface IRefreshOptions {
  /** A person asked (button or command): clears the notices of the last initialize. */
  userInitiated?: boolean;
}

// schema/plugin.json refreshInterval: its default and range, in seconds (generated from it).
export {
  DEFAULT_REFRESH_INTERVAL,
  MAX_REFRESH_INTERVAL,
  MIN_REFRESH_INTERVAL
} from './generated/schema-lists';

/**
 * The longest pause between polls while the service fails: ten intervals, at most five minutes
 * (never less than one interval). Each failed poll through jupyter-server-proxy may launch the
 * sidecar again (and wait out the proxy's start timeout), so a lasting failure must not cost a
 * launch every interval in every open tab; a restart (the usual failure, seconds long) still
 * shows as recovered within a few intervals.
 */
export function backoffCap(intervalMs: number): number {
  return Math.max(intervalMs, Math.min(10 * intervalMs, 5 * 60 * 1000));
}

/**
 * The refresh interval to use for a setting's value: whole seconds in the setting's range, else the
 * default. The settings schema already refuses other values (the registry then falls back to
 * the defaults); this keeps a hand-made or future caller from stopping or flooding the poll.
 */
export function refreshIntervalSeconds(value: unknown): number {
  return typeof value === 'number' &&
    Number.isInteger(value) &&
    value >= MIN_REFRESH_INTERVAL &&
    value <= MAX_REFRESH_INTERVAL
    ? value
    : DEFAULT_REFRESH_INTERVAL;
}

/** `<statePath>/initialization.json`, whatever the state path ends with. */
export function recordPath(statePath: string): string {
  return `${statePath.replace(/\/+$/, '')}/${RECORD_FILE}`;
}

export function confirmationTargets(
  projection: StartupProjection
): IConfirmationTargets {
  const record = recordPath(projection.statePath);
  const creates = projection.confirmation.creates.filter(p => p !== record);
  return {
    projectPath: projection.projectPath,
    statePath: projection.statePath,
    creates: [...creates, record]
  };
}

/**
 * Exactly the body POST initialize takes from this dialog: no `method`, which the service
 * ignores (it records what it observed: Jupyter's XSRF-checked cookie, jupyterlab-dialog).
 */
export function initializeRequest(
  projection: StartupProjection
): InitializeRequest {
  return {
    interface: INTERFACE,
    confirm: {
      projectPath: projection.projectPath,
      statePath: projection.statePath
    }
  };
}

/** Whether this interface may confirm initialization for the projection now. */
export function canConfirmHere(projection: StartupProjection): boolean {
  return (
    projection.phase === 'awaiting-confirmation' &&
    projection.nextAction.id === 'confirm-initialization' &&
    projection.confirmation.allowedInterfaces.includes(INTERFACE)
  );
}

/** Problem codes after which the current projection is out of date. */
const STALE_CODES = new Set([
  'confirmation-stale',
  'wrong-phase',
  'state-unsafe'
]);

export class StartupModel {
  constructor(options: IStartupModelOptions) {
    this._client = options.client;
    this._confirm = options.confirm;
  }

  get stateChanged(): ISignal<this, IPanelState> {
    return this._stateChanged;
  }

  get state(): IPanelState {
    return this._state;
  }

  /** The projection shown, when there is one. */
  get projection(): StartupProjection | undefined {
    return this._state.view.kind === 'loaded'
      ? this._state.view.projection
      : undefined;
  }

  get phase(): Phase | undefined {
    return this.projection?.phase;
  }

  /** Whether "Initialize project" may be pressed now. */
  get canInitialize(): boolean {
    const projection = this.projection;
    return (
      projection !== undefined &&
      !this._state.initializing &&
      canConfirmHere(projection)
    );
  }

  get isDisposed(): boolean {
    return this._isDisposed;
  }

  dispose(): void {
    if (this._isDisposed) {
      return;
    }
    this._isDisposed = true;
    this._poll?.dispose();
    if (typeof document !== 'undefined') {
      document.removeEventListener(
        'visibilitychange',
        this._onVisibilityChange
      );
    }
    Signal.clearData(this);
  }

  /**
   * Asks the service again. A refresh already in flight is shared unless a person asked, or
   * initialize needs a fresh answer; an older answer never overwrites a newer one (a caller of
   * an overtaken refresh gets the newer one's state).
   *
   * A refresh nobody asked for (the poll, the panel activated, the check after initialize)
   * while an answer is shown is quiet: it emits nothing when it starts, and nothing at all when
   * the service answers what is shown already (no re-render, no live-region change). A failure
   * replaces what is shown: an old answer is never kept as current.
   */
  refresh(options: IRefreshOptions = {}): Promise<IPanelState> {
    if (this._pending && !options.userInitiated) {
      return this._pending;
    }
    const seq = ++this._seq;
    const quiet = !options.userInitiated && this._state.view.kind !== 'loading';
    if (!quiet) {
      const update: Partial<IPanelState> = { refreshing: true };
      if (options.userInitiated) {
        update.initializeFailure = undefined;
        update.initialized = undefined;
      }
      this._set(update);
    }
    const pending = this._client
      .startup()
      .catch((error: unknown) => ({
        ok: false as const,
        failure: networkFailure('', error)
      }))
      .then((result): IPanelState | Promise<IPanelState> => {
        if (seq !== this._seq) {
          return this._pending ?? this._state;
        }
        this._pending = undefined;
        const view: View = result.ok
          ? { kind: 'loaded', projection: result.value }
          : {
              kind:
                result.failure.kind === 'not-enabled'
                  ? 'not-enabled'
                  : 'failing',
              failure: result.failure
            };
        this._resumePoll(result.ok);
        if (!(
          quiet &&
          !this._state.refreshing &&
          sameView(view, this._state.view)
        )) {
          this._set({ view, refreshing: false });
        }
        return this._state;
      });
    this._pending = pending;
    return pending;
  }

  /**
   * Keeps the state current by asking the service every `refreshInterval` seconds while the
   * page is visible (Poll's standby 'when-hidden'), and at once when the page becomes visible
   * again. A failed answer makes the poll back off (growing, randomized pauses up to
   * backoffCap); the first answer again resets it to the interval. Idempotent.
   */
  startPolling(): void {
    if (this._isDisposed || this._poll) {
      return;
    }
    const interval = this._intervalSeconds * 1000;
    this._poll = new Poll<IPanelState, Failure>({
      auto: false,
      name: 'jupyterlab-project-startup:startup',
      factory: () => this._pollOnce(),
      // No extra poll once hidden: the standby starts with the first tick after the page hides.
      linger: 0,
      standby: 'when-hidden'
    });
    // Set after construction: the constructor raises `max` to at least 30 s.
    this._poll.frequency =
      interval > 0
        ? { interval, backoff: true, max: backoffCap(interval) }
        : NO_POLLING;
    if (typeof document !== 'undefined') {
      document.addEventListener('visibilitychange', this._onVisibilityChange);
    }
    if (interval > 0) {
      // The first poll comes one interval after the start-up answer (ensureLoaded), not with it.
      void this._poll.schedule({ interval, phase: 'started' });
    }
  }

  /** Follows the refreshInterval setting (seconds; 0 asks only on Refresh and activation). */
  setRefreshInterval(seconds: unknown): void {
    const next = refreshIntervalSeconds(seconds);
    if (next === this._intervalSeconds) {
      return;
    }
    this._intervalSeconds = next;
    const poll = this._poll;
    if (!poll || poll.isDisposed) {
      return;
    }
    if (next === 0) {
      poll.frequency = NO_POLLING;
      void poll.stop();
      return;
    }
    const interval = next * 1000;
    poll.frequency = { interval, backoff: true, max: backoffCap(interval) };
    // The next tick was timed with the old interval; time it with the new one.
    void poll.schedule({ interval, phase: 'started' });
  }

  /** The poll's refresh interval in seconds (0: no polling). */
  get refreshInterval(): number {
    return this._intervalSeconds;
  }

  /** The poll, once startPolling ran (for tests and diagnostics). */
  get poll(): Poll<IPanelState, Failure> | undefined {
    return this._poll;
  }

  /** The current answer, asking the service only when nothing was asked yet. */
  ensureLoaded(): Promise<IPanelState> {
    if (this._pending) {
      return this._pending;
    }
    return this._state.view.kind === 'loading'
      ? this.refresh()
      : Promise.resolve(this._state);
  }

  /**
   * The confirmation flow: the dialog names the paths; cancel sends nothing; accept sends
   * exactly initializeRequest(projection) and shows the phase the service answers with.
   */
  async initialize(): Promise<InitializeOutcome> {
    const projection = this.projection;
    if (projection === undefined || !this.canInitialize) {
      return 'unavailable';
    }
    const accepted = await this._confirm(
      confirmationTargets(projection),
      projection
    );
    if (!accepted || this._isDisposed) {
      return 'cancelled';
    }
    this._set({
      initializing: true,
      initializeFailure: undefined,
      initialized: undefined
    });
    const result = await this._client
      .initialize(initializeRequest(projection))
      .catch((error: unknown) => ({
        ok: false as const,
        failure: networkFailure('', error)
      }));
    if (!result.ok) {
      this._set({ initializing: false, initializeFailure: result.failure });
      const problem =
        result.failure.kind === 'http' ? result.failure.problem : undefined;
      if (problem && STALE_CODES.has(problem.code)) {
        await this.refresh({});
      }
      return 'failed';
    }
    const answer = result.value;
    const current = this.projection ?? projection;
    // Show the phase the service answered with at once; the refresh then brings the checks.
    this._seq++;
    this._pending = undefined;
    this._set({
      initializing: false,
      initialized: answer,
      view: {
        kind: 'loaded',
        projection: {
          ...current,
          phase: answer.phase,
          nextAction: answer.nextAction,
          confirmation: {
            ...current.confirmation,
            confirmed: true,
            creates: [],
            record: answer.record
          }
        }
      }
    });
    await this.refresh({});
    return 'initialized';
  }

  /**
   * One poll: a quiet refresh (shared with one in flight). It rejects when the service failed,
   * so Poll backs off. While initialize is in flight it asks nothing: initialize refreshes when
   * it ends, and an answer racing its POST would show a phase that is about to change.
   */
  private async _pollOnce(): Promise<IPanelState> {
    if (this._state.initializing) {
      return this._state;
    }
    const state = await this.refresh();
    if (state.view.kind === 'failing' || state.view.kind === 'not-enabled') {
      throw state.view.failure;
    }
    return state;
  }

  /**
   * The service answered while the poll backs off (Refresh, the panel activated, or the poll
   * itself): poll at the interval again at once, rather than after the backoff's pause.
   */
  private _resumePoll(succeeded: boolean): void {
    const poll = this._poll;
    if (
      succeeded &&
      poll &&
      !poll.isDisposed &&
      poll.state.phase === 'rejected' &&
      this._intervalSeconds > 0
    ) {
      void poll.schedule({
        interval: this._intervalSeconds * 1000,
        phase: 'reconnected'
      });
    }
  }

  /** The page became visible again: ask at once rather than at the next tick. */
  private _onVisibilityChange = (): void => {
    const poll = this._poll;
    if (
      document.visibilityState === 'visible' &&
      poll &&
      !poll.isDisposed &&
      poll.state.phase === 'standby' &&
      this._intervalSeconds > 0
    ) {
      void poll.refresh();
    }
  };

  private _set(update: Partial<IPanelState>): void {
    if (this._isDisposed) {
      return;
    }
    this._state = { ...this._state, ...update };
    this._stateChanged.emit(this._state);
  }

  private _client: IStartupClient;
  private _confirm: ConfirmFunction;
  private _state: IPanelState = {
    view: { kind: 'loading' },
    refreshing: false,
    initializing: false
  };
  private _stateChanged = new Signal<this, IPanelState>(this);
  private _pending: Promise<IPanelState> | undefined;
  private _seq = 0;
  private _isDisposed = false;
  private _poll: Poll<IPanelState, Failure> | undefined;
  private _intervalSeconds = DEFAULT_REFRESH_INTERVAL;
}

const NO_POLLING = { interval: Poll.NEVER, backoff: true, max: Poll.NEVER };

/** Whether two views show the same thing (the answers are JSON). */
function sameView(a: View, b: View): boolean {
  return JSONExt.deepEqual(
    a as unknown as JSONValue,
    b as unknown as JSONValue
  );
}
