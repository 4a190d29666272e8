/** @jest-environment jsdom */
// The live state through the plugin (src/index.ts) with JupyterLab's real parts in jsdom: the
// real SettingRegistry (fed schema/plugin.json and the person's settings by a fake connector,
// as the Jupyter server's settings API would), the real StatusBar with the extension's item,
// real Lumino commands and Poll; only the Jupyter server is a fake fetch answering by URL.
// Fake timers drive the poll and React's renders.
//
// Checks: refreshInterval is followed (at start and live), 0 polls nothing, out-of-range or
// mistyped values are refused by the schema and the defaults apply (with a warning naming the
// setting and the fix); the status bar item shows the phase or the failure in words, changes
// without a click, has a name, a role and a tooltip, and opens the panel on click, Enter and
// Space.
import './jsdom-shims';
import { ILayoutRestorer } from '@jupyterlab/application';
import { ServerConnection } from '@jupyterlab/services';
import {
  ISchemaValidator,
  ISettingRegistry,
  SettingRegistry
} from '@jupyterlab/settingregistry';
import { IStatusBar, StatusBar } from '@jupyterlab/statusbar';
import { nullTranslator } from '@jupyterlab/translation';
import { CommandRegistry } from '@lumino/commands';
import { Widget } from '@lumino/widgets';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { genericPlatform } from '../../../sidecar/src/core/platforms/generic';
import plugin, { CommandIDs, PLUGIN_ID } from '../../../src/index';
import { statusBarText } from '../../../src/labels';
import { IPanelState } from '../../../src/model';
import { settingsProblem } from '../../../src/settings';
import { STATUS_ITEM_CLASS } from '../../../src/statusbar';
import {
  FakeAnswer,
  FakeHeaders,
  FakeRequest,
  fakeResponse,
  json,
  PHASE_CASES,
  projectionFor,
  trans
} from './fixtures';
import { fakeApp } from './fake-app';

const SCHEMA = JSON.parse(
  fs.readFileSync(
    path.join(__dirname, '..', '..', '..', 'schema', 'plugin.json'),
    'utf8'
  )
) as ISettingRegistry.ISchema;
const ORIGIN = 'http://localhost:8888';
const BASE = '/user/alice/';
const SECOND = 1000;

/** The Jupyter server's settings API, as SettingRegistry's connector sees it. */
class FakeConnector {
  raw: string;
  saved: string[] = [];
  constructor(raw: string) {
    this.raw = raw;
  }
  fetch(id: string): Promise<ISettingRegistry.IPlugin | undefined> {
    if (id !== PLUGIN_ID) {
      return Promise.resolve(undefined);
    }
    return Promise.resolve({
      id,
      raw: this.raw,
      schema: SCHEMA,
      version: '0.1.0',
      data: { composite: {}, user: {} }
    });
  }
  list(): Promise<{ ids: string[]; values: ISettingRegistry.IPlugin[] }> {
    return Promise.resolve({ ids: [], values: [] });
  }
  save(_id: string, raw: string): Promise<void> {
    this.saved.push(raw);
    this.raw = raw;
    return Promise.resolve();
  }
  remove(): Promise<void> {
    return Promise.reject(new Error('not supported'));
  }
}

/** The Jupyter server: GET startup answers `startup`; the diagnostics route is absent (404). */
interface FakeJupyter {
  settings: ServerConnection.ISettings;
  startup: FakeAnswer;
  /** GET startup requests so far. */
  gets: number;
}

function fakeJupyter(startup: FakeAnswer): FakeJupyter {
  const server = { startup, gets: 0 } as FakeJupyter;
  const fetch = (request: FakeRequest): Promise<Response> => {
    if (request.url.includes('/project/startup')) {
      server.gets += 1;
      return Promise.resolve(fakeResponse(server.startup));
    }
    return Promise.resolve(
      fakeResponse({
        status: 404,
        contentType: 'text/html',
        body: '<html>404</html>'
      })
    );
  };
  Object.assign(globalThis, {
    fetch,
    Headers: FakeHeaders,
    Request: FakeRequest
  });
  server.settings = ServerConnection.makeSettings({
    baseUrl: `${ORIGIN}${BASE}`,
    token: 'jupyter-token-123',
    fetch: fetch as unknown as typeof globalThis.fetch,
    Request: FakeRequest as unknown as typeof Request,
    Headers: FakeHeaders as unknown as typeof Headers
  });
  return server;
}

interface Harness {
  jupyter: FakeJupyter;
  registry: SettingRegistry;
  connector: FakeConnector;
  statusBar: StatusBar;
  shell: { add: jest.Mock; activateById: jest.Mock };
  commands: CommandRegistry;
  warn: jest.SpyInstance;
}

