// Shared types and constants of the JupyterLab extension. The response types mirror what the
// sidecar sends (sidecar/src/projection.ts, service.ts, problems.ts and sidecar/schemas/*.json);
// they are written out here because the extension is a browser bundle and must not import the
// Node sidecar. Only the fields the extension reads are required; the rest is kept optional so
// an additive (minor) change of the service does not break the panel.

/** The plugin id (design.md "Names"); the settings schema is schema/plugin.json after the colon. */
export const PLUGIN_ID = 'jupyterlab-project-startup:plugin';

/** The gettext domain of the extension's translations. */
export const TRANSLATION_DOMAIN = 'jupyterlab_project_startup';

/** The id of the one Project Startup panel in the shell. */
export const PANEL_ID = 'jp-project-startup-panel';

/** The namespace of the panel's WidgetTracker (layout restoration). */
export const TRACKER_NAMESPACE = 'project-startup';

/** The interface this extension is (design.md: terminal, web, notebook). */
export const INTERFACE: InterfaceId = 'notebook';

/** The confirmation method the service records for this dialog. */
export const CONFIRMATION_METHOD = 'jupyterlab-dialog';

/** The file initialize writes inside the state directory (sidecar/src/state.ts RECORD_FILE). */
export const RECORD_FILE = 'initialization.json';

/** Path segments below the Jupyter server's base URL (jupyter-server-proxy entry `project`). */
export const API_PREFIX = 'project';
export const STARTUP_ENDPOINT = 'startup';
export const INITIALIZE_ENDPOINT = 'initialize';

/**
 * The diagnostics route of the Python package's Jupyter server extension, below the Jupyter
 * server's base URL (not behind the proxy: it answers when the sidecar cannot start).
 */
export const DIAGNOSTICS_ENDPOINT = 'api/project-startup/diagnostics';

/** The projection's schema major version this extension understands (semver: minor is additive). */
export const SUPPORTED_SCHEMA_MAJOR = 1;

/** The settings of schema/plugin.json. */
export const SETTING_OPEN_WHILE_INCOMPLETE = 'openWhileIncomplete';

export type InterfaceId = 'terminal' | 'web' | 'notebook';

export type Phase = 'unsupported-interface' | 'blocked' | 'needs-compute' | 'awaiting-confirmation' | 'ready';

export const PHASES: readonly Phase[] = [
  'unsupported-interface',
  'blocked',
  'needs-compute',
  'awaiting-confirmation',
  'ready'
];

export type CheckStatus = 'pass' | 'warn' | 'fail' | 'skip';

export const CHECK_STATUSES: readonly CheckStatus[] = ['pass', 'warn', 'fail', 'skip'];

export interface ReadinessCheck {
  id: string;
  title: string;
  status: CheckStatus;
  required: boolean;
  observed: string;
  remedy?: string;
}

export type NextActionId = 'switch-interface' | 'fix-check' | 'request-allocation' | 'confirm-initialization' | 'none';

/** The body of POST {base_url}project/initialize. */
export interface InitializeRequest {
  interface: InterfaceId;
  method?: 'jupyterlab-dialog' | 'setup-page' | 'terminal-prompt' | 'http-api';
  confirm: { projectPath: string; statePath: string };
}

export interface NextAction {
  id: NextActionId;
  title: string;
  detail: string;
  command?: string;
  url?: string;
  checkId?: string;
  interfaces?: { id: InterfaceId; label: string; how: string }[];
  request?: { method: 'POST'; path: string; body: InitializeRequest };
}

export interface ComputeStatus {
  model: string;
  label: string;
  satisfied: boolean;
  detail: string;
  allocation?: { scheduler: string; jobId: string | null; live: boolean | null; state?: string };
  command?: string;
}

export interface InitializationRecord {
  schemaVersion: string;
  kind: 'project-startup-state';
  projectPath: string;
  statePath: string;
  platform: string;
  confirmation: { interface: InterfaceId; method: string; ingress: string; confirmedAt: string };
  service: { version: string };
}

export interface Confirmation {
  required: boolean;
  confirmed: boolean;
  allowedInterfaces: InterfaceId[];
  method: 'browser' | 'terminal-prompt';
  detail: string;
  /** Directories initialize would create, outermost first, the state directory last. */
  creates: string[];
  record?: InitializationRecord;
}

