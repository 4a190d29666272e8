// The alert after a failed initialize: what went wrong and how to go on; the panel stays usable.
import * as React from 'react';
import { problemNextAction } from '../responses';
import { Failure } from '../tokens';
import { DiagnosticsView, diagnosticsOf } from './diagnostics';
import { FailureDescription, INSTALL_COMMAND } from './failure';
import { CLASS_PREFIX, cls, Code, MARK, Trans, WithNodes } from './shared';

function installCode(): JSX.Element {
  return <Code key="install">{INSTALL_COMMAND}</Code>;
}

/** How to go on after the service refused an initialize with a problem code (or none). */
function problemCodeFix(code: string | undefined, trans: Trans): JSX.Element {
  switch (code) {
    case 'confirmation-stale':
      return (
        <>
          {trans.__(
            'The paths changed after the panel showed them. The panel now shows the current ones: check them and initialize again.'
          )}
        </>
      );
    case 'wrong-phase':
      return (
        <>
          {trans.__(
            'Setup is not at the confirmation step any more: follow the next action below.'
          )}
        </>
      );
    case 'confirmation-not-allowed':
      return (
        <>
          {trans.__(
            'This platform takes the confirmation through another interface: see the next action below.'
          )}
        </>
      );
    case 'state-unsafe':
      return (
        <>
          {trans.__(
            'Follow the remedy of the failing readiness check below, then press Refresh.'
          )}
        </>
      );
    case 'rate-limited':
      return (
        <>{trans.__('Wait a minute, then press "Initialize project" again.')}</>
      );
    case 'unauthorized':
    case 'forbidden-host':
    case 'cross-origin':
      return (
        <WithNodes
          text={trans.__(
            'The service refused the request from JupyterLab. Ask an operator to check that it runs behind jupyter-server-proxy (%1).',
            MARK
          )}
          nodes={[installCode()]}
        />
      );
    default:
      return (
        <>
          {trans.__(
            'Press Refresh, then try again. If it keeps failing, check the Jupyter server log.'
          )}
        </>
      );
  }
}

/** How to go on after a failed initialize; the panel stays usable. */
function InitializeFix(props: { failure: Failure; trans: Trans }): JSX.Element {
  const { failure, trans } = props;
  if (failure.kind === 'not-enabled') {
    return (
      <WithNodes
        text={trans.__(
          'The Project Startup service is no longer reachable through Jupyter. Ask an operator to install jupyter-server-proxy, run %1 and restart Jupyter.',
          MARK
        )}
        nodes={[installCode()]}
      />
    );
  }
  if (failure.kind === 'network') {
    return (
      <>
        {trans.__(
          'Check the connection to the Jupyter server, then press "Initialize project" again.'
        )}
      </>
    );
  }
  const code = failure.kind === 'http' ? failure.problem?.code : undefined;
  // Called, not rendered as a component: React updates the same text in place.
  return problemCodeFix(code, trans);
}

export function InitializeFailureAlert(props: {
  failure: Failure;
  trans: Trans;
}): JSX.Element {
  const { failure, trans } = props;
  const id = `${CLASS_PREFIX}-alert-${React.useId().replace(/:/g, '')}`;
  const problem = failure.kind === 'http' ? failure.problem : undefined;
  const next = problemNextAction(problem);
  return (
    <div className={cls('alert')} role="alert" aria-labelledby={id}>
      <h3 id={id} className={cls('sectionTitle')}>
        {trans.__('Initialization failed')}
      </h3>
      <FailureDescription failure={failure} trans={trans} />
      {next ? (
        <p>
          {trans.__('Next action from the service:')} {next.title}
        </p>
      ) : null}
      <DiagnosticsView
        diagnostics={
          failure.kind !== 'not-enabled' ? diagnosticsOf(failure) : undefined
        }
        trans={trans}
      />
      <p className={cls('fix')}>
        <InitializeFix failure={failure} trans={trans} />
      </p>
    </div>
  );
}
