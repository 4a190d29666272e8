// How HTTP answers become results: pure functions of status, content type and body text, so
// the mapping is tested without a server or JupyterLab. api.ts feeds them what
// ServerConnection.makeRequest returned.
import {
  CHECK_STATUSES,
  Diagnostics,
  IDiagnosticsProblem,
  IDiagnosticsReport,
  Failure,
  InitializeResponse,
  NextAction,
  PHASES,
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

/** RFC 9457 problem details as the sidecar writes them: with a stable `code`. */
export function isProblem(value: unknown): value is Problem {
  return (
    isObject(value) &&
    isString(value.type) &&
    isString(value.title) &&
    typeof value.status === 'number' &&
    isString(value.detail) &&
    isString(value.code)
  );
}

function nextActionFields(value: unknown, at: string): string[] {
  if (!isObject(value)) {
    return [at];
  }
  const bad: string[] = [];
  for (const key of ['id', 'title', 'detail']) {
    if (!isString(value[key])) {
      bad.push(`${at}.${key}`);
    }
  }
  if (value.command !== undefined && !isString(value.command)) {
    bad.push(`${at}.command`);
  }
  if (value.interfaces !== undefined) {
    const ok =
      Array.isArray(value.interfaces) &&
      value.interfaces.every(
        i =>
          isObject(i) && isString(i.id) && isString(i.label) && isString(i.how)
      );
    if (!ok) {
      bad.push(`${at}.interfaces`);
    }
  }
  return bad;
}

/**
 * The fields of a startup projection that are missing or of the wrong type (empty when the
 * value is one). Checks what the panel reads, nothing more: additive fields pass.
 */
export function invalidProjectionFields(value: unknown): string[] {
  if (!isObject(value)) {
    return ['(body)'];
  }
  const bad: string[] = [];
  for (const key of [
    'schemaVersion',
    'platform',
    'interface',
    'projectPath',
    'statePath'
  ]) {
    if (!isString(value[key])) {
      bad.push(key);
    }
  }
  if (
    !isString(value.phase) ||
    !(PHASES as readonly string[]).includes(value.phase)
  ) {
    bad.push('phase');
  }
  const support = value.interfaceSupport;
  if (
    !isObject(support) ||
    typeof support.supported !== 'boolean' ||
    !Array.isArray(support.supportedInterfaces) ||
    !isString(support.detail)
  ) {
    bad.push('interfaceSupport');
  }
  bad.push(...nextActionFields(value.nextAction, 'nextAction'));
  const compute = value.compute;
  if (
    !isObject(compute) ||
    typeof compute.satisfied !== 'boolean' ||
    !isString(compute.label) ||
    !isString(compute.detail)
  ) {
    bad.push('compute');
  }
  const confirmation = value.confirmation;
  if (
    !isObject(confirmation) ||
    typeof confirmation.required !== 'boolean' ||
    typeof confirmation.confirmed !== 'boolean' ||
    !Array.isArray(confirmation.allowedInterfaces) ||
    !isString(confirmation.detail) ||
    !Array.isArray(confirmation.creates) ||
    !confirmation.creates.every(isString)
  ) {
    bad.push('confirmation');
  }
  const checks = value.readinessChecks;
  if (
    !Array.isArray(checks) ||
    !checks.every(
      c =>
        isObject(c) &&
        isString(c.id) &&
        isString(c.title) &&
        isString(c.status) &&
        (CHECK_STATUSES as readonly string[]).includes(c.status) &&
        typeof c.required === 'boolean' &&
        isString(c.observed) &&
        (c.remedy === undefined || isString(c.remedy))
    )
  ) {
    bad.push('readinessChecks');
  }
  if (value.manifest !== undefined) {
    bad.push(...manifestFields(value.manifest));
  }
  return bad;
}

/**
 * What the panel reads of the manifest ("What this platform offers"): the platform's label, the
 * policy, and each capability row with its id, label and values; model sources with
 * secretBacked and approvalModes (their labels when sent), the boundary with its two sentences.
 */
function manifestFields(manifest: unknown): string[] {
  if (!isObject(manifest)) {
    return ['manifest'];
  }
  const bad: string[] = [];
  if (!isObject(manifest.platform) || !isString(manifest.platform.label)) {
    bad.push('manifest.platform');
  }
  if (
    !isObject(manifest.policy) ||
    !isString(manifest.policy.lowRiskAutomation)
  ) {
    bad.push('manifest.policy');
  }
  const rows = manifest.capabilities;
  if (!Array.isArray(rows)) {
    return [...bad, 'manifest.capabilities'];
  }
  rows.forEach((row: unknown, i) => {
    const at = `manifest.capabilities.${i}`;
    if (
      !isObject(row) ||
      !isString(row.id) ||
      !isString(row.label) ||
      !Array.isArray(row.values)
    ) {
      bad.push(at);
      return;
    }
    if (row.default !== undefined && !isString(row.default)) {
      bad.push(`${at}.default`);
    }
    const valueOk = (v: unknown): boolean => {
      if (!isObject(v) || !isString(v.id) || !isString(v.label)) {
        return false;
      }
      if (row.id === 'model-sources') {
        return (
          typeof v.secretBacked === 'boolean' &&
          Array.isArray(v.approvalModes) &&
          v.approvalModes.every(isString) &&
          (v.approvalModeLabels === undefined ||
            (Array.isArray(v.approvalModeLabels) &&
              v.approvalModeLabels.every(isString))) &&
          // Both since manifest 1.1.0 (a site's names), so absent from older services.
          (v.arranged === undefined || typeof v.arranged === 'boolean') &&
          (v.address === undefined || isString(v.address))
        );
      }
      if (row.id === 'model-credential-boundary') {
        return isString(v.excludes) && isString(v.doesNotIsolate);
      }
      return true;
    };
    if (!row.values.every(valueOk)) {
      bad.push(`${at}.values`);
    }
  });
  return bad;
}

export function invalidInitializeFields(value: unknown): string[] {
  if (!isObject(value)) {
    return ['(body)'];
  }
  const bad: string[] = [];
  if (!isString(value.schemaVersion)) {
    bad.push('schemaVersion');
  }
  if (typeof value.created !== 'boolean') {
    bad.push('created');
  }
  if (!isObject(value.record) || !isString(value.record.statePath)) {
    bad.push('record');
  }
  if (
    !isString(value.phase) ||
    !(PHASES as readonly string[]).includes(value.phase)
  ) {
    bad.push('phase');
  }
  bad.push(...nextActionFields(value.nextAction, 'nextAction'));
  return bad;
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
  return value !== undefined &&
    nextActionFields(value, 'nextAction').length === 0
    ? (value as NextAction)
    : undefined;
}

/** The fix a problem carries (the service's `misconfigured` does), when it has one. */
export function problemFix(problem: Problem | undefined): string | undefined {
  const value = problem?.fix;
  return isString(value) && value !== '' ? value : undefined;
}

function isDiagnosticsProblem(value: unknown): value is IDiagnosticsProblem {
  return (
    isObject(value) &&
    isString(value.code) &&
    isString(value.title) &&
    isString(value.detail) &&
    isString(value.fix)
  );
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
  const value = json.ok ? json.value : undefined;
  const sidecar = isObject(value) ? value.sidecar : undefined;
  if (
    !isObject(value) ||
    typeof value.ok !== 'boolean' ||
    !Array.isArray(value.problems) ||
    !value.problems.every(isDiagnosticsProblem) ||
    !isObject(value.node) ||
    !isObject(value.serverProxy) ||
    !isObject(sidecar) ||
    !isString(sidecar.state) ||
    !Array.isArray(sidecar.logTail) ||
    !sidecar.logTail.every(isString)
  ) {
    return {
      kind: 'failed',
      url: raw.url,
      reason: json.ok ? 'not a diagnostics report' : 'not JSON'
    };
  }
  return { kind: 'report', report: value as unknown as IDiagnosticsReport };
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
