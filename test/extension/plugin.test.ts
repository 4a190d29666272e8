/** @jest-environment jsdom */
// The plugin (src/index.ts) against a fake JupyterLab: the front-end packages it takes tokens
// and showDialog from are replaced by small stand-ins (their real modules need a browser
// bundle), while @jupyterlab/services and @lumino are real. Checks: the plugin's identity,
// that activate awaits nothing and asks nothing before the app is restored, the commands,
// palette, launcher and restorer, the openWhileIncomplete setting, translations, and the
// dialog: cancel sends nothing, accept sends exactly the body.
import './jsdom-shims';
import { CommandRegistry } from '@lumino/commands';
import { Widget } from '@lumino/widgets';
import { clusterPlatform } from '../../sidecar/src/platforms/cluster';
import { genericPlatform } from '../../sidecar/src/platforms/generic';
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
  return { ILayoutRestorer: new Token('@jupyterlab/application:ILayoutRestorer') };
});
jest.mock('@jupyterlab/apputils', () => {
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
  return {
    ICommandPalette: new Token('@jupyterlab/apputils:ICommandPalette'),
    WidgetTracker,
    showDialog: jest.fn(),
    Dialog: {
      okButton: (options: { label: string }) => ({ ...options, accept: true, displayType: 'default' }),
      cancelButton: (options: { label: string }) => ({ ...options, accept: false, displayType: 'default' })
    }
  };
});
jest.mock('@jupyterlab/launcher', () => {
  const { Token } = jest.requireActual('@lumino/coreutils');
  return { ILauncher: new Token('@jupyterlab/launcher:ILauncher') };
});
jest.mock('@jupyterlab/settingregistry', () => {
  const { Token } = jest.requireActual('@lumino/coreutils');
  return { ISettingRegistry: new Token('@jupyterlab/settingregistry:ISettingRegistry') };
});
jest.mock('@jupyterlab/translation', () => {
  const { Token } = jest.requireActual('@lumino/coreutils');
  return { ITranslator: new Token('@jupyterlab/translation:ITranslator') };
});
jest.mock('@jupyterlab/ui-components', () => ({ launchIcon: { name: 'ui-components:launch' } }));
// The status bar item is tested with the real status bar in live-plugin.test.ts.
jest.mock('@jupyterlab/statusbar', () => {
  const { Token } = jest.requireActual('@lumino/coreutils');
  return { IStatusBar: new Token('@jupyterlab/statusbar:IStatusBar') };
});
jest.mock('../../src/statusbar', () => ({ StartupStatus: class {}, STATUS_ITEM_ID: 'jupyterlab-project-startup:status' }));

// After the mocks (jest hoists jest.mock above the imports).
import { ILayoutRestorer } from '@jupyterlab/application';
import { ICommandPalette, showDialog } from '@jupyterlab/apputils';
import { ILauncher } from '@jupyterlab/launcher';
import { ISettingRegistry } from '@jupyterlab/settingregistry';
import { ITranslator } from '@jupyterlab/translation';
import plugin, { CommandIDs, PLUGIN_ID } from '../../src/index';
import { StartupPanel } from '../../src/panel';

const mockedShowDialog = showDialog as unknown as jest.Mock;

interface Harness {
  server: FakeServer;
  commands: CommandRegistry;
  shell: { add: jest.Mock; activateById: jest.Mock };
  palette: { addItem: jest.Mock };
  launcher: { add: jest.Mock };
  restorer: { restore: jest.Mock };
  translator: { load: jest.Mock };
  settings: { load: jest.Mock };
  restore(): Promise<void>;
  returned: unknown;
  warn: jest.SpyInstance;
}

async function settle(): Promise<void> {
  for (let i = 0; i < 10; i++) {
    await new Promise(resolve => setTimeout(resolve, 0));
  }
}

function activate(options: { openWhileIncomplete?: boolean; settingsFail?: boolean; answers: Parameters<typeof fakeServer> }): Harness {
  const server = fakeServer(...options.answers);
  const commands = new CommandRegistry();
  const shell = {
    add: jest.fn((widget: Widget) => Widget.attach(widget, document.body)),
    activateById: jest.fn()
  };
  let resolveRestored: () => void = () => undefined;
  const restored = new Promise<void>(resolve => (resolveRestored = resolve));
  const app = { commands, shell, restored, serviceManager: { serverSettings: server.settings } };
  const palette = { addItem: jest.fn() };
  const launcher = { add: jest.fn() };
  const restorer = { restore: jest.fn(() => Promise.resolve()) };
  const translator = { load: jest.fn(() => trans) };
  const changed = { connect: jest.fn() };
  const settings = {
    load: jest.fn(() =>
      options.settingsFail
        ? Promise.reject(new Error('no schema'))
        : Promise.resolve({ get: () => ({ composite: options.openWhileIncomplete ?? true }), changed })
    )
  };
  const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
  const activateFn = plugin.activate as unknown as (...args: unknown[]) => unknown;
  const returned = activateFn(app, translator, palette, launcher, restorer, settings);
  return {
    server,
    commands,
    shell,
    palette,
    launcher,
    restorer,
    translator,
    settings,
    returned,
    warn,
    restore: async () => {
      resolveRestored();
      await settle();
    }
  };
}

