/** @jest-environment jsdom */
// Where the panel is likely to open by itself (a first visit, or the last answer at this Jupyter
// server opened it), its chunk loads beside the start-up GET, before the answer; a set-up project
// loads it only when it is needed. The browser remembers the last answer per server, and a
// storage the browser refuses only leaves the guess at "likely".
import './jsdom-shims';
import { nullTranslator } from '@jupyterlab/translation';
import { genericPlatform } from '../../../sidecar/src/core/platforms/generic';
import { panelHint, PANEL_HINT_KEY_PREFIX } from '../../../src/panel-hint';
import { fakeApp, settle } from './fake-app';
import { fakeServer, ORIGIN } from './fake-server';
import { BASE_URL, FakeAnswer, json, projectionFor } from './fixtures';

/** How often the panel's chunk was loaded in this module registry. */
const mockChunk = { loads: 0 };
jest.mock('../../../src/on-demand', () => {
  mockChunk.loads += 1;
  return jest.requireActual('../../../src/on-demand');
});

const SERVER_URL = `${ORIGIN}${BASE_URL}`;
const KEY = PANEL_HINT_KEY_PREFIX + SERVER_URL;

const AWAITING = json(200, projectionFor(genericPlatform));
const SET_UP = json(
  200,
  projectionFor(genericPlatform, { state: 'initialized' })
);

/** The plugin from this test's module registry, where the chunk is not loaded yet. */
function freshPlugin(): { activate: unknown; optional?: unknown[] } {
  return jest.requireActual('../../../src/index').default;
}

/**
 * The plugin, activated without settings; `answer()` lets the start-up GET's answer, `startup`,
 * through.
 */
function activate(startup: FakeAnswer) {
  let answer: () => void = () => undefined;
  const server = fakeServer(startup);
  const fetch = server.settings.fetch as unknown as jest.Mock;
  const answerNow = fetch.getMockImplementation()!;
  fetch.mockImplementationOnce(
    (request: unknown) =>
      new Promise(resolve => (answer = () => resolve(answerNow(request))))
  );
  const { app, shell } = fakeApp(server.settings);
  const plugin = freshPlugin();
  const activateFn = plugin.activate as (...args: unknown[]) => void;
  activateFn(app, nullTranslator, ...(plugin.optional ?? []).map(() => null));
  return { fetch, shell, answer: () => answer() };
}

beforeEach(() => {
  // A fresh module registry per test: the chunk loads anew, as on a new page.
  jest.resetModules();
  mockChunk.loads = 0;
  localStorage.clear();
});

afterEach(() => {
  jest.restoreAllMocks();
  document.body.replaceChildren();
});

describe('the panel chunk loads beside the start-up GET where the panel is likely to open', () => {
  it('on a first visit: loaded before the answer, then the panel opens', async () => {
    const h = activate(AWAITING);
    await settle();
    expect(h.fetch).toHaveBeenCalledTimes(1); // the start-up GET, not answered yet
    expect(mockChunk.loads).toBe(1);
    expect(h.shell.add).not.toHaveBeenCalled();
    h.answer();
    await settle();
    expect(h.shell.add).toHaveBeenCalledTimes(1);
    expect(localStorage.getItem(KEY)).toBeNull();
  });

  it('a set-up project: the answer is remembered, and the next page loads no chunk', async () => {
    const first = activate(SET_UP);
    first.answer();
    await settle();
    expect(first.shell.add).not.toHaveBeenCalled();
    expect(localStorage.getItem(KEY)).toBe('1');

    jest.resetModules(); // the next page
    mockChunk.loads = 0;
    const next = activate(SET_UP);
    next.answer();
    await settle();
    expect(mockChunk.loads).toBe(0);
    expect(next.shell.add).not.toHaveBeenCalled();
  });

  it('remembered closed, but now awaiting confirmation (the project was reset): the chunk loads with the answer, the panel opens, and the memory is cleared', async () => {
    localStorage.setItem(KEY, '1');
    const h = activate(AWAITING);
    await settle();
    expect(mockChunk.loads).toBe(0);
    h.answer();
    await settle();
    expect(mockChunk.loads).toBe(1);
    expect(h.shell.add).toHaveBeenCalledTimes(1);
    expect(localStorage.getItem(KEY)).toBeNull();
  });

  it('a failed answer (the sidecar did not start) tells nothing of the project: nothing is remembered', async () => {
    jest.spyOn(console, 'error').mockImplementation(() => undefined);
    const h = activate(json(500, { title: 'broken' }));
    h.answer();
    await settle();
    expect(localStorage.getItem(KEY)).toBeNull();
  });
});

describe('panelHint', () => {
  it('is per Jupyter server: another server on the same origin keeps its own', () => {
    panelHint(localStorage, SERVER_URL).remember(false);
    expect(panelHint(localStorage, SERVER_URL).likely).toBe(false);
    expect(panelHint(localStorage, `${ORIGIN}/user/bob/`).likely).toBe(true);
    panelHint(localStorage, SERVER_URL).remember(true);
    expect(panelHint(localStorage, SERVER_URL).likely).toBe(true);
    expect(localStorage.length).toBe(0);
  });

  it('a storage the browser refuses, or none: likely, and remembering throws nothing', () => {
    const refusing = {
      getItem: () => {
        throw new DOMException('denied', 'SecurityError');
      },
      setItem: () => {
        throw new DOMException('full', 'QuotaExceededError');
      },
      removeItem: () => {
        throw new DOMException('denied', 'SecurityError');
      }
    } as unknown as Storage;
    const hint = panelHint(refusing, SERVER_URL);
    expect(hint.likely).toBe(true);
    expect(() => hint.remember(false)).not.toThrow();
    expect(() => hint.remember(true)).not.toThrow();
    const none = panelHint(null, SERVER_URL);
    expect(none.likely).toBe(true);
    expect(() => none.remember(false)).not.toThrow();
  });
});
