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
// The states a researcher meets here, each in the light and dark themes (-dark), with its first
// screen at 1400 x 850 (the state, the one thing to do and who acts, nothing to scroll) and axe
// with the panel's disclosures closed and open: awaiting confirmation, ready, blocked with the
// person's own fix (the state path is a file), misconfigured (a refused site file; the copied
// administrator report) and Node missing. Needs-compute and a block only the administrator can
// fix do not occur in the notebook interface.
//
// Screenshots in test-artifacts/e2e/: notebook7-awaiting-confirmation, notebook7-dialog,
// notebook7-ready, notebook7-blocked, notebook7-misconfigured, notebook7-node-missing (each also
// -dark), notebook7-notification-node-missing, notebook7-palette, notebook7-notification,
// notebook7-not-enabled(-panel), notebook7-user-guide.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { expectAccessible } from './axe';
import { httpRequest, screenshot } from './helpers';
import {
  ADMINISTRATOR_FIXES,
  BASE_URL,
  pageSuite,
  DIAGNOSTICS_PATH,
  expectBlockedWithUserFix,
  expectNodeMissingShown,
  expectRefusedSiteFileShown,
  expectStateInBothThemes,
  GUIDE,
  INITIALIZE_PATH,
  LIGHT,
  openFromNotification,
  openFromPalette,
  PACKAGE,
  panel,
  PANEL,
  PLUGIN,
  projection,
  recordCopies,
  STARTUP_PATH,
  startupStatus,
  useTheme,
  waitForPhase,
  waitOnScreen,
  writePluginSetting,
  refusedSiteFile
} from './panel-helpers';
import {
  checkNotebook7Built,
  isNotebook7HostRace,
  Notebook7Host,
  Notebook7Server,
  Notebook7ServerOptions,
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

  /**
   * Starts this test's server (base_url /user/alice/, no runtime configured; stopped after the
   * test) and opens its tree page in a new page (after `beforeOpen`), which must load without page
   * errors.
   */
  async function openTree(
    options: Notebook7ServerOptions,
    beforeOpen?: (page: Page) => Promise<void>
  ): Promise<{ s: Notebook7Server; p: Page; host: Notebook7Host }> {
    const s = await startNotebook7Server({
      baseUrl: BASE_URL,
      runtimeUrls: false,
      ...options
    });
    server = s;
    const p = await newPage();
    await beforeOpen?.(p);
    const host = await openNotebookTree(p, s);
    expect(host.errors).toEqual([]);
    return { s, p, host };
  }

  test('awaiting confirmation: the panel opens by itself in a tab of the tree page; the dialog initializes; ready', async () => {
    // Nobody configured a model runtime here, as on an ordinary machine.
    server = await startNotebook7Server({
      baseUrl: BASE_URL,
      label: 'notebook7-generic-server',
      runtimeUrls: false
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
    // A runtime nobody set up is no problem to report: no warning, nothing for the administrator.
    await expect(panel(p).textContent()).resolves.not.toMatch(/not reachable/);
    expect(
      await panel(p)
        .getByRole('button', { name: 'Copy details for your administrator' })
        .count()
    ).toBe(0);
    // The state, the one thing to do and who acts, without scrolling at 1400 x 850.
    await expectStateInBothThemes(p, 'notebook7-awaiting-confirmation', {
      heading: 'Set up this project',
      who: 'user',
      action: 'Initialize project'
    });
    await useTheme(p, LIGHT);

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
    await expectStateInBothThemes(p, 'notebook7-ready', {
      heading: 'Your project is set up',
      who: null,
      action: null
    });

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

  test("blocked (the project's setup folder is a file): the notification opens the panel; the person's own fix, on the first screen, in both themes; once done, Check again finds the project ready to set up", async () => {
    let statePath = '';
    const { s, p } = await openTree({
      label: 'notebook7-blocked-server',
      prepare: dirs => {
        // Something else took the private state path: not a directory this service made.
        statePath = path.join(dirs.project, '.project-startup');
        fs.writeFileSync(statePath, 'not a state directory\n');
      }
    });
    const answer = await projection(s);
    expect(answer.phase).toBe('blocked');
    expect(
      answer.readinessChecks.find(c => c.id === 'state-path')
    ).toMatchObject({ status: 'fail', required: true, remedyBy: 'user' });
    // Not awaiting confirmation: the panel waits for the notification's way in.
    await openFromNotification(p);
    await waitForPhase(p, 'blocked');
    await expect(treeTabs(p)).resolves.toEqual({
      labels: ['Files', 'Running', 'Project Startup'],
      current: 'Project Startup'
    });
    await expectBlockedWithUserFix(p, 'notebook7-blocked');
    // The fix is the person's own: with the file moved away, Check again shows the next step.
    fs.rmSync(statePath);
    await panel(p).getByRole('button', { name: 'Check again' }).click();
    await waitForPhase(p, 'awaiting-confirmation');
    expect(fs.readdirSync(s.dirs.project)).toEqual([]);
    expectOnlyProblems();
  }, 180000);

  test('misconfigured (a refused site file), with a credential in the environment: one line per problem, the administrator acts, the copied report names the file and line and no credential', async () => {
    const site = refusedSiteFile();
    const { s, p } = await openTree(
      { label: 'notebook7-misconfigured-server', prepare: site.prepare },
      recordCopies
    );
    await openFromNotification(p);
    await expectRefusedSiteFileShown(p, 'notebook7-misconfigured', {
      file: site.file,
      versions: `Versions: Jupyter Notebook ${notebook}`,
      token: s.token
    });
    // Expected: the sidecar's 503 misconfigured through the proxy (and Chromium's console line).
    expectOnlyProblems(startupStatus(503));
  }, 180000);

  test("Node missing (the server's PROJECT_STARTUP_NODE names nothing): an error notification, then the panel gives the cause and the administrator's fix, in both themes", async () => {
    const node = '/nonexistent/bin/node';
    const { p } = await openTree({
      label: 'notebook7-node-missing-server',
      env: { PROJECT_STARTUP_NODE: node }
    });
    await expectNodeMissingShown(
      p,
      node,
      'notebook7-notification-node-missing'
    );
    await expect(treeTabs(p)).resolves.toEqual({
      labels: ['Files', 'Running', 'Project Startup'],
      current: 'Project Startup'
    });
    await expectStateInBothThemes(
      p,
      'notebook7-node-missing',
      ADMINISTRATOR_FIXES
    );
    // The one expected failure: the proxy's 500 for the startup projection (and its console line).
    expectOnlyProblems(startupStatus(500));
  }, 180000);
});
