// Shared types and constants of the JupyterLab extension. The response types are the service's
// own, generated from sidecar/schemas/*.json into sidecar/schemas/api-types.d.ts (`npm run
// api:generate`; types only, nothing of the sidecar is bundled). The guards in responses.ts check
// only the fields the panel reads, so an additive (minor) change of the service does not break
// the panel; a minor version only adds fields, so these types hold for every 1.x service.
import type { components } from '../sidecar/schemas/api-types';
import {
  CHECK_STATUSES,
  NOTIFICATION_KINDS,
  PHASES
} from './generated/schema-lists';

type Schemas = components['schemas'];

/** The plugin id; the settings schema is schema/plugin.json after the colon. */
export const PLUGIN_ID = 'jupyterlab-project-startup:plugin';

/** The gettext domain of the extension's translations. */
export const TRANSLATION_DOMAIN = 'jupyterlab_project_startup';

/** The id of the one Project Startup panel in the shell. */
export const PANEL_ID = 'jp-project-startup-panel';

/** The namespace of the panel's WidgetTracker (layout restoration). */
export const TRACKER_NAMESPACE = 'project-startup';

/** The interface this extension is (of terminal, web and notebook). */
export const INTERFACE: InterfaceId = 'notebook';

/** The file initialize writes inside the state directory (sidecar/src/observe/state.ts RECORD_FILE). */
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
export const SETTING_REFRESH_INTERVAL = 'refreshInterval';
export const SETTING_OPEN_WHEN_AWAITING_CONFIRMATION =
  'openWhenAwaitingConfirmation';
export const SETTING_MUTED_NOTIFICATIONS = 'mutedNotifications';

/**
 * The states a notification reports (schema/plugin.json mutedNotifications' items, the one
 * list: src/generated/schema-lists.ts is generated from it); confirm-elsewhere: awaiting a confirmation
 * this interface may not give (a terminal prompt).
 */
export { NOTIFICATION_KINDS };
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

export type InterfaceId = Schemas['StartupProjectionInterfaceId'];

export type Phase = Schemas['StartupProjectionPhase'];

/** Every phase in the schema's order (generated from startup.schema.json, as Phase is). */
export { PHASES };

export type ReadinessCheck = Schemas['StartupProjectionReadinessCheck'];

export type CheckStatus = ReadinessCheck['status'];

/** Every check status (generated from startup.schema.json, as CheckStatus is). */
export { CHECK_STATUSES };

export type NextAction = Schemas['StartupProjectionNextAction'];

export type NextActionId = NextAction['id'];

/** The body of POST {base_url}project/initialize. */
export type InitializeRequest = Schemas['InitializeRequest'];

export type ComputeStatus = Schemas['StartupProjectionCompute'];

export type InitializationRecord = Schemas['InitializationRecord'];

/** GET {base_url}project/startup?interface=notebook. */
export type StartupProjection = Schemas['StartupProjection'];

export type Confirmation = StartupProjection['confirmation'];

/** The capability manifest (the projection carries it whole). */
export type Manifest = Schemas['Manifest'];

/** One row of the manifest's capability matrix (the panel's "What this platform offers"). */
export type Capability = Manifest['capabilities'][number];

/** A model source: secret-backed or not, and the approval modes it allows. */
export type ModelSourceValue = Schemas['ManifestModelSourceValue'];

/** The model credential boundary with its two sentences. */
export type BoundaryValue = Schemas['ManifestBoundaryValue'];

/** The answer of POST {base_url}project/initialize (201 created, 200 already there). */
export type InitializeResponse = Schemas['InitializeResponse'];

/** RFC 9457 problem details with the sidecar's stable `code` (sidecar/src/core/problems.ts). */
export type Problem = Schemas['Problem'];

/** One problem the server extension found: what, in detail, and how to fix it. */
export interface IDiagnosticsProblem {
  code:
    | 'node-missing'
    | 'node-too-old'
    | 'server-proxy-missing'
    | 'server-proxy-too-old'
    | 'sidecar-failed'
    | string;
  title: string;
  detail: string;
  fix: string;
}

/** GET {base_url}api/project-startup/diagnostics (jupyterlab_project_startup/handlers.py). */
export interface IDiagnosticsReport {
  version: string;
  ok: boolean;
  problems: IDiagnosticsProblem[];
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
  | { kind: 'report'; report: IDiagnosticsReport }
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
  | {
      kind: 'not-enabled';
      url: string;
      status: number;
      diagnostics?: Diagnostics;
    }
  /** The request never got an answer (server down, connection refused, offline). */
  | { kind: 'network'; url: string; message: string; diagnostics?: Diagnostics }
  /**
   * An HTTP error status; `problem` when the body was the sidecar's problem details, and
   * `diagnostics` when the sidecar did not answer (a 5xx of the proxy).
   */
  | {
      kind: 'http';
      url: string;
      status: number;
      statusText: string;
      problem?: Problem;
      diagnostics?: Diagnostics;
    }
  /** A success status whose body is not what the service sends (e.g. a login page). */
  | {
      kind: 'unexpected-body';
      url: string;
      status: number;
      contentType: string;
      reason: string;
    }
  /** The service speaks a projection schema this extension does not understand. */
  | { kind: 'incompatible'; url: string; schemaVersion: string };

/** A call's outcome; `etag` when the answer carried one (the startup projection's). */
export type Result<T> =
  | { ok: true; status: number; value: T; etag?: string }
  | { ok: false; failure: Failure };

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
