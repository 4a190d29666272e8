// The panel when the service is not there or fails: what went wrong, the diagnostics, and how to
// fix it.
import * as React from 'react';
import { reportedProblems } from '../labels';
import { problemFix } from '../responses';
import { Failure, SUPPORTED_SCHEMA_MAJOR } from '../tokens';
import { DiagnosticsView, diagnosticsOf } from './diagnostics';
import {
  cls,
  Code,
  MARK,
  Section,
  ServiceText,
  Trans,
  WithNodes
} from './shared';

/** The command an operator runs to enable the service (the same in every language). */
export const INSTALL_COMMAND = 'project-startup jupyter install --sys-prefix';

/** An HTTP error: the service's problem (detail, fix, code) when it sent one, else the status. */
function httpFailureDescription(
  failure: Extract<Failure, { kind: 'http' }>,
  trans: Trans
): JSX.Element {
  const problem = failure.problem;
  const fix = problemFix(problem);
  if (problem) {
    return (
      <>
        <p>
          {trans.__(
            'The service answered HTTP %1: %2',
            failure.status,
            problem.title
          )}
        </p>
        <p className={cls('problemDetail')}>
          <ServiceText text={problem.detail} />
        </p>
        {fix ? (
          <p className={cls('fix')}>
            {trans.__('Fix:')} <ServiceText text={fix} />
          </p>
        ) : null}
        <p className={cls('problemCode')}>
          {trans.__('Problem code:')} <Code>{problem.code}</Code>
        </p>
      </>
    );
  }
  return (
    <p>
      {trans
        .__(
          'The request to %1 failed with HTTP %2 %3.',
          failure.url,
          failure.status,
          failure.statusText
        )
        .replace(/ \.$/, '.')}
    </p>
  );
}

/** What went wrong, for a person: one or two sentences, without the fix. */
export function FailureDescription(props: {
  failure: Failure;
  trans: Trans;
}): JSX.Element {
  const { failure, trans } = props;
  switch (failure.kind) {
    case 'not-enabled':
      return (
        <p>
          {trans.__(
            'The Jupyter server answered "not found" (HTTP %1) for %2: no Project Startup service is set up behind it.',
            failure.status,
            failure.url
          )}
        </p>
      );
    case 'network':
      return (
        <p>
          {failure.url
            ? trans.__(
                'JupyterLab got no answer from %1 (%2).',
                failure.url,
                failure.message
              )
            : trans.__(
                'JupyterLab got no answer from the Jupyter server (%1).',
                failure.message
              )}
        </p>
      );
    case 'http':
      // Called, not rendered as a component: React updates the same element in place.
      return httpFailureDescription(failure, trans);
    case 'unexpected-body':
      return (
        <p>
          {failure.reason === 'not-json'
            ? trans.__(
                'The answer from %1 (HTTP %2, %3) is not what the service sends; a sign-in page or a proxy error page may have answered instead.',
                failure.url,
                failure.status,
                failure.contentType || trans.__('no content type')
              )
            : trans.__(
                'The answer from %1 lacks fields the panel needs: %2.',
                failure.url,
                failure.reason
              )}
        </p>
      );
    case 'incompatible':
      return (
        <p>
          {trans.__(
            'The service sends version %1 of the startup projection; this extension understands version %2.x.',
            failure.schemaVersion,
            SUPPORTED_SCHEMA_MAJOR
          )}
        </p>
      );
  }
}

/** How to fix a failing service, for a person. */
function FailingFix(props: { failure: Failure; trans: Trans }): JSX.Element {
  const { failure, trans } = props;
  if (failure.kind === 'http' && problemFix(failure.problem)) {
    // The service gave its own fix (shown with its detail); pressing Refresh would not help.
    return <></>;
  }
  return (
    <p className={cls('fix')}>
      {failure.kind === 'incompatible'
        ? trans.__(
            'Ask an operator to install the same version of jupyterlab-project-startup for the service and for JupyterLab, then restart Jupyter and press Refresh.'
          )
        : trans.__(
            'Press Refresh to try again. If it keeps failing, check the Jupyter server log: the service and jupyter-server-proxy write their errors there.'
          )}
    </p>
  );
}

export function NotEnabledView(props: {
  failure: Failure;
  trans: Trans;
}): JSX.Element {
  const { failure, trans } = props;
  // With the Python package installed, its server extension says what is missing (such as
  // jupyter-server-proxy); otherwise the generic steps follow.
  const diagnostics =
    failure.kind === 'not-enabled' && reportedProblems(failure).length > 0
      ? failure.diagnostics
      : undefined;
  return (
    <Section
      className="notEnabled"
      heading={trans.__('The Project Startup service is not enabled')}
    >
      <FailureDescription failure={failure} trans={trans} />
      <DiagnosticsView diagnostics={diagnostics} trans={trans} />
      <p>
        {trans.__(
          'An operator enables it in the environment that runs the Jupyter server:'
        )}
      </p>
      <ol className={cls('steps')}>
        <li>{trans.__('Install jupyter-server-proxy in that environment.')}</li>
        <li>
          <WithNodes
            text={trans.__('Run %1 in that environment.', MARK)}
            nodes={[<Code key="install">{INSTALL_COMMAND}</Code>]}
          />
        </li>
        <li>{trans.__('Restart the Jupyter server, then press Refresh.')}</li>
      </ol>
      <p>
        {trans.__(
          'The operator guide in the README of jupyterlab-project-startup has the details.'
        )}
      </p>
    </Section>
  );
}

export function FailingView(props: {
  failure: Failure;
  trans: Trans;
}): JSX.Element {
  const { failure, trans } = props;
  return (
    <Section
      className="failing"
      heading={trans.__('The Project Startup service is failing')}
    >
      <FailureDescription failure={failure} trans={trans} />
      <DiagnosticsView diagnostics={diagnosticsOf(failure)} trans={trans} />
      <FailingFix failure={failure} trans={trans} />
    </Section>
  );
}
