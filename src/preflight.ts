// The activation preflight (as jupyterlab-git checks its server extension): after JupyterLab
// has restored, the first GET of the startup projection tells whether the sidecar is there and
// speaks this extension's schema. Every failure says how to fix it; the panel shows the same
// in full, and the plugin reports it once to the browser console for operators.
import { PanelState } from './model';
import { ITranslationBundle, SUPPORTED_SCHEMA_MAJOR } from './tokens';

export interface PreflightIssue {
  /** What is wrong. */
  problem: string;
  /** How to fix it. */
  fix: string;
}

/** The issue the first answer reveals, or null when the service answered with a projection. */
export function preflight(state: PanelState, trans: ITranslationBundle): PreflightIssue | null {
  const view = state.view;
  if (view.kind === 'loaded' || view.kind === 'loading') {
    return null;
  }
  const failure = view.failure;
  // The server extension's diagnostics name the real cause (Node, jupyter-server-proxy, a
  // setting that stops the sidecar) when the sidecar did not answer.
  const diagnostics = 'diagnostics' in failure ? failure.diagnostics : undefined;
  const reported = diagnostics?.kind === 'report' ? diagnostics.report.problems : [];
  if (reported.length > 0) {
    return {
      problem: reported.map(p => `${p.title}: ${p.detail}`).join(' '),
      fix: reported.map(p => p.fix).join(' ')
    };
  }
  switch (failure.kind) {
    case 'not-enabled':
      return {
        problem: trans.__('The Project Startup service is not enabled: %1 answered HTTP %2.', failure.url, failure.status),
        fix: trans.__(
          'An operator installs jupyter-server-proxy, runs "project-startup jupyter install --sys-prefix" in the environment of the Jupyter server and restarts Jupyter (see the operator guide in the README).'
        )
      };
    case 'incompatible':
      return {
        problem: trans.__(
          'The Project Startup service sends projection schema %1; this extension understands %2.x.',
          failure.schemaVersion,
          SUPPORTED_SCHEMA_MAJOR
        ),
        fix: trans.__('Install the same version of jupyterlab-project-startup for the service and JupyterLab, then restart Jupyter.')
      };
    case 'network':
      return {
        problem: trans.__('The Project Startup service could not be reached at %1: %2.', failure.url, failure.message),
        fix: trans.__('Check that the Jupyter server is running, then press Refresh in the Project Startup panel.')
      };
    case 'http':
      return {
        problem: failure.problem
          ? trans.__('The Project Startup service failed (HTTP %1, %2): %3', failure.status, failure.problem.code, failure.problem.detail)
          : trans.__('The Project Startup service failed: %1 answered HTTP %2.', failure.url, failure.status),
        fix: trans.__('Press Refresh in the Project Startup panel; if it keeps failing, read the Jupyter server log.')
      };
    case 'unexpected-body':
      return {
        problem: trans.__('The answer from %1 is not a startup projection (%2).', failure.url, failure.reason),
        fix: trans.__(
          'Check that {base_url}project/ is served by project-startup through jupyter-server-proxy ("project-startup jupyter install --sys-prefix"), then restart Jupyter.'
        )
      };
  }
}

/** Whether the panel should open by itself: setup is not known to be complete. */
export function setupIncomplete(state: PanelState): boolean {
  return !(state.view.kind === 'loaded' && state.view.projection.phase === 'ready');
}
