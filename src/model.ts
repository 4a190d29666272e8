// The panel's model: what the service last said, what is in flight, and the initialize flow.
// No JupyterLab import: the server calls and the dialog are injected, so the model is tested
// with fakes and the real projections the sidecar builds.
import { ISignal, Signal } from '@lumino/signaling';
import { networkFailure } from './responses';
import {
  CONFIRMATION_METHOD,
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

export interface PanelState {
  view: View;
  /** A refresh is in flight (the view still shows the previous answer). */
  refreshing: boolean;
  /**
   * The refresh in flight is one nobody asked for (the panel opened again, the check after
   * initialize) while an answer is shown: the live region keeps its text, so an unchanged
   * answer announces nothing and a phase is announced once.
   */
  quietRefresh?: boolean;
  /** An initialize request is in flight. */
  initializing: boolean;
  /** Why the last initialize failed; the panel stays usable. */
  initializeFailure?: Failure;
  /** The last successful initialize answer. */
  initialized?: InitializeResponse;
}

/** What the confirmation dialog names. */
export interface ConfirmationTargets {
  projectPath: string;
  statePath: string;
  /** Every path initialize creates: directories outermost first, then the record file. */
  creates: string[];
}

export type InitializeOutcome = 'initialized' | 'cancelled' | 'failed' | 'unavailable';

/** Shows the confirmation dialog; resolves true only when the person accepted. */
export type ConfirmFunction = (targets: ConfirmationTargets, projection: StartupProjection) => Promise<boolean>;

export interface StartupModelOptions {
  client: IStartupClient;
  confirm: ConfirmFunction;
}

export interface RefreshOptions {
  /** A person asked (button or command): clears the notices of the last initialize. */
  userInitiated?: boolean;
}

/** `<statePath>/initialization.json`, whatever the state path ends with. */
export function recordPath(statePath: string): string {
  return `${statePath.replace(/\/+$/, '')}/${RECORD_FILE}`;
}

export function confirmationTargets(projection: StartupProjection): ConfirmationTargets {
  const record = recordPath(projection.statePath);
  const creates = projection.confirmation.creates.filter(p => p !== record);
  return { projectPath: projection.projectPath, statePath: projection.statePath, creates: [...creates, record] };
}

/** Exactly the body POST initialize takes from this dialog. */
export function initializeRequest(projection: StartupProjection): InitializeRequest {
  return {
    interface: INTERFACE,
    method: CONFIRMATION_METHOD,
    confirm: { projectPath: projection.projectPath, statePath: projection.statePath }
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
const STALE_CODES = new Set(['confirmation-stale', 'wrong-phase', 'state-unsafe']);

export class StartupModel {
  constructor(options: StartupModelOptions) {
    this._client = options.client;
    this._confirm = options.confirm;
  }

  get stateChanged(): ISignal<this, PanelState> {
    return this._stateChanged;
  }

  get state(): PanelState {
    return this._state;
  }

  /** The projection shown, when there is one. */
  get projection(): StartupProjection | undefined {
    return this._state.view.kind === 'loaded' ? this._state.view.projection : undefined;
  }

  get phase(): Phase | undefined {
    return this.projection?.phase;
  }

  /** Whether "Initialize project" may be pressed now. */
  get canInitialize(): boolean {
    const projection = this.projection;
    return projection !== undefined && !this._state.initializing && canConfirmHere(projection);
  }

  get isDisposed(): boolean {
    return this._isDisposed;
  }

  dispose(): void {
    if (this._isDisposed) {
      return;
    }
    this._isDisposed = true;
    Signal.clearData(this);
  }

  /**
   * Asks the service again. A refresh already in flight is shared unless a person asked, or
   * initialize needs a fresh answer; an older answer never overwrites a newer one.
   */
  refresh(options: RefreshOptions = {}): Promise<PanelState> {
    if (this._pending && !options.userInitiated) {
      return this._pending;
    }
    const seq = ++this._seq;
    const update: Partial<PanelState> = { refreshing: true, quietRefresh: !options.userInitiated && this._state.view.kind !== 'loading' };
    if (options.userInitiated) {
      update.initializeFailure = undefined;
      update.initialized = undefined;
    }
    this._set(update);
    const pending = this._client
      .startup()
      .catch((error: unknown) => ({ ok: false as const, failure: networkFailure('', error) }))
      .then(result => {
      if (seq === this._seq) {
        this._pending = undefined;
        if (result.ok) {
          this._set({ view: { kind: 'loaded', projection: result.value }, refreshing: false, quietRefresh: false });
        } else {
          const kind = result.failure.kind === 'not-enabled' ? 'not-enabled' : 'failing';
          this._set({ view: { kind, failure: result.failure }, refreshing: false, quietRefresh: false });
        }
      }
      return this._state;
    });
    this._pending = pending;
    return pending;
  }

  /** The current answer, asking the service only when nothing was asked yet. */
  ensureLoaded(): Promise<PanelState> {
    if (this._pending) {
      return this._pending;
    }
    return this._state.view.kind === 'loading' ? this.refresh() : Promise.resolve(this._state);
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
    const accepted = await this._confirm(confirmationTargets(projection), projection);
    if (!accepted || this._isDisposed) {
      return 'cancelled';
    }
    this._set({ initializing: true, initializeFailure: undefined, initialized: undefined });
    const result = await this._client
      .initialize(initializeRequest(projection))
      .catch((error: unknown) => ({ ok: false as const, failure: networkFailure('', error) }));
    if (!result.ok) {
      this._set({ initializing: false, initializeFailure: result.failure });
      const problem = result.failure.kind === 'http' ? result.failure.problem : undefined;
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
          confirmation: { ...current.confirmation, confirmed: true, creates: [], record: answer.record }
        }
      }
    });
    await this.refresh({});
    return 'initialized';
  }

  private _set(update: Partial<PanelState>): void {
    if (this._isDisposed) {
      return;
    }
    this._state = { ...this._state, ...update };
    this._stateChanged.emit(this._state);
  }

  private _client: IStartupClient;
  private _confirm: ConfirmFunction;
  private _state: PanelState = { view: { kind: 'loading' }, refreshing: false, initializing: false };
  private _stateChanged = new Signal<this, PanelState>(this);
  private _pending: Promise<PanelState> | undefined;
  private _seq = 0;
  private _isDisposed = false;
}
