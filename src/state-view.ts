// The base of the panel's content and the status bar item: a ReactWidget that renders the
// model's current state and renders again on every stateChanged, as VDomRenderer does (whose
// model type wants a signal without arguments). Not UseSignal: it connects only once React has
// committed its first render, so an answer landing before that commit would be lost, and an
// unchanged poll emits nothing to make up for it.
import { ReactWidget } from '@jupyterlab/ui-components';
import { StartupModel } from './model';

export abstract class StartupStateView extends ReactWidget {
  constructor(model: StartupModel) {
    super();
    this.model = model;
    model.stateChanged.connect(this._onStateChanged, this);
  }

  readonly model: StartupModel;

  dispose(): void {
    if (this.isDisposed) {
      return;
    }
    this.model.stateChanged.disconnect(this._onStateChanged, this);
    super.dispose();
  }

  private _onStateChanged(): void {
    this.update();
  }
}
