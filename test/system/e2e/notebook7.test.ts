// Project Startup in Jupyter Notebook 7: Notebook 7.6.3's own `jupyter notebook` (jupyter_server
// 2.21.1) from the system lane's real stack, with this checkout's wheel pip-installed into its venv
// as a user installs it (the labextension, the server extension and the `project` proxy entry
// point: no `project-startup jupyter install`), the real jupyter-server-proxy 4.4.0 (vendored, on
// PYTHONPATH), base_url /user/alice/, in Debian's headless Chromium.
//
// Notebook 7's shell holds one main widget per page and drops any other without a word; on the
// tree page that widget is the "Files"/"Running" tab panel. The panel must open there, in a tab
// of its own, both by itself (awaiting confirmation) and from the command palette.
//
// Screenshots in test-artifacts/e2e/: notebook7-awaiting-confirmation, notebook7-dialog,
// notebook7-ready, notebook7-palette, notebook7-notification, notebook7-not-enabled(-panel),
// notebook7-user-guide.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { expectAccessible } from './axe';
import { httpRequest, screenshot } from './helpers';
import {
  BASE_URL,
  pageSuite,
  DIAGNOSTICS_PATH,
  execute,
  expectFirstScreen,
  expectPanelAccessible,
  GUIDE,
  INITIALIZE_PATH,
  openFromPalette,
  PACKAGE,
  panel,
  PANEL,
  PLUGIN,
  projection,
  setDisclosures,
  STARTUP_PATH,
  waitForPhase,
  writePluginSetting
} from './panel-helpers';
import {
  checkNotebook7Built,
  isNotebook7HostRace,
  Notebook7Server,
  openNotebookTree,
  startNotebook7Server,
  stopAllNotebook7Servers
} from './notebook7-helpers';

/** Notebook 7's tree page: its tab panel (INotebookTree) in the shell's main area. */
const TREE_TABS = '#main-panel .jp-TreePanel';

/** The tree page's tabs, in order, and which one is current. */
function treeTabs(page: Page): Promise<{ labels: string[]; current: string }> {
  return page.evaluate(selector => {
    const bar = document.querySelector(`${selector} .lm-TabBar`);
    const tabs = [...(bar?.querySelectorAll('.lm-TabBar-tab') ?? [])];
    const label = (tab: Element) =>
      (tab.querySelector('.lm-TabBar-tabLabel')?.textContent ?? '').trim();
    return {
      labels: tabs.map(label),
      current: label(
        tabs.find(t => t.classList.contains('lm-mod-current')) ?? document.body
      )
    };
  }, TREE_TABS);
}

/** Facts about the app, read in the page (window.jupyterapp: the server sets expose_app_in_browser). */
function appFacts(page: Page): Promise<{
  name: string;
  version: string;
  activated: boolean;
  commands: boolean;
  mainWidgets: number;
}> {
  return page.evaluate(id => {
    const g = globalThis as unknown as {
      jupyterapp: {
        name: string;
        version: string;
        isPluginActivated(id: string): boolean;
        commands: { hasCommand(id: string): boolean };
        shell: { widgets(area: string): Iterable<unknown> };
      };
    };
    const app = g.jupyterapp;
    return {
      name: app.name,
      version: app.version,
      activated: app.isPluginActivated(id),
      commands: [
        'project-startup:open',
        'project-startup:refresh',
        'project-startup:initialize'
      ].every(c => app.commands.hasCommand(c)),
      mainWidgets: [...app.shell.widgets('main')].length
    };
  }, PLUGIN);
}

/**
 * Waits (bounded) until the element lies inside the viewport and is what the page shows at its
 * centre: a toast slides in from the side, and one drawn off-screen or under another element
 * would be "visible" to Playwright but not to a person.
 */
