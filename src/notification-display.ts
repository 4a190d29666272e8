// Shows what notification-rules.ts decides: the panel opened by itself when the person can act in
// it, and one JupyterLab Notification per kind per session for everything else, with "Open
// Project Startup" and "Don't show again" (kept in the mutedNotifications setting). It follows
// the model's state, so a state reached later (by a refresh or polling) notifies once too, and
// a notification whose state is over is dismissed.
import { Notification } from '@jupyterlab/apputils';
import type { ISettingRegistry } from '@jupyterlab/settingregistry';
import { IPanelState, StartupModel } from './model';
import { notificationFor, shouldOpenPanel } from './notification-rules';
import {
  ITranslationBundle,
  NotificationKind,
  SETTING_MUTED_NOTIFICATIONS,
  SETTING_OPEN_WHEN_AWAITING_CONFIRMATION
} from './tokens';

/** How long an info toast stays (it stays in the notification center); errors and warnings stay until closed. */
export const INFO_AUTO_CLOSE_MS = 10000;

export interface INotifierOptions {
  model: StartupModel;
  trans: ITranslationBundle;
  /** Opens the panel (the "Open Project Startup" command). */
  openPanel: () => unknown;
  /** Opens the panel by itself: beside the current tab, without the focus (default: openPanel). */
  openPanelBeside?: () => unknown;
}

export class StartupNotifier {
  constructor(options: INotifierOptions) {
    this._model = options.model;
    this._trans = options.trans;
    this._openPanel = options.openPanel;
    this._openPanelBeside = options.openPanelBeside ?? options.openPanel;
  }

  /** The kinds "Don't show again" silenced. */
  get muted(): ReadonlySet<NotificationKind> {
    return this._muted;
  }

  /** Reads openWhenAwaitingConfirmation and mutedNotifications now and on every change; "Don't show again" writes there. */
  useSettings(settings: ISettingRegistry.ISettings): void {
    this._settings = settings;
    const read = (): void => {
      this._openWhenAwaitingConfirmation =
        settings.get(SETTING_OPEN_WHEN_AWAITING_CONFIRMATION).composite !==
        false;
      const muted = settings.get(SETTING_MUTED_NOTIFICATIONS).composite;
      this._muted = new Set(
        Array.isArray(muted)
          ? (muted.filter(k => typeof k === 'string') as NotificationKind[])
          : []
      );
      if (this._active && this._muted.has(this._active.kind)) {
        this._dismissActive();
      }
    };
    read();
    settings.changed.connect(read);
  }

  /** Follows the model from now on (call once the app is restored and the settings are read). */
  start(): void {
    if (this._started) {
      return;
    }
    this._started = true;
    this._model.stateChanged.connect((_, state) => this._handle(state));
    this._handle(this._model.state);
  }

  /**
   * Whether `state` opens the panel by itself under the settings in use: awaiting a confirmation
   * this notebook can take, the setting allows it, and not opened already this session (a person
   * who closed it is not interrupted again by a refresh).
   */
  willOpenPanel(state: IPanelState): boolean {
    return (
      !this._opened &&
      shouldOpenPanel(state, this._openWhenAwaitingConfirmation)
    );
  }

  private _handle(state: IPanelState): void {
    if (state.view.kind === 'loading') {
      return;
    }
    if (this.willOpenPanel(state)) {
      this._opened = true;
      void this._openPanelBeside();
    }
    const decision = notificationFor(state, this._trans);
    if (this._active && this._active.kind !== decision?.kind) {
      this._dismissActive(); // its state is over
    }
    if (
      !decision ||
      this._notified.has(decision.kind) ||
      this._muted.has(decision.kind)
    ) {
      return;
    }
    const kind = decision.kind;
    this._notified.add(kind);
    const id = Notification.emit(decision.message, decision.type, {
      autoClose: decision.type === 'info' ? INFO_AUTO_CLOSE_MS : false,
      actions: [
        {
          label: this._trans.__('Open Project Startup'),
          caption: this._trans.__(
            'Open the Project Startup panel: the whole cause and fix'
          ),
          displayType: 'accent',
          callback: () => void this._openPanel()
        },
        {
          label: this._trans.__("Don't show again"),
          caption: this._trans.__(
            'Silence this notification (Settings → Project Startup → Silenced notifications)'
          ),
          callback: () => this._mute(kind)
        }
      ]
    });
    this._active = { kind, id };
  }

  private _dismissActive(): void {
    if (this._active) {
      Notification.dismiss(this._active.id);
      this._active = null;
    }
  }

  private _mute(kind: NotificationKind): void {
    this._muted = new Set([...this._muted, kind]);
    if (this._active?.kind === kind) {
      this._active = null; // the toast's own button closes it
    }
    const settings = this._settings;
    if (!settings) {
      return; // no settings registry: silenced for this session only
    }
    settings
      .set(SETTING_MUTED_NOTIFICATIONS, [...this._muted])
      .catch((reason: unknown) => {
        console.warn(
          this._trans.__(
            'Project Startup: "Don\'t show again" could not be saved, so it holds for this session only. Add "%1" to mutedNotifications in Settings → Project Startup.',
            kind
          ),
          reason
        );
      });
  }

  private _model: StartupModel;
  private _trans: ITranslationBundle;
  private _openPanel: () => unknown;
  private _openPanelBeside: () => unknown;
  private _settings: ISettingRegistry.ISettings | null = null;
  private _openWhenAwaitingConfirmation = true;
  private _muted: Set<NotificationKind> = new Set();
  private _notified = new Set<NotificationKind>();
  private _active: { kind: NotificationKind; id: string } | null = null;
  private _opened = false;
  private _started = false;
}
