// What the extension costs a page, end to end, in the real `jupyter lab` (JupyterLab 4.6.4 on
// jupyter_server 2.21.1, pip-installed) and Notebook 7's tree page (test/system/e2e/notebook7), each in Debian's Chromium
// against jupyter_server 1.23 at base_url /user/alice/ with the real sidecar behind the real
// jupyter-server-proxy (`project-startup jupyter install --user`):
//
//   - the start: of the prebuilt extension's files, the page fetches the remoteEntry and the
//     chunks activation needs; the panel's module and src/components/ (the panel's and the
//     dialog's content, most of the code) only once the panel opens (src/index.ts loads them
//     with import()), or beside the start-up GET where the panel is likely to open by itself:
//     a first visit in this browser, or a last answer that opened it (src/panel-hint.ts). So
//     the first page loads them, remembers that the panel stays closed here, and the next
//     start is lean. The gzipped bytes that lean start fetched, and in all, go to
//     test-artifacts/e2e/start-load.json.
//   - an opening costs one GET of {base_url}project/startup: the open command asks nothing,
//     the panel's activation (which both shells send when they show it) does;
//   - two openings at once, while the panel's module loads, make one panel;
//   - JupyterLab's layout restorer brings the open panel back after a reload (it runs the
//     open command, whose result is now a promise).
//
// The settings turn polling off (refreshInterval 0) and the panel's opening by itself
// (openWhenAwaitingConfirmation false), so every GET counted is the start-up check or an opening.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import type { Page, Request } from 'playwright-core';
import {
  ARTIFACTS,
  jupyterInstall,
  jupyterServer1Noise,
  LabServer,
  lazyChunks,
  openLab,
  PROJECT_LABEXTENSION,
  startLabServer
} from './helpers';

import {
  BASE_URL,
  openFromPalette,
  PACKAGE,
  pageSuite,
  panel,
  PANEL,
  pause,
  STARTUP_PATH,
  STATUS_BUTTON,
  waitForPhase,
  writePluginSetting
} from './panel-helpers';
import {
  checkNotebook7Built,
  isNotebook7HostRace,
  Notebook7Server,
  openNotebookTree,
  startNotebook7Server
} from './notebook7-helpers';

const STATIC = path.join(PROJECT_LABEXTENSION, 'static');

/** How long a page is left after a step for requests that step might still send. */
const SETTLE_MS = 1500;

const SETTINGS = { openWhenAwaitingConfirmation: false, refreshInterval: 0 };

function gzippedBytes(files: string[]): number {
  return files.reduce(
    (sum, f) =>
      sum + zlib.gzipSync(fs.readFileSync(path.join(STATIC, f))).length,
    0
  );
}

/** What a page fetched: the extension's static files (by name) and the startup GETs. */
interface Fetched {
  files: string[];
  startupGets: number;
  /** Stops recording (the page goes on to another start). */
  stop(): void;
}

function recordFetches(page: Page): Fetched {
  const fetched: Fetched = {
    files: [],
    startupGets: 0,
    stop: () => void page.off('request', record)
  };
  const files = new RegExp(`/extensions/${PACKAGE}/static/([^/]+)$`);
  const record = (request: Request): void => {
    const { pathname } = new URL(request.url());
    const file = files.exec(pathname);
    if (file && !fetched.files.includes(file[1])) {
      fetched.files.push(file[1]);
    }
    if (pathname === STARTUP_PATH && request.method() === 'GET') {
      fetched.startupGets += 1;
    }
  };
  page.on('request', record);
  return fetched;
}

/** The browser's memory that the panel stays closed at this Jupyter server (src/panel-hint.ts). */
function remembersPanelClosed(page: Page): Promise<boolean> {
  return page.evaluate(
    prefix =>
      Object.keys(localStorage).some(
        key => key.startsWith(prefix) && localStorage.getItem(key) === '1'
      ),
    'jupyterlab-project-startup:panel-stays-closed:'
  );
}

/**
 * A first visit in a fresh browser: the panel's chunk comes with the start-up GET, and the
 * answer (the panel stays closed: the setting) is remembered for the next start.
 */
