// The Project Startup panel's content as React components, rendered through JupyterLab's shared
// React (panel.tsx). Pure functions of the model's state: every state is tested under jsdom.
// The first screen holds the state in words, the one thing to do and who must do it; the rest
// (every check, this project's folders, what the platform offers) is one click away in
// disclosures. Text that comes from the service (titles, details, remedies, paths, capability
// labels) is shown as it is; every other visible string goes through the translation bundle.
import * as React from 'react';
import { statusMessage } from '../labels';
import { IPanelState, View } from '../model';
import { ChecksTable } from './checks';
import { FailingView, NotEnabledView } from './failure';
import { InitializeFailureAlert } from './initialize-failure';
import { OffersView } from './offers';
import { ProjectDetails } from './overview';
import { PhaseIntro } from './phase';
import { ProblemsList } from './problems';
import { cls, Disclosure, IPanelActions, Trans } from './shared';

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
      return (
        <NotEnabledView
          failure={view.failure}
          trans={trans}
          actions={actions}
        />
      );
    case 'failing':
      return (
        <FailingView failure={view.failure} trans={trans} actions={actions} />
      );
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
          <ProblemsList
            projection={projection}
            trans={trans}
            actions={actions}
          />
          <Disclosure id="checks" summary={trans.__('Readiness checks')}>
            <ChecksTable projection={projection} trans={trans} />
          </Disclosure>
          <Disclosure id="project" summary={trans.__('This project')}>
            <ProjectDetails projection={projection} trans={trans} />
          </Disclosure>
          {projection.manifest ? (
            <Disclosure
              id="offers"
              summary={trans.__('What this platform offers')}
            >
              <OffersView manifest={projection.manifest} trans={trans} />
            </Disclosure>
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