/** The part of the capability manifest the panel shows. */
export interface ManifestSummary {
  schemaVersion: string;
  platform: { id: string; label: string };
  capabilities?: { id: string; label: string; values: { id: string; label: string }[]; default?: string }[];
}

/** GET {base_url}project/startup?interface=notebook (sidecar StartupResult). */
export interface StartupProjection {
  schemaVersion: string;
  platform: string;
  interface: InterfaceId;
  projectPath: string;
  statePath: string;
  interfaceSupport: { supported: boolean; supportedInterfaces: InterfaceId[]; detail: string };
  phase: Phase;
  nextAction: NextAction;
  browserUrl?: string;
  compute: ComputeStatus;
  confirmation: Confirmation;
  readinessChecks: ReadinessCheck[];
  manifest?: ManifestSummary;
}

/** The answer of POST {base_url}project/initialize (201 created, 200 already there). */
export interface InitializeResponse {
  schemaVersion: string;
  created: boolean;
  record: InitializationRecord;
  phase: Phase;
  nextAction: NextAction;
}

/** RFC 9457 problem details with the sidecar's stable `code` (sidecar/src/problems.ts). */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  instance?: string;
  [extension: string]: unknown;
}

/** One problem the server extension found: what, in detail, and how to fix it. */
export interface DiagnosticsProblem {
  code: 'node-missing' | 'node-too-old' | 'server-proxy-missing' | 'server-proxy-too-old' | 'sidecar-failed' | string;
  title: string;
  detail: string;
  fix: string;
}

/** GET {base_url}api/project-startup/diagnostics (jupyterlab_project_startup/handlers.py). */
export interface DiagnosticsReport {
  version: string;
  ok: boolean;
  problems: DiagnosticsProblem[];
  node: { path: string | null; version: string | null; required: string };
  serverProxy: { version: string | null; required: string };
  sidecar: {
    state: 'not-started' | 'running' | 'failed' | string;
    lastError: string | null;
    /** The sidecar's last stderr lines (at most 20) when its start failed. */
    logTail: string[];
    diagnosticsFile: string;
  };
}

/** What the panel learnt from the diagnostics route after the sidecar failed. */
export type Diagnostics =
  | { kind: 'report'; report: DiagnosticsReport }
  /** 404: no server extension on this Jupyter server (the npm package alone was installed). */
  | { kind: 'unavailable'; url: string; status: number }
  /** The diagnostics route failed too. */
  | { kind: 'failed'; url: string; reason: string };

/**
 * Why a call did not give what the panel needs. Each kind has its own message and fix in the
 * panel (render.ts), so nothing here is a user-visible string.
 */
export type Failure =
  /** 404 from the Jupyter server: the sidecar is not behind {base_url}project/. */
  | { kind: 'not-enabled'; url: string; status: number; diagnostics?: Diagnostics }
  /** The request never got an answer (server down, connection refused, offline). */
  | { kind: 'network'; url: string; message: string; diagnostics?: Diagnostics }
  /**
   * An HTTP error status; `problem` when the body was the sidecar's problem details, and
   * `diagnostics` when the sidecar did not answer (a 5xx of the proxy).
   */
  | { kind: 'http'; url: string; status: number; statusText: string; problem?: Problem; diagnostics?: Diagnostics }
  /** A success status whose body is not what the service sends (e.g. a login page). */
  | { kind: 'unexpected-body'; url: string; status: number; contentType: string; reason: string }
  /** The service speaks a projection schema this extension does not understand. */
  | { kind: 'incompatible'; url: string; schemaVersion: string };

export type Result<T> = { ok: true; status: number; value: T } | { ok: false; failure: Failure };

/**
 * What the pure modules need of a translation bundle; JupyterLab's TranslationBundle fits it.
 * `%1`, `%2`, ... in msgid are replaced by the arguments.
 */
export interface ITranslationBundle {
  __(msgid: string, ...args: (string | number)[]): string;
}

/** The two server calls, so the model can be driven by a fake in tests. */
export interface IStartupClient {
  startup(): Promise<Result<StartupProjection>>;
  initialize(body: InitializeRequest): Promise<Result<InitializeResponse>>;
}
