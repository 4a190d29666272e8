// The startup projection: readiness checks, phase and next action, derived purely from what
// the probes observed. Nothing here performs I/O, so the same observations give the same answer.
// The checks: readiness-checks.ts; the next action: next-action.ts; the routes both name: reach.ts.
import type { NextAction, ReadinessCheck } from './api-types';
import type { ComputeStatus } from './platforms/types';
import type { InitializationRecord, StateInspection } from './observations';
import { confirmationInterfaces } from './confirmation';
import { nextActionFor } from './next-action';
import type { Projection, ProjectionInputs } from './projection-inputs';
import { buildChecks } from './readiness-checks';
import { labelOf, Phase, PlatformId, SCHEMA_VERSION } from './vocabulary';

export type { NextAction, ReadinessCheck };
export type CheckStatus = ReadinessCheck['status'];
export type {
  InitializeBody,
  IngressObservation,
  Projection,
  ProjectionInputs,
  RuntimeProbe
} from './projection-inputs';
export { buildChecks, insideApprovedStorage } from './readiness-checks';
export { confirmationInterfaces };

export function derivePhase(
  supported: boolean,
  checks: ReadinessCheck[],
  compute: ComputeStatus,
  state: StateInspection
): Phase {
  if (!supported) {
    return 'unsupported-interface';
  }
  if (checks.some(c => c.required && c.status === 'fail')) {
    return 'blocked';
  }
  if (!compute.satisfied) {
    return 'needs-compute';
  }
  return state.kind === 'initialized' ? 'ready' : 'awaiting-confirmation';
}

/**
 * A record confirmed on another platform (the project moved, or the operator changed the
 * platform) does not make this one ready: it was confirmed under another platform's rules (a
 * browser on generic, where the cluster asks a terminal prompt). Decision: confirm again here;
 * initialize then replaces the record. Pure: the state as this platform counts it.
 */
export function stateForPlatform(
  state: StateInspection,
  platform: PlatformId
): { state: StateInspection; foreign?: InitializationRecord } {
  if (state.kind === 'initialized' && state.record.platform !== platform) {
    return {
      state: {
        kind: 'absent',
        detail: `The record was confirmed on the ${labelOf(state.record.platform)}; confirm again here.`
      },
      foreign: state.record
    };
  }
  return { state };
}

export function buildProjection(raw: ProjectionInputs): Projection {
  const counted = stateForPlatform(raw.state, raw.adapter.id);
  const input: ProjectionInputs = {
    ...raw,
    state: counted.state,
    foreignRecord: counted.foreign
  };
  const { adapter, iface, state } = input;
  const supported = adapter.interfaces.includes(iface);
  const checks = buildChecks(input);
  const phase = derivePhase(supported, checks, input.compute, state);
  const allowed = confirmationInterfaces(adapter);
  const confirmed = state.kind === 'initialized';
  return {
    schemaVersion: SCHEMA_VERSION,
    platform: adapter.id,
    interface: iface,
    projectPath: input.projectPath,
    statePath: input.statePath,
    interfaceSupport: {
      supported,
      supportedInterfaces: [...adapter.interfaces],
      detail: supported
        ? `${labelOf(iface)} is supported on the ${labelOf(adapter.id)}.`
        : `${labelOf(iface)} is not supported on the ${labelOf(adapter.id)}; use ${adapter.interfaces.map(labelOf).join(' or ')}.`
    },
    phase,
    nextAction: nextActionFor(phase, input, checks),
    ...(iface === 'web' && input.browserUrl
      ? { browserUrl: input.browserUrl }
      : {}),
    compute: input.compute,
    confirmation: {
      required: true,
      confirmed,
      allowedInterfaces: allowed,
      method: allowed.includes('terminal') ? 'terminal-prompt' : 'browser',
      detail: confirmed
        ? 'Initialization was confirmed.'
        : allowed.includes('terminal')
          ? 'Confirm at the interactive prompt of `project-startup init`.'
          : `Confirm in ${allowed.map(labelOf).join(' or ')}; the confirmation must name the paths shown here.`,
      creates: confirmed ? [] : input.creates,
      ...(state.kind === 'initialized' ? { record: state.record } : {})
    },
    readinessChecks: checks
  };
}

/**
 * Whether buildProjection would answer the same for both inputs: it is pure, so equal inputs
 * give an equal projection. Every field counts, so an observation added to ProjectionInputs
 * is part of the cache key without being listed anywhere. Identical values (a cached probe's
 * answer, the adapter) are equal at once; fresh ones (the file observations) by value.
 */
export function sameProjectionInputs(
  a: ProjectionInputs,
  b: ProjectionInputs
): boolean {
  return sameValue(a, b);
}

function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) {
    return true;
  }
  if (!isObject(a) || !isObject(b)) {
    return false;
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    return (
      Array.isArray(a) &&
      Array.isArray(b) &&
      a.length === b.length &&
      a.every((value, i) => sameValue(value, b[i]))
    );
  }
  // Anything but plain data (a function, a class instance) counts only when identical.
  if (!isPlain(a) || !isPlain(b)) {
    return false;
  }
  const keys = Object.keys(a);
  return (
    keys.length === Object.keys(b).length &&
    keys.every(key => Object.hasOwn(b, key) && sameValue(a[key], b[key]))
  );
}

function isObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null;
}

function isPlain(value: object): value is Record<string, unknown> {
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
