/** @jest-environment jsdom */
// Where the panel is shown (src/shell.ts), against real Lumino widgets: a shell that takes a
// second main-area widget (JupyterLab's), one that drops it as Notebook 7's does with its tree
// tabs (INotebookTree, a real TabPanel) resolvable, and the same without them (a Notebook 7
// document page). The token module is replaced by a stand-in (the real one is a browser bundle).
import './jsdom-shims';
import { Token } from '@lumino/coreutils';
import { BoxPanel, TabPanel, Widget } from '@lumino/widgets';

const TREE = new Token<TabPanel>('@jupyter-notebook/tree:INotebookTree');
jest.mock('@jupyter-notebook/tree', () => ({ INotebookTree: TREE }));

import { PageConfig } from '@jupyterlab/coreutils';
import { CommandRegistry } from '@lumino/commands';
import {
  LAUNCHER_CREATE,
  mainAreaReady,
  openLauncherNow,
  showInMainArea
} from '../../../src/shell';
import { FakeLabShell, settle } from './fake-app';

interface FakeApp {
  shell: { add: jest.Mock; activateById: jest.Mock };
  resolveOptionalService: jest.Mock;
}

/** A shell whose main area holds one widget and drops any other (as Notebook 7's), or any number. */
function fakeApp(options: { oneMainWidget: boolean; tree: TabPanel | null }): {
  app: FakeApp;
  main: BoxPanel;
  right: BoxPanel;
} {
  const main = new BoxPanel();
  const right = new BoxPanel();
  Widget.attach(main, document.body);
  Widget.attach(right, document.body);
  if (options.tree) {
    main.addWidget(options.tree);
  }
  const shell = {
    add: jest.fn((widget: Widget, area: string) => {
      if (area === 'right') {
        right.addWidget(widget);
      } else if (
        area === 'main' &&
        !(options.oneMainWidget && main.widgets.length > 0)
      ) {
        main.addWidget(widget);
      }
    }),
    activateById: jest.fn()
  };
  const resolveOptionalService = jest.fn((token: Token<unknown>) =>
    Promise.resolve(token === TREE ? options.tree : null)
  );
  return { app: { shell, resolveOptionalService }, main, right };
}

function panel(): Widget {
  const widget = new Widget();
  widget.id = 'jp-project-startup-panel';
  widget.title.label = 'Project Startup';
  widget.title.closable = true;
  return widget;
}

const show = (app: FakeApp, widget: Widget) =>
  showInMainArea(
    app as unknown as Parameters<typeof showInMainArea>[0],
    widget
  );

describe('showInMainArea', () => {
  afterEach(() => {
    document.body.innerHTML = '';
  });

  test("JupyterLab's shell takes the panel in its main area at once; nothing of Notebook 7 is asked for", () => {
    const { app, main } = fakeApp({ oneMainWidget: false, tree: null });
    main.addWidget(new Widget()); // a launcher or notebook already open
    const widget = panel();
    show(app, widget);
    expect(app.shell.add).toHaveBeenCalledWith(widget, 'main');
    expect(widget.parent).toBe(main);
    expect(app.shell.activateById).toHaveBeenCalledWith(widget.id);
    expect(app.resolveOptionalService).not.toHaveBeenCalled();
    show(app, widget); // opened again: brought to the front, not added twice
    expect(app.shell.add).toHaveBeenCalledTimes(1);
    expect(app.shell.activateById).toHaveBeenCalledTimes(2);
  });

  test("Notebook 7's tree page: the shell drops it, so it becomes a tab of the tree, made current", async () => {
    const tree = new TabPanel();
    const files = new Widget();
    files.title.label = 'Files';
    tree.addWidget(files);
    const { app } = fakeApp({ oneMainWidget: true, tree });
    const widget = panel();
    show(app, widget);
    await settle();
    expect(app.resolveOptionalService).toHaveBeenCalledWith(TREE);
    expect(tree.widgets).toEqual([files, widget]);
    expect(tree.currentWidget).toBe(widget);
    expect(tree.tabBar.titles.map(t => t.label)).toEqual([
      'Files',
      'Project Startup'
    ]);

    // The person goes back to Files; the command brings the tab back without adding it again.
    tree.currentWidget = files;
    show(app, widget);
    expect(tree.currentWidget).toBe(widget);
    expect(tree.widgets).toHaveLength(2);
    expect(app.shell.add).toHaveBeenCalledTimes(1);

    // Closing the tab disposes the panel; a new panel gets a new tab.
    widget.dispose();
    expect(tree.widgets).toEqual([files]);
    const again = panel();
    show(app, again);
    await settle();
    expect(tree.widgets).toEqual([files, again]);
    expect(tree.currentWidget).toBe(again);
  });

  test('a Notebook 7 document page (no tree): the right side panel', async () => {
    const { app, main, right } = fakeApp({ oneMainWidget: true, tree: null });
    main.addWidget(new Widget()); // the document
    const widget = panel();
    show(app, widget);
    await settle();
    expect(app.shell.add).toHaveBeenLastCalledWith(widget, 'right', {
      rank: 1000
    });
    expect(widget.parent).toBe(right);
    expect(app.shell.activateById).toHaveBeenCalledWith(widget.id);
  });

  test('a panel disposed before the tree answers is not added', async () => {
    const tree = new TabPanel();
    const { app } = fakeApp({ oneMainWidget: true, tree });
    tree.addWidget(new Widget());
    const widget = panel();
    show(app, widget);
    widget.dispose();
    await settle();
    expect(tree.widgets).toHaveLength(1);
  });
});

