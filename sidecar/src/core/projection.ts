// The startup projection: readiness checks, phase and next action, derived purely from what
// the probes observed. Nothing here performs I/O, so the same observations give the same answer.
import type {
  InitializeRequestBody,
  NextAction,
  ReadinessCheck,
  StartupProjection
} from './api-types';
import type { PlatformDecision } from './platforms/rules';
import type { ComputeStatus, PlatformAdapter } from './platforms/types';
import type {
  CredentialObservation,
  HttpProbe,
  ProjectPathObservation
} from './observations';
import type { InitializationRecord, StateInspection } from './observations';
import { apiMayConfirm, confirmationInterfaces } from './confirmation';
import { TERMINAL_HOW } from './terminal-text';
import {
  InferenceRuntimeId,
  IngressMode,
  InterfaceId,
  labelOf,
  Phase,
  PlatformId,
  SCHEMA_VERSION
} from './vocabulary';

export type { NextAction, ReadinessCheck };
export type CheckStatus = ReadinessCheck['status'];
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
  runtimes: RuntimeProbe[];
  /** Set by buildProjection: a record confirmed on another platform, which does not count here. */
  foreignRecord?: InitializationRecord;
}

/** The startup projection without the manifest (the service adds it): sidecar/schemas/startup.schema.json. */
export type Projection = Omit<StartupProjection, 'manifest'>;

export { confirmationInterfaces };

export function insideApprovedStorage(
  projectPath: string,
  roots: readonly string[]
): string | undefined {
  return roots.find(
    root =>
      projectPath === root ||
      projectPath.startsWith(root.endsWith('/') ? root : `${root}/`)
  );
}

function howToReach(
  iface: InterfaceId,
  browserUrl: string | undefined,
  ingress?: IngressObservation
): string {
  if (
    iface === 'web' &&
    ingress?.mode === 'notebook-server-proxy' &&
    ingress.listening
  ) {
    // This service runs behind Jupyter, which serves no setup page: JupyterLab is the browser here.
    return 'In a browser, use JupyterLab: this service runs behind that Jupyter server, which serves no separate setup page.';
  }
  switch (iface) {
    case 'terminal':
      return TERMINAL_HOW;
    case 'notebook':
      return 'Open JupyterLab and run "Open Project Startup" from the command palette.';
    case 'web':
      // Only reached on a platform whose browser route is direct loopback (generic).
      return browserUrl
        ? `Open ${browserUrl} in a browser on this machine (\`project-startup url\` prints an address that signs you in).`
        : 'Run `project-startup serve` (loopback TCP, the default), then `project-startup url`, and open the address it prints in a browser on this machine.';
  }
}

/** The environment variable that points the service at each runtime's probe. */
const RUNTIME_URL_VARIABLES: Readonly<Record<InferenceRuntimeId, string>> = {
  'local-lightweight': 'PROJECT_STARTUP_LOCAL_RUNTIME_URL',
  'high-throughput-serving': 'PROJECT_STARTUP_SERVING_RUNTIME_URL'
};

