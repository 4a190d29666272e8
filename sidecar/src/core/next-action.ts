// The next action of a startup projection, for the person using the interface asked about (the
// command line for `terminal`, the setup page for `web`, the panel or a notebook for `notebook`).
// Every route it names comes from the one model (reach.ts), in that reader's words.
import type { NextAction, ReadinessCheck } from './api-types';
import { apiMayConfirm, confirmationInterfaces } from './confirmation';
import {
  howToReach,
  ProjectionInputs,
  reachContextOf
} from './projection-inputs';
import { reach, readerOf } from './reach';
import { InterfaceId, labelOf, Phase } from './vocabulary';

export function nextActionFor(
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
          .map(i => howToReach(input, i))
          .join(' ')}`,
        interfaces: ways(input, adapter.interfaces)
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

function ways(
  input: ProjectionInputs,
  interfaces: readonly InterfaceId[]
): NonNullable<NextAction['interfaces']> {
  return interfaces.map(i => ({
    id: i,
    label: labelOf(i),
    how: howToReach(input, i)
  }));
}

const TITLE = 'Confirm to create the private project state';

/**
 * The exact request that confirms, sent with the service's credential: given only where such a
 * call is accepted (a running service on an ingress the platform offers, an interface an API
 * call may confirm), so that sending it verbatim always works.
 */
function confirmRequest(input: ProjectionInputs): NextAction['request'] {
  const { iface } = input;
  return input.ingress?.listening &&
    input.ingress.offered &&
    apiMayConfirm(iface, input.adapter)
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
}

function confirmElsewhere(input: ProjectionInputs): NextAction {
  const allowed = confirmationInterfaces(input.adapter);
  return {
    id: 'confirm-initialization',
    title: TITLE,
    detail: `Confirmation must come from ${allowed.map(labelOf).join(' or ')}. ${allowed.map(i => howToReach(input, i)).join(' ')}`,
    interfaces: ways(input, allowed),
    ...(input.browserUrl && allowed.includes('web')
      ? { url: input.browserUrl }
      : {})
  };
}

function confirmAction(input: ProjectionInputs): NextAction {
  const { iface } = input;
  if (!confirmationInterfaces(input.adapter).includes(iface)) {
    return confirmElsewhere(input);
  }
  const creates = `This creates ${input.statePath} (private, mode 0700) for ${input.projectPath}.`;
  const request = confirmRequest(input);
  const withRequest = request ? { request } : {};
  switch (iface) {
    case 'terminal':
      // Said to someone at the command line: no "in a terminal", since they are in one.
      if (input.ingress?.listening && !input.ingress.offered) {
        // This service answers read-only: the command line can check and create on its own.
        return {
          id: 'confirm-initialization',
          title: TITLE,
          detail: `This service answers read-only (the ${labelOf(input.adapter.id)} does not offer the ${labelOf(input.ingress.mode)} ingress). Run \`project-startup init --local\` and answer its question, or serve with \`--ingress ${input.adapter.defaultIngress}\`. ${creates}`,
          command: 'project-startup init --local'
        };
      }
      return {
        id: 'confirm-initialization',
        title: TITLE,
        detail: `Run \`project-startup init\` and answer its question. ${creates}`,
        command: 'project-startup init',
        ...withRequest
      };
    case 'web':
      return { ...webConfirm(input, creates), ...withRequest };
    case 'notebook':
      return { ...notebookConfirm(input, creates, request), ...withRequest };
  }
}

/** Said to the setup page's reader: where the button is, never "open the setup page" (D12). */
function webConfirm(input: ProjectionInputs, creates: string): NextAction {
  const web = reach(reachContextOf(input), 'web', readerOf('web'));
  if (web.route?.kind === 'url') {
    const where = input.browserUrl
      ? `${web.route.url}; \`project-startup url\` prints an address that signs you in`
      : web.route.url;
    return {
      id: 'confirm-initialization',
      title: TITLE,
      detail: `On the setup page (${where}), press "Create project state". ${creates}`,
      ...(input.browserUrl ? { url: input.browserUrl } : {})
    };
  }
  return {
    id: 'confirm-initialization',
    title: TITLE,
    detail: `${web.how} Then press "Create project state" on that page. ${creates}`
  };
}

/** The panel's button, but only where the panel talks to this very service (D17). */
function notebookConfirm(
  input: ProjectionInputs,
  creates: string,
  request: NextAction['request']
): NextAction {
  const notebook = reach(reachContextOf(input), 'notebook', 'notebook-panel');
  if (notebook.why !== undefined) {
    // The request in words: the human status and the Python client's HTML show no request
    // field, so "the request given here" would point at nothing.
    const how = request
      ? `To confirm through this service instead, send \`${request.method} ${request.path}\` with the body \`${JSON.stringify(request.body)}\` and ${credentialWords(input)}.`
      : notebook.how;
    return {
      id: 'confirm-initialization',
      title: TITLE,
      detail: `${notebook.why.charAt(0).toUpperCase()}${notebook.why.slice(1)}. ${how} ${creates}`
    };
  }
  return {
    id: 'confirm-initialization',
    title: TITLE,
    detail: `Press "Initialize project" in the Project Startup panel and confirm the dialog. ${creates}`
  };
}

/** What a script sends to be let in, in words, for the ingress this service is reached through. */
function credentialWords(input: ProjectionInputs): string {
  switch (input.ingress?.mode) {
    case 'trusted-proxy':
      return 'through the trusted proxy, which adds its secret';
    case 'notebook-server-proxy':
      return "Jupyter's token";
    default:
      return '"Authorization: Bearer <token>" (the token of the runtime file `project-startup serve` wrote, or PROJECT_STARTUP_TOKEN)';
  }
}
