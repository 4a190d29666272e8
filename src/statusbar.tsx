// The status bar item: the product's icon and "Project: <phase>" (or the failure in words),
// following the model's state; a click, Enter or Space opens the panel. Built from JupyterLab's
// own parts: a ReactWidget rendering the status bar's GroupItem / TextItem.
// It renders on every stateChanged (StartupStateView): through UseSignal, an answer landing
// before React's first commit was lost and the item stayed at "Checking…" (the jsdom test
// caught exactly that).
import { GroupItem, TextItem } from '@jupyterlab/statusbar';
import * as React from 'react';
import { projectStartupIcon } from './icon';
import { statusBarText, statusMessage } from './labels';
import { StartupModel } from './model';
import { StartupStateView } from './state-view';
import { ITranslationBundle } from './tokens';

/** The status bar item's id (IStatusBar.registerStatusItem). */
export const STATUS_ITEM_ID = 'jupyterlab-project-startup:status';

export const STATUS_ITEM_CLASS = 'jp-ProjectStartup-statusItem';

export interface IStartupStatusOptions {
  model: StartupModel;
  trans: ITranslationBundle;
  /** Opens the panel (the open command). */
  open: () => void;
}

export class StartupStatus extends StartupStateView {
  constructor(options: IStartupStatusOptions) {
    super(options.model);
    this._options = options;
    this.addClass(STATUS_ITEM_CLASS);
    // The status bar's own hover style for items that do something when clicked.
    this.addClass('jp-mod-highlighted');
  }

  protected render(): React.ReactElement {
    const { trans, open } = this._options;
    const onKeyDown = (event: React.KeyboardEvent): void => {
      if (event.key === 'Enter' || event.key === ' ') {
        event.preventDefault();
        open();
      }
    };
    const state = this.model.state;
    return (
      <GroupItem
        spacing={4}
        role="button"
        tabIndex={0}
        title={statusMessage(state, trans)}
        data-view={
          state.view.kind === 'loaded'
            ? state.view.projection.phase
            : state.view.kind
        }
        onClick={open}
        onKeyDown={onKeyDown}
      >
        {/* LabIcon marks its svg aria-hidden: the item's name is its text. */}
        <projectStartupIcon.react tag="span" stylesheet="statusBar" />
        <TextItem source={statusBarText(state, trans)} />
      </GroupItem>
    );
  }

  private _options: IStartupStatusOptions;
}