export function buildChecks(input: ProjectionInputs): ReadinessCheck[] {
  const { adapter, decision, iface } = input;
  const supported = adapter.interfaces.includes(iface);
  const checks: ReadinessCheck[] = [];

  const signalNames =
    decision.signals.map(s => s.name).join(', ') ||
    'no platform-specific signals';
  checks.push(
    decision.overruled.length > 0
      ? {
          id: 'platform-evidence',
          title: 'Platform evidence',
          status: 'warn',
          required: false,
          observed: `${labelOf(decision.platform)} selected by rule ${decision.decidedBy}; overruled: ${decision.overruled
            .map(s => `${s.name} (${s.platform})`)
            .join(', ')}`,
          remedy:
            'If the platform is wrong, set PROJECT_STARTUP_PLATFORM to generic, hosted-notebook or cluster and restart.'
        }
      : {
          id: 'platform-evidence',
          title: 'Platform evidence',
          status: 'pass',
          required: true,
          observed: `${labelOf(decision.platform)} selected by rule ${decision.decidedBy} (${signalNames})`
        }
  );

  checks.push({
    id: 'interface-support',
    title: 'Interface support',
    status: supported ? 'pass' : 'fail',
    required: true,
    observed: supported
      ? `${labelOf(iface)} is supported on the ${labelOf(adapter.id)}`
      : `${labelOf(iface)} is not supported on the ${labelOf(adapter.id)}`,
    ...(supported
      ? {}
      : {
          remedy: `Use ${adapter.interfaces.map(labelOf).join(' or ')}: ${adapter.interfaces.map(i => howToReach(i, input.browserUrl, input.ingress)).join(' ')}`
        })
  });

  checks.push({
    id: 'project-path',
    title: 'Project directory',
    status: input.project.ok ? 'pass' : 'fail',
    required: true,
    observed: `${input.projectPath} ${input.project.observed}`,
    ...(input.project.remedy ? { remedy: input.project.remedy } : {})
  });

  const state = input.state;
  checks.push({
    id: 'state-path',
    title: 'Private state location',
    status: state.kind === 'unsafe' ? 'fail' : 'pass',
    required: true,
    observed:
      state.kind === 'unsafe'
        ? state.detail
        : state.kind === 'initialized'
          ? `${input.statePath} holds this project's private state`
          : input.foreignRecord
            ? `${input.statePath} holds a record confirmed on the ${labelOf(input.foreignRecord.platform)}; confirming here replaces it`
            : `${input.statePath} is free; initialize creates it private (mode 0700)`,
    ...(state.kind === 'unsafe' ? { remedy: state.remedy } : {})
  });

  if (adapter.requiresApprovedStorage) {
    const root = insideApprovedStorage(
      input.projectPath,
      input.approvedStorage
    );
    const configured = input.approvedStorage.length > 0;
    checks.push({
      id: 'approved-storage',
      title: 'Approved project storage',
      status: root ? 'pass' : 'fail',
      required: true,
      observed: root
        ? `${input.projectPath} lies inside the approved root ${root}`
        : configured
          ? `${input.projectPath} lies outside the approved roots (${input.approvedStorage.join(', ')})`
          : 'no approved storage roots are configured (PROJECT_STARTUP_APPROVED_STORAGE)',
      ...(root
        ? {}
        : {
            remedy: configured
              ? `Move the project into one of ${input.approvedStorage.join(', ')} and run from there.`
              : 'Ask the cluster operator to set PROJECT_STARTUP_APPROVED_STORAGE to the approved project storage roots.'
          })
    });
  } else {
    checks.push({
      id: 'approved-storage',
      title: 'Approved project storage',
      status: 'skip',
      required: false,
      observed: `not used on the ${labelOf(adapter.id)}; state goes to ${labelOf(adapter.durableStorage).toLowerCase()}`
    });
  }

  const compute = input.compute;
  checks.push({
    id: 'compute-allocation',
    title: 'Compute',
    status: compute.satisfied
      ? compute.allocation?.live === null
        ? 'warn'
        : 'pass'
      : 'warn',
    required: true,
    observed: compute.detail,
    ...(compute.command
      ? {
          remedy: `Run \`${compute.command}\`, then run the setup again inside the allocation.`
        }
      : {})
  });

  checks.push(
    input.ingress?.listening && !input.ingress.offered
      ? {
          id: 'gateway-ingress',
          title: 'Gateway ingress',
          status: 'warn',
          required: false,
          observed: `${labelOf(input.ingress.mode)} on ${input.ingress.listening} is not an ingress of the ${labelOf(adapter.id)}; this service answers read-only`,
          remedy: `Reach the service through ${adapter.ingressModes.map(labelOf).join(' or ')} to set the project up.`
        }
      : input.ingress?.listening
        ? {
            id: 'gateway-ingress',
            title: 'Gateway ingress',
            status: 'pass',
            required: false,
            observed: `${labelOf(input.ingress.mode)} on ${input.ingress.listening}`
          }
        : {
            id: 'gateway-ingress',
            title: 'Gateway ingress',
            status: 'skip',
            required: false,
            observed:
              'no service is running; the command line read the project directly'
          }
  );

  checks.push(browserRouteCheck(input));

  const available = input.credentials.filter(c => c.available);
  checks.push({
    id: 'credential-backends',
    title: 'Credential backends',
    status: available.length > 0 ? 'pass' : 'warn',
    required: false,
    observed: input.credentials
      .map(c => `${labelOf(c.backend)}: ${c.observed}`)
      .join('; '),
    ...(available.length > 0
      ? {}
      : {
          remedy: `Provide model credentials through one of: ${adapter.credentialBackends.map(labelOf).join(', ')}.`
        })
  });

  const unreachable = input.runtimes.filter(r => !r.reachable);
  checks.push({
    id: 'inference-runtimes',
    title: 'Service-managed inference runtimes',
    status: unreachable.length === 0 ? 'pass' : 'warn',
    required: false,
    observed: input.runtimes
      .map(r => `${labelOf(r.id)}: ${r.observed}`)
      .join('; '),
    ...(unreachable.length === 0
      ? {}
      : {
          // Only the runtimes this platform offers (the cluster has no local runtime).
          remedy: `Start ${unreachable.map(r => labelOf(r.id)).join(' and ')} or point ${unreachable
            .map(r => RUNTIME_URL_VARIABLES[r.id])
            .join(' / ')} at it; setup does not need it.`
        })
  });

  checks.push({
    id: 'confirmation',
    title: 'Confirmation',
    status: state.kind === 'initialized' ? 'pass' : 'warn',
    required: true,
    observed:
      state.kind === 'initialized'
        ? `confirmed through ${labelOf(state.record.confirmation.interface)} at ${state.record.confirmation.confirmedAt}`
        : input.foreignRecord
          ? `confirmed on the ${labelOf(input.foreignRecord.platform)} (through ${labelOf(input.foreignRecord.confirmation.interface)} at ${input.foreignRecord.confirmation.confirmedAt}), not on the ${labelOf(adapter.id)}: it needs its own confirmation`
          : 'not confirmed yet',
    ...(state.kind === 'initialized'
      ? {}
      : {
          remedy: `Confirm initialization through ${confirmationInterfaces(adapter).map(labelOf).join(' or ')}.`
        })
  });
  return checks;
}

