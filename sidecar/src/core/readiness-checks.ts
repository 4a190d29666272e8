// The readiness checks of a startup projection, one function per check, derived purely from
// what the probes observed (the IETF health-check draft's shape: id, status, observed, remedy).
import type { ReadinessCheck } from './api-types';
import { confirmationInterfaces } from './confirmation';
import { PLATFORM_ADAPTERS } from './platforms';
import { PLATFORM_SETTING } from './platforms/rules';
import {
  howToReach,
  ProjectionInputs,
  reachContextOf
} from './projection-inputs';
import { reach } from './reach';
import { InferenceRuntimeId, labelOf } from './vocabulary';

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

/** The environment variable that points the service at each runtime's probe. */
const RUNTIME_URL_VARIABLES: Readonly<Record<InferenceRuntimeId, string>> = {
  'local-lightweight': 'PROJECT_STARTUP_LOCAL_RUNTIME_URL',
  'high-throughput-serving': 'PROJECT_STARTUP_SERVING_RUNTIME_URL'
};

/** How to change the platform: where the setting in force came from, else the variable. */
function platformSettingFix(decision: ProjectionInputs['decision']): string {
  const setting = decision.signals.find(s => s.kind === 'setting');
  const ids = Object.values(PLATFORM_ADAPTERS).map(a => a.id);
  const values = `${ids.slice(0, -1).join(', ')} or ${ids[ids.length - 1]}`;
  return setting !== undefined && setting.name !== PLATFORM_SETTING
    ? `change ${setting.name} to ${values}`
    : `set ${PLATFORM_SETTING} to ${values}`;
}

function platformEvidenceCheck(input: ProjectionInputs): ReadinessCheck {
  const { decision } = input;
  const signalNames =
    decision.signals.map(s => s.name).join(', ') ||
    'no platform-specific signals';
  return decision.overruled.length > 0
    ? {
        id: 'platform-evidence',
        title: 'Platform evidence',
        status: 'warn',
        required: false,
        observed: `${labelOf(decision.platform)} selected by rule ${decision.decidedBy}; overruled: ${decision.overruled
          .map(s => `${s.name} (${s.platform})`)
          .join(', ')}`,
        remedy: `If the platform is wrong, ${platformSettingFix(decision)} and restart.`,
        remedyBy: 'administrator'
      }
    : {
        id: 'platform-evidence',
        title: 'Platform evidence',
        status: 'pass',
        required: true,
        observed: `${labelOf(decision.platform)} selected by rule ${decision.decidedBy} (${signalNames})`
      };
}

function interfaceSupportCheck(input: ProjectionInputs): ReadinessCheck {
  const { adapter, iface } = input;
  const supported = adapter.interfaces.includes(iface);
  return {
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
          remedy: `Use ${adapter.interfaces.map(labelOf).join(' or ')}: ${adapter.interfaces.map(i => howToReach(input, i)).join(' ')}`,
          remedyBy: 'user'
        })
  };
}

function projectPathCheck(input: ProjectionInputs): ReadinessCheck {
  return {
    id: 'project-path',
    title: 'Project directory',
    status: input.project.ok ? 'pass' : 'fail',
    required: true,
    observed: `${input.projectPath} ${input.project.observed}`,
    ...(input.project.remedy
      ? { remedy: input.project.remedy, remedyBy: 'user' }
      : {})
  };
}

function statePathCheck(input: ProjectionInputs): ReadinessCheck {
  const state = input.state;
  return {
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
    ...(state.kind === 'unsafe'
      ? { remedy: state.remedy, remedyBy: 'user' }
      : {})
  };
}

function approvedStorageCheck(input: ProjectionInputs): ReadinessCheck {
  const { adapter } = input;
  if (adapter.requiresApprovedStorage) {
    const root = insideApprovedStorage(
      input.projectPath,
      input.approvedStorage
    );
    const configured = input.approvedStorage.length > 0;
    return {
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
            ...(configured
              ? {
                  remedy: `Move the project into one of ${input.approvedStorage.join(', ')} and run from there.`,
                  remedyBy: 'user'
                }
              : {
                  remedy:
                    'Set PROJECT_STARTUP_APPROVED_STORAGE to the approved project storage roots.',
                  remedyBy: 'administrator'
                })
          })
    };
  }
  return {
    id: 'approved-storage',
    title: 'Approved project storage',
    status: 'skip',
    required: false,
    observed: `not used on the ${labelOf(adapter.id)}; state goes to ${labelOf(adapter.durableStorage).toLowerCase()}`
  };
}

function computeCheck(input: ProjectionInputs): ReadinessCheck {
  const compute = input.compute;
  return {
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
          remedy: `Run \`${compute.command}\`, then run the setup again inside the allocation.`,
          remedyBy: 'user'
        }
      : {})
  };
}

