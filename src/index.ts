// The JupyterLab plugin of jupyterlab-project-startup: the notebook interface of the Project
// Startup service. It registers the commands, the palette and launcher items and layout
// restoration synchronously; every server call runs after activation, never awaited in it.
import {
  ILayoutRestorer,
  JupyterFrontEnd,
  JupyterFrontEndPlugin
} from '@jupyterlab/application';
import { ICommandPalette, WidgetTracker } from '@jupyterlab/apputils';
import { ILauncher } from '@jupyterlab/launcher';
import { IMainMenu } from '@jupyterlab/mainmenu';
import { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import { ISettingRegistry } from '@jupyterlab/settingregistry';
import { IStatusBar } from '@jupyterlab/statusbar';
import { ITranslator } from '@jupyterlab/translation';
import { createClient } from './api';
import { CommandArgs, CommandIDs } from './commands';
import { createConfirm } from './dialog';
import { addUserGuide } from './help';
import { projectStartupIcon } from './icon';
import { StartupModel } from './model';
import { StartupNotifier } from './notifier';
import { StartupPanel } from './panel';
import { settingsProblem } from './settings';
import { showInMainArea } from './shell';
import { StartupStatus, STATUS_ITEM_ID } from './statusbar';
import {
  PLUGIN_ID,
  SETTING_REFRESH_INTERVAL,
  TRACKER_NAMESPACE,
  TRANSLATION_DOMAIN
} from './tokens';

export { CommandIDs } from './commands';
export { PLUGIN_ID } from './tokens';

function activate(
  app: JupyterFrontEnd,
  translator: ITranslator,
  palette: ICommandPalette | null,
  launcher: ILauncher | null,
  restorer: ILayoutRestorer | null,
  settingRegistry: ISettingRegistry | null,
  mainMenu: IMainMenu | null,
  rendermime: IRenderMimeRegistry | null,
  statusBar: IStatusBar | null
): void {
  const trans = translator.load(TRANSLATION_DOMAIN);
  const { commands } = app;

  const model = new StartupModel({
    client: createClient(app.serviceManager.serverSettings),
    confirm: createConfirm(trans)
  });
  model.stateChanged.connect(() =>
    commands.notifyCommandChanged(CommandIDs.initialize)
  );

  const tracker = new WidgetTracker<StartupPanel>({
    namespace: TRACKER_NAMESPACE
  });
  let panel: StartupPanel | null = null;
  let openedBefore = false;

  commands.addCommand(CommandIDs.open, {
    label: trans.__('Open Project Startup'),
    caption: trans.__(
      'Show what this platform offers and how to set up the project'
    ),
    icon: args => (args['isPalette'] ? undefined : projectStartupIcon),
    describedBy: CommandArgs.iconHiddenInPalette,
    execute: () => {
      if (panel === null || panel.isDisposed) {
        panel = new StartupPanel({
          model,
          trans,
          actions: {
            initialize: () => void commands.execute(CommandIDs.initialize)
          }
        });
        void tracker.add(panel);
        // The first panel shows the start-up answer (or waits for it); a panel opened again
        // later asks afresh. Requests in flight are shared.
        void (openedBefore ? model.refresh() : model.ensureLoaded());
        openedBefore = true;
      }
      showInMainArea(app, panel);
      return panel;
    }
  });

  commands.addCommand(CommandIDs.refresh, {
    label: trans.__('Refresh Project Startup'),
    caption: trans.__(
      'Ask the Project Startup service for the setup state again'
    ),
    describedBy: CommandArgs.none,
    execute: () => model.refresh({ userInitiated: true })
  });

  commands.addCommand(CommandIDs.initialize, {
    label: trans.__('Initialize project'),
    caption: trans.__('Confirm and create the private project state'),
    isEnabled: () => model.canInitialize,
    describedBy: CommandArgs.none,
    execute: () => model.initialize()
  });

  if (palette) {
    const category = trans.__('Project');
    palette.addItem({ command: CommandIDs.open, category });
    palette.addItem({ command: CommandIDs.refresh, category });
    palette.addItem({ command: CommandIDs.initialize, category });
  }

  if (launcher) {
    launcher.add({
      command: CommandIDs.open,
      category: trans.__('Other'),
      rank: 50
    });
  }

  if (restorer) {
    void restorer.restore(tracker, {
      command: CommandIDs.open,
      name: () => TRACKER_NAMESPACE
    });
  }

  if (statusBar) {
    const item = new StartupStatus({
      model,
      trans,
      open: () => void commands.execute(CommandIDs.open)
    });
    statusBar.registerStatusItem(STATUS_ITEM_ID, {
      item,
      align: 'left',
      rank: 100
    });
  }

  addUserGuide(app, { trans, mainMenu, rendermime, palette });

  // The panel opens by itself only when the person can act in it; everything else that needs
  // attention becomes a notification (notifications.ts decides, notifier.ts shows).
  const notifier = new StartupNotifier({
    model,
    trans,
    openPanel: () => commands.execute(CommandIDs.open)
  });

  const settingsLoaded: Promise<void> = settingRegistry
    ? settingRegistry
        .load(PLUGIN_ID)
        .then(settings => {
          notifier.useSettings(settings);
          const readInterval = (): void =>
            model.setRefreshInterval(
              settings.get(SETTING_REFRESH_INTERVAL).composite
            );
          readInterval();
          settings.changed.connect(readInterval);
        })
        .catch((reason: unknown) => {
          console.warn(settingsProblem(reason, trans), reason);
        })
    : Promise.resolve();

  // The preflight: one GET after the layout is restored (a restored panel shares it).
  Promise.all([app.restored, settingsLoaded])
    .then(() => {
      // The live state: the panel and the status bar follow the service from here on.
      model.startPolling();
      return model.ensureLoaded();
    })
    .then(() => notifier.start())
    .catch((reason: unknown) => {
      console.error(
        trans.__(
          'Project Startup: the start-up check failed. Open the panel with "Open Project Startup" and press Refresh.'
        ),
        reason
      );
    });
}

/**
 * The Project Startup plugin: a panel that shows the platform, the setup phase, the next
 * action and the readiness checks, and initializes the project after a confirmation dialog.
 */
const plugin: JupyterFrontEndPlugin<void> = {
  id: PLUGIN_ID,
  description:
    'Shows what this platform offers and walks a person from first open to a set-up project.',
  autoStart: true,
  requires: [ITranslator],
  optional: [
    ICommandPalette,
    ILauncher,
    ILayoutRestorer,
    ISettingRegistry,
    IMainMenu,
    IRenderMimeRegistry,
    IStatusBar
  ],
  activate
};

export default plugin;