async function expectFirstVisit(page: Page, first: Fetched): Promise<void> {
  first.stop();
  expect(first.files).toContain(lazyChunks().panel);
  expect(first.startupGets).toBe(1);
  expect(await remembersPanelClosed(page)).toBe(true);
}

/** Runs the open command twice at once through window.jupyterapp, without waiting. */
async function openTwiceAtOnce(page: Page): Promise<void> {
  await page.evaluate(() => {
    const g = globalThis as unknown as {
      jupyterapp: { commands: { execute(id: string): Promise<unknown> } };
    };
    const { commands } = g.jupyterapp;
    void Promise.all([
      commands.execute('project-startup:open'),
      commands.execute('project-startup:open')
    ]);
  });
}

/** The start's files as the figures in test-artifacts/e2e/start-load.json. */
function recordFigures(host: string, atStart: string[]): void {
  const file = path.join(ARTIFACTS, 'start-load.json');
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  const figures = fs.existsSync(file)
    ? (JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>)
    : {};
  const all = fs.readdirSync(STATIC).filter(f => f.endsWith('.js'));
  figures[host] = {
    filesAtStart: atStart,
    gzippedBytesAtStart: gzippedBytes(atStart),
    gzippedBytesInAll: gzippedBytes(all)
  };
  fs.writeFileSync(file, `${JSON.stringify(figures, null, 2)}\n`);
}

/** Checks the start fetched the remoteEntry but neither the panel's nor its content's chunk. */
function expectLeanStart(atStart: string[]): void {
  const lazy = lazyChunks();
  expect(atStart.some(f => /^remoteEntry\.[0-9a-f]+\.js$/.test(f))).toBe(true);
  expect(atStart).not.toContain(lazy.panel);
  expect(atStart).not.toContain(lazy.components);
}

describe('what the extension costs JupyterLab: its start and each opening of the panel (Chromium, jupyter_server 2.21.1, base_url /user/alice/)', () => {
  let server: LabServer | undefined;
  const { newPage, expectOnlyProblems } = pageSuite({
    server: () => server,
    forgetServer: () => (server = undefined),
    height: 900
  });

  test('a first visit loads the panel code with the start-up GET, then the start loads none; an opening costs one request; two at once make one panel; the layout restorer brings it back', async () => {
    server = await startLabServer({
      baseUrl: BASE_URL,
      label: 'start-load-lab-server',
      prepare: dirs => {
        jupyterInstall(dirs);
        writePluginSetting(dirs, SETTINGS);
      }
    });
    const s = server;
    const p = await newPage();
    const workspace = 'start-load';
    const answered = (): Promise<unknown> =>
      // The start-up check answered: the status bar item shows the phase.
      p.waitForFunction(
        selector =>
          document.querySelector(selector)?.textContent ===
          'Project: Awaiting confirmation',
        STATUS_BUTTON,
        { timeout: 30000, polling: 100 }
      );
    const first = recordFetches(p);
    await openLab(p, s, { workspace });
    await answered();
    await pause(SETTLE_MS);
    await expectFirstVisit(p, first);

    // The next start, the panel remembered closed: no panel code.
    const fetched = recordFetches(p);
    await openLab(p, s, { workspace });
    await answered();
    await pause(SETTLE_MS);
    const atStart = [...fetched.files];
    recordFigures('jupyterlab', atStart);
    expectLeanStart(atStart);
    expect(fetched.startupGets).toBe(1);
    expect(await panel(p).count()).toBe(0);

    // Two openings at once, before the panel's module is there: one panel, one request.
    await openTwiceAtOnce(p);
    await panel(p).waitFor({ state: 'visible', timeout: 20000 });
    await waitForPhase(p, 'awaiting-confirmation');
    await pause(SETTLE_MS);
    expect(await p.locator(PANEL).count()).toBe(1);
    const tabs = p
      .locator('#jp-main-dock-panel .lm-TabBar-tab')
      .filter({ hasText: 'Project Startup' });
    expect(await tabs.count()).toBe(1);
    expect(fetched.startupGets).toBe(2);
    expect(fetched.files).toContain(lazyChunks().panel);
    expect(fetched.files).toContain(lazyChunks().components);

    // Closed, then opened again from the palette: one request.
    await tabs.locator('.lm-TabBar-tabCloseIcon').click();
    await panel(p).waitFor({ state: 'detached', timeout: 10000 });
    await openFromPalette(p);
    await waitForPhase(p, 'awaiting-confirmation');
    await pause(SETTLE_MS);
    expect(fetched.startupGets).toBe(3);
    expect(await p.locator(PANEL).count()).toBe(1);

    // The layout restorer: once the workspace holds the open panel, a reload brings it back.
    const workspaceHolds = (): boolean =>
      fs
        .readdirSync(s.dirs.workspaces)
        .some(f =>
          fs
            .readFileSync(path.join(s.dirs.workspaces, f), 'utf8')
            .includes('project-startup:project-startup')
        );
    for (let i = 0; i < 100 && !workspaceHolds(); i++) {
      await pause(200);
    }
    expect(workspaceHolds()).toBe(true);
    await openLab(p, s, { workspace });
    await panel(p).waitFor({ state: 'visible', timeout: 30000 });
    await waitForPhase(p, 'awaiting-confirmation');
    expect(await p.locator(PANEL).count()).toBe(1);
    expectOnlyProblems();
  }, 180000);
});

