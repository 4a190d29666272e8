// The confirmation dialog: JupyterLab's showDialog with the body components.tsx renders, through
// JupyterLab's shared React. Accept is the only way to a POST; Cancel, Escape and closing the
// dialog send nothing.
import { Dialog, ReactWidget, showDialog } from '@jupyterlab/apputils';
import * as React from 'react';
import { ConfirmationBody, confirmationTitle } from './components';
import { IConfirmationTargets, ConfirmFunction } from './model';
import { ITranslationBundle } from './tokens';

export function createConfirm(trans: ITranslationBundle): ConfirmFunction {
  return async (targets: IConfirmationTargets): Promise<boolean> => {
    const result = await showDialog({
      title: confirmationTitle(trans),
      body: ReactWidget.create(
        React.createElement(ConfirmationBody, { targets, trans })
      ),
      buttons: [
        Dialog.cancelButton({ label: trans.__('Cancel') }),
        Dialog.okButton({ label: trans.__('Initialize project') })
      ],
      // Cancel has the focus and answers Enter: creating state takes a deliberate choice.
      defaultButton: 0
    });
    return result.button.accept;
  };
}