/** Node's own timers: React's scheduler took the real setTimeout when it loaded (before the fakes). */
const realTimers =
  jest.requireActual<typeof import('node:timers')>('node:timers');

/**
 * Lets the app's promises, Lumino's messages (fake time moves 20 ms a round) and React's
 * renders (real time) run.
 */
async function flush(rounds = 6): Promise<void> {
  for (let i = 0; i < rounds; i++) {
    await jest.advanceTimersByTimeAsync(20);
    await new Promise(resolve => realTimers.setTimeout(resolve, 1));
  }
}

async function start(
  userSettings: string,
  startup: FakeAnswer = json(200, projectionFor(genericPlatform))
): Promise<Harness> {
  const jupyter = fakeJupyter(startup);
  const connector = new FakeConnector(userSettings);
  const registry = new SettingRegistry({ connector });
  const statusBar = new StatusBar();
  Widget.attach(statusBar, document.body);
  const { app, commands, shell } = fakeApp(jupyter.settings);
  const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
  const activate = plugin.activate as unknown as (...args: unknown[]) => void;
  // The optional tokens in the plugin's order: the registry and the status bar, nothing else.
  const provided = new Map<unknown, unknown>([
    [ISettingRegistry, registry],
    [IStatusBar, statusBar]
  ]);
  activate(
    app,
    nullTranslator,
    ...(plugin.optional ?? []).map(token => provided.get(token) ?? null)
  );
  await flush();
  return { jupyter, registry, connector, statusBar, shell, commands, warn };
}

function statusItem(): HTMLElement {
  const item = document.querySelector<HTMLElement>(
    `.${STATUS_ITEM_CLASS} [role="button"]`
  );
  if (!item) {
    throw new Error('no status bar item');
  }
  return item;
}

beforeEach(() => {
  jest.useFakeTimers();
});

afterEach(() => {
  // The last test's poll ends here, with its timers.
  jest.clearAllTimers();
  jest.useRealTimers();
  jest.restoreAllMocks();
  for (const node of [...document.body.children]) {
    const widget = node as HTMLElement;
    widget.remove();
  }
});

describe('the refreshInterval setting through the real SettingRegistry', () => {
  it('is followed at start and live: 2 s, then 5 s, then 0 (only Refresh asks)', async () => {
    const h = await start('{"refreshInterval": 2}');
    expect(h.jupyter.gets).toBe(1);
    await jest.advanceTimersByTimeAsync(2 * SECOND);
    expect(h.jupyter.gets).toBe(2);
    await jest.advanceTimersByTimeAsync(2 * SECOND);
    expect(h.jupyter.gets).toBe(3);

    await h.registry.set(PLUGIN_ID, 'refreshInterval', 5);
    await flush(1);
    const after = h.jupyter.gets;
    await jest.advanceTimersByTimeAsync(4 * SECOND);
    expect(h.jupyter.gets).toBe(after);
    await jest.advanceTimersByTimeAsync(1 * SECOND);
    expect(h.jupyter.gets).toBe(after + 1);

    await h.registry.set(PLUGIN_ID, 'refreshInterval', 0);
    await flush(1);
    const stopped = h.jupyter.gets;
    await jest.advanceTimersByTimeAsync(3600 * SECOND);
    expect(h.jupyter.gets).toBe(stopped);
    await h.commands.execute(CommandIDs.refresh);
    expect(h.jupyter.gets).toBe(stopped + 1);
  });

  it('no user setting: the default, every 10 s', async () => {
    const h = await start('{}');
    // start() let 120 ms pass.
    await jest.advanceTimersByTimeAsync(10 * SECOND - 500);
    expect(h.jupyter.gets).toBe(1);
    await jest.advanceTimersByTimeAsync(500);
    expect(h.jupyter.gets).toBe(2);
    expect(h.warn).not.toHaveBeenCalled();
  });

  test.each([
    ['above the maximum', '{"refreshInterval": 99999}', 'maximum'],
    ['negative', '{"refreshInterval": -1}', 'minimum'],
    ['not a whole number', '{"refreshInterval": 2.5}', 'type'],
    ['a string', '{"refreshInterval": "fast"}', 'type']
  ])(
    '%s: the schema refuses it, the defaults apply, and the warning names the setting and the fix',
    async (_name, raw, keyword) => {
      // What the registry itself does with it: load() rejects with the validator's errors.
      const registry = new SettingRegistry({
        connector: new FakeConnector(raw)
      });
      const errors = (await registry.load(PLUGIN_ID).then(
        () => [],
        (reason: unknown) => reason
      )) as ISchemaValidator.IError[];
      expect(errors.map(e => e.keyword)).toContain(keyword);

      const h = await start(raw);
      const warnings = h.warn.mock.calls.map(call => String(call[0]));
      expect(warnings.join('\n')).toMatch(
        /Project Startup: your settings are not valid \(refreshInterval .+\), so the defaults apply\. Correct them in Settings → Settings Editor → Project Startup\./
      );
      // The default interval (10 s), not the refused value, and nothing stopped or flooded.
      // start() let 120 ms pass.
      await jest.advanceTimersByTimeAsync(10 * SECOND - 500);
      expect(h.jupyter.gets).toBe(1);
      await jest.advanceTimersByTimeAsync(500);
      expect(h.jupyter.gets).toBe(2);
    }
  );

  it('a value out of range set later (the Settings Editor) is refused; the interval in force stays', async () => {
    const h = await start('{"refreshInterval": 2}');
    await expect(
      h.registry.set(PLUGIN_ID, 'refreshInterval', 86400)
    ).rejects.toThrow(/failed to validate/);
    expect(h.connector.saved).toEqual([]);
    await jest.advanceTimersByTimeAsync(2 * SECOND);
    expect(h.jupyter.gets).toBe(2);
  });
});