function gatewayIngressCheck(input: ProjectionInputs): ReadinessCheck {
  const { adapter } = input;
  return input.ingress?.listening && !input.ingress.offered
    ? {
        id: 'gateway-ingress',
        title: 'Gateway ingress',
        status: 'warn',
        required: false,
        observed: `${labelOf(input.ingress.mode)} on ${input.ingress.listening} is not an ingress of the ${labelOf(adapter.id)}; this service answers read-only`,
        remedy: `Reach the service through ${adapter.ingressModes.map(labelOf).join(' or ')} to set the project up.`,
        remedyBy: 'administrator'
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
        };
}

/** What the site has not set up is said once, in these words, and is no warning. */
export const NOT_SET_UP = 'not set up at this site';

/**
 * A warning only for a backend the site set up that does not work: one nobody configured (no
 * secrets directory, no identity endpoint, no D-Bus session on a laptop) is not set up here.
 */
function credentialsCheck(input: ProjectionInputs): ReadinessCheck {
  const arranged = input.modelSources?.filter(s => s.arranged !== false);
  if (arranged !== undefined && !arranged.some(s => s.secretBacked)) {
    // Only credential-free sources (or none) are arranged here: no credential is needed, and
    // asking for one would send a person after a provider this site does not offer.
    return {
      id: 'credential-backends',
      title: 'Credential backends',
      status: 'skip',
      required: false,
      observed:
        arranged.length === 0
          ? 'no model source is arranged at this site, so no model credential is needed'
          : 'only credential-free model sources are arranged at this site, so no model credential is needed'
    };
  }
  const available = input.credentials.filter(c => c.available);
  const broken = input.credentials.filter(c => c.configured && !c.available);
  // Each backend's own words (why it is missing included): they sit in the details only.
  const observed = input.credentials
    .map(c => `${labelOf(c.backend)}: ${c.observed}`)
    .join('; ');
  const base = {
    id: 'credential-backends' as const,
    title: 'Credential backends',
    required: false,
    observed
  };
  if (available.length > 0) {
    return { ...base, status: 'pass' };
  }
  if (broken.length === 0) {
    return { ...base, status: 'skip' };
  }
  return {
    ...base,
    status: 'warn',
    remedy: `Repair ${broken.map(c => labelOf(c.backend)).join(' and ')}: ${broken.map(c => c.observed).join('; ')}.`,
    remedyBy: 'administrator'
  };
}

/**
 * A runtime at its default address that does not answer was never set up here: not a warning.
 * One the site pointed the service at (a variable or the site file) that does not answer is.
 */
function runtimesCheck(input: ProjectionInputs): ReadinessCheck {
  const broken = input.runtimes.filter(r => r.configured && !r.reachable);
  const reachable = input.runtimes.filter(r => r.reachable);
  const base = {
    id: 'inference-runtimes' as const,
    title: 'Service-managed inference runtimes',
    required: false,
    observed: input.runtimes
      .map(
        r =>
          `${labelOf(r.id)}: ${r.reachable || r.configured ? r.observed : NOT_SET_UP}`
      )
      .join('; ')
  };
  if (broken.length > 0) {
    return {
      ...base,
      status: 'warn',
      // Only the runtimes this platform offers (the cluster has no local runtime).
      remedy: `Start ${broken.map(r => labelOf(r.id)).join(' and ')} or point ${broken
        .map(r => RUNTIME_URL_VARIABLES[r.id])
        .join(' / ')} at it; setup does not need it.`,
      remedyBy: 'administrator'
    };
  }
  return { ...base, status: reachable.length > 0 ? 'pass' : 'skip' };
}

function confirmationCheck(input: ProjectionInputs): ReadinessCheck {
  const { adapter, state } = input;
  return {
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
          remedy: `Confirm initialization through ${confirmationInterfaces(adapter).map(labelOf).join(' or ')}.`,
          remedyBy: 'user'
        })
  };
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
  const proxy = input.ingress?.listening ? input.ingress.mode : undefined;
  const web = reach(reachContextOf(input), 'web', 'setup-page');
  if (
    (proxy === 'notebook-server-proxy' || proxy === 'trusted-proxy') &&
    web.route?.kind === 'url'
  ) {
    // Behind a proxy the setup page is served too, signed in by the proxy: the manifest's
    // direct loopback is the route when the service itself listens on this machine.
    return {
      ...base,
      status: 'pass',
      observed:
        proxy === 'notebook-server-proxy'
          ? `the setup page is ${web.route.url} on the Jupyter server, a page of Jupyter's that Jupyter signs you in to`
          : `the setup page is ${web.route.url} at the trusted proxy's address, which signs you in`
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
      'Serve on a loopback TCP address (--host 127.0.0.1) so the setup page can be verified.',
    remedyBy: 'user'
  };
}

export function buildChecks(input: ProjectionInputs): ReadinessCheck[] {
  return [
    platformEvidenceCheck(input),
    interfaceSupportCheck(input),
    projectPathCheck(input),
    statePathCheck(input),
    approvedStorageCheck(input),
    computeCheck(input),
    gatewayIngressCheck(input),
    browserRouteCheck(input),
    credentialsCheck(input),
    runtimesCheck(input),
    confirmationCheck(input)
  ];
}
