// The JupyterLab application the plugin's jsdom tests activate it in (plugin, live-plugin and
// lazy-chunks tests), and JupyterLab's shell as the panel's placement reads it (plugin and shell
// tests). Lumino's widgets need the jsdom shims before they load.
import './jsdom-shims';
import { ServerConnection } from '@jupyterlab/services';
import { CommandRegistry } from '@lumino/commands';
import { Signal } from '@lumino/signaling';
import { Widget } from '@lumino/widgets';

/**
 * The parts of JupyterFrontEnd the plugin uses: a real command registry, a shell that attaches
 * what it is given, the layout's `restored` and the server settings (a fake server's).
 */
export function fakeApp(
  serverSettings: ServerConnection.ISettings,
  restored: Promise<void> = Promise.resolve()
) {
  const commands = new CommandRegistry();
  const shell = {
    add: jest.fn((widget: Widget) => Widget.attach(widget, document.body)),
    activateById: jest.fn()
  };
  return {
    app: { commands, shell, restored, serviceManager: { serverSettings } },
    commands,
    shell
  };
}

/**
 * JupyterLab's shell (ILabShell) as the panel's placement reads it: the main area's widgets,
 * empty at first, and the two signals that say it changed.
 */
export class FakeLabShell {
  readonly main: Widget[] = [];
  readonly layoutModified = new Signal<this, void>(this);
  readonly currentChanged = new Signal<this, unknown>(this);
  isEmpty(area: string): boolean {
    return area === 'main' && this.main.length === 0;
  }
  /** A widget in the main area, with the focus (JupyterLab's Launcher takes it); the layout signal comes later. */
  add(widget: Widget): void {
    this.main.push(widget);
    this.currentChanged.emit({ newValue: widget });
  }
}

/** Lets the fake server's answers and the promise chains after them run (10 turns of the loop). */
export async function settle(): Promise<void> {
  for (let i = 0; i < 10; i++) {
    await new Promise(resolve => setTimeout(resolve, 0));
  }
}
