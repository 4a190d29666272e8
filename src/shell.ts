// Where the Project Startup panel is shown, in JupyterLab and in Jupyter Notebook 7.
//
// JupyterLab's shell takes any number of widgets in its main area. Notebook 7's shell
// (INotebookShell) holds one main widget per page and drops any other without a word: on the
// tree page that widget is the tab panel of "Files" and "Running" (INotebookTree), where
// Notebook opens further views such as the settings editor as tabs of their own; on a document
// page it is the document, and the side panels take the rest. So the panel goes where the shell
// takes it: JupyterLab's main area; else a tab of Notebook 7's tree; else a side panel.
//
// INotebookTree comes from @jupyter-notebook/tree, which Notebook 7 shares as a singleton. The
// labextension only consumes it (package.json jupyterlab.sharedPackages: not bundled, so it
// costs no bundle size) and imports it only once the shell has refused the panel, which
// JupyterLab's never does: there the import is never made.
import type { JupyterFrontEnd } from '@jupyterlab/application';
import { PageConfig } from '@jupyterlab/coreutils';
import type { INotebookTree } from '@jupyter-notebook/tree';
import type { ISignal } from '@lumino/signaling';
import type { Widget } from '@lumino/widgets';

/** Notebook 7's tree tabs, once asked for: null where the page has none (or the app is not Notebook 7). */
const trees = new WeakMap<JupyterFrontEnd, Promise<INotebookTree | null>>();

/** The widgets this module put in Notebook 7's tree tabs, with those tabs. */
const treeTabs = new WeakMap<Widget, INotebookTree>();

function notebookTree(app: JupyterFrontEnd): Promise<INotebookTree | null> {
  let tree = trees.get(app);
  if (!tree) {
    tree = import('@jupyter-notebook/tree')
      .then(({ INotebookTree }) => app.resolveOptionalService(INotebookTree))
      .catch(() => null);
    trees.set(app, tree);
  }
  return tree;
}

function showTab(tree: INotebookTree, widget: Widget, beside: boolean): void {
  tree.currentWidget = widget;
  if (!beside) {
    widget.activate();
  }
}

export interface IShowOptions {
  /**
   * Opened by itself rather than by the person: beside the current tab (JupyterLab's Launcher
   * keeps its place, the panel splits to its right) and without taking the keyboard focus.
   */
  beside?: boolean;
}

/**
 * Adds `widget` to the main area where the shell has one that takes it (JupyterLab), else as a
 * tab of Notebook 7's tree page, else to the right side panel (a Notebook 7 document page); then
 * shows it. Called again for a widget already shown, it only brings it to the front.
 */
export function showInMainArea(
  app: JupyterFrontEnd,
  widget: Widget,
  options: IShowOptions = {}
): void {
  const { shell } = app;
  const beside = options.beside === true;
  const tree = treeTabs.get(widget);
  if (tree) {
    showTab(tree, widget, beside);
    return;
  }
  if (!widget.isAttached && widget.parent === null) {
    if (beside) {
      shell.add(widget, 'main', { mode: 'split-right', activate: false });
    } else {
      shell.add(widget, 'main');
    }
  }
  if (widget.isAttached || widget.parent !== null) {
    if (!beside) {
      shell.activateById(widget.id);
    }
    return;
  }
  // The shell refused it: Notebook 7 (or another shell with one main widget).
  void notebookTree(app).then(found => {
    if (widget.isDisposed || widget.isAttached || widget.parent !== null) {
      return;
    }
    if (found) {
      treeTabs.set(widget, found);
      found.addWidget(widget);
      showTab(found, widget, beside);
    } else {
      shell.add(widget, 'right', { rank: 1000 });
      if (!beside) {
        shell.activateById(widget.id);
      }
    }
  });
}

/** JupyterLab's command that opens a Launcher (@jupyterlab/launcher-extension). */
export const LAUNCHER_CREATE = 'launcher:create';

/**
 * Opens JupyterLab's Launcher now, where JupyterLab is about to open it anyway: the layout is
 * restored with an empty main area, the launcher extension is there, and the page's URL opens no
 * file or folder (`treePath`: JupyterLab opens that first and decides again). JupyterLab's own
 * Launcher comes with its file browser's restore, about a second later, and neither the file
 * browser nor the launcher extension opens another once the main area holds one. The Launcher
 * follows the file browser's folder as JupyterLab's does. Returns whether it opened one.
 */
export function openLauncherNow(
  app: Pick<JupyterFrontEnd, 'commands'>,
  labShell: IMainAreaShell | null
): boolean {
  if (
    !labShell ||
    !labShell.isEmpty('main') ||
    PageConfig.getOption('treePath') !== '' ||
    !app.commands.hasCommand(LAUNCHER_CREATE)
  ) {
    return false;
  }
  void app.commands.execute(LAUNCHER_CREATE).catch(() => undefined);
  return true;
}

/** How long a panel that opens by itself waits for JupyterLab's Launcher before opening alone. */
export const LAUNCHER_WAIT_MS = 10000;

/** JupyterLab's shell, as far as the wait for its Launcher reads it. */
export interface IMainAreaShell {
  isEmpty(area: 'main'): boolean;
  /** Debounced: after the paint that shows a new widget, often. */
  readonly layoutModified: ISignal<unknown, void>;
  /** Emitted as an added widget takes the focus, before that paint. */
  readonly currentChanged: ISignal<unknown, unknown>;
}

/**
 * Resolves once JupyterLab's main area holds something for the panel to open beside. JupyterLab
 * opens its Launcher only into an empty main area, on a layout change after both the layout and
 * the file browser are restored (about a second after the layout on the test machine): a panel
 * added before then takes the Launcher's place for good. So with an empty main area this waits
 * for the first widget there, or for `waitMs` when none comes (a site without the Launcher). At
 * once when the main area holds something (a restored workspace) or the shell is not
 * JupyterLab's (Notebook 7 shows the panel as a tab of its own).
 */
export function mainAreaReady(
  labShell: IMainAreaShell | null,
  waitMs: number = LAUNCHER_WAIT_MS
): Promise<void> {
  if (!labShell || !labShell.isEmpty('main')) {
    return Promise.resolve();
  }
  return new Promise(resolve => {
    const done = (): void => {
      clearTimeout(timer);
      labShell.layoutModified.disconnect(check);
      labShell.currentChanged.disconnect(check);
      resolve();
    };
    const check = (): void => {
      if (!labShell.isEmpty('main')) {
        done();
      }
    };
    const timer = setTimeout(done, waitMs);
    labShell.layoutModified.connect(check);
    labShell.currentChanged.connect(check);
  });
}
