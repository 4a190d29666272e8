// What a startup projection is built from (the observations, the platform and where the
// service listens), and the situation it puts the model of routes in (reach.ts).
import type {
  InitializeRequestBody,
  ModelSourceValue,
  StartupProjection
} from './api-types';
import type { PlatformDecision } from './platforms/rules';
import type { ComputeStatus, PlatformAdapter } from './platforms/types';
import type {
  CredentialObservation,
  HttpProbe,
  InitializationRecord,
  ProjectPathObservation,
  StateInspection
} from './observations';
import { reach, ReachContext, readerOf } from './reach';
import type {
  InferenceRuntimeId,
  IngressMode,
  InterfaceId
} from './vocabulary';

export type InitializeBody = InitializeRequestBody;

export interface IngressObservation {
  mode: IngressMode;
  /** Where the service listens, for a person; undefined when no service is running. */
  listening?: string;
  /** False when the platform's matrix row does not list this ingress: the service answers read-only. */
  offered: boolean;
}

export interface RuntimeProbe extends HttpProbe {
  id: InferenceRuntimeId;
  /** Whether the site pointed the service at it; false: the default address nobody set. */
  configured: boolean;
}

export interface ProjectionInputs {
  adapter: PlatformAdapter;
  decision: PlatformDecision;
  iface: InterfaceId;
  baseUrl: string;
  projectPath: string;
  statePath: string;
  /** Directories initialize would create, outermost first, the state directory last. */
  creates: string[];
  project: ProjectPathObservation;
  state: StateInspection;
  approvedStorage: readonly string[];
  compute: ComputeStatus;
  ingress: IngressObservation | undefined;
  /** The setup page URL, when a self-probe reached this very process through it. */
  browserUrl: string | undefined;
  credentials: CredentialObservation[];
  /**
   * The model sources as the manifest gives them (with this site's arrangement), so the
   * credential check asks for credentials only where an arranged source needs them. Absent:
   * every source of the platform is arranged.
   */
  modelSources?: readonly ModelSourceValue[];
  runtimes: RuntimeProbe[];
  /** Set by buildProjection: a record confirmed on another platform, which does not count here. */
  foreignRecord?: InitializationRecord;
}

/** The startup projection without the manifest (the service adds it): sidecar/schemas/startup.schema.json. */
export type Projection = Omit<StartupProjection, 'manifest'>;

/** The situation the service is in, as the model of routes reads it. */
export function reachContextOf(input: ProjectionInputs): ReachContext {
  const listening = input.ingress?.listening;
  return {
    platform: input.adapter.id,
    ...(listening !== undefined && input.ingress
      ? {
          ingress: input.ingress.mode,
          // server.ts names a socket listener "Unix socket <path>", a TCP one by host:port.
          transport: listening.startsWith('Unix socket ')
            ? ('unix-socket' as const)
            : ('tcp' as const)
        }
      : {}),
    baseUrl: input.baseUrl,
    ...(input.browserUrl ? { setupPageUrl: input.browserUrl } : {})
  };
}

/** How the reader of this projection (the person using `input.iface`) reaches `iface`. */
export function howToReach(
  input: ProjectionInputs,
  iface: InterfaceId
): string {
  return reach(reachContextOf(input), iface, readerOf(input.iface)).how;
}
