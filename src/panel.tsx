// The Project Startup panel: JupyterLab's MainAreaWidget with a toolbar (Refresh) around a
// ReactWidget that renders the model's state (components/content.tsx) on each change. React
// keeps the DOM nodes that stay, so the live region (role=status) changes only when its text
// does and a focused button keeps the focus across updates; when the focused button goes away
// (or is disabled while working), the focus moves to the panel's heading instead of the page.
import { Clipboard, MainAreaWidget, Notification } from '@jupyterlab/apputils';
import type { IStateDB } from '@jupyterlab/statedb';
import {
  refreshIcon,
  ToolbarButton,
  ToolbarButtonComponent
} from '@jupyterlab/ui-components';
import { Message, MessageLoop } from '@lumino/messaging';
import { Widget } from '@lumino/widgets';
import * as React from 'react';
import { flushSync } from 'react-dom';
import { administratorReport, IReportVersions } from './admin-report';
import { PanelContent } from './components/content';
import {
  ACTION_REFRESH,
  CLASS_PREFIX,
  DisclosureContext,
  IPanelActions
} from './components/shared';
import { DisclosureMemory } from './disclosures';
import { projectStartupIcon } from './icon';
import { IPanelState, StartupModel } from './model';
import { StartupStateView } from './state-view';
import { ITranslationBundle, PANEL_ID } from './tokens';

export interface IStartupPanelOptions {
  model: StartupModel;
  trans: ITranslationBundle;
  /** What the buttons do; defaults to the model's own refresh and initialize. */
  actions?: Partial<IPanelActions>;
  /** Where the open disclosures are remembered (JupyterLab's state database). */
  state?: IStateDB | null;
  /** The application's name and version, for the administrator's report. */
  versions?: IReportVersions;
}

interface IFocusKeeperProps {
  state: IPanelState;
  trans: ITranslationBundle;
  actions: IPanelActions;
  disclosures: DisclosureMemory;
}

/**
 * Renders the content and looks after the keyboard focus across updates: before React changes
 * the DOM it notes whether the focus was inside (getSnapshotBeforeUpdate); after, if the focus
 * was lost (its element removed or disabled), it goes to the heading.
 */
class FocusKeeper extends React.Component<IFocusKeeperProps> {
  getSnapshotBeforeUpdate(): boolean {
    const root = this._root.current;
    return (
      root !== null &&
      root.contains(document.activeElement) &&
      document.activeElement !== root
    );
  }

  componentDidUpdate(
    _prev: IFocusKeeperProps,
    _prevState: unknown,
    hadFocus: boolean
  ): void {
    const root = this._root.current;
    if (!hadFocus || root === null) {
      return;
    }
    const active = document.activeElement;
    const kept =
      active instanceof HTMLElement &&
      root.contains(active) &&
      !(active as HTMLButtonElement).disabled;
    if (!kept) {
      root.querySelector<HTMLElement>(`.${CLASS_PREFIX}-title`)?.focus();
    }
  }

  render(): JSX.Element {
    return (
      <div className={`${CLASS_PREFIX}-view`} ref={this._root}>
        <DisclosureContext.Provider value={this.props.disclosures}>
          <PanelContent
            state={this.props.state}
            trans={this.props.trans}
            actions={this.props.actions}
          />
        </DisclosureContext.Provider>
      </div>
    );
  }

  private _root = React.createRef<HTMLDivElement>();
}

/**
 * JupyterLab's ToolbarButton for an action rather than a toggle. ToolbarButton flips a `pressed`
 * state on every click and renders it as aria-pressed, which makes Refresh a "toggle button,
 * pressed" for a screen reader (and axe-core refuses aria-pressed on the jp-button host); this
 * renders the same ToolbarButtonComponent without it.
 */
export class ActionToolbarButton extends ToolbarButton {
  constructor(props: ToolbarButtonComponent.IProps) {
    super(props);
    this._buttonProps = props;
  }

  render(): JSX.Element {
    return (
      <ToolbarButtonComponent {...this._buttonProps} enabled={this.enabled} />
    );
  }

  private _buttonProps: ToolbarButtonComponent.IProps;
}

/** The panel's content: the model's state, rendered on every change. */
export class StartupView extends StartupStateView {
  constructor(options: {
    model: StartupModel;
    trans: ITranslationBundle;
    actions: IPanelActions;
    disclosures: DisclosureMemory;
  }) {
    super(options.model);
    this._trans = options.trans;
    this._actions = options.actions;
    this._disclosures = options.disclosures;
    this.addClass(`${CLASS_PREFIX}-region`);
  }

  protected render(): JSX.Element {
    return (
      <FocusKeeper
        state={this.model.state}
        trans={this._trans}
        actions={this._actions}
        disclosures={this._disclosures}
      />
    );
  }