async function waitOnScreen(
  page: Page,
  locator: Locator,
  timeoutMs = 10000
): Promise<void> {
  const handle = await locator.elementHandle({ timeout: timeoutMs });
  await page.waitForFunction(
    node => {
      const element = node as Element | null;
      if (!element) {
        return false;
      }
      const r = element.getBoundingClientRect();
      const inside =
        r.width > 0 &&
        r.height > 0 &&
        r.left >= 0 &&
        r.top >= 0 &&
        r.right <= innerWidth &&
        r.bottom <= innerHeight;
      return (
        inside &&
        element.contains(
          document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2)
        )
      );
    },
    handle,
    { timeout: timeoutMs, polling: 100 }
  );
}

/** JupyterLab Dark through the theme command Notebook 7 shares with JupyterLab. */
async function useDarkTheme(page: Page): Promise<void> {
  await execute(page, 'apputils:change-theme', { theme: 'JupyterLab Dark' });
  await page.waitForFunction(
    () => document.body.dataset.jpThemeLight === 'false',
    undefined,
    { timeout: 20000 }
  );
}

describe('Project Startup in Jupyter Notebook 7.6.3 (`jupyter notebook`, the wheel installed; tree page; Chromium, base_url /user/alice/)', () => {
  let server: Notebook7Server | undefined;
  let notebook = '';
  const { newPage, expectOnlyProblems } = pageSuite({
    server: () => server,
    forgetServer: () => (server = undefined),
    // The extension comes from the wheel's data files in the venv, not from this checkout's build.
    checkBuilt: false,
    prepare: () => {
      notebook = checkNotebook7Built().notebook;
    },
    alwaysAllowed: isNotebook7HostRace
  });
  afterAll(stopAllNotebook7Servers, 60000);

  test('awaiting confirmation: the panel opens by itself in a tab of the tree page; the dialog initializes; ready', async () => {
    server = await startNotebook7Server({
      baseUrl: BASE_URL,
      label: 'notebook7-generic-server'
    });
    const s = server;
    const p = await newPage();
    const host = await openNotebookTree(p, s);
    expect(host.errors).toEqual([]);
    expect(host.page).toBe('tree');
    expect(host.notebook).toBe(notebook);
    // The wheel's labextension, from the venv's share/jupyter/labextensions.
    expect(host.federated).toContain(PACKAGE);
    expect(host.disabled).not.toContain(PACKAGE);

    const facts = await appFacts(p);
    expect(facts).toMatchObject({
      name: 'Jupyter Notebook',
      version: notebook,
      activated: true,
      commands: true,
      mainWidgets: 1
    });

    // Open by itself (the one step left is the person's), as a tab beside Files and Running.
    await panel(p).waitFor({ state: 'visible', timeout: 30000 });
    await waitForPhase(p, 'awaiting-confirmation');
    expect(await p.locator(`${TREE_TABS} ${PANEL}`).count()).toBe(1);
    const tabs = await treeTabs(p);
    expect(tabs.labels).toEqual(['Files', 'Running', 'Project Startup']);
    expect(tabs.current).toBe('Project Startup');
    // The state, the one thing to do and who acts, without scrolling at 1400 x 850.
    const awaiting = {
      heading: 'Set up this project',
      who: 'user',
      action: 'Initialize project'
    };
    await expectFirstScreen(p, awaiting);
    await screenshot(p, 'notebook7-awaiting-confirmation');
    await expectPanelAccessible(p, 'notebook7-awaiting-confirmation');
    await setDisclosures(p, true);
    await expectPanelAccessible(p, 'notebook7-awaiting-confirmation-details');
    await setDisclosures(p, false);
    await useDarkTheme(p);
    await expectFirstScreen(p, awaiting);
    await screenshot(p, 'notebook7-awaiting-confirmation-dark');
    await expectPanelAccessible(p, 'notebook7-awaiting-confirmation-dark');
    await execute(p, 'apputils:change-theme', { theme: 'JupyterLab Light' });
    await p.waitForFunction(
      () => document.body.dataset.jpThemeLight === 'true',
      undefined,
      { timeout: 20000 }
    );

    // The dialog's Cancel creates nothing and leaves the panel awaiting confirmation.
    const dialog = p.locator('.jp-Dialog');
    await panel(p).getByRole('button', { name: 'Initialize project' }).click();
    await dialog.waitFor({ state: 'visible' });
    await dialog
      .locator('.jp-Dialog-footer')
      .getByRole('button', { name: 'Cancel' })
      .click();
    await dialog.waitFor({ state: 'detached' });
    expect(fs.readdirSync(s.dirs.project)).toEqual([]);
    expect((await projection(s)).phase).toBe('awaiting-confirmation');
    await waitForPhase(p, 'awaiting-confirmation');

    // Initialize through the dialog.
    await panel(p).getByRole('button', { name: 'Initialize project' }).click();
    await dialog.waitFor({ state: 'visible' });
    await expect(
      dialog.locator('.jp-Dialog-header').textContent()
    ).resolves.toContain('Initialize project');
    await p.waitForTimeout(300); // the dialog's fade-in, for a clear screenshot
    await screenshot(p, 'notebook7-dialog');
    const initialized = p.waitForResponse(
      r => new URL(r.url()).pathname === INITIALIZE_PATH,
      { timeout: 20000 }
    );
    await dialog
      .locator('.jp-Dialog-footer')
      .getByRole('button', { name: 'Initialize project' })
      .click();
    expect((await initialized).status()).toBe(201);
    await dialog.waitFor({ state: 'detached' });
    await waitForPhase(p, 'ready');
    expect(
      fs.existsSync(
        path.join(s.dirs.project, '.project-startup', 'initialization.json')
      )
    ).toBe(true);
    expect((await projection(s)).phase).toBe('ready');
    const ready = {
      heading: 'Your project is set up',
      who: null,
      action: null
    };
    await expectFirstScreen(p, ready);
    await screenshot(p, 'notebook7-ready');
    await expectPanelAccessible(p, 'notebook7-ready');
    await setDisclosures(p, true);
    await expectPanelAccessible(p, 'notebook7-ready-details');
    await setDisclosures(p, false);
    await useDarkTheme(p);
    await expectFirstScreen(p, ready);
    await screenshot(p, 'notebook7-ready-dark');
    await expectPanelAccessible(p, 'notebook7-ready-dark');

    // The Files tab still works beside it, and the command brings the panel's tab back.
    await p
      .locator(`${TREE_TABS} .lm-TabBar-tab`)
      .filter({ hasText: 'Files' })
      .click();
    await expect(treeTabs(p)).resolves.toMatchObject({ current: 'Files' });
    await expect(panel(p).isVisible()).resolves.toBe(false);
    await openFromPalette(p);
    await panel(p).waitFor({ state: 'visible' });
    await expect(treeTabs(p)).resolves.toEqual({
      labels: ['Files', 'Running', 'Project Startup'],
      current: 'Project Startup'
    });
    expectOnlyProblems();
  }, 180000);

  test('from the command palette (the setting keeps it from opening by itself); closing its tab and opening it again', async () => {
    server = await startNotebook7Server({
      baseUrl: BASE_URL,
      label: 'notebook7-palette-server',
      prepare: dirs =>
        writePluginSetting(dirs, { openWhenAwaitingConfirmation: false })
    });
    const p = await newPage();
    const firstStartup = p.waitForResponse(
      r => new URL(r.url()).pathname === STARTUP_PATH,
      { timeout: 30000 }
    );
    const host = await openNotebookTree(p, server);
    expect(host.errors).toEqual([]);
    expect((await firstStartup).status()).toBe(200);
    await p.waitForTimeout(1000); // time the panel would need to open by itself
    expect(await panel(p).count()).toBe(0);
    await expect(treeTabs(p)).resolves.toEqual({
      labels: ['Files', 'Running'],
      current: 'Files'
    });

    await openFromPalette(p);
    await panel(p).waitFor({ state: 'visible' });
    await waitForPhase(p, 'awaiting-confirmation');
    await expect(treeTabs(p)).resolves.toEqual({
      labels: ['Files', 'Running', 'Project Startup'],
      current: 'Project Startup'
    });
    await screenshot(p, 'notebook7-palette');

    // Its tab closes like the settings editor's, and the command opens a new one.
    await p
      .locator(`${TREE_TABS} .lm-TabBar-tab`)
      .filter({ hasText: 'Project Startup' })
      .locator('.lm-TabBar-tabCloseIcon')
      .click();
    await panel(p).waitFor({ state: 'detached' });
    await expect(treeTabs(p)).resolves.toMatchObject({
      labels: ['Files', 'Running']
    });
    await openFromPalette(p);
    await waitForPhase(p, 'awaiting-confirmation');
    await expect(treeTabs(p)).resolves.toEqual({
      labels: ['Files', 'Running', 'Project Startup'],
      current: 'Project Startup'
    });
    expectOnlyProblems();
  }, 180000);

  test("Notebook 7's Help menu opens the Project Startup user guide in a tab of the tree page", async () => {
    server = await startNotebook7Server({
      baseUrl: BASE_URL,
      label: 'notebook7-guide-server',
      prepare: dirs =>
        writePluginSetting(dirs, { openWhenAwaitingConfirmation: false })
    });
    const p = await newPage();
    const host = await openNotebookTree(p, server);
    expect(host.errors).toEqual([]);
    await p.locator('.lm-MenuBar-itemLabel', { hasText: /^Help$/ }).click();
    const item = p.locator('.lm-Menu-item', {
      hasText: 'Project Startup user guide'
    });
    await item.waitFor({ state: 'visible' });
    await item.click();
    const guide = p.locator(GUIDE);
    await guide.waitFor({ state: 'visible', timeout: 20000 });
    await expect(treeTabs(p)).resolves.toEqual({
      labels: ['Files', 'Running', 'Project Startup user guide'],
      current: 'Project Startup user guide'
    });
    // Rendered by the Notebook's own rendermime registry and Markdown parser (marked).
    await expect(
      guide.locator('.jp-RenderedMarkdown h2').first().textContent()
    ).resolves.toContain('Using Project Startup in JupyterLab and Notebook');
    await p.mouse.move(640, 990);
    await screenshot(p, 'notebook7-user-guide');
    await expectAccessible(p, 'notebook7-user-guide', [GUIDE], {
      fit: `${GUIDE} .jp-ProjectStartup-guide`
    });
    // The panel and the guide are tabs side by side.
    await openFromPalette(p);
    await panel(p).waitFor({ state: 'visible' });
    await expect(treeTabs(p)).resolves.toEqual({
      labels: [
        'Files',
        'Running',
        'Project Startup user guide',
        'Project Startup'
      ],
      current: 'Project Startup'
    });
    expectOnlyProblems();
  }, 120000);

  test("Notebook 7's own server with the wheel installed: authenticated pages, the page config, the wheel's server extension and proxy entry", async () => {
    server = await startNotebook7Server({
      baseUrl: BASE_URL,
      label: 'notebook7-pages-server'
    });
    const s = server;
    fs.mkdirSync(path.join(s.dirs.project, 'data'));
    // Without credentials: Jupyter's login page, as for every page of Notebook 7.
    const anonymous = await httpRequest(s.treeUrl);
    expect(anonymous.status).toBe(302);
    expect(anonymous.headers.location).toContain(`${BASE_URL}login?next=`);
    const auth = { authorization: `token ${s.token}` };
    // The base URL goes to the tree (Notebook's default_url).
    const root = await httpRequest(s.base, { headers: auth });
    expect(root.status).toBe(302);
    expect(root.headers.location?.replace(/\?$/, '')).toBe(`${BASE_URL}tree`);
    const page = await httpRequest(`${s.treeUrl}/data`, { headers: auth });
    expect(page.status).toBe(200);
    const config = JSON.parse(
      /<script id="jupyter-config-data" type="application\/json">([\s\S]*?)<\/script>/.exec(
        page.text
      )?.[1] ?? '{}'
    );
    expect(config).toMatchObject({
      appName: 'Jupyter Notebook',
      appVersion: notebook,
      notebookPage: 'tree',
      treePath: 'data',
      baseUrl: BASE_URL,
      fullStaticUrl: `${BASE_URL}static/notebook`,
      fullLabextensionsUrl: `${BASE_URL}lab/extensions`,
      exposeAppInBrowser: true
    });
    const wheelExtension = (
      config.federated_extensions as { name: string; load: string }[]
    ).find(e => e.name === PACKAGE);
    expect(wheelExtension).toBeDefined();
    // (Notebook 7, like JupyterLab, writes the token of a token-authenticated request into the
    // page config: the stand-in did not, and claimed the opposite.)
    expect(config.token).toBe(s.token);
    // The labextension's entry point is served from the venv's data files.
    const remote = await httpRequest(
      `${s.base}lab/extensions/${PACKAGE}/${wheelExtension?.load}`,
      { headers: auth }
    );
    expect(remote.status).toBe(200);
    expect(remote.text).toContain(PACKAGE);
    // A directory that is not there: 404.
    expect(
      (await httpRequest(`${s.treeUrl}/missing`, { headers: auth })).status
    ).toBe(404);
    // The wheel's server extension answers its diagnostics route: the proxy and Node are found.
    const diagnostics = await httpRequest(
      `${s.base}api/project-startup/diagnostics`,
      {
        headers: auth
      }
    );
    expect(diagnostics.status).toBe(200);
    // The wheel's proxy entry point (no `jupyter install`): the sidecar answers through the proxy.
    expect((await projection(s)).phase).toBe('awaiting-confirmation');
    expect(s.logs()).toMatch(/jupyterlab_project_startup/);
  }, 90000);

  test("Notebook 7 renders JupyterLab's notifications (apputils-extension's notification plugin) as toasts", async () => {
    server = await startNotebook7Server({
      baseUrl: BASE_URL,
      label: 'notebook7-notify-server',
      serverProxyEnabled: false
    });
    const p = await newPage();
    const host = await openNotebookTree(p, server);
    expect(host.errors).toEqual([]);
    await p.evaluate(() => {
      const g = globalThis as unknown as {
        jupyterapp: {
          commands: { execute(id: string, args: unknown): Promise<unknown> };
        };
      };
      void g.jupyterapp.commands.execute('apputils:notify', {
        message: 'A notification in Notebook 7',
        type: 'info',
        options: { autoClose: false }
      });
    });
    const toast = p
      .locator('.Toastify__toast')
      .filter({ hasText: 'A notification in Notebook 7' });
    await toast.waitFor({ state: 'visible', timeout: 20000 });
    await waitOnScreen(p, toast);
    await screenshot(p, 'notebook7-notification');
    // jupyter-server-proxy not enabled here: the start-up check's 404 is expected.
    expectOnlyProblems(
      problem =>
        (problem.path === STARTUP_PATH || problem.path === DIAGNOSTICS_PATH) &&
        problem.status === 404
    );
  }, 120000);

  test('jupyter-server-proxy not enabled (nothing at {base_url}project/): a notification names Project Startup; the panel does not open by itself', async () => {
    server = await startNotebook7Server({
      baseUrl: BASE_URL,
      label: 'notebook7-not-enabled-server',
      serverProxyEnabled: false
    });
    const p = await newPage();
    const host = await openNotebookTree(p, server);
    expect(host.errors).toEqual([]);
    const toast = p
      .locator('.Toastify__toast')
      .filter({ hasText: 'Project Startup' });
    await toast.first().waitFor({ state: 'visible', timeout: 30000 });
    await waitOnScreen(p, toast.first());
    await screenshot(p, 'notebook7-not-enabled');
    expect(await panel(p).count()).toBe(0);

    // The toast's own way in opens the panel, in its tab, saying what is wrong.
    await toast
      .first()
      .getByRole('button', { name: 'Open Project Startup' })
      .click();
    await panel(p).waitFor({ state: 'visible' });
    await expect(treeTabs(p)).resolves.toEqual({
      labels: ['Files', 'Running', 'Project Startup'],
      current: 'Project Startup'
    });
    await panel(p)
      .getByText(/not enabled/i)
      .first()
      .waitFor({ state: 'visible' });
    await screenshot(p, 'notebook7-not-enabled-panel');
    expectOnlyProblems(
      problem =>
        (problem.path === STARTUP_PATH || problem.path === DIAGNOSTICS_PATH) &&
        problem.status === 404
    );
  }, 120000);
});
