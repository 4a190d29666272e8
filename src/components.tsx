// The Project Startup panel's content and the confirmation dialog's body as React components,
// rendered through JupyterLab's shared React (panel.tsx, dialog.ts). Pure functions of the
// model's state: every state is tested under jsdom. Text that comes from the service (titles,
// details, remedies, paths, capability labels) is shown as it is; every other visible string
// goes through the translation bundle.
import { Button } from '@jupyterlab/ui-components';
import * as React from 'react';
import {
  checkStatusLabel,
  interfaceLabel,
  phaseLabel,
  reportedProblems,
  statusMessage
} from './labels';
import {
  canConfirmHere,
  IConfirmationTargets,
  IPanelState,
  View
} from './model';
import { problemFix, problemNextAction } from './responses';
import {
  BoundaryValue,
  Capability,
  Diagnostics,
  Failure,
  ITranslationBundle,
  Manifest,
  ModelSourceValue,
  StartupProjection,
  SUPPORTED_SCHEMA_MAJOR
} from './tokens';

export { statusMessage } from './labels';

/** What the panel's buttons do. */
export interface IPanelActions {
  refresh(): void;
  initialize(): void;
}

/** data-action values of the panel's buttons (the browser tests find them by it). */
export const ACTION_REFRESH = 'refresh';
export const ACTION_INITIALIZE = 'initialize';

export const CLASS_PREFIX = 'jp-ProjectStartup';

type Trans = ITranslationBundle;

function cls(...names: string[]): string {
  return names
    .map(n => (n.startsWith('jp-') ? n : `${CLASS_PREFIX}-${n}`))
    .join(' ');
}

function Code(props: { children: string }): JSX.Element {
  return <code className={cls('code')}>{props.children}</code>;
}

/**
 * Text from the service, where `backticks` mark a command or a path: shown as code, never as
 * markup (React renders every piece as text).
 */
function ServiceText(props: { text: string }): JSX.Element {
  const pieces = props.text.split('`');
  return (
    <>
      {pieces.map((piece, i) => {
        if (piece === '') {
          return null;
        }
        // Odd pieces lie between a pair of backticks; a lone trailing backtick stays literal.
        const quoted = i % 2 === 1 && i < pieces.length - 1;
        return quoted ? (
          <Code key={i}>{piece}</Code>
        ) : (
          <React.Fragment key={i}>
            {i % 2 === 1 ? `\`${piece}` : piece}
          </React.Fragment>
        );
      })}
    </>
  );
}

/** Stands in for an element inside a translated sentence (see WithNodes). */
const MARK = '\u0001';

/** A translated sentence whose MARK arguments become the given elements, in order. */
function WithNodes(props: {
  text: string;
  nodes: React.ReactNode[];
}): JSX.Element {
  const parts = props.text.split(MARK);
  return (
    <>
      {parts.map((part, i) => (
        <React.Fragment key={i}>
          {part}
          {i < parts.length - 1 ? props.nodes[i] : null}
        </React.Fragment>
      ))}
    </>
  );
}

/** A section with a heading that names it for assistive technology. */
function Section(props: {
  className: string;
  heading: string;
  children?: React.ReactNode;
}): JSX.Element {
  const id = `${CLASS_PREFIX}-${props.className}-${React.useId().replace(/:/g, '')}`;
  return (
    <section className={cls('section', props.className)} aria-labelledby={id}>
      <h3 id={id} className={cls('sectionTitle')}>
        {props.heading}
      </h3>
      {props.children}
    </section>
  );
}

