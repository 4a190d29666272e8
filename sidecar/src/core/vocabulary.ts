// The identifiers every part of the project agrees on (docs/http-api.md), each with the
// human label shown beside it. Pure data: no I/O.

export const SCHEMA_VERSION = '1.2.0';

import * as lists from './generated/schema-lists';

// The lists come from the JSON Schemas (scripts/schema-code.js), the one place they are written.
export {
  APPROVAL_MODES,
  CREDENTIAL_BACKENDS,
  INFERENCE_RUNTIMES,
  INGRESS_MODES,
  INTERFACE_IDS,
  PHASES,
  PLATFORM_IDS
} from './generated/schema-lists';

export type PlatformId = (typeof lists.PLATFORM_IDS)[number];
export type InterfaceId = (typeof lists.INTERFACE_IDS)[number];

/** Interfaces that run in a browser and so can show a confirmation dialog. */
export const BROWSER_INTERFACES: readonly InterfaceId[] = ['web', 'notebook'];

export type IngressMode = (typeof lists.INGRESS_MODES)[number];
export type CredentialBackendId = (typeof lists.CREDENTIAL_BACKENDS)[number];
export type InferenceRuntimeId = (typeof lists.INFERENCE_RUNTIMES)[number];
export type ApprovalModeId = (typeof lists.APPROVAL_MODES)[number];

export type LowRiskAutomationPolicy = 'permitted' | 'denied';

export type Phase = (typeof lists.PHASES)[number];

export const LABELS: Readonly<Record<string, string>> = {
  // platforms
  generic: 'Workstation or container',
  'hosted-notebook': 'Hosted notebook platform',
  cluster: 'Cluster platform',
  // interfaces
  terminal: 'Terminal',
  web: 'Browser',
  notebook: 'Notebook',
  // browser route and ingress modes
  'direct-loopback': 'Direct loopback',
  unavailable: 'Unavailable',
  'notebook-server-proxy': 'Notebook-server proxy',
  'trusted-proxy': 'Trusted proxy',
  // inference runtimes
  'local-lightweight': 'Local lightweight runtime',
  'high-throughput-serving': 'High-throughput serving runtime',
  // compute models
  'current-host': 'Current host',
  'hosted-provisioned': 'Provisioned compute of the hosted platform',
  'batch-allocation': 'Batch-scheduler allocation',
  // durable storage
  'project-directory': 'The project directory',
  'home-directory':
    "A dedicated directory below the notebook user's home directory",
  'approved-project-storage': 'Approved project storage',
  // credential backends
  process: 'Process',
  'system-keyring': 'System keyring',
  'mounted-file': 'Mounted file',
  'managed-identity': 'Managed identity',
  // boundary
  'application-scrubbed': 'Application-scrubbed',
  // model sources and connections
  'service-managed': 'Service-managed',
  'institution-ai-gateway': 'Institution AI gateway',
  'vendor-consumer-sign-in': 'Consumer-account sign-in of a model vendor',
  'vendor-api-a': 'Vendor API A',
  'vendor-api-b': 'Vendor API B',
  'compatible-service': 'Other compatible service',
  // approval modes
  'review-every-action': 'Review Every Action',
  'low-risk-automation': 'Low-Risk Automation'
};

export function labelOf(id: string): string {
  return LABELS[id] ?? id;
}

export function isInterfaceId(value: string): value is InterfaceId {
  return (lists.INTERFACE_IDS as readonly string[]).includes(value);
}

export function isPlatformId(value: string): value is PlatformId {
  return (lists.PLATFORM_IDS as readonly string[]).includes(value);
}

export function isIngressMode(value: string): value is IngressMode {
  return (lists.INGRESS_MODES as readonly string[]).includes(value);
}