afterEach(() => {
  jest.restoreAllMocks();
  mockedShowDialog.mockReset();
  document.body.replaceChildren();
});

describe('the plugin', () => {
  it('has the agreed id, tokens and auto-start', () => {
    expect(plugin.id).toBe('jupyterlab-project-startup:plugin');
    expect(PLUGIN_ID).toBe(plugin.id);
    expect(plugin.autoStart).toBe(true);
    expect(plugin.requires).toEqual([ITranslator]);
    expect(plugin.optional).toEqual(expect.arrayContaining([ICommandPalette, ILauncher, ILayoutRestorer, ISettingRegistry]));
  });

  it('activates synchronously and asks the server nothing before the app is restored', async () => {
    const h = activate({ answers: [json(200, projectionFor(genericPlatform))] });
    expect(h.returned).toBeUndefined();
    await settle();
    expect(h.server.requests).toHaveLength(0);
    await h.restore();
    expect(h.server.requests).toHaveLength(1);
    expect(h.server.requests[0].url).toMatch(/^http:\/\/localhost:8888\/user\/alice\/project\/startup\?interface=notebook/);
  });

  it('loads its translations and registers commands, palette, launcher and restorer', () => {
    const h = activate({ answers: [] });
    expect(h.translator.load).toHaveBeenCalledWith('jupyterlab_project_startup');
    expect(h.commands.label(CommandIDs.open)).toBe('Open Project Startup');
    expect(h.commands.label(CommandIDs.refresh)).toBe('Refresh Project Startup');
    expect(h.commands.label(CommandIDs.initialize)).toBe('Initialize project');
    expect(h.palette.addItem.mock.calls.map(c => c[0])).toEqual([
      { command: 'project-startup:open', category: 'Project' },
      { command: 'project-startup:refresh', category: 'Project' },
      { command: 'project-startup:initialize', category: 'Project' }
    ]);
    expect(h.launcher.add).toHaveBeenCalledWith(expect.objectContaining({ command: 'project-startup:open' }));
    expect(h.restorer.restore).toHaveBeenCalledWith(
      expect.objectContaining({ namespace: 'project-startup' }),
      expect.objectContaining({ command: 'project-startup:open' })
    );
    expect(h.settings.load).toHaveBeenCalledWith('jupyterlab-project-startup:plugin');
    expect(h.commands.isEnabled(CommandIDs.initialize)).toBe(false);
  });
});

describe('openWhileIncomplete', () => {
  it('opens the panel after restore when setup is incomplete, with one GET in all', async () => {
    const h = activate({ answers: [json(200, projectionFor(genericPlatform))] });
    await h.restore();
    expect(h.shell.add).toHaveBeenCalledTimes(1);
    const panel = h.shell.add.mock.calls[0][0] as StartupPanel;
    expect(panel).toBeInstanceOf(StartupPanel);
    expect(h.shell.add.mock.calls[0][1]).toBe('main');
    expect(h.shell.activateById).toHaveBeenCalledWith('jp-project-startup-panel');
    expect(h.server.requests).toHaveLength(1);
    expect(panel.statusNode.textContent).toBe('Setup phase: Awaiting confirmation.');
    expect(h.commands.isEnabled(CommandIDs.initialize)).toBe(true);
    expect(h.warn).not.toHaveBeenCalled();
  });

  it('respects the setting: false keeps the panel closed', async () => {
    const h = activate({ openWhileIncomplete: false, answers: [json(200, projectionFor(genericPlatform))] });
    await h.restore();
    expect(h.server.requests).toHaveLength(1);
    expect(h.shell.add).not.toHaveBeenCalled();
  });

  it('does not open when the project is ready', async () => {
    const h = activate({ answers: [json(200, projectionFor(genericPlatform, { state: 'initialized' }))] });
    await h.restore();
    expect(h.shell.add).not.toHaveBeenCalled();
  });

  it('opens on an unsupported interface: the panel says where to go instead', async () => {
    const h = activate({ answers: [json(200, projectionFor(clusterPlatform))] });
    await h.restore();
    expect(h.shell.add).toHaveBeenCalledTimes(1);
  });

  it('not enabled: the preflight says how to fix it, and the panel opens with the steps', async () => {
    const h = activate({ answers: [JUPYTER_404, JUPYTER_404] });
    await h.restore();
    expect(h.warn).toHaveBeenCalledTimes(1);
    const message = String(h.warn.mock.calls[0][0]);
    expect(message).toContain('not enabled');
    expect(message).toContain('project-startup jupyter install --sys-prefix');
    expect(message).toContain('jupyter-server-proxy');
    const panel = h.shell.add.mock.calls[0][0] as StartupPanel;
    expect(panel.node.textContent).toContain('The Project Startup service is not enabled');
  });

  it('the proxy could not start the sidecar: the preflight and the panel give the real cause from the diagnostics route', async () => {
    const report = diagnosticsReport([SIDECAR_FAILED], { state: 'failed', lastError: PLATFORM_MESSAGE, logTail: [`project-startup: ${PLATFORM_MESSAGE}`] });
    const h = activate({ answers: [{ status: 500, statusText: 'Internal Server Error', contentType: 'text/html', body: '<html>500</html>' }, json(200, report)] });
    await h.restore();
    expect(h.server.requests.map(r => r.url.split('?')[0])).toEqual([
      'http://localhost:8888/user/alice/project/startup',
      'http://localhost:8888/user/alice/api/project-startup/diagnostics'
    ]);
    const message = String(h.warn.mock.calls[0][0]);
    expect(message).toContain(`The Project Startup service could not start: ${PLATFORM_MESSAGE}`);
    expect(message).toContain('PROJECT_STARTUP_* variable');
    const panel = h.shell.add.mock.calls[0][0] as StartupPanel;
    expect(panel.node.textContent).toContain(PLATFORM_MESSAGE);
    expect(panel.node.querySelector('pre')?.textContent).toBe(`project-startup: ${PLATFORM_MESSAGE}`);
  });

  it('settings that fail to load: the defaults apply and the warning says what to check', async () => {
    const h = activate({ settingsFail: true, answers: [json(200, projectionFor(genericPlatform))] });
    await h.restore();
    expect(String(h.warn.mock.calls[0][0])).toContain('schema/plugin.json');
    expect(h.shell.add).toHaveBeenCalledTimes(1);
  });
});

