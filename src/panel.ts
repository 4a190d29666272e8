// The Project Startup panel: a Lumino widget that renders the model with render.ts. It keeps
// one live region (role=status) across renders so phase changes are announced, and keeps the
// keyboard focus on the same button when the content is rebuilt.
import { Message } from '@lumino/messaging';
import { Widget } from '@lumino/widgets';
import { PanelState, StartupModel } from './model';
import { CLASS_PREFIX, PanelActions, renderPanel, statusMessage } from './render';
import { ITranslationBundle, PANEL_ID } from './tokens';

export interface StartupPanelOptions {
  model: StartupModel;
  trans: ITranslationBundle;
  /** What the buttons do; defaults to the model's own refresh and initialize. */
  actions?: Partial<PanelActions>;
}

export class StartupPanel extends Widget {
  constructor(options: StartupPanelOptions) {
    super();
    this.model = options.model;
    this._trans = options.trans;
    const model = options.model;
    this._actions = {
      refresh: options.actions?.refresh ?? (() => void model.refresh({ userInitiated: true })),
      initialize: options.actions?.initialize ?? (() => void model.initialize())
    };
    this.id = PANEL_ID;
    this.addClass(CLASS_PREFIX);
    this.title.label = this._trans.__('Project Startup');
    this.title.caption = this._trans.__('Project Startup: what this platform offers and how to set up the project');
    this.title.closable = true;
    // The region is an inner element: a dock panel gives the widget's own node role=tabpanel.
    this._region = document.createElement('div');
    this._region.className = `${CLASS_PREFIX}-region`;
    this._region.setAttribute('role', 'region');
    this._region.setAttribute('aria-label', this._trans.__('Project Startup'));
    this.node.appendChild(this._region);

    this._status = document.createElement('p');
    this._status.className = `${CLASS_PREFIX}-status`;
    this._status.setAttribute('role', 'status');
    this._status.setAttribute('aria-live', 'polite');
    this._status.setAttribute('aria-atomic', 'true');
    this._body = document.createElement('div');
    this._body.className = `${CLASS_PREFIX}-body`;
    this._region.appendChild(this._status);
    this._region.appendChild(this._body);

    model.stateChanged.connect(this._onStateChanged, this);
    this._render(model.state);
  }

  readonly model: StartupModel;

  /** The element with role=region and the panel's accessible name. */
  get regionNode(): HTMLElement {
    return this._region;
  }

  /** The live region's element (role=status). */
  get statusNode(): HTMLElement {
    return this._status;
  }

  dispose(): void {
    if (this.isDisposed) {
      return;
    }
    this.model.stateChanged.disconnect(this._onStateChanged, this);
    super.dispose();
  }

  /**
   * A closed panel is done with (as JupyterLab's MainAreaWidget does): "Open Project Startup"
   * then makes a new one instead of activating a widget no longer in the shell.
   */
  protected onCloseRequest(msg: Message): void {
    super.onCloseRequest(msg);
    this.dispose();
  }

  protected onActivateRequest(msg: Message): void {
    super.onActivateRequest(msg);
    if (this.isAttached && !this.node.contains(document.activeElement)) {
      this._focusTarget()?.focus();
    }
  }

  private _onStateChanged(_sender: StartupModel, state: PanelState): void {
    this._render(state);
  }

  private _focusTarget(): HTMLElement | null {
    return (
      this._body.querySelector<HTMLButtonElement>('button[data-action]:not([disabled])') ??
      this._body.querySelector<HTMLElement>(`.${CLASS_PREFIX}-title`)
    );
  }

  private _render(state: PanelState): void {
    const active = document.activeElement;
    const hadFocus = active instanceof HTMLElement && this._body.contains(active);
    const focusedAction = hadFocus ? active.dataset.action : undefined;

    const message = statusMessage(state, this._trans);
    if (this._status.textContent !== message) {
      this._status.textContent = message;
    }
    this._body.replaceChildren(renderPanel(state, this._trans, this._actions));

    if (hadFocus) {
      // Keep the focus where it was; when that button is gone (or disabled while working),
      // put it on the panel heading rather than lose it to the document body.
      const same = focusedAction
        ? this._body.querySelector<HTMLButtonElement>(`button[data-action="${focusedAction}"]:not([disabled])`)
        : null;
      (same ?? this._body.querySelector<HTMLElement>(`.${CLASS_PREFIX}-title`))?.focus();
    }
  }

  private _trans: ITranslationBundle;
  private _actions: PanelActions;
  private _region: HTMLElement;
  private _status: HTMLElement;
  private _body: HTMLElement;
}
