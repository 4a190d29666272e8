import type {
  CredentialBackendId,
  InferenceRuntimeId,
  IngressMode,
  InterfaceId,
  LowRiskAutomationPolicy,
  PlatformId
} from '../vocabulary';
import type { ComputeStatus } from '../api-types';
import type { SCHEDULERS } from '../generated/schema-lists';

export type SchedulerId = (typeof SCHEDULERS)[number];

/** A batch allocation named by the environment, and what the scheduler said of it. */
export interface AllocationObservation {
  scheduler: SchedulerId;
  /** The scheduler's job id, or undefined on a login node (scheduler configured, no job). */
  jobId?: string;
  /** true: the scheduler says it runs; false: finished, unknown to it, or the query failed;
   * null: its client is absent, so nobody could ask. */
  live: boolean | null;
  /** The scheduler's state word (RUNNING, COMPLETED, ...), where it gave one. */
  state?: string;
  /** The job's owner when the scheduler names someone else: then it is not this person's. */
  otherOwner?: string;
  /** Why `live` is what it is, for a person. */
  detail: string;
}

/** The compute requirement and whether it is met: `compute` of sidecar/schemas/startup.schema.json. */
export type { ComputeStatus };

export interface StatePlacement {
  statePath: string;
  /** Directories above the state directory that initialize may create (outermost first). */
  parentsToCreate: string[];
}

/** One platform's row of the capability matrix and the rules that differ per platform. */
export interface PlatformAdapter {
  readonly id: PlatformId;
  readonly interfaces: readonly InterfaceId[];
  readonly browserRoute: 'direct-loopback' | 'unavailable';
  readonly ingressModes: readonly IngressMode[];
  readonly defaultIngress: IngressMode;
  readonly inferenceRuntimes: readonly InferenceRuntimeId[];
  readonly computeModel:
    'current-host' | 'hosted-provisioned' | 'batch-allocation';
  readonly durableStorage:
    'project-directory' | 'home-directory' | 'approved-project-storage';
  readonly credentialBackends: readonly CredentialBackendId[];
  readonly modelSources: readonly (typeof ALL_MODEL_SOURCES)[number][];
  readonly builtInConnections: readonly 'institution-ai-gateway'[];
  readonly defaultLowRiskAutomation: LowRiskAutomationPolicy;
  /** Whether the project must lie inside an operator-approved storage root. */
  readonly requiresApprovedStorage: boolean;
  /** Where private state goes for a project (pure: paths only, no I/O). */
  placeState(projectPath: string, homeDir: string | undefined): StatePlacement;
  /** Whether compute is there, from what was observed of the allocation (pure). */
  assessCompute(allocation: AllocationObservation | undefined): ComputeStatus;
}

export const ALL_MODEL_SOURCES = [
  'service-managed',
  'institution-ai-gateway',
  'vendor-consumer-sign-in',
  'vendor-api-a',
  'vendor-api-b',
  'compatible-service'
] as const;