  private _trans: ITranslationBundle;
  private _actions: IPanelActions;
  private _disclosures: DisclosureMemory;
}

/** Copies text with JupyterLab's clipboard helper and says so in a short notification. */
function copyWithNotice(text: string, notice: string): void {
  Clipboard.copyToSystem(text);
  Notification.success(notice, { autoClose: 3000 });
}

export class StartupPanel extends MainAreaWidget<StartupView> {
  constructor(options: IStartupPanelOptions) {
    const model = options.model;
    const trans = options.trans;
    const versions = options.versions ?? {};
    const actions: IPanelActions = {
      refresh:
        options.actions?.refresh ??
        (() => void model.refresh({ userInitiated: true })),
      initialize:
        options.actions?.initialize ?? (() => void model.initialize()),
      copyReport:
        options.actions?.copyReport ??
        (() =>
          copyWithNotice(
            administratorReport(model.state, versions),
            trans.__(
              'The details are copied: paste them in a message to your administrator.'
            )
          )),
      copyText:
        options.actions?.copyText ??
        ((text: string) =>
          copyWithNotice(text, trans.__('The command is copied.')))
    };
    const disclosures = new DisclosureMemory(options.state ?? null);
    super({
      content: new StartupView({ model, trans, actions, disclosures })
    });
    this.model = model;
    this.id = PANEL_ID;
    this.addClass(CLASS_PREFIX);
    this.title.label = trans.__('Project Startup');
    this.title.caption = trans.__(
      'Project Startup: what this platform offers and how to set up the project'
    );
    this.title.icon = projectStartupIcon;
    this.title.closable = true;
    // MainAreaWidget names its content "main area content"; this region is the panel.
    this.content.node.setAttribute('aria-label', trans.__('Project Startup'));
    this.toolbar.node.setAttribute(
      'aria-label',
      trans.__('Project Startup toolbar')
    );
    this.toolbar.addItem(
      ACTION_REFRESH,
      new ActionToolbarButton({
        icon: refreshIcon,
        label: trans.__('Refresh'),
        tooltip: trans.__(
          'Ask the Project Startup service for the setup state again'
        ),
        dataset: { action: ACTION_REFRESH },
        // Keyboard (Enter, Space) and mouse each press it once: with the default the button's
        // own keydown handler and the click the browser then makes would both refresh.
        noFocusOnClick: true,
        onClick: () => actions.refresh()
      })
    );
  }

  readonly model: StartupModel;

  /**
   * Renders the content now, attached or not (React's flushSync; a plain update waits for
   * React's scheduler): the panel that opens by itself then shows whole in its first paint.
   */
  renderNow(): void {
    flushSync(() =>
      MessageLoop.sendMessage(this.content, Widget.Msg.UpdateRequest)
    );
  }

  /** The element with role=region and the panel's accessible name. */
  get regionNode(): HTMLElement {
    return this.content.node;
  }

  /** The live region's element (role=status); React renders it once the panel is attached. */
  get statusNode(): HTMLElement {
    const node =
      this.content.node.querySelector<HTMLElement>('[role="status"]');
    if (node === null) {
      throw new Error(
        'The Project Startup panel is not rendered yet: attach it and let React render first.'
      );
    }
    return node;
  }

  /**
   * Shown again (opened, or its tab chosen): a quiet refresh, shared with one in flight, so the
   * panel shows the current answer without a click; and the focus on its heading (not on
   * Refresh, which would then wear a focus ring the keyboard did not put there). This is
   * the one request of an opening: the open command asks nothing itself, since JupyterLab's and
   * Notebook 7's shells both activate the panel they show.
   */
  protected onActivateRequest(msg: Message): void {
    super.onActivateRequest(msg);
    void this.model.refresh();
    this._focusFirst(FOCUS_ATTEMPTS);
  }

  /**
   * The heading; retried while React renders it. A retry gives up once something else took
   * the focus meanwhile (a dialog opened from the panel, the command palette): it never pulls
   * the focus back from there.
   */
  private _focusFirst(
    attempts: number,
    initial: Element | null = document.activeElement
  ): void {
    if (this.isDisposed || !this.isAttached) {
      return;
    }
    const active = document.activeElement;
    if (active !== initial && !this.node.contains(active)) {
      return;
    }
    if (
      active instanceof HTMLElement &&
      this.node.contains(active) &&
      active !== this.content.node &&
      active !== this.node
    ) {
      return;
    }
    const target = this.node.querySelector<HTMLElement>(
      `.${CLASS_PREFIX}-title`
    );
    if (target) {
      target.focus();
    } else if (attempts > 0) {
      requestAnimationFrame(() => this._focusFirst(attempts - 1, initial));
    }
  }
}

/** Frames to wait for the first render before giving up on moving the focus. */
const FOCUS_ATTEMPTS = 20;
