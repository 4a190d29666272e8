// The capability manifest: what the selected platform offers, in the shape of
// sidecar/schemas/manifest.schema.json.
// Pure: built once at start-up from the adapter and the decision.
import { createHash } from 'node:crypto';
import type { Manifest, ModelSourceValue } from './api-types';
import type { PlatformAdapter } from './platforms/types';
import type { PlatformDecision } from './platforms/rules';
import {
  ApprovalModeId,
  labelOf,
  LowRiskAutomationPolicy,
  SCHEMA_VERSION
} from './vocabulary';
import { SiteModelSources, siteSourceName } from './site-names';

/** The manifest: sidecar/schemas/manifest.schema.json. */
export type { Manifest };

/** The boundary's two sentences: constants, which no site configuration reaches. */
const BOUNDARY_DETAIL = {
  excludes:
    'Provider credentials are kept out of supported tools and out of every persisted or interface state.',
  doesNotIsolate:
    'It does not isolate an in-process agent tool from the model client.'
};

/** The approval modes' labels, as the schema names them (vocabulary.ts holds the same words). */
const APPROVAL_MODE_LABELS: Readonly<
  Record<
    ApprovalModeId,
    NonNullable<ModelSourceValue['approvalModeLabels']>[number]
  >
> = {
  'review-every-action': 'Review Every Action',
  'low-risk-automation': 'Low-Risk Automation'
};

function values<Id extends string>(
  ids: readonly Id[]
): { id: Id; label: string }[] {
  return ids.map(id => ({ id, label: labelOf(id) }));
}

/**
 * One model source of the platform, named as the site names it. The approval modes follow the
 * product's fixed rule whatever the site says: only credential-free service-managed inference may skip
 * per-action review, and only where the platform policy permits it; every secret-backed route
 * reviews every action.
 */
export function modelSourceValue(
  id: ModelSourceValue['id'],
  policy: LowRiskAutomationPolicy,
  site: SiteModelSources = {}
): ModelSourceValue {
  const secretBacked = id !== 'service-managed';
  const approvalModes: ApprovalModeId[] =
    !secretBacked && policy === 'permitted'
      ? ['review-every-action', 'low-risk-automation']
      : ['review-every-action'];
  const { label, arranged, address } = siteSourceName(id, site);
  // The labels too, so every interface can say "Review Every Action" without a table of its own.
  return {
    id,
    label,
    arranged,
    ...(address === undefined ? {} : { address }),
    secretBacked,
    approvalModes,
    approvalModeLabels: approvalModes.map(mode => APPROVAL_MODE_LABELS[mode])
  };
}

/** The model credential boundary: the same row on every platform and at every site. */
function boundaryRow() {
  return {
    id: 'model-credential-boundary' as const,
    label: 'Model credential boundary',
    values: [
      {
        id: 'application-scrubbed' as const,
        label: labelOf('application-scrubbed'),
        ...BOUNDARY_DETAIL
      }
    ]
  };
}

/**
 * The manifest of the platform `adapter` at a site. `site` can only rename and narrow: the rows
 * are the platform's own (a source the platform lacks is never read from it), the approval
 * modes are modelSourceValue's rule and the boundary's sentences are constants.
 */
export function buildManifest(
  adapter: PlatformAdapter,
  decision: PlatformDecision,
  policy: LowRiskAutomationPolicy,
  site: SiteModelSources = {}
): Manifest {
  const row = <Row extends string, Id extends string>(
    id: Row,
    label: string,
    ids: readonly Id[]
  ) => ({
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
        ...row(
          'gateway-ingress-modes',
          'Gateway ingress modes',
          adapter.ingressModes
        ),
        default: adapter.defaultIngress
      },
      row(
        'inference-runtimes',
        'Service-managed inference runtimes',
        adapter.inferenceRuntimes
      ),
      row('compute-model', 'Compute model', [adapter.computeModel]),
      row('durable-storage', 'Durable storage', [adapter.durableStorage]),
      row(
        'credential-backends',
        'Credential backends',
        adapter.credentialBackends
      ),
      boundaryRow(),
      {
        id: 'model-sources',
        label: 'Model sources',
        values: adapter.modelSources.map(id =>
          modelSourceValue(id, policy, site)
        )
      },
      {
        id: 'built-in-connections',
        label: 'Built-in institution-managed connection',
        // The connection is the gateway model source: the site's name for it and its
        // arrangement, so a site that has not arranged the gateway is not said to connect to it.
        values: adapter.builtInConnections.map(id => {
          const { label, arranged } = siteSourceName(id, site);
          return { id, label, arranged };
        })
      }
    ]
  };
}

/** The manifest's model sources, with this site's names and arrangement. */
export function modelSourcesOf(manifest: Manifest): ModelSourceValue[] {
  for (const capability of manifest.capabilities) {
    if (capability.id === 'model-sources') {
      return capability.values;
    }
  }
  return [];
}

/** The manifest as the exact bytes every route serves, with its strong ETag. */
export interface PreparedManifest {
  manifest: Manifest;
  json: string;
  etag: string;
}

export function prepareManifest(manifest: Manifest): PreparedManifest {
  const json = JSON.stringify(manifest);
  return { manifest, json, etag: etagOf(json) };
}

/** A strong ETag for a JSON body: a hash of its bytes, so equal bodies get equal tags. */
export function etagOf(json: string): string {
  return `"${createHash('sha256').update(json).digest('base64url').slice(0, 27)}"`;
}