describe('the mutedNotifications setting through the real SettingRegistry', () => {
  it('takes the known kinds; the schema names each with a title for the Settings Editor', async () => {
    const h = await start('{"mutedNotifications": ["not-enabled", "blocked"]}');
    const settings = await h.registry.load(PLUGIN_ID);
    expect(settings.composite.mutedNotifications).toEqual([
      'not-enabled',
      'blocked'
    ]);
    expect(h.warn).not.toHaveBeenCalled();
    // Every kind the notifier can emit is a choice, each with a label.
    const items = (
      SCHEMA.properties?.mutedNotifications as {
        items: { type: string; oneOf: { const: string; title: string }[] };
      }
    ).items;
    expect(items.type).toBe('string');
    expect(items.oneOf.map(choice => choice.const).sort()).toEqual(
      [
        'blocked',
        'confirm-elsewhere',
        'failing',
        'incompatible',
        'needs-compute',
        'not-enabled',
        'unsupported-interface'
      ].sort()
    );
    for (const choice of items.oneOf) {
      expect(choice.title).toMatch(/^[A-Z].{10,}[^.]$/);
    }
  });

  test.each([
    [
      'an unknown kind',
      '{"mutedNotifications": ["no-such-kind"]}',
      // One sentence for the choice (not one "must be equal to constant" per kind).
      'mutedNotifications/0 must be one of not-enabled, failing, incompatible, unsupported-interface, blocked, needs-compute, confirm-elsewhere'
    ],
    [
      'a kind of the wrong type',
      '{"mutedNotifications": [3]}',
      'mutedNotifications/0 must be string'
    ],
    [
      'a kind twice',
      '{"mutedNotifications": ["failing", "failing"]}',
      'mutedNotifications must NOT have duplicate items (items ## 1 and 0 are identical)'
    ]
  ])(
    '%s: the schema refuses it, the defaults apply, and the warning names the setting and the fix',
    async (_name, raw, what) => {
      const registry = new SettingRegistry({
        connector: new FakeConnector(raw)
      });
      const errors = (await registry.load(PLUGIN_ID).then(
        () => [],
        (reason: unknown) => reason
      )) as ISchemaValidator.IError[];
      expect(errors.length).toBeGreaterThan(0);

      const h = await start(raw);
      const warnings = h.warn.mock.calls.map(call => String(call[0]));
      expect(warnings).toContain(
        `Project Startup: your settings are not valid (${what}), so the defaults apply. Correct them in Settings → Settings Editor → Project Startup.`
      );
      // The defaults: the start-up check runs as without settings.
      await flush();
      expect(h.jupyter.gets).toBe(1);
    }
  );

  it('an unknown kind set later (the Settings Editor) is refused and nothing is saved', async () => {
    const h = await start('{}');
    await expect(
      h.registry.set(PLUGIN_ID, 'mutedNotifications', ['no-such-kind'])
    ).rejects.toThrow(/failed to validate/);
    expect(h.connector.saved).toEqual([]);
  });
});

