/** @jest-environment jsdom */
// The panel and the confirmation dialog are chunks of their own that the plugin loads with
// import() when first needed (src/index.ts). A page opened before the extension was updated
// asks the server for chunk names that no longer exist: here both modules fail to load, as
// webpack's "Loading chunk … failed" does. The open command then rejects and the console says to
// reload the page; the confirmation initializes nothing (as Cancel) and says why; the rest of the
// plugin (the start-up check, the refresh command) goes on.
import './jsdom-shims';
import { nullTranslator } from '@jupyterlab/translation';
import { genericPlatform } from '../../../sidecar/src/core/platforms/generic';
import { fakeApp, settle } from './fake-app';
import { fakeServer } from './fake-server';
import { json, projectionFor } from './fixtures';

jest.mock('../../../src/panel', () => {
  throw new Error('Loading chunk 387 failed.');
});
jest.mock('../../../src/dialog', () => {
  throw new Error('Loading chunk 729 failed.');
});

// After the mocks (jest hoists jest.mock above the imports).
import plugin, { CommandIDs } from '../../../src/index';

/** The plugin, activated without settings (so the panel opens by itself awaiting confirmation). */
function activate(state?: 'initialized') {
  const answer = json(
    200,
    projectionFor(genericPlatform, state ? { state } : {})
  );
  const server = fakeServer(answer, answer);
  const { app, commands, shell } = fakeApp(server.settings);
  const error = jest
    .spyOn(console, 'error')
    .mockImplementation(() => undefined);
  const activateFn = plugin.activate as unknown as (...args: unknown[]) => void;
  activateFn(app, nullTranslator, ...(plugin.optional ?? []).map(() => null));
  return { server, commands, shell, error };
}

afterEach(() => {
  jest.restoreAllMocks();
  document.body.replaceChildren();
});

describe("chunks that cannot load (a page older than the extension's update)", () => {
  it('the open command rejects and the console says to reload; nothing is shown; the plugin goes on', async () => {
    const h = activate('initialized');
    await settle();
    expect(h.server.requests).toHaveLength(1);
    await expect(h.commands.execute(CommandIDs.open)).rejects.toThrow(
      'Loading chunk 387 failed.'
    );
    expect(h.shell.add).not.toHaveBeenCalled();
    expect(String(h.error.mock.calls[0][0])).toBe(
      'Project Startup: the panel could not be loaded. Reload the page (the extension may have been updated since it was opened).'
    );
    // Asked again, it tries again (nothing stays stuck in flight).
    await expect(h.commands.execute(CommandIDs.open)).rejects.toThrow();
    expect(h.error).toHaveBeenCalledTimes(2);
    await h.commands.execute(CommandIDs.refresh);
    expect(h.server.requests).toHaveLength(2);
  });

  it('the confirmation initializes nothing (as Cancel) and the console says why', async () => {
    const h = activate();
    await settle();
    expect(h.commands.isEnabled(CommandIDs.initialize)).toBe(true);
    await expect(h.commands.execute(CommandIDs.initialize)).resolves.toBe(
      'cancelled'
    );
    expect(h.server.requests.map(r => r.method)).toEqual(['GET']);
    // The panel's opening by itself failed first (said once, no unhandled rejection), then this.
    expect(h.error.mock.calls.map(call => String(call[0]))).toEqual([
      'Project Startup: the panel could not be loaded. Reload the page (the extension may have been updated since it was opened).',
      'Project Startup: the confirmation dialog could not be loaded, so nothing was initialized. Reload the page (the extension may have been updated since it was opened).'
    ]);
  });
});
