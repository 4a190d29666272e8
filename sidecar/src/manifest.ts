// The capability manifest: the selected platform's row of the matrix in design.md's shape.
// Pure: built once at start-up from the adapter and the decision.
import { createHash } from 'node:crypto';
import type { PlatformAdapter } from './platforms/types';
import type { PlatformDecision, Signal } from './platforms/rules';
import { ApprovalModeId, labelOf, LowRiskAutomationPolicy, PlatformId, SCHEMA_VERSION } from './vocabulary';

export interface CapabilityValue {
  id: string;
  label: string;
  [extra: string]: unknown;
}

export interface Capability {
  id: string;
  label: string;
  values: CapabilityValue[];
  default?: string;
}

export interface Manifest {
  schemaVersion: string;
  platform: {
    id: PlatformId;
    label: string;
    evidence: {
      decidedBy: string;
      host: 'workstation' | 'container';
      signals: Signal[];
      overruled: Signal[];
    };
  };
  policy: { lowRiskAutomation: LowRiskAutomationPolicy };
  capabilities: Capability[];
}

const BOUNDARY_DETAIL = {
  excludes:
    'Provider credentials are kept out of supported tools and out of every persisted or interface state.',
  doesNotIsolate: 'It does not isolate an in-process agent tool from the model client.'
};

function values(ids: readonly string[]): CapabilityValue[] {
  return ids.map(id => ({ id, label: labelOf(id) }));
}

export function modelSourceValue(id: string, policy: LowRiskAutomationPolicy): CapabilityValue {
  // Only credential-free service-managed inference may skip per-action review, and only
  // where the platform policy permits it; every secret-backed route reviews every action.
  const secretBacked = id !== 'service-managed';
  const approvalModes: ApprovalModeId[] =
    !secretBacked && policy === 'permitted'
      ? ['review-every-action', 'low-risk-automation']
      : ['review-every-action'];
  // The labels too, so every interface can say "Review Every Action" without a table of its own.
  return { id, label: labelOf(id), secretBacked, approvalModes, approvalModeLabels: approvalModes.map(labelOf) };
}

export function buildManifest(
  adapter: PlatformAdapter,
  decision: PlatformDecision,
  policy: LowRiskAutomationPolicy
): Manifest {
  const row = (id: string, label: string, ids: readonly string[]): Capability => ({
    id,
    label,
    values: values(ids)
  });
  return {
    schemaVersion: SCHEMA_VERSION,
    platform: {
      id: adapter.id,
      label: labelOf(adapter.id),
      evidence: {
        decidedBy: decision.decidedBy,
        host: decision.host,
        signals: decision.signals,
        overruled: decision.overruled
      }
    },
    policy: { lowRiskAutomation: policy },
    capabilities: [
      row('interfaces', 'Interfaces', adapter.interfaces),
      row('browser-route', 'Browser route', [adapter.browserRoute]),
      {
        ...row('gateway-ingress-modes', 'Gateway ingress modes', adapter.ingressModes),
        default: adapter.defaultIngress
      },
      row('inference-runtimes', 'Service-managed inference runtimes', adapter.inferenceRuntimes),
      row('compute-model', 'Compute model', [adapter.computeModel]),
      row('durable-storage', 'Durable storage', [adapter.durableStorage]),
      row('credential-backends', 'Credential backends', adapter.credentialBackends),
      {
        id: 'model-credential-boundary',
        label: 'Model credential boundary',
        values: [{ id: 'application-scrubbed', label: labelOf('application-scrubbed'), ...BOUNDARY_DETAIL }]
      },
      {
        id: 'model-sources',
        label: 'Model sources',
        values: adapter.modelSources.map(id => modelSourceValue(id, policy))
      },
      row('built-in-connections', 'Built-in institution-managed connection', adapter.builtInConnections)
    ]
  };
}

/** The manifest as the exact bytes every route serves, with its strong ETag. */
export interface PreparedManifest {
  manifest: Manifest;
  json: string;
  etag: string;
}

export function prepareManifest(manifest: Manifest): PreparedManifest {
  const json = JSON.stringify(manifest);
  const etag = `"${createHash('sha256').update(json).digest('base64url').slice(0, 27)}"`;
  return { manifest, json, etag };
}
