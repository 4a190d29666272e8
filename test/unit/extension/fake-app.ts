// The JupyterLab application the plugin's jsdom tests activate it in (plugin, live-plugin and
// lazy-chunks tests). Lumino's widgets need the jsdom shims before they load.
import './jsdom-shims';
import { ServerConnection } from '@jupyterlab/services';
import { CommandRegistry } from '@lumino/commands';
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
