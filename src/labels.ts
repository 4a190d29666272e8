// Words for the service's values (phases, check statuses, interfaces) and the panel's one-line
// status: pure functions of the state, shared by the panel, the status bar and the notifications.
import { IPanelState } from './model';
import {
  CheckStatus,
  Diagnostics,
  Failure,
  InterfaceId,
  ITranslationBundle,
  Phase
} from './tokens';

export function phaseLabel(phase: Phase, trans: ITranslationBundle): string {
  switch (phase) {
    case 'unsupported-interface':
      return trans.__('Interface not supported');
    case 'blocked':
      return trans.__('Blocked');
    case 'needs-compute':
      return trans.__('Needs compute');
    case 'awaiting-confirmation':
      return trans.__('Awaiting confirmation');
    case 'ready':
      return trans.__('Ready');
  }
}

export function checkStatusLabel(
  status: CheckStatus,
  trans: ITranslationBundle
): string {
  switch (status) {
    case 'pass':
      return trans.__('Pass');
    case 'warn':
      return trans.__('Warning');
    case 'fail':
      return trans.__('Fail');
    case 'skip':
      return trans.__('Skipped');
  }
}

export function interfaceLabel(
  id: InterfaceId | string,
  trans: ITranslationBundle
): string {
  switch (id) {
    case 'terminal':
      return trans.__('Terminal');
    case 'web':
      return trans.__('Browser');
    case 'notebook':
      return trans.__('Notebook');
    default:
      return id;
  }
}

/** Where a person does something, as they see it: "in JupyterLab or a notebook", "in a terminal". */
export function interfacePhrase(
  id: InterfaceId | string,
  trans: ITranslationBundle
): string {
  switch (id) {
    case 'terminal':
      return trans.__('in a terminal');
    case 'web':
      return trans.__('in a browser');
    case 'notebook':
      return trans.__('in JupyterLab or a notebook');
    default:
      return id;
  }
}

/** The problems of a diagnostics report, when it has any. */
export function reportedProblems(
  failure: Failure
): Extract<Diagnostics, { kind: 'report' }>['report']['problems'] {
  const diagnostics =
    'diagnostics' in failure ? failure.diagnostics : undefined;
  return diagnostics?.kind === 'report' ? diagnostics.report.problems : [];
}

/** The text of the panel's live region: announces loading, failures and phase changes. */
export function statusMessage(
  state: IPanelState,
  trans: ITranslationBundle
): string {
  if (state.initializing) {
    return trans.__('Initializing the project…');
  }
  if (state.refreshing || state.view.kind === 'loading') {
    return trans.__('Checking the project setup…');
  }
  switch (state.view.kind) {
    case 'not-enabled':
      return trans.__(
        'The Project Startup service is not enabled on this Jupyter server.'
      );
    case 'failing': {
      const first = reportedProblems(state.view.failure)[0];
      return first
        ? trans.__('The Project Startup service cannot start: %1.', first.title)
        : trans.__('The Project Startup service is failing.');
    }
    case 'loaded': {
      const phase = phaseLabel(state.view.projection.phase, trans);
      if (state.initializeFailure) {
        return trans.__('Initialization failed. Setup phase: %1.', phase);
      }
      if (state.initialized) {
        return trans.__('Project initialized. Setup phase: %1.', phase);
      }
      return trans.__('Setup phase: %1.', phase);
    }
  }
}

/** The status bar item's text: "Project: <phase>", or the failure in words. */
export function statusBarText(
  state: IPanelState,
  trans: ITranslationBundle
): string {
  if (state.initializing) {
    return trans.__('Project: Initializing…');
  }
  switch (state.view.kind) {
    case 'loading':
      return trans.__('Project: Checking…');
    case 'not-enabled':
      return trans.__('Project: Not enabled');
    case 'failing':
      return state.view.failure.kind === 'incompatible'
        ? trans.__('Project: Incompatible')
        : trans.__('Project: Failing');
    case 'loaded':
      return trans.__(
        'Project: %1',
        phaseLabel(state.view.projection.phase, trans)
      );
  }
}
