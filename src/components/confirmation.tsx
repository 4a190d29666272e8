// The confirmation dialog's body and title, rendered through JupyterLab's shared React
// (dialog.ts): the project, then every path initialize will create.
import * as React from 'react';
import { IConfirmationTargets } from '../model';
import { cls, Code, Trans } from './shared';

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
