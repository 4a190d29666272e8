/** @jest-environment jsdom */
// The plugin (src/index.ts) against a fake JupyterLab: the tokens it requires, the tracker and
// showDialog are small stand-ins, while @jupyterlab/services, @lumino and the widgets the panel
// is made of (@jupyterlab/apputils, @jupyterlab/ui-components) are real. Checks: the plugin's identity,
// that activate awaits nothing and sends the start-up GET at once but opens nothing before the
// app is restored, the commands,
// palette, launcher and restorer, translations, the dialog (cancel sends nothing, accept sends
// exactly the body), when the panel opens by itself (only awaiting a confirmation it can take,
// and the openWhenAwaitingConfirmation setting), the notifications (one per kind per session,
// their actions, mutedNotifications) through a recording Notification, and the user guide.
import './jsdom-shims';
import { CommandRegistry } from '@lumino/commands';
import { Widget } from '@lumino/widgets';
import { clusterPlatform } from '../../../sidecar/src/core/platforms/cluster';
import { genericPlatform } from '../../../sidecar/src/core/platforms/generic';
import { fakeApp, FakeLabShell, settle } from './fake-app';
import { fakeServer, FakeServer } from './fake-server';
import {
  diagnosticsReport,
  initializeAnswer,
  json,
  JUPYTER_404,
  PLATFORM_MESSAGE,
  PROJECT,
  projectionFor,
  SIDECAR_FAILED,
  trans
} from './fixtures';

jest.mock('@jupyterlab/application', () => {
  const { Token } = jest.requireActual('@lumino/coreutils');
  return {
    ILayoutRestorer: new Token('@jupyterlab/application:ILayoutRestorer')
  };
});
jest.mock('@jupyterlab/apputils', () => {
  const actual = jest.requireActual('@jupyterlab/apputils');
  const { Token } = jest.requireActual('@lumino/coreutils');
  class WidgetTracker {
    readonly namespace: string;
    readonly widgets: unknown[] = [];
    constructor(options: { namespace: string }) {
      this.namespace = options.namespace;
    }
    add(widget: unknown): Promise<void> {
      this.widgets.push(widget);
      return Promise.resolve();
    }
  }
  /** Records what the plugin shows; `emitted` is every notification in order. */
  const emitted: {
    id: string;
    message: string;
    type: string;
    options: object;
  }[] = [];
  const dismissed: string[] = [];
  const Notification = {
    emitted,
    dismissed,
    emit: jest.fn((message: string, type: string, options: object): string => {
      const id = `notification-${emitted.length + 1}`;
      emitted.push({ id, message, type, options });
      return id;
    }),
    dismiss: jest.fn((id: string): void => void dismissed.push(id))
  };
  return {
    ...actual,
    ICommandPalette: new Token('@jupyterlab/apputils:ICommandPalette'),
    Notification,
    WidgetTracker,
    showDialog: jest.fn(),
    Dialog: {
      okButton: (options: { label: string }) => ({
        ...options,
        accept: true,
        displayType: 'default'
      }),
      cancelButton: (options: { label: string }) => ({
        ...options,
        accept: false,
        displayType: 'default'
      })
    }
  };
});
jest.mock('@jupyterlab/mainmenu', () => {
  const { Token } = jest.requireActual('@lumino/coreutils');
  return { IMainMenu: new Token('@jupyterlab/mainmenu:IMainMenu') };
});
jest.mock('@jupyterlab/rendermime', () => {
  const { Token } = jest.requireActual('@lumino/coreutils');
  class MimeModel {
    readonly data: Record<string, unknown>;
    readonly trusted: boolean;
    constructor(options: { data: Record<string, unknown>; trusted: boolean }) {
      this.data = options.data;
      this.trusted = options.trusted;
    }
  }
  return {
    IRenderMimeRegistry: new Token(
      '@jupyterlab/rendermime:IRenderMimeRegistry'
    ),
    MimeModel
  };
});
jest.mock('@jupyterlab/launcher', () => {
  const { Token } = jest.requireActual('@lumino/coreutils');
  return { ILauncher: new Token('@jupyterlab/launcher:ILauncher') };
});
jest.mock('@jupyterlab/settingregistry', () => {
  const { Token } = jest.requireActual('@lumino/coreutils');
  return {
    ISettingRegistry: new Token('@jupyterlab/settingregistry:ISettingRegistry')
  };
});
jest.mock('@jupyterlab/translation', () => {
  const { Token } = jest.requireActual('@lumino/coreutils');
  // The real package otherwise: MainAreaWidget takes its nullTranslator.
  return {
    ...jest.requireActual('@jupyterlab/translation'),
    ITranslator: new Token('@jupyterlab/translation:ITranslator')
  };
});
// The status bar item is tested with the real status bar in live-plugin.test.ts.
jest.mock('@jupyterlab/statusbar', () => {
  const { Token } = jest.requireActual('@lumino/coreutils');
  return { IStatusBar: new Token('@jupyterlab/statusbar:IStatusBar') };
});
jest.mock('../../../src/statusbar', () => ({
  StartupStatus: class {},
  STATUS_ITEM_ID: 'jupyterlab-project-startup:status'
}));

