// How HTTP answers become results: pure functions of status, content type and body text, so
// the mapping is tested without a server or JupyterLab. api.ts feeds them what
// ServerConnection.makeRequest returned.
import {
  validateDiagnosticsReport,
  validateInitializeResponse,
  validateNextAction,
  validateProblem,
  validateStartupProjection
} from './generated/response-validators';
import { invalidFields } from './response-errors';
import {
  Diagnostics,
  IDiagnosticsReport,
  Failure,
  InitializeResponse,
  NextAction,
  Problem,
  Result,
  StartupProjection,
  SUPPORTED_SCHEMA_MAJOR
} from './tokens';

/** What api.ts read of a response. */
export interface IRawResponse {
  url: string;
  status: number;
  statusText: string;
  contentType: string;
  text: string;
  /** The ETag header, when the answer has one (the startup projection's). */
  etag?: string;
}

type Json = { ok: true; value: unknown } | { ok: false };

export function parseJson(text: string): Json {
  if (text.trim() === '') {
    return { ok: false };
  }
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function isString(value: unknown): value is string {
  return typeof value === 'string';
}

/** RFC 9457 problem details as the sidecar writes them (problem.schema.json): with a stable `code`. */
export function isProblem(value: unknown): value is Problem {
  return validateProblem(value);
}

/**
 * The fields of a startup projection that are missing or of the wrong type (empty when the
 * value is one), by startup.schema.json as a reader sees it: additive fields pass.
 */
export function invalidProjectionFields(value: unknown): string[] {
  return invalidFields(validateStartupProjection, value);
}

/** The same for an initialize answer (initialize-response.schema.json). */
export function invalidInitializeFields(value: unknown): string[] {
  return invalidFields(validateInitializeResponse, value);
}

/** The major version of a semver string, or NaN. */
export function majorVersion(version: string): number {
  const match = /^(0|[1-9][0-9]*)\./.exec(version);
  return match ? Number(match[1]) : Number.NaN;
}

/** The failure for an answer that is not a success status. */
function httpFailure(raw: IRawResponse): Failure {
  const json = parseJson(raw.text);
  const problem = json.ok && isProblem(json.value) ? json.value : undefined;
  if (raw.status === 404 && problem === undefined) {
    // The Jupyter server's own 404: nothing is proxied at {base_url}project/. A 404 with the
    // sidecar's problem details means the sidecar answered, so it is running but misplaced.
    return { kind: 'not-enabled', url: raw.url, status: raw.status };
  }
  return {
    kind: 'http',
    url: raw.url,
    status: raw.status,
    statusText: raw.statusText,
    ...(problem ? { problem } : {})
  };
}

function isSuccess(status: number): boolean {
  return status >= 200 && status < 300;
}

function unexpected(
  raw: IRawResponse,
  invalidFields: string[],
  notJson: boolean
): Failure {
  return {
    kind: 'unexpected-body',
    url: raw.url,
    status: raw.status,
    contentType: raw.contentType,
    reason: notJson ? 'not-json' : invalidFields.join(', ')
  };
}

/** GET {base_url}project/startup?interface=notebook. */
export function interpretStartup(raw: IRawResponse): Result<StartupProjection> {
  if (!isSuccess(raw.status)) {
    return { ok: false, failure: httpFailure(raw) };
  }
  const json = parseJson(raw.text);
  if (!json.ok) {
    return { ok: false, failure: unexpected(raw, [], true) };
  }
  if (isObject(json.value) && isString(json.value.schemaVersion)) {
    const major = majorVersion(json.value.schemaVersion);
    if (major !== SUPPORTED_SCHEMA_MAJOR) {
      return {
        ok: false,
        failure: {
          kind: 'incompatible',
          url: raw.url,
          schemaVersion: json.value.schemaVersion
        }
      };
    }
  }
  const invalid = invalidProjectionFields(json.value);
  if (invalid.length > 0) {
    return { ok: false, failure: unexpected(raw, invalid, false) };
  }
  return {
    ok: true,
    status: raw.status,
    value: json.value as StartupProjection,
    ...(raw.etag ? { etag: raw.etag } : {})
  };
}

/** POST {base_url}project/initialize. */
export function interpretInitialize(
  raw: IRawResponse
): Result<InitializeResponse> {
  if (!isSuccess(raw.status)) {
    return { ok: false, failure: httpFailure(raw) };
  }
  const json = parseJson(raw.text);
  if (!json.ok) {
    return { ok: false, failure: unexpected(raw, [], true) };
  }
  const invalid = invalidInitializeFields(json.value);
  if (invalid.length > 0) {
    return { ok: false, failure: unexpected(raw, invalid, false) };
  }
  return {
    ok: true,
    status: raw.status,
    value: json.value as InitializeResponse
  };
}

/** A request that got no answer. */
export function networkFailure(url: string, error: unknown): Failure {
  const message = error instanceof Error ? error.message : String(error);
  return { kind: 'network', url, message };
}

/** The next action of a problem (wrong-phase and state-unsafe carry one), when it has one. */
export function problemNextAction(
  problem: Problem | undefined
): NextAction | undefined {
  const value = problem?.nextAction;
  return value !== undefined && validateNextAction(value)
    ? (value as NextAction)
    : undefined;
}

/** The fix a problem carries (the service's `misconfigured` does), when it has one. */
export function problemFix(problem: Problem | undefined): string | undefined {
  const value = problem?.fix;
  return isString(value) && value !== '' ? value : undefined;
}

/** GET {base_url}api/project-startup/diagnostics: the report, unavailable (404) or failed. */
export function interpretDiagnostics(raw: IRawResponse): Diagnostics {
  if (raw.status === 404) {
    return { kind: 'unavailable', url: raw.url, status: raw.status };
  }
  if (!isSuccess(raw.status)) {
    return { kind: 'failed', url: raw.url, reason: `HTTP ${raw.status}` };
  }
  const json = parseJson(raw.text);
  // diagnostics-report.schema.json, as the reader sees it.
  if (!json.ok || !validateDiagnosticsReport(json.value)) {
    return {
      kind: 'failed',
      url: raw.url,
      reason: json.ok ? 'not a diagnostics report' : 'not JSON'
    };
  }
  return {
    kind: 'report',
    report: json.value as unknown as IDiagnosticsReport
  };
}

/**
 * Whether the diagnostics route may say more than the failure: the sidecar did not answer (a
 * 5xx without its problem details, no answer at all), or nothing is proxied (Jupyter's 404,
 * as when jupyter-server-proxy is missing).
 */
export function wantsDiagnostics(failure: Failure): boolean {
  switch (failure.kind) {
    case 'network':
    case 'not-enabled':
      return true;
    case 'http':
      return failure.status >= 500 && failure.problem === undefined;
    default:
      return false;
  }
}