function browserRouteCheck(input: ProjectionInputs): ReadinessCheck {
  const base = {
    id: 'browser-route' as const,
    title: 'Browser route',
    required: false
  };
  if (input.adapter.browserRoute === 'unavailable') {
    return {
      ...base,
      status: 'skip',
      observed: `the ${labelOf(input.adapter.id)} has no browser route`
    };
  }
  if (input.browserUrl) {
    return {
      ...base,
      status: 'pass',
      observed: `the setup page answers at ${input.browserUrl}`
    };
  }
  if (input.ingress?.mode !== 'direct-loopback' || !input.ingress.listening) {
    return {
      ...base,
      status: 'skip',
      observed: 'the service is not listening on direct loopback'
    };
  }
  return {
    ...base,
    status: input.iface === 'web' ? 'warn' : 'skip',
    observed: 'the setup page address could not be verified by a self-probe',
    remedy:
      'Serve on a loopback TCP address (--host 127.0.0.1) so the setup page can be verified.'
  };
}

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

function nextActionFor(
  phase: Phase,
  input: ProjectionInputs,
  checks: ReadinessCheck[]
): NextAction {
  const { adapter, iface } = input;
  switch (phase) {
    case 'unsupported-interface':
      return {
        id: 'switch-interface',
        title: `Use ${adapter.interfaces.map(labelOf).join(' or ')} instead`,
        detail: `The ${labelOf(adapter.id)} does not offer the ${labelOf(iface)} interface. ${adapter.interfaces
          .map(i => howToReach(i, input.browserUrl, input.ingress))
          .join(' ')}`,
        interfaces: adapter.interfaces.map(i => ({
          id: i,
          label: labelOf(i),
          how: howToReach(i, input.browserUrl, input.ingress)
        }))
      };
    case 'blocked': {
      const failing = checks.find(
        c => c.required && c.status === 'fail'
      ) as ReadinessCheck;
      return {
        id: 'fix-check',
        title: `Fix: ${failing.title}`,
        detail: failing.remedy ?? failing.observed,
        checkId: failing.id
      };
    }
    case 'needs-compute':
      return {
        id: 'request-allocation',
        title: 'Get a compute allocation',
        detail: input.compute.detail,
        command: input.compute.command
      };
    case 'awaiting-confirmation':
      return confirmAction(input);
    case 'ready':
      return {
        id: 'none',
        title: 'Nothing to do',
        detail: `The project is set up; its private state is in ${input.statePath}.`
      };
  }
}