// After the mocks (jest hoists jest.mock above the imports).
import { ILayoutRestorer } from '@jupyterlab/application';
import {
  ICommandPalette,
  Notification,
  showDialog
} from '@jupyterlab/apputils';
import { ILauncher } from '@jupyterlab/launcher';
import { IMainMenu } from '@jupyterlab/mainmenu';
import { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import { ISettingRegistry } from '@jupyterlab/settingregistry';
import { ITranslator } from '@jupyterlab/translation';
import plugin, { CommandIDs, PLUGIN_ID } from '../../../src/index';
import { INFO_AUTO_CLOSE_MS } from '../../../src/notification-display';
import { projectStartupIcon } from '../../../src/icon';
import { StartupPanel } from '../../../src/panel';
import { USER_GUIDE_MARKDOWN } from '../../../src/generated/user-guide';

const mockedShowDialog = showDialog as unknown as jest.Mock;

/** The recording Notification of the apputils mock above. */
const notifications = Notification as unknown as {
  emitted: {
    id: string;
    message: string;
    type: string;
    options: {
      autoClose?: number | false;
      actions?: { label: string; callback: (e: unknown) => void }[];
    };
  }[];
  dismissed: string[];
};

interface FakeSettings {
  values: Record<string, unknown>;
  get(key: string): { composite: unknown };
  set: jest.Mock;
  changed: { connect(listener: () => void): void };
}

interface Harness {
  server: FakeServer;
  commands: CommandRegistry;
  shell: { add: jest.Mock; activateById: jest.Mock };
  palette: { addItem: jest.Mock };
  launcher: { add: jest.Mock };
  restorer: { restore: jest.Mock };
  translator: { load: jest.Mock };
  settings: { load: jest.Mock };
  /** The plugin's settings object (what settings.load resolves with). */
  pluginSettings: FakeSettings;
  mainMenu: { helpMenu: { addGroup: jest.Mock } };
  restore(): Promise<void>;
  returned: unknown;
  warn: jest.SpyInstance;
}

/** A settings object as JupyterLab's: composite values, set() that saves and emits changed. */
function fakeSettings(values: Record<string, unknown>): FakeSettings {
  const listeners: (() => void)[] = [];
  const settings: FakeSettings = {
    values: {
      openWhenAwaitingConfirmation: true,
      mutedNotifications: [],
      ...values
    },
    get: (key: string) => ({ composite: settings.values[key] }),
    set: jest.fn((key: string, value: unknown) => {
      settings.values[key] = value;
      listeners.forEach(listener => listener());
      return Promise.resolve();
    }),
    changed: {
      connect: (listener: () => void) => void listeners.push(listener)
    }
  };
  return settings;
}

function activate(options: {
  settings?: Record<string, unknown>;
  settingsFail?: boolean;
  rendermime?: unknown;
  /** JupyterLab's shell as the plugin's optional ILabShell (none: as Notebook 7). */
  labShell?: unknown;
  answers: Parameters<typeof fakeServer>;
}): Harness {
  const server = fakeServer(...options.answers);
  let resolveRestored: () => void = () => undefined;
  const restored = new Promise<void>(resolve => (resolveRestored = resolve));
  const { app, commands, shell } = fakeApp(server.settings, restored);
  const palette = { addItem: jest.fn() };
  const launcher = { add: jest.fn() };
  const restorer = { restore: jest.fn(() => Promise.resolve()) };
  const translator = { load: jest.fn(() => trans) };
  const pluginSettings = fakeSettings(options.settings ?? {});
  const settings = {
    load: jest.fn(() =>
      options.settingsFail
        ? Promise.reject(new Error('no schema'))
        : Promise.resolve(pluginSettings)
    )
  };
  const mainMenu = { helpMenu: { addGroup: jest.fn() } };
  const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
  const activateFn = plugin.activate as unknown as (
    ...args: unknown[]
  ) => unknown;
  const returned = activateFn(
    app,
    translator,
    palette,
    launcher,
    restorer,
    settings,
    mainMenu,
    options.rendermime ?? null,
    null,
    null,
    options.labShell ?? null
  );
  return {
    server,
    commands,
    shell,
    palette,
    launcher,
    restorer,
    translator,
    settings,
    pluginSettings,
    mainMenu,
    returned,
    warn,
    restore: async () => {
      resolveRestored();
      await settle();
    }
  };
}

/** The panels the shell got, in order. */
function panels(h: Harness): StartupPanel[] {
  return h.shell.add.mock.calls
    .map(c => c[0])
    .filter((w): w is StartupPanel => w instanceof StartupPanel);
}

/** The action of the last notification labelled `label`, pressed as the toast's button does. */
function press(label: string): void {
  const last = notifications.emitted[notifications.emitted.length - 1];
  const action = last.options.actions?.find(a => a.label === label);
  if (!action) {
    throw new Error(
      `the notification "${last.message}" has no action "${label}"`
    );
  }
  action.callback(new MouseEvent('click'));
}

const SIDECAR_500 = {
  status: 500,
  statusText: 'Internal Server Error',
  contentType: 'text/html',
  body: '<html>500</html>'
};

afterEach(() => {
  jest.restoreAllMocks();
  mockedShowDialog.mockReset();
  notifications.emitted.length = 0;
  notifications.dismissed.length = 0;
  document.body.replaceChildren();
});

describe('the plugin', () => {
  it('has the agreed id, tokens and auto-start', () => {
    expect(plugin.id).toBe('jupyterlab-project-startup:plugin');
    expect(PLUGIN_ID).toBe(plugin.id);
    expect(plugin.autoStart).toBe(true);
    expect(plugin.requires).toEqual([ITranslator]);
    expect(plugin.optional).toEqual(
      expect.arrayContaining([
        ICommandPalette,
        ILauncher,
        ILayoutRestorer,
        ISettingRegistry,
        IMainMenu,
        IRenderMimeRegistry
      ])
    );
  });

  it('activates synchronously and sends the start-up GET at once; the panel waits for the restored layout', async () => {
    const h = activate({
      answers: [json(200, projectionFor(genericPlatform))]
    });
    expect(h.returned).toBeUndefined();
    // The GET leaves while JupyterLab is still starting: the cold sidecar's spawn overlaps it.
    expect(h.server.requests).toHaveLength(1);
    expect(h.server.requests[0].url).toMatch(
      /^http:\/\/localhost:8888\/user\/alice\/project\/startup\?interface=notebook/
    );
    await settle();
    // Answered (awaiting confirmation), but nothing opens before the layout is restored: the
    // Launcher must be in place for the panel to open beside it.
    expect(h.shell.add).not.toHaveBeenCalled();
    await h.restore();
    expect(h.shell.add).toHaveBeenCalledTimes(1);
    // The restore shares the first answer: still one GET.
    expect(h.server.requests).toHaveLength(1);
  });

  it('loads its translations and registers commands, palette, launcher, restorer and the Help menu entry', async () => {
    const h = activate({ answers: [] });
    expect(h.translator.load).toHaveBeenCalledWith(
      'jupyterlab_project_startup'
    );
    expect(h.commands.label(CommandIDs.open)).toBe('Open Project Startup');
    expect(h.commands.label(CommandIDs.refresh)).toBe(
      'Refresh Project Startup'
    );
    expect(h.commands.label(CommandIDs.initialize)).toBe('Initialize project');
    expect(h.commands.label(CommandIDs.userGuide)).toBe(
      'Project Startup user guide'
    );
    expect(h.palette.addItem.mock.calls.map(c => c[0])).toEqual([
      { command: 'project-startup:open', category: 'Project' },
      { command: 'project-startup:refresh', category: 'Project' },
      { command: 'project-startup:initialize', category: 'Project' },
      { command: 'project-startup:user-guide', category: 'Help' }
    ]);
    expect(h.mainMenu.helpMenu.addGroup).toHaveBeenCalledWith(
      [{ command: 'project-startup:user-guide' }],
      expect.any(Number)
    );
    expect(h.launcher.add).toHaveBeenCalledWith(
      expect.objectContaining({ command: 'project-startup:open' })
    );
    expect(h.restorer.restore).toHaveBeenCalledWith(
      expect.objectContaining({ namespace: 'project-startup' }),
      expect.objectContaining({ command: 'project-startup:open' })
    );
    expect(h.settings.load).toHaveBeenCalledWith(
      'jupyterlab-project-startup:plugin'
    );
    expect(h.commands.isEnabled(CommandIDs.initialize)).toBe(false);
    // The product's own icon in the launcher and menus; none in the palette.
    expect(h.commands.icon(CommandIDs.open)).toBe(projectStartupIcon);
    expect(
      h.commands.icon(CommandIDs.open, { isPalette: true })
    ).toBeUndefined();
    // Each command describes its arguments as JSON Schema (describedBy): none of its own, and
    // the palette's isPalette where the icon depends on it.
    for (const id of [CommandIDs.refresh, CommandIDs.initialize]) {
      expect(await h.commands.describedBy(id)).toEqual({
        args: { type: 'object', properties: {} }
      });
    }
    expect(await h.commands.describedBy(CommandIDs.userGuide)).toEqual({
      args: {
        type: 'object',
        properties: {
          isPalette: expect.objectContaining({ type: 'boolean' })
        }
      }
    });
    // The open command also takes `beside`: the panel opening by itself.
    expect(await h.commands.describedBy(CommandIDs.open)).toEqual({
      args: {
        type: 'object',
        properties: {
          isPalette: expect.objectContaining({ type: 'boolean' }),
          beside: expect.objectContaining({ type: 'boolean' })
        }
      }
    });
  });
});

describe('the panel opens by itself only awaiting a confirmation it can take', () => {
  it('awaiting confirmation: opens after restore, with one GET in all, and notifies nothing', async () => {
    const h = activate({
      answers: [json(200, projectionFor(genericPlatform))]
    });
    await h.restore();
    expect(h.shell.add).toHaveBeenCalledTimes(1);
    const panel = h.shell.add.mock.calls[0][0] as StartupPanel;
    expect(panel).toBeInstanceOf(StartupPanel);
    // Beside the Launcher (split to its right), not in its place, and without the focus.
    expect(h.shell.add.mock.calls[0][1]).toBe('main');
    expect(h.shell.add.mock.calls[0][2]).toEqual({
      mode: 'split-right',
      activate: false
    });
    expect(h.shell.activateById).not.toHaveBeenCalled();
    expect(h.server.requests).toHaveLength(1);
    expect(panel.statusNode.textContent).toBe(
      'Setup phase: Awaiting confirmation.'
    );
    expect(h.commands.isEnabled(CommandIDs.initialize)).toBe(true);
    expect(notifications.emitted).toEqual([]);
    expect(h.warn).not.toHaveBeenCalled();
  });

  /** The heading each widget shows in the moment the shell is given it. */
  function headingsWhenAdded(h: Harness): (string | null)[] {
    const headings: (string | null)[] = [];
    h.shell.add.mockImplementation((widget: Widget) => {
      headings.push(widget.node.querySelector('h3')?.textContent ?? null);
      Widget.attach(widget, document.body);
    });
    return headings;
  }

  /**
   * The panel was added once, beside the current tab without the focus, already rendered (whole
   * in its first paint), after the one start-up GET.
   */
  function expectOpenedBesideRendered(
    h: Harness,
    headings: (string | null)[]
  ): void {
    expect(h.shell.add).toHaveBeenCalledTimes(1);
    expect(h.shell.add.mock.calls[0].slice(1)).toEqual([
      'main',
      { mode: 'split-right', activate: false }
    ]);
    expect(headings).toEqual(['Set up this project']);
    expect(h.server.requests).toHaveLength(1);
  }

  it('on a first visit where JupyterLab opens its Launcher itself, later: the panel waits for it, then shows beside it already rendered', async () => {
    // JupyterLab's main area is empty at restore; its Launcher comes with the file browser's
    // restore, and only into an empty main area.
    const labShell = new FakeLabShell();
    const h = activate({
      labShell,
      answers: [json(200, projectionFor(genericPlatform))]
    });
    const headings = headingsWhenAdded(h);
    await h.restore();
    expect(h.shell.add).not.toHaveBeenCalled();
    labShell.main.push(new Widget()); // the Launcher
    labShell.layoutModified.emit(undefined);
    await settle();
    expectOpenedBesideRendered(h, headings);
  });

  it("on a first visit with JupyterLab's launcher extension: its Launcher opens at the restore, the panel beside it", async () => {
    const labShell = new FakeLabShell();
    const h = activate({
      labShell,
      answers: [json(200, projectionFor(genericPlatform))]
    });
    const launcher = new Widget();
    h.commands.addCommand('launcher:create', {
      execute: () => {
        labShell.main.push(launcher);
        return launcher;
      }
    });
    const headings = headingsWhenAdded(h);
    await h.restore();
    expect(labShell.main).toEqual([launcher]);
    expectOpenedBesideRendered(h, headings);
  });

  it('respects openWhenAwaitingConfirmation: false keeps the panel closed, and nothing notifies instead', async () => {
    const h = activate({
      settings: { openWhenAwaitingConfirmation: false },
      answers: [json(200, projectionFor(genericPlatform))]
    });
    await h.restore();
    expect(h.server.requests).toHaveLength(1);
    expect(h.shell.add).not.toHaveBeenCalled();
    expect(notifications.emitted).toEqual([]);
  });

  it('ready: no panel, no notification', async () => {
    const h = activate({
      answers: [
        json(200, projectionFor(genericPlatform, { state: 'initialized' }))
      ]
    });
    await h.restore();
    expect(h.shell.add).not.toHaveBeenCalled();
    expect(notifications.emitted).toEqual([]);
  });

  it('unsupported interface: no panel; a notification names the interface to use, with both actions', async () => {
    const h = activate({
      answers: [json(200, projectionFor(clusterPlatform))]
    });
    await h.restore();
    expect(h.shell.add).not.toHaveBeenCalled();
    expect(notifications.emitted).toHaveLength(1);
    const [shown] = notifications.emitted;
    expect(shown.type).toBe('info');
    expect(shown.message).toBe(
      'Project setup is not offered in JupyterLab on this platform.\nTerminal: Run project-startup status in a terminal.'
    );
    expect(shown.options.autoClose).toBe(INFO_AUTO_CLOSE_MS);
    expect(shown.options.actions?.map(a => a.label)).toEqual([
      'Open Project Startup',
      "Don't show again"
    ]);
  });

  it('not enabled: no panel and no console line; a warning that stays, with the fix', async () => {
    const h = activate({ answers: [JUPYTER_404, JUPYTER_404] });
    await h.restore();
    expect(h.shell.add).not.toHaveBeenCalled();
    expect(h.warn).not.toHaveBeenCalled();
    expect(notifications.emitted).toHaveLength(1);
    const [shown] = notifications.emitted;
    expect(shown.type).toBe('warning');
    expect(shown.options.autoClose).toBe(false);
    expect(shown.message).toContain(
      'Project Startup is not enabled on this Jupyter server.'
    );
    // The operator's command is the administrator's to run: the person is told whose step it is.
    expect(shown.message).toContain(
      'Your administrator needs to enable it on this Jupyter server.'
    );
    expect(shown.message).not.toContain('project-startup jupyter install');
  });

  it('the proxy could not start the service: the notification gives the real cause from the diagnostics route; its action opens the panel with the log', async () => {
    const report = diagnosticsReport([SIDECAR_FAILED], {
      state: 'failed',
      lastError: PLATFORM_MESSAGE,
      logTail: [`project-startup: ${PLATFORM_MESSAGE}`]
    });
    const h = activate({ answers: [SIDECAR_500, json(200, report)] });
    await h.restore();
    expect(h.server.requests.map(r => r.url.split('?')[0])).toEqual([
      'http://localhost:8888/user/alice/project/startup',
      'http://localhost:8888/user/alice/api/project-startup/diagnostics'
    ]);
    expect(h.shell.add).not.toHaveBeenCalled();
    const [shown] = notifications.emitted;
    expect(shown.type).toBe('error');
    expect(shown.options.autoClose).toBe(false);
    expect(shown.message.length).toBeLessThanOrEqual(140);
    // The service's own message is longer than a toast holds: it starts the toast, the panel has it whole.
    expect(shown.message).toMatch(
      /^Project Startup cannot start: PROJECT_STARTUP_PLATFORM must be one of generic, hosted-notebook.*…\n/
    );
    expect(shown.message.split('\n')[1]).toBe(
      'Your administrator needs to fix this.'
    );
    press('Open Project Startup');
    await settle();
    const panel = panels(h)[0];
    expect(panel.node.textContent).toContain(PLATFORM_MESSAGE);
    expect(panel.node.querySelector('pre')?.textContent).toBe(
      `project-startup: ${PLATFORM_MESSAGE}`
    );
    // The panel showed the answer it had: nothing asked again.
    expect(h.server.requests).toHaveLength(2);
  });

  it('settings that fail to load: the defaults apply and the warning says what to check', async () => {
    const h = activate({
      settingsFail: true,
      answers: [json(200, projectionFor(genericPlatform))]
    });
    await h.restore();
    expect(String(h.warn.mock.calls[0][0])).toContain('schema/plugin.json');
    expect(h.shell.add).toHaveBeenCalledTimes(1);
  });

  it('reached later (a block fixed, seen by a refresh), awaiting confirmation opens the panel once; closed, it stays closed', async () => {
    const awaiting = projectionFor(genericPlatform);
    const h = activate({
      answers: [
        json(200, projectionFor(genericPlatform, { state: 'unsafe' })),
        json(200, awaiting),
        json(200, awaiting)
      ]
    });
    await h.restore();
    expect(h.shell.add).not.toHaveBeenCalled();
    expect(notifications.emitted.map(n => n.type)).toEqual(['warning']);
    await h.commands.execute(CommandIDs.refresh);
    await settle();
    expect(panels(h)).toHaveLength(1);
    // The blocked notification's state is over: it is dismissed.
    expect(notifications.dismissed).toEqual([notifications.emitted[0].id]);
    panels(h)[0].close();
    await h.commands.execute(CommandIDs.refresh);
    await settle();
    expect(panels(h)).toHaveLength(1);
    expect(notifications.emitted).toHaveLength(1);
  });
});

describe('notifications', () => {
  it('one per kind per session: the same state again says nothing, a new kind says so once, a kind seen before stays silent', async () => {
    const blocked = json(
      200,
      projectionFor(genericPlatform, { state: 'unsafe' })
    );
    const h = activate({
      answers: [
        blocked,
        blocked,
        JUPYTER_404,
        JUPYTER_404,
        blocked,
        json(200, projectionFor(genericPlatform, { state: 'initialized' }))
      ]
    });
    await h.restore();
    expect(notifications.emitted.map(n => n.message.split('\n')[0])).toEqual([
      'Project setup is blocked: Private state location.'
    ]);
    // Polling (or Refresh) brings the same state: nothing repeats.
    await h.commands.execute(CommandIDs.refresh);
    await settle();
    expect(notifications.emitted).toHaveLength(1);
    expect(notifications.dismissed).toEqual([]);
    // A new kind: the old notification is over (dismissed), the new one shows once.
    await h.commands.execute(CommandIDs.refresh);
    await settle();
    expect(notifications.emitted.map(n => n.type)).toEqual([
      'warning',
      'warning'
    ]);
    expect(notifications.emitted[1].message).toContain('not enabled');
    expect(notifications.dismissed).toEqual(['notification-1']);
    // Blocked again: said before in this session, so silent; the not-enabled one is over.
    await h.commands.execute(CommandIDs.refresh);
    await settle();
    expect(notifications.emitted).toHaveLength(2);
    expect(notifications.dismissed).toEqual([
      'notification-1',
      'notification-2'
    ]);
    // Ready: nothing to say.
    await h.commands.execute(CommandIDs.refresh);
    await settle();
    expect(notifications.emitted).toHaveLength(2);
    expect(h.shell.add).not.toHaveBeenCalled();
  });

  it('"Open Project Startup" opens the panel', async () => {
    const h = activate({
      answers: [json(200, projectionFor(clusterPlatform))]
    });
    await h.restore();
    press('Open Project Startup');
    await settle();
    expect(panels(h)).toHaveLength(1);
    expect(h.shell.activateById).toHaveBeenCalledWith(
      'jp-project-startup-panel'
    );
    expect(panels(h)[0].statusNode.textContent).toBe(
      'Setup phase: Interface not supported.'
    );
  });

  it('"Don\'t show again" adds the kind to mutedNotifications through the settings, keeping what was there', async () => {
    const h = activate({
      settings: { mutedNotifications: ['needs-compute'] },
      answers: [JUPYTER_404, JUPYTER_404]
    });
    await h.restore();
    press("Don't show again");
    await settle();
    expect(h.pluginSettings.set).toHaveBeenCalledWith('mutedNotifications', [
      'needs-compute',
      'not-enabled'
    ]);
    expect(h.pluginSettings.values.mutedNotifications).toEqual([
      'needs-compute',
      'not-enabled'
    ]);
    expect(h.warn).not.toHaveBeenCalled();
  });

  it('a muted kind stays silent (and the panel stays closed)', async () => {
    const h = activate({
      settings: { mutedNotifications: ['not-enabled'] },
      answers: [JUPYTER_404, JUPYTER_404]
    });
    await h.restore();
    expect(notifications.emitted).toEqual([]);
    expect(h.shell.add).not.toHaveBeenCalled();
  });

  it('muting in the settings editor dismisses the notification of that kind', async () => {
    const h = activate({
      answers: [json(200, projectionFor(clusterPlatform))]
    });
    await h.restore();
    expect(notifications.emitted).toHaveLength(1);
    await h.pluginSettings.set('mutedNotifications', ['unsupported-interface']);
    expect(notifications.dismissed).toEqual([notifications.emitted[0].id]);
  });

  it('a save that fails keeps the mute for the session and says how to make it last', async () => {
    const h = activate({ answers: [JUPYTER_404, JUPYTER_404] });
    h.pluginSettings.set.mockImplementation(() =>
      Promise.reject(new Error('read-only settings'))
    );
    await h.restore();
    press("Don't show again");
    await settle();
    expect(String(h.warn.mock.calls[0][0])).toContain(
      'Add "not-enabled" to mutedNotifications'
    );
  });
});

describe('the user guide (Help menu)', () => {
  it('without a rendermime registry: the README section as plain text, in one reused tab', async () => {
    const h = activate({ answers: [] });
    const guide = (await h.commands.execute(CommandIDs.userGuide)) as Widget;
    expect(guide.id).toBe('jp-project-startup-user-guide');
    expect(guide.title.label).toBe('Project Startup user guide');
    expect(h.shell.add).toHaveBeenCalledWith(guide, 'main');
    expect(
      guide.node.querySelector('.jp-ProjectStartup-guideText')?.textContent
    ).toBe(USER_GUIDE_MARKDOWN);
    expect(USER_GUIDE_MARKDOWN).toMatch(
      /^## Using Project Startup in JupyterLab and Notebook\n/
    );
    expect(await h.commands.execute(CommandIDs.userGuide)).toBe(guide);
    expect(h.shell.add).toHaveBeenCalledTimes(1);
    expect(h.shell.activateById).toHaveBeenLastCalledWith(
      'jp-project-startup-user-guide'
    );
  });

  it("with a registry: JupyterLab's Markdown renderer gets the section, untrusted (so sanitized)", async () => {
    const rendered: { data: Record<string, unknown>; trusted: boolean }[] = [];
    const renderer = new Widget();
    Object.assign(renderer, {
      renderModel: (model: {
        data: Record<string, unknown>;
        trusted: boolean;
      }) => (rendered.push(model), Promise.resolve())
    });
    const rendermime = {
      mimeTypes: ['text/html', 'text/markdown'],
      createRenderer: jest.fn(() => renderer)
    };
    const h = activate({ rendermime, answers: [] });
    const guide = (await h.commands.execute(CommandIDs.userGuide)) as Widget;
    expect(rendermime.createRenderer).toHaveBeenCalledWith('text/markdown');
    expect(rendered).toEqual([
      { data: { 'text/markdown': USER_GUIDE_MARKDOWN }, trusted: false }
    ]);
    expect(guide.node.contains(renderer.node)).toBe(true);
    expect(renderer.hasClass('jp-ProjectStartup-guide')).toBe(true);
  });
});

describe('commands', () => {
  it('open reuses the one panel', async () => {
    const h = activate({
      settings: { openWhenAwaitingConfirmation: false },
      answers: [json(200, projectionFor(genericPlatform))]
    });
    await h.restore();
    const first = await h.commands.execute(CommandIDs.open);
    const second = await h.commands.execute(CommandIDs.open);
    expect(first).toBe(second);
    expect(h.shell.add).toHaveBeenCalledTimes(1);
    expect(h.server.requests).toHaveLength(1);
  });

  it('an opening costs one request (its activation asks, the command does not); two opens at once make one panel', async () => {
    const h = activate({
      settings: { openWhenAwaitingConfirmation: false },
      answers: [
        json(200, projectionFor(genericPlatform)),
        json(200, projectionFor(genericPlatform)),
        json(200, projectionFor(genericPlatform))
      ]
    });
    // As JupyterLab's and Notebook 7's shells do: showing a widget activates it.
    h.shell.activateById.mockImplementation((id: string) =>
      panels(h)
        .find(p => p.id === id)
        ?.activate()
    );
    await h.restore();
    expect(h.server.requests).toHaveLength(1);
    // Both before the panel's module has loaded: one panel, shown once.
    const [first, second] = await Promise.all([
      h.commands.execute(CommandIDs.open),
      h.commands.execute(CommandIDs.open)
    ]);
    await settle();
    expect(first).toBeInstanceOf(StartupPanel);
    expect(second).toBe(first);
    expect(h.shell.add).toHaveBeenCalledTimes(1);
    expect(h.server.requests).toHaveLength(2);
    // Closed, then opened again: a new panel, and again one request.
    (first as StartupPanel).dispose();
    const third = await h.commands.execute(CommandIDs.open);
    await settle();
    expect(third).toBeInstanceOf(StartupPanel);
    expect(third).not.toBe(first);
    expect(h.shell.add).toHaveBeenCalledTimes(2);
    expect(h.server.requests).toHaveLength(3);
  });

  it('refresh asks again', async () => {
    const h = activate({
      answers: [
        json(200, projectionFor(genericPlatform)),
        json(200, projectionFor(genericPlatform))
      ]
    });
    await h.restore();
    await h.commands.execute(CommandIDs.refresh);
    expect(h.server.requests.map(r => r.method)).toEqual(['GET', 'GET']);
  });

  it('initialize, cancelled: the dialog names the paths; no request is sent', async () => {
    const h = activate({
      answers: [json(200, projectionFor(genericPlatform))]
    });
    await h.restore();
    mockedShowDialog.mockResolvedValue({
      button: { accept: false, label: 'Cancel' },
      value: null,
      isChecked: null
    });
    expect(await h.commands.execute(CommandIDs.initialize)).toBe('cancelled');
    expect(mockedShowDialog).toHaveBeenCalledTimes(1);
    const options = mockedShowDialog.mock.calls[0][0];
    expect(options.title).toBe('Initialize project');
    expect(
      options.buttons.map((b: { label: string; accept: boolean }) => [
        b.label,
        b.accept
      ])
    ).toEqual([
      ['Cancel', false],
      ['Initialize project', true]
    ]);
    expect(options.defaultButton).toBe(0);
    // The body is a ReactWidget: React renders it once attached (as the dialog does).
    Widget.attach(options.body as Widget, document.body);
    await settle();
    const body = (options.body as Widget).node.textContent ?? '';
    expect(body).toContain(PROJECT);
    expect(body).toContain(`${PROJECT}/.project-startup`);
    expect(body).toContain(`${PROJECT}/.project-startup/initialization.json`);
    expect(h.server.requests.map(r => r.method)).toEqual(['GET']);
  });

  it('initialize, accepted: POSTs exactly the body, then shows the new phase', async () => {
    const before = projectionFor(genericPlatform);
    const h = activate({
      answers: [
        json(200, before),
        json(201, initializeAnswer(before)),
        json(200, projectionFor(genericPlatform, { state: 'initialized' }))
      ]
    });
    await h.restore();
    mockedShowDialog.mockResolvedValue({
      button: { accept: true, label: 'Initialize project' },
      value: null,
      isChecked: null
    });
    const panel = h.shell.add.mock.calls[0][0] as StartupPanel;
    // The panel's button runs the same command.
    (
      Array.from(panel.node.querySelectorAll('button')).find(
        b => b.textContent === 'Initialize project'
      ) as HTMLButtonElement
    ).click();
    await settle();
    expect(h.server.requests.map(r => r.method)).toEqual([
      'GET',
      'POST',
      'GET'
    ]);
    const post = h.server.requests[1];
    expect(post.url).toMatch(/\/user\/alice\/project\/initialize/);
    expect(post.headers.get('Content-Type')).toBe('application/json');
    expect(JSON.parse(post.body ?? '')).toEqual({
      interface: 'notebook',
      confirm: {
        projectPath: PROJECT,
        statePath: `${PROJECT}/.project-startup`
      }
    });
    expect(panel.statusNode.textContent).toBe(
      'Project initialized. Setup phase: Ready.'
    );
    expect(h.commands.isEnabled(CommandIDs.initialize)).toBe(false);
  });
});