describe('the status bar item', () => {
  it('shows the phase, follows the service without a click, and names failures in words', async () => {
    const h = await start(
      '{"refreshInterval": 1}',
      json(200, projectionFor(genericPlatform))
    );
    expect(h.statusBar.node.contains(statusItem())).toBe(true);
    expect(statusItem().textContent).toBe('Project: Awaiting confirmation');
    expect(statusItem().getAttribute('title')).toBe(
      'Setup phase: Awaiting confirmation.'
    );
    expect(statusItem().getAttribute('role')).toBe('button');
    expect(statusItem().tabIndex).toBe(0);
    // The icon is decoration: the name is the text.
    expect(
      statusItem().querySelector(
        'svg[data-icon="jupyterlab-project-startup:icon"]'
      )
    ).not.toBeNull();
    expect(
      statusItem().querySelector('svg[aria-hidden="true"]')
    ).not.toBeNull();

    h.jupyter.startup = json(200, PHASE_CASES.blocked());
    await jest.advanceTimersByTimeAsync(SECOND);
    await flush();
    expect(statusItem().textContent).toBe('Project: Blocked');

    h.jupyter.startup = {
      status: 502,
      statusText: 'Bad Gateway',
      contentType: 'text/html',
      body: '<html>502</html>'
    };
    await jest.advanceTimersByTimeAsync(SECOND);
    await flush();
    expect(statusItem().textContent).toBe('Project: Failing');
    expect(statusItem().getAttribute('title')).toBe(
      'The Project Startup service is failing.'
    );

    h.jupyter.startup = json(
      200,
      projectionFor(genericPlatform, { state: 'initialized' })
    );
    // Recovery within the backoff's first pauses (1 s, then at most 3 s).
    for (
      let i = 0;
      i < 4 && statusItem().textContent !== 'Project: Ready';
      i++
    ) {
      await jest.advanceTimersByTimeAsync(SECOND);
      await flush();
    }
    expect(statusItem().textContent).toBe('Project: Ready');
  });

  it('not enabled (Jupyter 404 at {base_url}project/) says so', async () => {
    await start('{}', {
      status: 404,
      statusText: 'Not Found',
      contentType: 'text/html',
      body: '<html>404: Not Found</html>'
    });
    expect(statusItem().textContent).toBe('Project: Not enabled');
  });

  it('opens the panel on click, Enter and Space', async () => {
    const h = await start('{}');
    const opened = jest.fn();
    h.commands.commandExecuted.connect((_sender, args) => {
      if (args.id === CommandIDs.open) {
        opened();
      }
    });
    statusItem().click();
    expect(opened).toHaveBeenCalledTimes(1);
    expect(h.shell.add).toHaveBeenCalledTimes(1);
    for (const key of ['Enter', ' ']) {
      const event = new KeyboardEvent('keydown', {
        key,
        bubbles: true,
        cancelable: true
      });
      statusItem().dispatchEvent(event);
      expect(event.defaultPrevented).toBe(true);
    }
    expect(opened).toHaveBeenCalledTimes(3);
    const other = new KeyboardEvent('keydown', {
      key: 'a',
      bubbles: true,
      cancelable: true
    });
    statusItem().dispatchEvent(other);
    expect(opened).toHaveBeenCalledTimes(3);
  });

  it('the plugin asks for the status bar as an optional token', () => {
    expect(plugin.optional).toEqual(
      expect.arrayContaining([IStatusBar, ISettingRegistry, ILayoutRestorer])
    );
  });
});

describe('the words', () => {
  const state = (
    view: IPanelState['view'],
    extra: Partial<IPanelState> = {}
  ): IPanelState => ({
    view,
    refreshing: false,
    initializing: false,
    ...extra
  });
  const url = `${ORIGIN}${BASE}project/startup?interface=notebook`;

  it('the status bar says the phase, or the failure in words', () => {
    expect(statusBarText(state({ kind: 'loading' }), trans)).toBe(
      'Project: Checking…'
    );
    expect(
      statusBarText(
        state({
          kind: 'not-enabled',
          failure: { kind: 'not-enabled', url, status: 404 }
        }),
        trans
      )
    ).toBe('Project: Not enabled');
    expect(
      statusBarText(
        state({
          kind: 'failing',
          failure: { kind: 'network', url, message: 'Failed to fetch' }
        }),
        trans
      )
    ).toBe('Project: Failing');
    expect(
      statusBarText(
        state({
          kind: 'failing',
          failure: { kind: 'incompatible', url, schemaVersion: '2.0.0' }
        }),
        trans
      )
    ).toBe('Project: Incompatible');
    const needsCompute = PHASE_CASES['needs-compute']();
    expect(
      statusBarText(state({ kind: 'loaded', projection: needsCompute }), trans)
    ).toBe('Project: Needs compute');
    expect(
      statusBarText(
        state(
          { kind: 'loaded', projection: needsCompute },
          { initializing: true }
        ),
        trans
      )
    ).toBe('Project: Initializing…');
  });

  it('a settings problem names the refused value and the fix; anything else says what to check', () => {
    const refused = [
      {
        instancePath: '/refreshInterval',
        keyword: 'maximum',
        message: 'must be <= 3600',
        schemaPath: '#/properties/refreshInterval/maximum'
      }
    ];
    expect(settingsProblem(refused, trans)).toBe(
      'Project Startup: your settings are not valid (refreshInterval must be <= 3600), so the defaults apply. Correct them in Settings → Settings Editor → Project Startup.'
    );
    expect(settingsProblem(new Error('no schema'), trans)).toMatch(
      /could not be loaded.+schema\/plugin\.json/
    );
  });
});
