// The JupyterLab plugin of jupyterlab-project-startup: the notebook interface of the Project
// Startup service. It registers the commands, the palette and launcher items and layout
// restoration synchronously; the start-up GET leaves from activation, never awaited in it.
//
// What JupyterLab loads at start is what activation needs: the model and its server calls, the
// status bar item, the notifier and the Help entry. The panel and the confirmation dialog (with
// the components/ they render: most of the extension's code) are one separate chunk
// (on-demand.ts), loaded with `import()` by the open command or the confirmation when first
// needed, or beside the start-up GET where the panel is likely to open by itself (panel-hint.ts).
import {
  ILabShell,
  ILayoutRestorer,
  JupyterFrontEnd,
  JupyterFrontEndPlugin
} from '@jupyterlab/application';
import { ICommandPalette, WidgetTracker } from '@jupyterlab/apputils';
import { ILauncher } from '@jupyterlab/launcher';
import { IMainMenu } from '@jupyterlab/mainmenu';
import { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import { ISettingRegistry } from '@jupyterlab/settingregistry';
import { IStateDB } from '@jupyterlab/statedb';
import { IStatusBar } from '@jupyterlab/statusbar';
import { ITranslator } from '@jupyterlab/translation';
// eslint-disable-next-line jupyter/prefer-lazy-imports -- the model's client is made in activate
import { createClient } from './api';
import { CommandArgs, CommandIDs } from './commands';
// eslint-disable-next-line jupyter/prefer-lazy-imports -- the Help entry is registered in activate
import { addUserGuide } from './help';
import { projectStartupIcon } from './icon';
// eslint-disable-next-line jupyter/prefer-lazy-imports -- the status bar, the commands and the start-up check share the model from activate on
import { ConfirmFunction, StartupModel } from './model';
// eslint-disable-next-line jupyter/prefer-lazy-imports -- it follows the start-up check that activate starts
import { StartupNotifier } from './notification-display';
import type { StartupPanel } from './panel';
import { browserStorage, IPanelHint, panelHint } from './panel-hint';
import { settingsProblem } from './settings';
import { mainAreaReady, openLauncherNow, showInMainArea } from './shell';
// eslint-disable-next-line jupyter/prefer-lazy-imports -- the status bar item is registered in activate and shows the phase from the start
import { StartupStatus, STATUS_ITEM_ID } from './statusbar';
import {
  ITranslationBundle,
  PLUGIN_ID,
  SETTING_REFRESH_INTERVAL,
  TRACKER_NAMESPACE,
  TRANSLATION_DOMAIN
} from './tokens';

export { CommandIDs } from './commands';
export { PLUGIN_ID } from './tokens';

/** The confirmation: the dialog's module loads when a person first confirms. */
function confirmWithDialog(trans: ITranslationBundle): ConfirmFunction {
  // If the module cannot load (the page is older than an updated extension), nothing is sent,
  // as for Cancel, and the console says why.
  return async (targets, projection) => {
    let dialog: typeof import('./on-demand');
    try {
      dialog = await import('./on-demand');
    } catch (reason) {
      console.error(
        trans.__(
          'Project Startup: the confirmation dialog could not be loaded, so nothing was initialized. Reload the page (the extension may have been updated since it was opened).'
        ),
        reason
      );
      return false;
    }
    return dialog.createConfirm(trans)(targets, projection);
  };
}

/** The model, with the initialize command's enabled state following it. */
function createModel(
  app: JupyterFrontEnd,
  trans: ITranslationBundle
): StartupModel {
  const model = new StartupModel({
    client: createClient(app.serviceManager.serverSettings),
    confirm: confirmWithDialog(trans)
  });
  model.stateChanged.connect(() =>
    app.commands.notifyCommandChanged(CommandIDs.initialize)
  );
  return model;
}

/** The one panel, made when first opened, and the tracker that restores it. */
interface IPanelLoader {
  readonly tracker: WidgetTracker<StartupPanel>;
  /** The panel, its module loaded first if need be; an opening meanwhile waits for the same. */
  load(): Promise<StartupPanel>;
  /** Loads the panel's module ahead of an opening; a failure shows when it is opened. */
  prefetch(): void;
}

function createPanelLoader(
  app: JupyterFrontEnd,
  model: StartupModel,
  trans: ITranslationBundle,
  state: IStateDB | null
): IPanelLoader {
  const tracker = new WidgetTracker<StartupPanel>({
    namespace: TRACKER_NAMESPACE
  });
  let panel: StartupPanel | null = null;
  /** The panel's module loading: an open command while it loads waits for the same panel. */
  let loading: Promise<StartupPanel> | null = null;

  const load = (): Promise<StartupPanel> => {
    if (panel !== null && !panel.isDisposed) {
      return Promise.resolve(panel);
    }
    loading ??= import('./on-demand')
      .then(({ StartupPanel }) => {
        const created = new StartupPanel({
          model,
          trans,
          actions: {
            initialize: () => void app.commands.execute(CommandIDs.initialize)
          },
          state,
          versions: { application: app.version, applicationName: app.name }
        });
        void tracker.add(created);
        panel = created;
        return created;
      })
      .catch((reason: unknown) => {
        console.error(
          trans.__(
            'Project Startup: the panel could not be loaded. Reload the page (the extension may have been updated since it was opened).'
          ),
          reason
        );
        throw reason;
      })
      .finally(() => {
        loading = null;
      });
    return loading;
  };
  const prefetch = (): void => {
    import('./on-demand').catch(() => undefined);
  };
  return { tracker, load, prefetch };
}

/**
 * The open command for the status bar item and the notifications; a failure is on the console
 * already.
 */
function openPanel(
  app: JupyterFrontEnd,
  args: { beside?: boolean } = {}
): Promise<unknown> {
  return app.commands.execute(CommandIDs.open, args).catch(() => undefined);
}

/** The open, refresh and initialize commands. */
function addCommands(
  app: JupyterFrontEnd,
  model: StartupModel,
  panels: IPanelLoader,
  labShell: ILabShell | null,
  trans: ITranslationBundle
): void {
  const { commands } = app;
  commands.addCommand(CommandIDs.open, {
    label: trans.__('Open Project Startup'),
    caption: trans.__(
      'Show what this platform offers and how to set up the project'
    ),
    icon: args => (args['isPalette'] ? undefined : projectStartupIcon),
    describedBy: CommandArgs.open,
    // No request here: showing the panel activates it (JupyterLab's main area, Notebook 7's
    // tree tab and side panel all do), and its activation asks the service (a quiet refresh,
    // shared with one in flight), so an opening costs one request.
    execute: async args => {
      const beside = args['beside'] === true;
      const shown = await panels.load();
      if (beside) {
        // Opened by itself: rendered first, so that it shows whole in the frame that adds it;
        // beside JupyterLab's Launcher, opened now where JupyterLab would open it a second
        // later; else (a URL that opens a file) once the main area holds something.
        shown.renderNow();
        openLauncherNow(app, labShell);
        await mainAreaReady(labShell);
      }
      showInMainArea(app, shown, { beside });
      return shown;
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
}

function addPaletteItems(
  palette: ICommandPalette | null,
  trans: ITranslationBundle
): void {
  if (!palette) {
    return;
  }
  const category = trans.__('Project');
  palette.addItem({ command: CommandIDs.open, category });
  palette.addItem({ command: CommandIDs.refresh, category });
  palette.addItem({ command: CommandIDs.initialize, category });
}

function addLauncherItem(
  launcher: ILauncher | null,
  trans: ITranslationBundle
): void {
  launcher?.add({
    command: CommandIDs.open,
    category: trans.__('Other'),
    rank: 50
  });
}

/** An open panel comes back after a reload, through the open command. */
function restorePanel(
  restorer: ILayoutRestorer | null,
  tracker: WidgetTracker<StartupPanel>
): void {
  if (restorer) {
    void restorer.restore(tracker, {
      command: CommandIDs.open,
      name: () => TRACKER_NAMESPACE
    });
  }
}

/** The status bar item: the phase from the start; a click opens the panel. */
function addStatusItem(
  app: JupyterFrontEnd,
  statusBar: IStatusBar | null,
  model: StartupModel,
  trans: ITranslationBundle
): void {
  if (!statusBar) {
    return;
  }
  const item = new StartupStatus({
    model,
    trans,
    open: () => void openPanel(app)
  });
  statusBar.registerStatusItem(STATUS_ITEM_ID, {
    item,
    align: 'left',
    rank: 100
  });
}

/** The settings in use from their first load on; a failure to load them is only a warning. */
function loadSettings(
  settingRegistry: ISettingRegistry | null,
  model: StartupModel,
  notifier: StartupNotifier,
  trans: ITranslationBundle
): Promise<void> {
  if (!settingRegistry) {
    return Promise.resolve();
  }
  return settingRegistry
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
    });
}

/**
 * The preflight: one GET at once, while JupyterLab starts (the first one spawns the sidecar,
 * the longest wait before the panel can show; a restored panel shares it). The panel's chunk
 * loads beside it where the panel is likely to open by itself (panel-hint.ts), else once the
 * answer says it will (under the settings in use), and the answer is remembered for the next
 * page. Once the layout is restored (JupyterLab has settled what its main area holds, for the
 * panel to open beside it) and the settings are read: the poll, and the notifications of what
 * needs attention, the panel that opens itself among them.
 */
function startChecking(
  app: JupyterFrontEnd,
  model: StartupModel,
  panels: IPanelLoader,
  notifier: StartupNotifier,
  settingsLoaded: Promise<void>,
  hint: IPanelHint,
  trans: ITranslationBundle
): void {
  const firstAnswer = model.ensureLoaded();
  if (hint.likely) {
    panels.prefetch();
  }
  void Promise.all([firstAnswer, settingsLoaded]).then(([state]) => {
    const opens = notifier.willOpenPanel(state);
    // Only an answer of the service tells what the project needs; a failure leaves the hint.
    if (state.view.kind === 'loaded') {
      hint.remember(opens);
    }
    if (opens) {
      panels.prefetch();
    }
  });
  Promise.all([firstAnswer, app.restored, settingsLoaded])
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

/** Registers everything synchronously and sends the start-up GET; nothing is awaited. */
function activate(
  app: JupyterFrontEnd,
  translator: ITranslator,
  palette: ICommandPalette | null,
  launcher: ILauncher | null,
  restorer: ILayoutRestorer | null,
  settingRegistry: ISettingRegistry | null,
  mainMenu: IMainMenu | null,
  rendermime: IRenderMimeRegistry | null,
  statusBar: IStatusBar | null,
  state: IStateDB | null,
  labShell: ILabShell | null
): void {
  const trans = translator.load(TRANSLATION_DOMAIN);
  const model = createModel(app, trans);
  const panels = createPanelLoader(app, model, trans, state);
  addCommands(app, model, panels, labShell, trans);
  addPaletteItems(palette, trans);
  addLauncherItem(launcher, trans);
  restorePanel(restorer, panels.tracker);
  addStatusItem(app, statusBar, model, trans);
  addUserGuide(app, { trans, mainMenu, rendermime, palette });
  // The panel opens by itself only when the person can act in it; everything else that needs
  // attention becomes a notification (notification-rules.ts decides, notification-display.ts shows).
  const notifier = new StartupNotifier({
    model,
    trans,
    openPanel: () => openPanel(app),
    openPanelBeside: () => openPanel(app, { beside: true })
  });
  const settingsLoaded = loadSettings(settingRegistry, model, notifier, trans);
  const hint = panelHint(
    browserStorage(),
    app.serviceManager.serverSettings.baseUrl
  );
  startChecking(app, model, panels, notifier, settingsLoaded, hint, trans);
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
    IStatusBar,
    IStateDB,
    ILabShell
  ],
  activate
};

export default plugin;