describe('mainAreaReady: the panel that opens itself waits for JupyterLab to fill its main area', () => {
  afterEach(() => {
    jest.useRealTimers();
  });

  async function isSettled(promise: Promise<void>): Promise<boolean> {
    let settled = false;
    void promise.then(() => (settled = true));
    await settle();
    return settled;
  }

  test('an empty main area: it waits past a layout change that leaves it empty, until the Launcher is added', async () => {
    const shell = new FakeLabShell();
    const ready = mainAreaReady(shell, 60000);
    expect(await isSettled(ready)).toBe(false);
    shell.layoutModified.emit(undefined); // a side panel opened: still nothing to open beside
    expect(await isSettled(ready)).toBe(false);
    shell.add(new Widget()); // JupyterLab's Launcher
    expect(await isSettled(ready)).toBe(true);
  });

  test('a widget that comes without the focus is seen at the next layout change', async () => {
    const shell = new FakeLabShell();
    const ready = mainAreaReady(shell, 60000);
    shell.main.push(new Widget());
    expect(await isSettled(ready)).toBe(false);
    shell.layoutModified.emit(undefined);
    expect(await isSettled(ready)).toBe(true);
  });

  test('a main area with something in it (a restored workspace), or no JupyterLab shell (Notebook 7): at once', async () => {
    const shell = new FakeLabShell();
    shell.main.push(new Widget());
    expect(await isSettled(mainAreaReady(shell, 60000))).toBe(true);
    expect(await isSettled(mainAreaReady(null, 60000))).toBe(true);
  });

  test('no Launcher comes (a site without it): the panel opens alone after the wait', async () => {
    jest.useFakeTimers();
    const shell = new FakeLabShell();
    let settled = false;
    void mainAreaReady(shell, 5000).then(() => (settled = true));
    await jest.advanceTimersByTimeAsync(4999);
    expect(settled).toBe(false);
    await jest.advanceTimersByTimeAsync(1);
    expect(settled).toBe(true);
  });
});

describe("openLauncherNow: JupyterLab's Launcher, opened where JupyterLab is about to open it", () => {
  /** The launcher extension's command, adding a Launcher to the shell's main area. */
  function withLauncherCommand(shell: FakeLabShell): {
    commands: CommandRegistry;
    launchers: Widget[];
  } {
    const commands = new CommandRegistry();
    const launchers: Widget[] = [];
    commands.addCommand(LAUNCHER_CREATE, {
      execute: () => {
        const launcher = new Widget();
        launchers.push(launcher);
        shell.add(launcher);
        return launcher;
      }
    });
    return { commands, launchers };
  }

  afterEach(() => {
    PageConfig.setOption('treePath', '');
  });

  test('an empty main area after the restore: one Launcher, at once, so the panel need not wait', async () => {
    const shell = new FakeLabShell();
    const { commands, launchers } = withLauncherCommand(shell);
    expect(openLauncherNow({ commands }, shell)).toBe(true);
    expect(launchers).toHaveLength(1);
    expect(shell.isEmpty('main')).toBe(false);
    // Asked again (another opening): the main area holds the Launcher, so no second one.
    expect(openLauncherNow({ commands }, shell)).toBe(false);
    expect(launchers).toHaveLength(1);
  });

  test('not where JupyterLab would not: a restored workspace, a URL that opens a file, no launcher extension, Notebook 7', () => {
    const restored = new FakeLabShell();
    restored.main.push(new Widget());
    const fromRestored = withLauncherCommand(restored);
    expect(openLauncherNow({ commands: fromRestored.commands }, restored)).toBe(
      false
    );
    expect(fromRestored.launchers).toHaveLength(0);

    const opensFile = new FakeLabShell();
    const fromFile = withLauncherCommand(opensFile);
    PageConfig.setOption('treePath', 'analysis.ipynb');
    expect(openLauncherNow({ commands: fromFile.commands }, opensFile)).toBe(
      false
    );
    expect(fromFile.launchers).toHaveLength(0);
    PageConfig.setOption('treePath', '');

    const noLauncher = new FakeLabShell();
    expect(
      openLauncherNow({ commands: new CommandRegistry() }, noLauncher)
    ).toBe(false);
    expect(noLauncher.isEmpty('main')).toBe(true);

    expect(openLauncherNow({ commands: new CommandRegistry() }, null)).toBe(
      false
    );
  });
});
