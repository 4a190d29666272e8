// The first thing the panel says: the state in words, the one thing to do (with its button) and
// who must do it, the person or the site's administrator. Everything else is in the disclosures
// below it (content.tsx).
import { Button } from '@jupyterlab/ui-components';
import * as React from 'react';
import { administratorChecks } from '../admin-report';
import { interfacePhrase, phaseLabel } from '../labels';
import { canConfirmHere, IPanelState } from '../model';
import { Phase, ReadinessCheck, StartupProjection } from '../tokens';
import {
  ACTION_CHECK_AGAIN,
  ACTION_COPY_COMMAND,
  ACTION_COPY_REPORT,
  ACTION_INITIALIZE,
  Actor,
  cls,
  Code,
  IPanelActions,
  MARK,
  ServiceText,
  Trans,
  When,
  WithNodes
} from './shared';

export function ActionButton(props: {
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

/** Who must act, said once, beside the thing to do. */
export function WhoActs(props: { who: Actor; trans: Trans }): JSX.Element {
  const { who, trans } = props;
  return (
    <p className={cls('who', `jp-mod-${who}`)} data-who={who}>
      {who === 'user'
        ? trans.__('You can do this yourself.')
        : trans.__(
            'Only your administrator can fix this: copy the details and send them in a message.'
          )}
    </p>
  );
}

/** The button that copies the report for the administrator. */
export function CopyReportButton(props: {
  trans: Trans;
  actions: IPanelActions;
  primary?: boolean;
}): JSX.Element {
  return (
    <ActionButton
      action={ACTION_COPY_REPORT}
      label={props.trans.__('Copy details for your administrator')}
      primary={props.primary}
      onClick={() => props.actions.copyReport()}
    />
  );
}

interface IPhaseProps {
  projection: StartupProjection;
  state: IPanelState;
  trans: Trans;
  actions: IPanelActions;
}

/** The hero: a heading with the state in words, then its sentence, the action and who acts. */
function Hero(props: {
  phase: Phase;
  heading: string;
  trans: Trans;
  children?: React.ReactNode;
}): JSX.Element {
  const id = `jp-ProjectStartup-state-${React.useId().replace(/:/g, '')}`;
  return (
    <section
      className={cls('section', 'phase', 'state')}
      aria-labelledby={id}
      data-phase={props.phase}
    >
      <span className={cls('phaseBadge', `jp-mod-${props.phase}`)}>
        {phaseLabel(props.phase, props.trans)}
      </span>
      <h3 id={id} className={cls('stateTitle')}>
        {props.heading}
      </h3>
      {props.children}
    </section>
  );
}

function Actions(props: { children: React.ReactNode }): JSX.Element {
  return <div className={cls('actions')}>{props.children}</div>;
}

/** The notebook interface cannot set up here: the interfaces that can, and how. */
function unsupportedInterface(props: IPhaseProps): JSX.Element {
  const { projection, trans } = props;
  const ways = projection.nextAction.interfaces ?? [];
  return (
    <Hero
      phase={projection.phase}
      trans={trans}
      heading={trans.__('Set this project up in another way')}
    >
      <p>
        {trans.__(
          'This platform does not set projects up from JupyterLab. You can use one of these instead:'
        )}
      </p>
      <ul className={cls('interfaces')}>
        {ways.map(w => (
          <li key={w.id}>
            <strong>{interfacePhrase(w.id, trans)}</strong>:{' '}
            <ServiceText text={w.how} />
          </li>
        ))}
      </ul>
      <WhoActs who="user" trans={trans} />
    </Hero>
  );
}

function awaitingConfirmation(props: IPhaseProps): JSX.Element {
  const { projection, state, trans, actions } = props;
  if (!canConfirmHere(projection)) {
    const ways = projection.confirmation.allowedInterfaces.map(i =>
      interfacePhrase(i, trans)
    );
    return (
      <Hero
        phase={projection.phase}
        trans={trans}
        heading={trans.__('Confirm the setup in another way')}
      >
        <p>
          {trans.__(
            'This project is ready to be set up, and the confirmation is given %1.',
            ways.join(trans.__(' or '))
          )}
        </p>
        <WhoActs who="user" trans={trans} />
      </Hero>
    );
  }
  return (
    <Hero
      phase={projection.phase}
      trans={trans}
      heading={trans.__('Set up this project')}
    >
      <p>
        {trans.__(
          'You can use this notebook. One step is left: create the private folder where this project keeps its setup.'
        )}
      </p>
      <p className={cls('muted')}>
        {trans.__(
          'You will see every folder it creates before anything happens.'
        )}
      </p>
      <Actions>
        <ActionButton
          action={ACTION_INITIALIZE}
          label={trans.__('Initialize project')}
          primary
          disabled={state.initializing}
          onClick={() => actions.initialize()}
        />
      </Actions>
      <WhoActs who="user" trans={trans} />
    </Hero>
  );
}

function ready(props: IPhaseProps): JSX.Element {
  const { projection, trans } = props;
  const record = projection.confirmation.record;
  return (
    <Hero
      phase={projection.phase}
      trans={trans}
      heading={trans.__('Your project is set up')}
    >
      <p>{trans.__('You can use this notebook. There is nothing to do.')}</p>
      {record ? (
        <p className={cls('muted')}>
          {/* "(now)", "(5 minutes ago)", "(yesterday)": JupyterLab's relative time. */}
          <WithNodes
            text={trans.__(
              'Set up %1 (%2).',
              interfacePhrase(record.confirmation.interface, trans),
              MARK
            )}
            nodes={[<When key="when" iso={record.confirmation.confirmedAt} />]}
          />
        </p>
      ) : null}
    </Hero>
  );
}

function needsCompute(props: IPhaseProps): JSX.Element {
  const { projection, trans, actions } = props;
  const command = projection.nextAction.command ?? projection.compute.command;
  return (
    <Hero
      phase={projection.phase}
      trans={trans}
      heading={trans.__('This project needs compute')}
    >
      <p>
        {command
          ? trans.__(
              'Start a compute allocation in a terminal with this command, then open the project from inside it:'
            )
          : trans.__(
              'Start a compute allocation, then open the project from inside it.'
            )}
      </p>
      {command ? (
        <p className={cls('command')}>
          <Code>{command}</Code>
        </p>
      ) : null}
      {command ? (
        <Actions>
          <ActionButton
            action={ACTION_COPY_COMMAND}
            label={trans.__('Copy command')}
            primary
            onClick={() => actions.copyText(command)}
          />
        </Actions>
      ) : null}
      <WhoActs who="user" trans={trans} />
    </Hero>
  );
}

/** The first failing required check: what blocks setup. */
function blockingCheck(
  projection: StartupProjection
): ReadinessCheck | undefined {
  const named = projection.nextAction.checkId;
  return (
    projection.readinessChecks.find(c => c.id === named) ??
    projection.readinessChecks.find(c => c.required && c.status === 'fail')
  );
}

function blocked(props: IPhaseProps): JSX.Element {
  const { projection, trans, actions } = props;
  const check = blockingCheck(projection);
  const forAdministrator = check?.remedyBy === 'administrator';
  return (
    <Hero
      phase={projection.phase}
      trans={trans}
      heading={trans.__('Setup is blocked')}
    >
      {check && !forAdministrator ? (
        <p className={cls('blockedBy')}>
          <strong>{check.title}</strong>: <ServiceText text={check.observed} />
        </p>
      ) : null}
      {forAdministrator ? (
        <>
          <p>
            {trans.__(
              'Your administrator needs to fix “%1” before this project can be set up.',
              check.title
            )}
          </p>
          <Actions>
            <CopyReportButton trans={trans} actions={actions} primary />
          </Actions>
          <WhoActs who="administrator" trans={trans} />
        </>
      ) : (
        <>
          {check?.remedy ? (
            <p className={cls('fix')}>
              {trans.__('To fix it:')} <ServiceText text={check.remedy} />
            </p>
          ) : null}
          <Actions>
            <ActionButton
              action={ACTION_CHECK_AGAIN}
              label={trans.__('Check again')}
              primary
              onClick={() => actions.refresh()}
            />
          </Actions>
          <WhoActs who="user" trans={trans} />
        </>
      )}
    </Hero>
  );
}

/**
 * The phase in words: what it means here, the one thing to do and who does it. Called as
 * functions, not rendered as components, so a phase change updates the one section in place (a
 * component of another type would replace its DOM and lose the focus).
 */
export function PhaseIntro(props: IPhaseProps): JSX.Element {
  switch (props.projection.phase) {
    case 'unsupported-interface':
      return unsupportedInterface(props);
    case 'blocked':
      return blocked(props);
    case 'needs-compute':
      return needsCompute(props);
    case 'awaiting-confirmation':
      return awaitingConfirmation(props);
    case 'ready':
      return ready(props);
  }
}

/** Whether the hero already offers the administrator's report (then the list does not again). */
export function heroOffersReport(projection: StartupProjection): boolean {
  return (
    projection.phase === 'blocked' &&
    blockingCheck(projection)?.remedyBy === 'administrator'
  );
}

export { administratorChecks };
