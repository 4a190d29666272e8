// The panel when the service is not there or fails: what went wrong, in one line each; who must
// act (almost always the site's administrator, with the report to copy); the diagnostics and the
// steps behind a disclosure.
import * as React from 'react';
import { reportedProblems } from '../labels';
import { problemFix } from '../responses';
import { Failure, SUPPORTED_SCHEMA_MAJOR } from '../tokens';
import { DiagnosticsView, diagnosticsOf } from './diagnostics';
import { ActionButton, CopyReportButton, WhoActs } from './phase';
import {
  ACTION_CHECK_AGAIN,
  cls,
  Code,
  Disclosure,
  IPanelActions,
  MARK,
  Section,
  ServiceText,
  Trans,
  WithNodes
} from './shared';

/** The command an operator runs to enable the service (the same in every language). */
export const INSTALL_COMMAND = 'project-startup jupyter install --sys-prefix';

/**
 * A problem's detail: a refused configuration lists its problems one per line (each with its
 * file:line and fix), shown as a list rather than one paragraph.
 */
function ProblemDetail(props: { detail: string }): JSX.Element {
  const [first, ...rest] = props.detail.split('\n').filter(l => l.trim());
  return (
    <>
      <p className={cls('problemDetail')}>
        <ServiceText text={first ?? ''} />
      </p>
      {rest.length > 0 ? (
        <ul className={cls('problemLines')}>
          {rest.map((line, i) => (
            <li key={i}>
              <ServiceText text={line.trim()} />
            </li>
          ))}
        </ul>
      ) : null}
    </>
  );
}

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
        <p>{trans.__('%1 (HTTP %2).', problem.title, failure.status)}</p>
        <ProblemDetail detail={problem.detail} />
        {fix ? (
          <p className={cls('fix')}>
            {trans.__('For your administrator:')} <ServiceText text={fix} />
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

export function NotEnabledView(props: {
  failure: Failure;
  trans: Trans;
  actions: IPanelActions;
}): JSX.Element {
  const { failure, trans, actions } = props;
  // With the Python package installed, its server extension says what is missing (such as
  // jupyter-server-proxy); otherwise the generic steps follow.
  const diagnostics =
    failure.kind === 'not-enabled' && reportedProblems(failure).length > 0
      ? failure.diagnostics
      : undefined;
  return (
    <>
      <Section
        className="notEnabled"
        heading={trans.__('Project Startup is not set up on this server')}
      >
        <p>
          {trans.__(
            'Your administrator needs to enable Project Startup on this Jupyter server before you can set up projects here.'
          )}
        </p>
        <div className={cls('actions')}>
          <CopyReportButton trans={trans} actions={actions} primary />
        </div>
        <WhoActs who="administrator" trans={trans} />
      </Section>
      <Disclosure
        id="administrator"
        summary={trans.__('What your administrator needs to do')}
      >
        <FailureDescription failure={failure} trans={trans} />
        <DiagnosticsView diagnostics={diagnostics} trans={trans} />
        <p>{trans.__('In the environment that runs the Jupyter server:')}</p>
        <ol className={cls('steps')}>
          <li>
            {trans.__('Install jupyter-server-proxy in that environment.')}
          </li>
          <li>
            <WithNodes
              text={trans.__('Run %1 in that environment.', MARK)}
              nodes={[<Code key="install">{INSTALL_COMMAND}</Code>]}
            />
          </li>
          <li>{trans.__('Restart the Jupyter server.')}</li>
        </ol>
        <p>
          {trans.__(
            'The operator guide in the README of jupyterlab-project-startup has the details.'
          )}
        </p>
      </Disclosure>
    </>
  );
}

/** Whether pressing Refresh may help: no answer, or an answer that was not the service's. */
function transient(failure: Failure): boolean {
  return (
    failure.kind === 'network' ||
    failure.kind === 'unexpected-body' ||
    (failure.kind === 'http' && !failure.problem && !diagnosticsOf(failure))
  );
}

export function FailingView(props: {
  failure: Failure;
  trans: Trans;
  actions: IPanelActions;
}): JSX.Element {
  const { failure, trans, actions } = props;
  const retry = transient(failure);
  return (
    <>
      <Section
        className="failing"
        heading={trans.__('Project Startup cannot start')}
      >
        <FailureDescription failure={failure} trans={trans} />
        <DiagnosticsView diagnostics={diagnosticsOf(failure)} trans={trans} />
        {retry ? (
          <>
            <p>
              {trans.__(
                'Try again in a moment. If it keeps failing, your administrator needs to look at the Jupyter server log.'
              )}
            </p>
            <div className={cls('actions')}>
              <ActionButton
                action={ACTION_CHECK_AGAIN}
                label={trans.__('Check again')}
                primary
                onClick={() => actions.refresh()}
              />
              <CopyReportButton trans={trans} actions={actions} />
            </div>
          </>
        ) : (
          // Who acts (below) says it is the administrator's to fix: no sentence of its own here.
          <div className={cls('actions')}>
            <CopyReportButton trans={trans} actions={actions} primary />
          </div>
        )}
        <WhoActs who={retry ? 'user' : 'administrator'} trans={trans} />
      </Section>
    </>
  );
}