/** A description list of label / value rows. */
function Facts(props: { rows: [string, React.ReactNode][] }): JSX.Element {
  return (
    <dl className={cls('facts')}>
      {props.rows.map(([term, value]) => (
        <div key={term} className={cls('fact')}>
          <dt>{term}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

function ActionButton(props: {
  action: string;
  label: string;
  primary?: boolean;
  disabled?: boolean;
  onClick(): void;
}): JSX.Element {
  return (
    <Button
      type="button"
      data-action={props.action}
      className={cls('button', ...(props.primary ? ['jp-mod-accept'] : []))}
      disabled={props.disabled}
      onClick={props.onClick}
    >
      {props.label}
    </Button>
  );
}

/** Items as separate text nodes with separators, so each stays a translated unit. */
function listOf(items: string[]): React.ReactNode[] {
  return items.flatMap((item, i) => (i === 0 ? [item] : [', ', item]));
}

function yesNo(value: boolean, trans: Trans): string {
  return value ? trans.__('Yes') : trans.__('No');
}

function platformLabel(projection: StartupProjection): string {
  return projection.manifest?.platform.label ?? projection.platform;
}

// ---------------------------------------------------------------------------------- failures

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
    case 'http': {
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

/**
 * The commands that start a Jupyter server, named in the log hint. Command names are typed as
 * they are in every language, so they are not translated (the sentence around them is).
 */
const JUPYTER_SERVER_COMMAND = 'jupyter server';
const JUPYTER_LAB_COMMAND = 'jupyter lab';

function LogHint(props: { trans: Trans }): JSX.Element {
  return (
    <p className={cls('logHint')}>
      <WithNodes
        text={props.trans.__(
          "The service's log is in the Jupyter server's log: the output (stderr) of %1 or %2.",
          MARK,
          MARK
        )}
        nodes={[
          <Code key="server">{JUPYTER_SERVER_COMMAND}</Code>,
          <Code key="lab">{JUPYTER_LAB_COMMAND}</Code>
        ]}
      />
    </p>
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
    case 'report': {
      const report = diagnostics.report;
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
                  {trans.__('Fix:')} <ServiceText text={p.fix} />
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
  }
}

function diagnosticsOf(failure: Failure): Diagnostics | undefined {
  return 'diagnostics' in failure ? failure.diagnostics : undefined;
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

const INSTALL_COMMAND = 'project-startup jupyter install --sys-prefix';

function NotEnabledView(props: {
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

function FailingView(props: { failure: Failure; trans: Trans }): JSX.Element {
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

/** How to go on after a failed initialize; the panel stays usable. */
function InitializeFix(props: { failure: Failure; trans: Trans }): JSX.Element {
  const { failure, trans } = props;
  const install = <Code key="install">{INSTALL_COMMAND}</Code>;
  if (failure.kind === 'not-enabled') {
    return (
      <WithNodes
        text={trans.__(
          'The Project Startup service is no longer reachable through Jupyter. Ask an operator to install jupyter-server-proxy, run %1 and restart Jupyter.',
          MARK
        )}
        nodes={[install]}
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
  const codeOf = failure.kind === 'http' ? failure.problem?.code : undefined;
  switch (codeOf) {
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
          nodes={[install]}
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

function InitializeFailureAlert(props: {
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

// ---------------------------------------------------------------------------------- loaded

function PhaseIntro(props: {
  projection: StartupProjection;
  state: IPanelState;
  trans: Trans;
  actions: IPanelActions;
}): JSX.Element {
  const { projection, state, trans, actions } = props;
  const platform = platformLabel(projection);
  switch (projection.phase) {
    case 'unsupported-interface': {
      const ways = projection.nextAction.interfaces ?? [];
      return (
        <Section
          className="phase"
          heading={trans.__('The notebook interface is not available here')}
        >
          <p>
            {trans.__(
              'The %1 does not offer setup through JupyterLab. Use one of these interfaces instead:',
              platform
            )}
          </p>
          {ways.length > 0 ? (
            <ul className={cls('interfaces')}>
              {ways.map(w => (
                <li key={w.id}>
                  <strong>{interfaceLabel(w.id, trans)}</strong>:{' '}
                  <ServiceText text={w.how} />
                </li>
              ))}
            </ul>
          ) : (
            <p>{projection.interfaceSupport.detail}</p>
          )}
        </Section>
      );
    }
    case 'blocked':
      return (
        <Section className="phase" heading={trans.__('Setup is blocked')}>
          <p>
            {trans.__(
              'A required readiness check fails. Fix it as the next action says, then press Refresh.'
            )}
          </p>
        </Section>
      );
    case 'needs-compute':
      return (
        <Section className="phase" heading={trans.__('Setup needs compute')}>
          <p>
            {trans.__(
              'Get compute as the next action says, then press Refresh.'
            )}
          </p>
        </Section>
      );
    case 'awaiting-confirmation': {
      if (!canConfirmHere(projection)) {
        return (
          <Section
            className="phase"
            heading={trans.__('Confirmation is given elsewhere')}
          >
            <p>
              <ServiceText text={projection.confirmation.detail} />
            </p>
          </Section>
        );
      }
      return (
        <Section className="phase" heading={trans.__('Ready to initialize')}>
          <p>
            {trans.__(
              'Everything is in place. Initializing creates the private state of this project in %1.',
              projection.statePath
            )}
          </p>
          {projection.confirmation.creates.length > 0 ? (
            <p className={cls('muted')}>
              {trans.__(
                'You will see every path it creates before anything happens.'
              )}
            </p>
          ) : null}
          <div className={cls('actions')}>
            <ActionButton
              action={ACTION_INITIALIZE}
              label={trans.__('Initialize project')}
              primary
              disabled={state.initializing}
              onClick={() => actions.initialize()}
            />
          </div>
        </Section>
      );
    }
    case 'ready': {
      const record = projection.confirmation.record;
      return (
        <Section className="phase" heading={trans.__('The project is set up')}>
          <p>
            {trans.__(
              'Nothing to do: the private state of this project is in %1.',
              projection.statePath
            )}
          </p>
          {record ? (
            <p className={cls('muted')}>
              {trans.__(
                'Confirmed through %1 at %2.',
                interfaceLabel(record.confirmation.interface, trans),
                record.confirmation.confirmedAt
              )}
            </p>
          ) : null}
        </Section>
      );
    }
  }
}

function Summary(props: {
  projection: StartupProjection;
  trans: Trans;
}): JSX.Element {
  const { projection, trans } = props;
  const supported = projection.interfaceSupport.supported;
  return (
    <Section className="summary" heading={trans.__('Overview')}>
      <Facts
        rows={[
          [trans.__('Platform'), platformLabel(projection)],
          [
            trans.__('Notebook interface'),
            <>
              <span
                className={cls(
                  'support',
                  supported ? 'jp-mod-supported' : 'jp-mod-unsupported'
                )}
              >
                {supported ? trans.__('Supported') : trans.__('Not supported')}
              </span>
              {' — '}
              {projection.interfaceSupport.detail}
            </>
          ],
          [
            trans.__('Setup phase'),
            <span className={cls('phaseBadge', `jp-mod-${projection.phase}`)}>
              {phaseLabel(projection.phase, trans)}
            </span>
          ],
          [
            trans.__('Project directory'),
            <Code>{projection.projectPath}</Code>
          ],
          [trans.__('Private state'), <Code>{projection.statePath}</Code>]
        ]}
      />
    </Section>
  );
}

function NextActionView(props: {
  projection: StartupProjection;
  trans: Trans;
}): JSX.Element {
  const { projection, trans } = props;
  const action = projection.nextAction;
  const failing = action.checkId
    ? projection.readinessChecks.find(c => c.id === action.checkId)
    : undefined;
  return (
    <Section className="nextAction" heading={trans.__('Next action')}>
      <p className={cls('actionTitle')}>
        <strong>{action.title}</strong>
      </p>
      <p className={cls('actionDetail')}>
        <ServiceText text={action.detail} />
      </p>
      {action.command ? (
        <p>
          {trans.__('Command:')} <Code>{action.command}</Code>
        </p>
      ) : null}
      {failing ? (
        <p className={cls('muted')}>
          {trans.__('It is the readiness check "%1" below.', failing.title)}
        </p>
      ) : null}
    </Section>
  );
}

function ComputeView(props: {
  projection: StartupProjection;
  trans: Trans;
}): JSX.Element {
  const { trans } = props;
  const compute = props.projection.compute;
  const rows: [string, React.ReactNode][] = [
    [trans.__('Compute model'), compute.label],
    [trans.__('Requirement met'), yesNo(compute.satisfied, trans)],
    [trans.__('Detail'), <ServiceText text={compute.detail} />]
  ];
  if (compute.allocation) {
    const a = compute.allocation;
    rows.push([
      trans.__('Allocation'),
      a.jobId === null
        ? trans.__('%1: no job', a.scheduler)
        : a.state
          ? trans.__('%1 job %2 (%3)', a.scheduler, a.jobId, a.state)
          : trans.__('%1 job %2', a.scheduler, a.jobId)
    ]);
  }
  if (compute.command) {
    rows.push([trans.__('Command'), <Code>{compute.command}</Code>]);
  }
  return (
    <Section className="compute" heading={trans.__('Compute requirements')}>
      <Facts rows={rows} />
    </Section>
  );
}

function ConfirmationView(props: {
  projection: StartupProjection;
  trans: Trans;
}): JSX.Element {
  const { trans } = props;
  const c = props.projection.confirmation;
  const rows: [string, React.ReactNode][] = [
    [trans.__('Required'), yesNo(c.required, trans)],
    [trans.__('Confirmed'), yesNo(c.confirmed, trans)],
    [
      trans.__('Confirm through'),
      listOf(c.allowedInterfaces.map(i => interfaceLabel(i, trans)))
    ],
    [trans.__('Detail'), <ServiceText text={c.detail} />]
  ];
  if (c.creates.length > 0) {
    rows.push([
      trans.__('Creates'),
      <ul className={cls('paths')}>
        {c.creates.map(p => (
          <li key={p}>
            <Code>{p}</Code>
          </li>
        ))}
      </ul>
    ]);
  }
  if (c.record) {
    rows.push([
      trans.__('Record'),
      trans.__(
        'confirmed through %1 (%2) at %3',
        interfaceLabel(c.record.confirmation.interface, trans),
        c.record.confirmation.method,
        c.record.confirmation.confirmedAt
      )
    ]);
  }
  return (
    <Section
      className="confirmation"
      heading={trans.__('Confirmation requirements')}
    >
      <Facts rows={rows} />
    </Section>
  );
}

function ChecksTable(props: {
  projection: StartupProjection;
  trans: Trans;
}): JSX.Element {
  const { projection, trans } = props;
  const highlighted = projection.nextAction.checkId;
  return (
    <Section className="checks" heading={trans.__('Readiness checks')}>
      <div className={cls('tableScroll')}>
        <table className={cls('checksTable', 'table')}>
          <caption className={cls('visuallyHidden')}>
            {trans.__('Readiness checks')}
          </caption>
          <thead>
            <tr>
              <th scope="col">{trans.__('Status')}</th>
              <th scope="col">{trans.__('Check')}</th>
              <th scope="col">{trans.__('Observed')}</th>
              <th scope="col">{trans.__('Remedy')}</th>
            </tr>
          </thead>
          <tbody>
            {projection.readinessChecks.map(check => (
              <tr
                key={check.id}
                className={cls(
                  'check',
                  `jp-mod-${check.status}`,
                  ...(check.id === highlighted ? ['jp-mod-highlight'] : [])
                )}
                data-check-id={check.id}
              >
                <td>
                  <span
                    className={cls('checkStatus', `jp-mod-${check.status}`)}
                  >
                    {checkStatusLabel(check.status, trans)}
                  </span>
                </td>
                <th scope="row">
                  {check.title}
                  {check.required ? (
                    <span className={cls('required')}>
                      {' '}
                      {trans.__('(required)')}
                    </span>
                  ) : null}
                </th>
                <td>
                  <ServiceText text={check.observed} />
                </td>
                <td>
                  {check.remedy ? <ServiceText text={check.remedy} /> : '—'}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </Section>
  );
}

// ---------------------------------------------------------------------------------- manifest

/** The approval mode's label, in the person's language; the service's own label otherwise. */
export function approvalModeLabel(
  source: ModelSourceValue,
  index: number,
  trans: Trans
): string {
  const id = source.approvalModes[index];
  switch (id) {
    case 'review-every-action':
      return trans.__('Review Every Action');
    case 'low-risk-automation':
      return trans.__('Low-Risk Automation');
    default:
      // A mode a newer service added: its label as the service sends it.
      return source.approvalModeLabels?.[index] ?? String(id);
  }
}

function isModelSources(
  capability: Capability
): capability is Extract<Capability, { id: 'model-sources' }> {
  return capability.id === 'model-sources';
}

function isBoundary(
  capability: Capability
): capability is Extract<Capability, { id: 'model-credential-boundary' }> {
  return capability.id === 'model-credential-boundary';
}

/** A capability's values in words: labels, the default marked. */
function CapabilityValues(props: {
  capability: Capability;
  trans: Trans;
}): JSX.Element {
  const { capability, trans } = props;
  const fallback = 'default' in capability ? capability.default : undefined;
  if (capability.values.length === 0) {
    return <>{trans.__('None')}</>;
  }
  return (
    <ul className={cls('values')}>
      {capability.values.map(v => (
        <li key={v.id} data-value-id={v.id}>
          {v.label}
          {fallback === v.id ? ` ${trans.__('(default)')}` : null}
        </li>
      ))}
    </ul>
  );
}

function ModelSourcesTable(props: {
  sources: ModelSourceValue[];
  caption: string;
  trans: Trans;
}): JSX.Element {
  const { sources, trans } = props;
  return (
    <div className={cls('tableScroll')}>
      <table className={cls('table', 'modelSources')}>
        <caption className={cls('tableCaption')}>{props.caption}</caption>
        <thead>
          <tr>
            <th scope="col">{trans.__('Model source')}</th>
            <th scope="col">{trans.__('Secret-backed')}</th>
            <th scope="col">{trans.__('Approval modes')}</th>
          </tr>
        </thead>
        <tbody>
          {sources.map(source => (
            <tr key={source.id} data-source-id={source.id}>
              <th scope="row">{source.label}</th>
              <td>{yesNo(source.secretBacked, trans)}</td>
              <td>
                {listOf(
                  source.approvalModes.map((_m, i) =>
                    approvalModeLabel(source, i, trans)
                  )
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function BoundaryView(props: {
  label: string;
  values: BoundaryValue[];
  trans: Trans;
}): JSX.Element {
  return (
    <div className={cls('boundary')}>
      <h4 className={cls('subTitle')}>{props.label}</h4>
      {props.values.map(v => (
        <div key={v.id} data-boundary-id={v.id}>
          <p>
            <strong>{v.label}</strong>
          </p>
          <p className={cls('boundaryExcludes')}>{v.excludes}</p>
          <p className={cls('boundaryDoesNotIsolate')}>{v.doesNotIsolate}</p>
        </div>
      ))}
    </div>
  );
}

/**
 * "What this platform offers": every capability row of the manifest with its values (a table
 * with row and column headers), the model sources with whether each is secret-backed and its
 * approval modes, and the credential boundary's two sentences. Same meaning as the setup page
 * and `project-startup capabilities`.
 */
export function OffersView(props: {
  manifest: Manifest;
  trans: Trans;
}): JSX.Element {
  const { manifest, trans } = props;
  const capabilities: Capability[] = manifest.capabilities;
  const sources = capabilities.filter(isModelSources);
  const boundaries = capabilities.filter(isBoundary);
  return (
    <Section className="offers" heading={trans.__('What this platform offers')}>
      <div className={cls('tableScroll')}>
        <table className={cls('table', 'capabilities')}>
          <caption className={cls('visuallyHidden')}>
            {trans.__('Capabilities of the %1', manifest.platform.label)}
          </caption>
          <thead>
            <tr>
              <th scope="col">{trans.__('Capability')}</th>
              <th scope="col">{trans.__('Offered')}</th>
            </tr>
          </thead>
          <tbody>
            <tr data-capability-id="low-risk-automation-policy">
              <th scope="row">{trans.__('Low-risk automation')}</th>
              <td>
                {manifest.policy.lowRiskAutomation === 'permitted'
                  ? trans.__('Permitted by platform policy')
                  : trans.__('Not permitted by platform policy')}
              </td>
            </tr>
            {capabilities.map(capability => (
              <tr key={capability.id} data-capability-id={capability.id}>
                <th scope="row">{capability.label}</th>
                <td>
                  <CapabilityValues capability={capability} trans={trans} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {sources.map(row => (
        <ModelSourcesTable
          key={row.id}
          sources={row.values}
          caption={row.label}
          trans={trans}
        />
      ))}
      {boundaries.map(row => (
        <BoundaryView
          key={row.id}
          label={row.label}
          values={row.values}
          trans={trans}
        />
      ))}
    </Section>
  );
}

function InitializedNotice(props: {
  state: IPanelState;
  trans: Trans;
}): JSX.Element | null {
  const answer = props.state.initialized;
  if (!answer) {
    return null;
  }
  return (
    <p className={cls('success')}>
      {answer.created
        ? props.trans.__(
            'Project initialized: %1 was created.',
            answer.record.statePath
          )
        : props.trans.__(
            'The project was already initialized in %1.',
            answer.record.statePath
          )}
    </p>
  );
}

function ViewContent(props: {
  view: View;
  state: IPanelState;
  trans: Trans;
  actions: IPanelActions;
}): JSX.Element {
  const { view, state, trans, actions } = props;
  switch (view.kind) {
    case 'loading':
      return (
        <p className={cls('loading')}>
          {trans.__('Checking the project setup…')}
        </p>
      );
    case 'not-enabled':
      return <NotEnabledView failure={view.failure} trans={trans} />;
    case 'failing':
      return <FailingView failure={view.failure} trans={trans} />;
    case 'loaded': {
      const projection = view.projection;
      return (
        <>
          {state.initializeFailure ? (
            <InitializeFailureAlert
              failure={state.initializeFailure}
              trans={trans}
            />
          ) : null}
          <InitializedNotice state={state} trans={trans} />
          <PhaseIntro
            projection={projection}
            state={state}
            trans={trans}
            actions={actions}
          />
          <Summary projection={projection} trans={trans} />
          <NextActionView projection={projection} trans={trans} />
          <ChecksTable projection={projection} trans={trans} />
          <ComputeView projection={projection} trans={trans} />
          <ConfirmationView projection={projection} trans={trans} />
          {projection.manifest ? (
            <OffersView manifest={projection.manifest} trans={trans} />
          ) : null}
        </>
      );
    }
  }
}

export interface IPanelContentProps {
  state: IPanelState;
  trans: Trans;
  actions: IPanelActions;
}

/**
 * The panel's content for a state: the live region (role=status, its text changes only when
 * the message does, so an unchanged phase is not announced again), a heading to land on, and
 * the view. Refresh is in the panel's toolbar (panel.tsx).
 */
export function PanelContent(props: IPanelContentProps): JSX.Element {
  const { state, trans, actions } = props;
  const busy =
    state.refreshing || state.initializing || state.view.kind === 'loading';
  return (
    <>
      <p
        className={cls('status')}
        role="status"
        aria-live="polite"
        aria-atomic="true"
      >
        {statusMessage(state, trans)}
      </p>
      <div className={cls('body')}>
        <div className={cls('content')} aria-busy={busy ? 'true' : 'false'}>
          <div className={cls('header')}>
            <h2 className={cls('title')} tabIndex={-1}>
              {trans.__('Project Startup')}
            </h2>
          </div>
          <ViewContent
            view={state.view}
            state={state}
            trans={trans}
            actions={actions}
          />
        </div>
      </div>
    </>
  );
}

// ---------------------------------------------------------------------------------- dialog

/** The body of the confirmation dialog: the project, then every path that will be created. */
export function ConfirmationBody(props: {
  targets: IConfirmationTargets;
  trans: Trans;
}): JSX.Element {
  const { targets, trans } = props;
  return (
    <div className={cls('dialogBody')}>
      <p>{trans.__('Initialize the project in this directory?')}</p>
      <p className={cls('dialogPath')}>
        <Code>{targets.projectPath}</Code>
      </p>
      <p>{trans.__('These paths will be created, private to you:')}</p>
      <ul className={cls('paths')}>
        {targets.creates.map(p => (
          <li key={p}>
            <Code>{p}</Code>
          </li>
        ))}
      </ul>
      <p className={cls('muted')}>
        {trans.__('Nothing is created if you cancel.')}
      </p>
    </div>
  );
}

export function confirmationTitle(trans: Trans): string {
  return trans.__('Initialize project');
}
