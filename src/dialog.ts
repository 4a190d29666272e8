// The confirmation dialog: JupyterLab's showDialog with the body components/confirmation.tsx
// renders, through JupyterLab's shared React. Accept is the only way to a POST; Cancel, Escape
// and closing the dialog send nothing.
import { Dialog, ReactWidget, showDialog } from '@jupyterlab/apputils';
import { Message } from '@lumino/messaging';
import * as React from 'react';
import { ConfirmationBody, confirmationTitle } from './components/confirmation';
import { IConfirmationTargets, ConfirmFunction } from './model';
import { ITranslationBundle } from './tokens';

/**
 * The dialog's body. It offers no renderPromise: the Dialog puts the focus on its default
 * button only after a body's renderPromise, which resolves in a requestIdleCallback, and on a
 * busy page that came seconds late (measured in Chromium: the focus stayed on the panel's
 * button behind the modal dialog). The focus goes to a dialog button, never into the body, so
 * it need not wait for the body.
 */
class ConfirmationBodyWidget extends ReactWidget {
  constructor(
    private readonly _targets: IConfirmationTargets,
    private readonly _trans: ITranslationBundle
  ) {
    super();
  }

  protected render(): JSX.Element {
    return React.createElement(ConfirmationBody, {
      targets: this._targets,
      trans: this._trans
    });
  }

  protected onUpdateRequest(msg: Message): void {
    super.onUpdateRequest(msg);
    this.renderPromise = undefined;
  }
}

export function createConfirm(trans: ITranslationBundle): ConfirmFunction {
  return async (targets: IConfirmationTargets): Promise<boolean> => {
    const result = await showDialog({
      title: confirmationTitle(trans),
      body: new ConfirmationBodyWidget(targets, trans),
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
