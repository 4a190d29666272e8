// The confirmation dialog: JupyterLab's showDialog with the body render.ts builds. Accept is
// the only way to a POST; Cancel, Escape and closing the dialog send nothing.
import { Dialog, showDialog } from '@jupyterlab/apputils';
import { Widget } from '@lumino/widgets';
import { ConfirmationTargets, ConfirmFunction } from './model';
import { confirmationTitle, renderConfirmationBody } from './render';
import { ITranslationBundle } from './tokens';

export function createConfirm(trans: ITranslationBundle): ConfirmFunction {
  return async (targets: ConfirmationTargets): Promise<boolean> => {
    const result = await showDialog({
      title: confirmationTitle(trans),
      body: new Widget({ node: renderConfirmationBody(targets, trans) }),
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
