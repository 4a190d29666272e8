// The setup phase in words (with the one button that acts on it: Initialize project) and the
// next action the service names.
import { Button } from '@jupyterlab/ui-components';
import * as React from 'react';
import { interfaceLabel } from '../labels';
import { canConfirmHere, IPanelState } from '../model';
import { StartupProjection } from '../tokens';
import {
  ACTION_INITIALIZE,
  cls,
  Code,
  IPanelActions,
  platformLabel,
  Section,
  ServiceText,
  Trans
} from './shared';

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

interface IPhaseProps {
  projection: StartupProjection;
  state: IPanelState;
  trans: Trans;
  actions: IPanelActions;
}

/** The notebook interface cannot set up here: the interfaces that can, and how. */
function unsupportedInterfaceIntro(props: IPhaseProps): JSX.Element {
  const { projection, trans } = props;
  const ways = projection.nextAction.interfaces ?? [];
  return (
    <Section
      className="phase"
      heading={trans.__('The notebook interface is not available here')}
    >
      <p>
        {trans.__(
          'The %1 does not offer setup through JupyterLab. Use one of these interfaces instead:',
          platformLabel(projection)
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

/** Ready to initialize here (with the button), or the confirmation is given elsewhere. */
function awaitingConfirmationIntro(props: IPhaseProps): JSX.Element {
  const { projection, state, trans, actions } = props;
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

function readyIntro(props: IPhaseProps): JSX.Element {
  const { projection, trans } = props;
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

/**
 * The phase in words: what it means here and what to do about it. The longer phases' parts are
 * called as functions, not rendered as components, so a phase change updates the one section in
 * place as before (a component of another type would replace its DOM).
 */
export function PhaseIntro(props: IPhaseProps): JSX.Element {
  const { projection, trans } = props;
  switch (projection.phase) {
    case 'unsupported-interface':
      return unsupportedInterfaceIntro(props);
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
    case 'awaiting-confirmation':
      return awaitingConfirmationIntro(props);
    case 'ready':
      return readyIntro(props);
  }
}

export function NextActionView(props: {
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