function confirmAction(input: ProjectionInputs): NextAction {
  const { iface } = input;
  const allowed = confirmationInterfaces(input.adapter);
  const title = 'Confirm to create the private project state';
  // The exact request that confirms, sent with the service's credential: given only where such
  // a call is accepted (a running service on an ingress the platform offers, an interface an
  // API call may confirm), so that sending it verbatim always works.
  const request =
    input.ingress?.listening &&
    input.ingress.offered &&
    apiMayConfirm(input.adapter.id, iface, input.adapter)
      ? {
          method: 'POST' as const,
          path: `${input.baseUrl}project/initialize`,
          body: {
            interface: iface,
            confirm: {
              projectPath: input.projectPath,
              statePath: input.statePath
            }
          }
        }
      : undefined;
  if (!allowed.includes(iface)) {
    return {
      id: 'confirm-initialization',
      title,
      detail: `Confirmation must come from ${allowed.map(labelOf).join(' or ')}. ${allowed.map(i => howToReach(i, input.browserUrl, input.ingress)).join(' ')}`,
      interfaces: allowed.map(i => ({
        id: i,
        label: labelOf(i),
        how: howToReach(i, input.browserUrl, input.ingress)
      })),
      ...(input.browserUrl && allowed.includes('web')
        ? { url: input.browserUrl }
        : {})
    };
  }
  const creates = `This creates ${input.statePath} (private, mode 0700) for ${input.projectPath}.`;
  switch (iface) {
    case 'terminal':
      if (input.ingress?.listening && !input.ingress.offered) {
        // This service answers read-only: the command line can check and create on its own.
        return {
          id: 'confirm-initialization',
          title,
          detail: `This service answers read-only (the ${labelOf(input.adapter.id)} does not offer the ${labelOf(input.ingress.mode)} ingress). Run \`project-startup init --local\` in a terminal and answer its question, or serve with \`--ingress ${input.adapter.defaultIngress}\`. ${creates}`,
          command: 'project-startup init --local'
        };
      }
      return {
        id: 'confirm-initialization',
        title,
        detail: `Run \`project-startup init\` in a terminal and answer its question. ${creates}`,
        command: 'project-startup init',
        ...(request ? { request } : {})
      };
    case 'web':
      return {
        id: 'confirm-initialization',
        title,
        detail: input.browserUrl
          ? `Open the setup page (${input.browserUrl}; \`project-startup url\` signs you in) and press "Create project state". ${creates}`
          : `${howToReach('web', undefined)} Then press "Create project state" on that page. ${creates}`,
        ...(input.browserUrl ? { url: input.browserUrl } : {}),
        ...(request ? { request } : {})
      };
    case 'notebook':
      return {
        id: 'confirm-initialization',
        title,
        detail: `Press "Initialize project" in the Project Startup panel and confirm the dialog. ${creates}`,
        ...(request ? { request } : {})
      };
  }
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
