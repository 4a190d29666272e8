// What the server extension's diagnostics route said about a service that did not answer, and
// where the service's log is.
import * as React from 'react';
import { Diagnostics, Failure } from '../tokens';
import {
  cls,
  Code,
  MARK,
  Section,
  ServiceText,
  Trans,
  WithNodes
} from './shared';

/**
 * The commands that start a Jupyter server, named in the log hint. Command names are typed as
 * they are in every language, so they are not translated (the sentence around them is).
 */
const JUPYTER_SERVER_COMMAND = 'jupyter server';
const JUPYTER_LAB_COMMAND = 'jupyter lab';
const JUPYTER_NOTEBOOK_COMMAND = 'jupyter notebook';

function LogHint(props: { trans: Trans }): JSX.Element {
  return (
    <p className={cls('logHint')}>
      <WithNodes
        text={props.trans.__(
          "The service's log is in the Jupyter server's log: the output (stderr) of %1, %2 or %3.",
          MARK,
          MARK,
          MARK
        )}
        nodes={[
          <Code key="server">{JUPYTER_SERVER_COMMAND}</Code>,
          <Code key="lab">{JUPYTER_LAB_COMMAND}</Code>,
          <Code key="notebook">{JUPYTER_NOTEBOOK_COMMAND}</Code>
        ]}
      />
    </p>
  );
}

type DiagnosticsReport = Extract<Diagnostics, { kind: 'report' }>['report'];

/** A diagnostics report: that all is well, or each problem with its fix and the last log lines. */
function reportView(report: DiagnosticsReport, trans: Trans): JSX.Element {
  if (report.problems.length === 0) {
    return (
      <div className={cls('diagnostics', 'jp-mod-ok')}>
        <p>
          {trans.__(
            'The server extension found nothing wrong: Node.js %1, jupyter-server-proxy %2, service %3.',
            report.node.version ?? '?',
            report.serverProxy.version ?? '?',
            report.sidecar.state
          )}
        </p>
        <LogHint trans={trans} />
      </div>
    );
  }
  const tail = report.sidecar.logTail;
  return (
    <Section
      className="diagnostics"
      heading={trans.__('Why the service cannot start')}
    >
      <ul className={cls('problems')}>
        {report.problems.map((p, i) => (
          <li key={i} className={cls('problem')} data-problem-code={p.code}>
            <p className={cls('problemTitle')}>
              <strong>{p.title}</strong>
            </p>
            <p className={cls('problemDetail')}>
              <ServiceText text={p.detail} />
            </p>
            <p className={cls('fix')}>
              {trans.__('For your administrator:')} <ServiceText text={p.fix} />
            </p>
          </li>
        ))}
      </ul>
      {tail.length > 0 ? (
        <p>{trans.__("The service's last log lines:")}</p>
      ) : null}
      {tail.length > 0 ? (
        <pre className={cls('logTail')}>{tail.join('\n')}</pre>
      ) : null}
      <LogHint trans={trans} />
    </Section>
  );
}

/**
 * What the server extension's diagnostics route said about a sidecar that did not answer: each
 * problem with its detail and fix, and the sidecar's last log lines; or that there is no such
 * route (the npm package alone) and where the log is instead.
 */
export function DiagnosticsView(props: {
  diagnostics: Diagnostics | undefined;
  trans: Trans;
}): JSX.Element | null {
  const { diagnostics, trans } = props;
  if (diagnostics === undefined) {
    return null;
  }
  switch (diagnostics.kind) {
    case 'unavailable':
      return (
        <div className={cls('diagnostics', 'jp-mod-unavailable')}>
          <p>
            {trans.__(
              'Diagnostics are unavailable: %1 answered HTTP %2, so the server extension of jupyterlab-project-startup is not installed on this Jupyter server (as with an npm-only install).',
              diagnostics.url,
              diagnostics.status
            )}
          </p>
          <LogHint trans={trans} />
        </div>
      );
    case 'failed':
      return (
        <div className={cls('diagnostics', 'jp-mod-failed')}>
          <p>
            {trans.__(
              'The diagnostics could not be read either (%1: %2).',
              diagnostics.url,
              diagnostics.reason
            )}
          </p>
          <LogHint trans={trans} />
        </div>
      );
    case 'report':
      // Called, not rendered as a component: React updates the same element in place.
      return reportView(diagnostics.report, trans);
  }
}

export function diagnosticsOf(failure: Failure): Diagnostics | undefined {
  return 'diagnostics' in failure ? failure.diagnostics : undefined;
}