describe('commands', () => {
  it('open reuses the one panel', async () => {
    const h = activate({ openWhileIncomplete: false, answers: [json(200, projectionFor(genericPlatform))] });
    await h.restore();
    const first = await h.commands.execute(CommandIDs.open);
    const second = await h.commands.execute(CommandIDs.open);
    expect(first).toBe(second);
    expect(h.shell.add).toHaveBeenCalledTimes(1);
    expect(h.server.requests).toHaveLength(1);
  });

  it('refresh asks again', async () => {
    const h = activate({ answers: [json(200, projectionFor(genericPlatform)), json(200, projectionFor(genericPlatform))] });
    await h.restore();
    await h.commands.execute(CommandIDs.refresh);
    expect(h.server.requests.map(r => r.method)).toEqual(['GET', 'GET']);
  });

  it('initialize, cancelled: the dialog names the paths; no request is sent', async () => {
    const h = activate({ answers: [json(200, projectionFor(genericPlatform))] });
    await h.restore();
    mockedShowDialog.mockResolvedValue({ button: { accept: false, label: 'Cancel' }, value: null, isChecked: null });
    expect(await h.commands.execute(CommandIDs.initialize)).toBe('cancelled');
    expect(mockedShowDialog).toHaveBeenCalledTimes(1);
    const options = mockedShowDialog.mock.calls[0][0];
    expect(options.title).toBe('Initialize project');
    expect(options.buttons.map((b: { label: string; accept: boolean }) => [b.label, b.accept])).toEqual([
      ['Cancel', false],
      ['Initialize project', true]
    ]);
    expect(options.defaultButton).toBe(0);
    const body = (options.body as Widget).node.textContent ?? '';
    expect(body).toContain(PROJECT);
    expect(body).toContain(`${PROJECT}/.project-startup`);
    expect(body).toContain(`${PROJECT}/.project-startup/initialization.json`);
    expect(h.server.requests.map(r => r.method)).toEqual(['GET']);
  });

  it('initialize, accepted: POSTs exactly the body, then shows the new phase', async () => {
    const before = projectionFor(genericPlatform);
    const h = activate({
      answers: [json(200, before), json(201, initializeAnswer(before)), json(200, projectionFor(genericPlatform, { state: 'initialized' }))]
    });
    await h.restore();
    mockedShowDialog.mockResolvedValue({ button: { accept: true, label: 'Initialize project' }, value: null, isChecked: null });
    const panel = h.shell.add.mock.calls[0][0] as StartupPanel;
    // The panel's button runs the same command.
    (Array.from(panel.node.querySelectorAll('button')).find(b => b.textContent === 'Initialize project') as HTMLButtonElement).click();
    await settle();
    expect(h.server.requests.map(r => r.method)).toEqual(['GET', 'POST', 'GET']);
    const post = h.server.requests[1];
    expect(post.url).toMatch(/\/user\/alice\/project\/initialize/);
    expect(post.headers.get('Content-Type')).toBe('application/json');
    expect(JSON.parse(post.body ?? '')).toEqual({
      interface: 'notebook',
      method: 'jupyterlab-dialog',
      confirm: { projectPath: PROJECT, statePath: `${PROJECT}/.project-startup` }
    });
    expect(panel.statusNode.textContent).toBe('Project initialized. Setup phase: Ready.');
    expect(h.commands.isEnabled(CommandIDs.initialize)).toBe(false);
  });
});