describe('what the extension costs Notebook 7: its start and each opening of the panel (tree page; Chromium, jupyter_server 1.23, base_url /user/alice/)', () => {
  let server: Notebook7Server | undefined;
  const { newPage, expectOnlyProblems } = pageSuite({
    server: () => server,
    forgetServer: () => (server = undefined),
    prepare: () => void checkNotebook7Built(),
    // Still the Notebook 7 stand-in on jupyter_server 1.x (the "nb" engineer moves it): its
    // /api/me and events noise is no longer filtered by PageProblems.
    alwaysAllowed: problem =>
      isNotebook7HostRace(problem) || jupyterServer1Noise(problem)
  });

  test("a first visit loads the panel code with the start-up GET, then the start loads none; an opening of the panel's tab costs one request; two at once make one tab", async () => {
    server = await startNotebook7Server({
      baseUrl: BASE_URL,
      label: 'start-load-notebook7-server',
      prepare: dirs => {
        jupyterInstall(dirs);
        writePluginSetting(dirs, SETTINGS);
      }
    });
    const p = await newPage();
    const start = async (): Promise<void> => {
      const startup = p.waitForResponse(
        r => new URL(r.url()).pathname === STARTUP_PATH,
        { timeout: 30000 }
      );
      const host = await openNotebookTree(p, server!);
      expect(host.errors).toEqual([]);
      expect((await startup).status()).toBe(200);
      await pause(SETTLE_MS);
    };
    const first = recordFetches(p);
    await start();
    await expectFirstVisit(p, first);

    // The next start, the panel remembered closed: no panel code.
    const fetched = recordFetches(p);
    await start();
    const atStart = [...fetched.files];
    recordFigures('notebook7', atStart);
    expectLeanStart(atStart);
    expect(fetched.startupGets).toBe(1);

    // Two openings at once: one tab of the tree page, one request.
    await openTwiceAtOnce(p);
    await panel(p).waitFor({ state: 'visible', timeout: 20000 });
    await waitForPhase(p, 'awaiting-confirmation');
    await pause(SETTLE_MS);
    expect(await p.locator(PANEL).count()).toBe(1);
    const tabs = p
      .locator('#main-panel .jp-TreePanel .lm-TabBar-tab')
      .filter({ hasText: 'Project Startup' });
    expect(await tabs.count()).toBe(1);
    expect(fetched.startupGets).toBe(2);

    // Its tab closed, then opened again from the palette: one request.
    await tabs.locator('.lm-TabBar-tabCloseIcon').click();
    await panel(p).waitFor({ state: 'detached', timeout: 10000 });
    await openFromPalette(p);
    await waitForPhase(p, 'awaiting-confirmation');
    await pause(SETTLE_MS);
    expect(fetched.startupGets).toBe(3);
    expect(await tabs.count()).toBe(1);
    expectOnlyProblems();
  }, 180000);
});
