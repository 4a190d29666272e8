// The notebook interface end to end: the project's prebuilt extension in the real `jupyter lab`
// (JupyterLab 4.6.4 on jupyter_server 2.21.1, pip-installed with the project's wheel), in
// Debian's headless Chromium, with Jupyter's base_url /user/alice/, and the real sidecar behind the real
// jupyter-server-proxy. Both are put in place by the operator's own command, `project-startup jupyter
// install --user`, run with JUPYTER_CONFIG_DIR / JUPYTER_DATA_DIR set to the server's
// directories before it starts. The Jupyter server's root_dir and working directory is the
// project directory, so that is the sidecar's project.
//
// The panel is JupyterLab's MainAreaWidget: a toolbar with Refresh (a ToolbarButton), the
// product's icon in its tab, and React content, "What this platform offers" (the whole
// manifest) included.
//
// States covered, each with a screenshot in test-artifacts/e2e/:
//   panel-awaiting-confirmation, panel-offers, panel-dialog, panel-ready  (generic platform)
//   panel-initialize-failed  (the state path became unsafe after the panel showed it)
//   panel-unsupported  (a Jupyter server inside a Slurm job: cluster platform)
//   panel-not-enabled  (no proxy entry: Jupyter answers 404 at {base_url}project/)
//   panel-loading      (opened before the first answer)
//   panel-checking     (Refresh pressed: the answer is on its way)
//   panel-failing      (a proxy entry whose command exits non-zero)
//   panel-blocked      (a required readiness check fails: the state path is a file)
//   panel-misconfigured  (a refused site file: the sidecar answers 503 misconfigured)
//   and each of them again in the dark theme (*-dark).
//
// Accessibility: axe-core (./axe.ts) scans the panel in every one of these states in both
// themes, and the confirmation dialog, under WCAG 2.1 A/AA; the keyboard-only test checks the
// focus ring's contrast, the dialog's focus trap and where the focus returns, and that the live
// region announces a phase once.
//
// Missing Chromium, Jupyter or the built extension fails these tests (with what to do).
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import {
  jupyterInstall,
  LabServer,
  LabServerOptions,
  openLab,
  screenshot,
  SIDECAR_SERVE_ARGS,
  startLabServer,
  waitForSplashGone
} from './helpers';
import { CHECK_IDS } from '../../helpers/harness';
import { waitFor } from '../../helpers/wait';
import { expectAccessible, focusRingContrast as ringContrast } from './axe';
import {
  BASE_URL,
  DARK,
  expectRefusedSiteFileShown,
  expectBlockedWithUserFix,
  LIGHT,
  recordCopies,
  removeProxyEntry,
  useTheme,
  refusedSiteFile,
  breakProxyEntry,
  missingSidecarScript,
  pageSuite,
  commandEnabled,
  execute,
  expectBesideLauncher,
  expectFirstScreen,
  expectPanelAccessible,
  INITIALIZE_PATH,
  openDisclosure,
  setDisclosures,
  openFromNotification,
  openFromPalette,
  PACKAGE,
  panel,
  PANEL,
  pause,
  projection,
  STARTUP_PATH,
  startupStatus,
  waitForPhase,
  writePluginSetting
} from './panel-helpers';

/**
 * A lab server for these tests, which count the panel's own requests (a Refresh, an opening):
 * the poll is off (refreshInterval 0), so no tick can land among them; live.test.ts tests it.
 */
function startPanelServer(options: LabServerOptions): Promise<LabServer> {
  return startLabServer({
    ...options,
    prepare: dirs => {
      const env = options.prepare?.(dirs);
      writePluginSetting(dirs, { refreshInterval: 0 });
      return env;
    }
  });
}

/** A request the page sent to the sidecar's routes. */
interface SidecarCall {
  method: string;
  path: string;
  /** The `interface` query parameter, or null (JupyterLab adds a cache-busting parameter to GETs). */
  iface: string | null;
  body: string | null;
}

/** "GET /user/alice/project/startup?interface=notebook" */
function describeCall(call: SidecarCall): string {
  return `${call.method} ${call.path}${call.iface === null ? '' : `?interface=${call.iface}`}`;
}

/** Records the page's requests below {base_url}project/ and the statuses they got. */
function recordSidecarCalls(page: Page): {
  calls: SidecarCall[];
  statuses: string[];
} {
  const calls: SidecarCall[] = [];
  const statuses: string[] = [];
  page.on('request', request => {
    const url = new URL(request.url());
    if (url.pathname.startsWith(`${BASE_URL}project/`)) {
      calls.push({
        method: request.method(),
        path: url.pathname,
        iface: url.searchParams.get('interface'),
        body: request.postData()
      });
    }
  });
  page.on('response', response => {
    const url = new URL(response.url());
    if (url.pathname.startsWith(`${BASE_URL}project/`)) {
      statuses.push(
        `${response.request().method()} ${url.pathname} ${response.status()}`
      );
    }
  });
  return { calls, statuses };
}

/** What `jupyter install` wrote, checked as the operator guide says. */
function expectInstalled(dirs: LabServer['dirs']): void {
  const config = JSON.parse(
    fs.readFileSync(
      path.join(dirs.config, 'jupyter_server_config.json'),
      'utf8'
    )
  );
  const entry = config.ServerProxy.servers.project;
  expect(entry).toMatchObject({ unix_socket: true, absolute_url: true });
  expect(entry.command.slice(2)).toEqual(SIDECAR_SERVE_ARGS);
  expect(
    fs.existsSync(
      path.join(dirs.data, 'labextensions', PACKAGE, 'package.json')
    )
  ).toBe(true);
}

/** The value cell of a row of the panel's overview. */
function fact(page: Page, term: string): Locator {
  return panel(page)
    .locator('.jp-ProjectStartup-summary .jp-ProjectStartup-fact')
    .filter({ has: page.locator('dt', { hasText: new RegExp(`^${term}$`) }) })
    .locator('dd');
}

/** Waits (bounded) until the panel's live region (role=status) says exactly `text`. */
async function waitForStatus(
  page: Page,
  text: string,
  timeoutMs = 20000
): Promise<void> {
  const status = page
    .getByRole('region', { name: 'Project Startup' })
    .getByRole('status');
  try {
    await page.waitForFunction(
      ([selector, expected]) =>
        document.querySelector(selector)?.textContent === expected,
      [`${PANEL} [role="status"]`, text] as const,
      { timeout: timeoutMs, polling: 50 }
    );
  } catch {
    throw new Error(
      `the panel's status did not become "${text}"; it says "${await status.textContent()}"`
    );
  }
  await status.waitFor({ state: 'attached' }); // and it is the region's live region, by role
}

/** The focused element, described. */
function focused(page: Page): Promise<{
  tag: string;
  text: string;
  action: string | null;
  inPanel: boolean;
  inDialog: boolean;
  accept: boolean;
}> {
  return page.evaluate(panelSelector => {
    const active = document.activeElement as HTMLElement | null;
    return {
      tag: active?.tagName ?? '',
      text: (active?.textContent ?? '').trim(),
      action: active?.getAttribute('data-action') ?? null,
      inPanel: !!active?.closest(panelSelector),
      inDialog: !!active?.closest('.jp-Dialog'),
      accept: !!active?.classList.contains('jp-mod-accept')
    };
  }, PANEL);
}

/** axe-core on the open dialog. */
async function expectDialogAccessible(page: Page, name: string): Promise<void> {
  await expectAccessible(page, name, ['.jp-Dialog']);
}

/** From now on, every text the panel's live region takes is recorded in the page. */
async function recordAnnouncements(page: Page): Promise<void> {
  await page.evaluate(selector => {
    const g = globalThis as unknown as {
      e2eAnnounced: string[];
      e2eAnnounceObserver?: MutationObserver;
    };
    g.e2eAnnounceObserver?.disconnect();
    g.e2eAnnounced = [];
    let last: string | null =
      document.querySelector(selector)?.textContent ?? null;
    const observer = new MutationObserver(() => {
      const now = document.querySelector(selector)?.textContent ?? null;
      if (now !== null && now !== last) {
        g.e2eAnnounced.push(now);
      }
      last = now;
    });
    observer.observe(document.body, {
      subtree: true,
      childList: true,
      characterData: true
    });
    g.e2eAnnounceObserver = observer;
  }, `${PANEL} [role="status"]`);
}

function announcements(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    (globalThis as unknown as { e2eAnnounced: string[] }).e2eAnnounced.slice()
  );
}

/** WCAG contrast ratio of the focused element's outline against the panel's background. */
function focusRingContrast(page: Page): ReturnType<typeof ringContrast> {
  return ringContrast(page, PANEL);
}

/** The toolbar's Refresh: JupyterLab's ToolbarButton, with the refresh icon and a tooltip. */
async function expectToolbarRefresh(page: Page): Promise<void> {
  const toolbar = panel(page).getByRole('toolbar');
  const refresh = toolbar.getByRole('button', { name: 'Refresh' });
  await refresh.waitFor({ state: 'visible' });
  await expect(
    toolbar
      .locator('.jp-ToolbarButtonComponent[data-action="refresh"]')
      .getAttribute('title')
  ).resolves.toBe('Ask the Project Startup service for the setup state again');
  await expect(
    toolbar
      .locator('[data-action="refresh"] svg[data-icon="ui-components:refresh"]')
      .count()
  ).resolves.toBe(1);
}

/** The panel's tab in the main area: its label and the product's own icon. */
async function expectTabIcon(page: Page): Promise<void> {
  const tab = page.locator('#jp-main-dock-panel .lm-TabBar-tab', {
    hasText: 'Project Startup'
  });
  await tab.waitFor({ state: 'visible' });
  await expect(
    tab.locator('svg[data-icon="jupyterlab-project-startup:icon"]').count()
  ).resolves.toBe(1);
}

interface ManifestValue {
  id: string;
  label: string;
  secretBacked?: boolean;
  approvalModeLabels?: string[];
  excludes?: string;
  doesNotIsolate?: string;
}

/**
 * "What this platform offers" says what the service's manifest says: every capability row with
 * its values, each model source with secret-backed and its approval modes by label, and both
 * sentences of the credential boundary; tables a screen reader reads with their headers.
 */
async function expectOffers(
  page: Page,
  manifest: {
    platform: { label: string };
    policy: { lowRiskAutomation: string };
    capabilities: {
      id: string;
      label: string;
      default?: string;
      values: ManifestValue[];
    }[];
  }
): Promise<void> {
  const section = await openDisclosure(page, 'offers');
  const table = section.getByRole('table', {
    name: `Capabilities of the ${manifest.platform.label}`
  });
  await expect(
    table.getByRole('columnheader').allTextContents()
  ).resolves.toEqual(['Capability', 'Offered']);
  // The model sources and the boundary have their own tables below: each named once.
  const listed = manifest.capabilities.filter(
    c => c.id !== 'model-sources' && c.id !== 'model-credential-boundary'
  );
  await expect(table.getByRole('rowheader').allTextContents()).resolves.toEqual(
    ['Low-risk automation', ...listed.map(c => c.label)]
  );
  for (const capability of listed) {
    const cells = table.locator(
      `tr[data-capability-id="${capability.id}"] td li`
    );
    await expect(cells.allTextContents()).resolves.toEqual(
      capability.values.map(v =>
        v.id === capability.default ? `${v.label} (default)` : v.label
      )
    );
  }
  const sources = manifest.capabilities.find(c => c.id === 'model-sources');
  const sourceTable = section.getByRole('table', { name: sources?.label });
  await expect(
    sourceTable.getByRole('columnheader').allTextContents()
  ).resolves.toEqual(['Model source', 'Secret-backed', 'Approval modes']);
  const rows = await sourceTable
    .locator('tbody tr')
    .evaluateAll(trs =>
      trs.map(tr => Array.from(tr.children).map(c => c.textContent))
    );
  expect(rows).toEqual(
    sources?.values.map(v => [
      v.label,
      v.secretBacked ? 'Yes' : 'No',
      (v.approvalModeLabels ?? []).join(', ')
    ])
  );
  expect(rows.flatMap(r => (r[2] ?? '').split(', '))).toEqual(
    expect.arrayContaining(['Review Every Action'])
  );
  const boundary = manifest.capabilities.find(
    c => c.id === 'model-credential-boundary'
  )?.values[0];
  const text = (await section.textContent()) ?? '';
  expect(text).toContain(boundary?.excludes);
  expect(text).toContain(boundary?.doesNotIsolate);
  expect(boundary?.excludes).toBe(
    'Provider credentials are kept out of supported tools and out of every persisted or interface state.'
  );
  expect(boundary?.doesNotIsolate).toBe(
    'It does not isolate an in-process agent tool from the model client.'
  );
}

/** A screenshot of "What this platform offers" whole: a taller viewport, the section at the top. */
async function screenshotOffers(page: Page, name: string): Promise<void> {
  const size = page.viewportSize();
  await page.setViewportSize({ width: 1280, height: 1800 });
  await panel(page)
    .locator('.jp-ProjectStartup-offers')
    .evaluate(node => node.scrollIntoView({ block: 'start' }));
  await screenshot(page, name);
  await panel(page)
    .locator('.jp-ProjectStartup-title')
    .evaluate(node => node.scrollIntoView({ block: 'start' }));
  if (size) {
    await page.setViewportSize(size);
  }
}

describe('the Project Startup panel in JupyterLab (Chromium, jupyter_server 2.21.1, base_url /user/alice/)', () => {
  let server: LabServer | undefined;
  // Each page's viewport (1280 × 1000) is tall enough for the whole panel.
  const { newPage, expectOnlyProblems, problems } = pageSuite({
    server: () => server,
    forgetServer: () => (server = undefined)
  });

  test('generic platform: palette → awaiting confirmation → dialog → cancel creates nothing → accept → ready', async () => {
    const startedAt = Date.now();
    let installOutput = '';
    server = await startPanelServer({
      baseUrl: BASE_URL,
      label: 'panel-generic-server',
      prepare: dirs => {
        installOutput = jupyterInstall(dirs);
        // The person turned off opening by itself: only the palette opens the panel here.
        writePluginSetting(dirs, { openWhenAwaitingConfirmation: false });
      }
    });
    const s = server;
    expect(installOutput).toContain(
      'Wrote the notebook-server proxy entry "project"'
    );
    expectInstalled(s.dirs);
    const statePath = path.join(s.dirs.project, '.project-startup');
    const recordFile = path.join(statePath, 'initialization.json');

    const p = await newPage();
    const { calls, statuses } = recordSidecarCalls(p);
    const firstStartup = p.waitForResponse(
      r => new URL(r.url()).pathname === STARTUP_PATH,
      { timeout: 30000 }
    );
    await openLab(p, s);
    // The extension is a federated one (beside those the Notebook 7 and Pygments wheels install),
    // listed once though the wheel installed it too: the copy in $JUPYTER_DATA_DIR/labextensions
    // comes first on Jupyter's search path.
    const config = await p.evaluate(() =>
      JSON.parse(
        document.getElementById('jupyter-config-data')?.textContent ?? '{}'
      )
    );
    expect(config.baseUrl).toBe(BASE_URL);
    expect(
      config.federated_extensions.filter(
        (e: { name: string }) => e.name === PACKAGE
      )
    ).toHaveLength(1);
    // The preflight asked the sidecar through the proxy under the base URL, and (setting off)
    // the panel did not open by itself.
    expect((await firstStartup).status()).toBe(200);
    await pause(500);
    expect(await panel(p).count()).toBe(0);

    // JupyterLab's launcher extension opens a Launcher whenever the layout changes while the
    // main area is empty, and a Launcher that appears takes the focus, which closes the modal
    // palette. Open it first, as JupyterLab normally shows one, so nothing races the palette.
    if ((await p.locator('.jp-Launcher').count()) === 0) {
      await execute(p, 'launcher:create');
    }
    await p
      .locator('.jp-Launcher:visible')
      .first()
      .waitFor({ state: 'visible' });

    // Open Project Startup from the command palette, with the keyboard.
    await openFromPalette(p);
    await panel(p).waitFor({ state: 'visible' });
    await waitForPhase(p, 'awaiting-confirmation');
    const region = p.getByRole('region', { name: 'Project Startup' });
    await region.waitFor({ state: 'visible' });
    await waitForStatus(p, 'Setup phase: Awaiting confirmation.');
    const answer = await projection(s);
    expect(answer).toMatchObject({
      platform: 'generic',
      interface: 'notebook',
      phase: 'awaiting-confirmation',
      projectPath: s.dirs.project,
      statePath
    });

    // The first screen: the state in words, its button and who acts, with nothing to scroll.
    expect(answer.nextAction.id).toBe('confirm-initialization');
    await expectFirstScreen(p, {
      heading: 'Set up this project',
      who: 'user',
      action: 'Initialize project'
    });
    await screenshot(p, 'panel-awaiting-confirmation');
    await expectPanelAccessible(p, 'panel-awaiting-confirmation');
    // The rest one click away: this project's folders.
    await openDisclosure(p, 'project');
    await expect(fact(p, 'Platform').textContent()).resolves.toBe(
      'Workstation or container'
    );
    await expect(fact(p, 'Project folder').textContent()).resolves.toBe(
      s.dirs.project
    );
    await expect(fact(p, 'Private setup folder').textContent()).resolves.toBe(
      statePath
    );
    const rows = panel(p).locator('tr[data-check-id]');
    expect(
      await rows.evaluateAll(trs =>
        trs.map(tr => tr.getAttribute('data-check-id'))
      )
    ).toEqual(CHECK_IDS);
    expect(answer.readinessChecks.map((c: { id: string }) => c.id)).toEqual(
      CHECK_IDS
    );
    for (const check of answer.readinessChecks as {
      id: string;
      title: string;
      status: string;
    }[]) {
      const row = panel(p).locator(`tr[data-check-id="${check.id}"]`);
      await expect(row.getAttribute('class')).resolves.toContain(
        `jp-mod-${check.status}`
      );
      await expect(row.locator('th').textContent()).resolves.toContain(
        check.title
      );
    }
    const checks = await openDisclosure(p, 'checks');
    await expect(checks.locator('table').isVisible()).resolves.toBe(true);
    expect(await commandEnabled(p, 'project-startup:initialize')).toBe(true);
    await expectToolbarRefresh(p);
    await expectTabIcon(p);
    await screenshot(p, 'panel-awaiting-confirmation-details');
    await expectPanelAccessible(p, 'panel-awaiting-confirmation-details');
    // The whole manifest, as the service sends it (the same words as the setup page and the command line).
    await expectOffers(p, answer.manifest);
    await screenshotOffers(p, 'panel-offers');

    // Keyboard: the panel's heading has the focus (not Refresh, which would wear a ring the
    // keyboard did not put there); Tab reaches "Initialize project" and Enter presses it.
    await panel(p).locator('.jp-ProjectStartup-title').focus();
    expect(await focused(p)).toMatchObject({ inPanel: true, tag: 'H2' });
    await p.keyboard.press('Tab');
    expect(await focused(p)).toMatchObject({
      inPanel: true,
      action: 'initialize',
      text: 'Initialize project'
    });
    await p.keyboard.press('Enter');
    const dialog = p.locator('.jp-Dialog');
    await dialog.waitFor({ state: 'visible' });
    await expect(
      dialog.locator('.jp-Dialog-header').textContent()
    ).resolves.toContain('Initialize project');
    const body = dialog.locator('.jp-ProjectStartup-dialogBody');
    await expect(
      body.locator('.jp-ProjectStartup-dialogPath').textContent()
    ).resolves.toBe(s.dirs.project);
    const listed = await body
      .locator('.jp-ProjectStartup-paths li')
      .allTextContents();
    expect(listed).toEqual([statePath, recordFile]);
    await expect(body.textContent()).resolves.toContain(
      'Nothing is created if you cancel.'
    );
    await p.waitForTimeout(300); // the dialog's fade-in, for a clear screenshot
    await screenshot(p, 'panel-dialog');
    await expectDialogAccessible(p, 'panel-dialog');

    // Cancel: it has the focus and answers Enter. Nothing is sent, nothing is created.
    expect(await focused(p)).toMatchObject({
      inDialog: true,
      accept: false,
      text: 'Cancel'
    });
    await p.keyboard.press('Enter');
    await dialog.waitFor({ state: 'detached' });
    // The focus is back where it was: on "Initialize project".
    expect(await focused(p)).toMatchObject({
      inPanel: true,
      action: 'initialize'
    });
    await pause(500);
    expect(calls.filter(c => c.method === 'POST')).toEqual([]);
    expect(fs.existsSync(statePath)).toBe(false);
    await waitForPhase(p, 'awaiting-confirmation');
    await waitForStatus(p, 'Setup phase: Awaiting confirmation.');
    expect((await projection(s)).phase).toBe('awaiting-confirmation');

    // Again, and accept (Tab to the accept button, Space presses it).
    await panel(p).getByRole('button', { name: 'Initialize project' }).click();
    await dialog.waitFor({ state: 'visible' });
    // The dialog puts the focus on Cancel (the default button) as it opens.
    await p.waitForFunction(
      () =>
        document.activeElement?.closest('.jp-Dialog') &&
        document.activeElement.textContent?.trim() === 'Cancel',
      undefined,
      {
        timeout: 10000,
        polling: 50
      }
    );
    await p.keyboard.press('Tab');
    expect(await focused(p)).toMatchObject({
      inDialog: true,
      accept: true,
      text: 'Initialize project'
    });
    const initialized = p.waitForResponse(
      r => new URL(r.url()).pathname === INITIALIZE_PATH,
      { timeout: 20000 }
    );
    await recordAnnouncements(p);
    await p.keyboard.press('Space');
    await dialog.waitFor({ state: 'detached' });
    expect((await initialized).status()).toBe(201);
    await waitForPhase(p, 'ready');
    // The live region says so once the refresh that follows initialize is back.
    await waitForStatus(p, 'Project initialized. Setup phase: Ready.');
    await expect(
      panel(p).locator('.jp-ProjectStartup-success').textContent()
    ).resolves.toBe(`Project initialized: ${statePath} was created.`);
    await expect(
      panel(p).locator('.jp-ProjectStartup-phase h3').textContent()
    ).resolves.toBe('Your project is set up');
    // When, in the reader's locale (JupyterLab's Time helpers), not an ISO string.
    const when = panel(p).locator('.jp-ProjectStartup-phase time');
    await expect(when.textContent()).resolves.not.toMatch(/\d{4}-\d\d-\d\dT/);
    await expect(
      panel(p).locator('.jp-ProjectStartup-phase').textContent()
    ).resolves.toMatch(/Set up in JupyterLab or a notebook \([^)]+\)\./);
    expect(
      await panel(p).getByRole('button', { name: 'Initialize project' }).count()
    ).toBe(0);
    expect(await commandEnabled(p, 'project-startup:initialize')).toBe(false);
    // The checks come from the refresh after initialize: confirmation now passes.
    await panel(p)
      .locator('tr[data-check-id="confirmation"].jp-mod-pass')
      .waitFor({ state: 'visible' });
    await p.waitForFunction(
      selector =>
        document.querySelector(`${selector} [aria-busy="false"]`) !== null,
      PANEL,
      { timeout: 20000 }
    );
    // The new phase was announced once: the refresh that followed (same answer) said nothing.
    expect(await announcements(p)).toEqual([
      'Initializing the project…',
      'Project initialized. Setup phase: Ready.'
    ]);

    // Exactly one POST, with the body the dialog confirmed, under the base URL.
    const posts = calls.filter(c => c.method === 'POST');
    expect(posts.map(c => c.path)).toEqual([INITIALIZE_PATH]);
    expect(JSON.parse(posts[0].body ?? '{}')).toEqual({
      interface: 'notebook',
      confirm: { projectPath: s.dirs.project, statePath }
    });
    for (const call of calls.filter(c => c.method === 'GET')) {
      expect(describeCall(call)).toBe(`GET ${STARTUP_PATH}?interface=notebook`);
    }
    // 304: an activation found the answer unchanged (revalidated by its ETag).
    expect(statuses.filter(st => !/ (200|201|304)$/.test(st))).toEqual([]);

    // The state on disk: 0700 directory, 0600 record of what was confirmed, no credential.
    expect(fs.lstatSync(statePath).isDirectory()).toBe(true);
    expect(fs.statSync(statePath).mode & 0o777).toBe(0o700);
    expect(fs.statSync(recordFile).mode & 0o777).toBe(0o600);
    const recordText = fs.readFileSync(recordFile, 'utf8');
    const record = JSON.parse(recordText);
    expect(record).toMatchObject({
      kind: 'project-startup-state',
      projectPath: s.dirs.project,
      statePath,
      platform: 'generic',
      confirmation: {
        interface: 'notebook',
        // A standalone `jupyter lab` puts its token in the page config (JupyterLab's labapp.py;
        // not under JupyterHub), so the page sends "Authorization: token" beside Jupyter's
        // cookies and X-XSRFToken: the XSRF proof still says it is JupyterLab's page.
        method: 'jupyterlab-dialog',
        ingress: 'notebook-server-proxy'
      }
    });
    expect(config.token).toBe(s.token);
    expect(recordText).not.toContain(s.token);
    expect((await projection(s)).phase).toBe('ready');
    await setDisclosures(p, false);
    await expectFirstScreen(p, {
      heading: 'Your project is set up',
      who: null,
      action: null
    });
    await screenshot(p, 'panel-ready');
    await expectPanelAccessible(p, 'panel-ready');

    // The same panel in the dark theme.
    await execute(p, 'apputils:change-theme', { theme: 'JupyterLab Dark' });
    await p.waitForFunction(
      () => document.body.dataset.jpThemeName === 'JupyterLab Dark',
      undefined,
      { timeout: 20000 }
    );
    await waitForSplashGone(p);
    await waitForPhase(p, 'ready');
    await expectFirstScreen(p, {
      heading: 'Your project is set up',
      who: null,
      action: null
    });
    const background = await panel(p).evaluate(
      node => getComputedStyle(node).backgroundColor
    );
    const [r, g, b] = (background.match(/\d+/g) ?? ['255', '255', '255']).map(
      Number
    );
    expect(r + g + b).toBeLessThan(3 * 96); // a dark background, from the theme's variables
    await screenshot(p, 'panel-ready-dark');
    await expectPanelAccessible(p, 'panel-ready-dark');

    expectOnlyProblems();
    expect(s.logs()).not.toContain(s.token);
    expect(Date.now() - startedAt).toBeLessThan(90000);
  }, 120000);

  test('cluster platform (a Jupyter server in a Slurm job): the panel says the notebook interface is unsupported and names the terminal', async () => {
    server = await startPanelServer({
      baseUrl: BASE_URL,
      label: 'panel-cluster-server',
      prepare: dirs => {
        jupyterInstall(dirs);
        // This machine has a real Slurm (/usr/bin/squeue). PATH here holds only what the
        // servers run (python3, node), so the sidecar cannot ask Slurm about job 4242 and
        // reports its liveness unknown: nothing depends on this machine's Slurm state.
        const bin = path.join(dirs.root, 'bin');
        fs.mkdirSync(bin);
        fs.symlinkSync('/usr/bin/python3', path.join(bin, 'python3'));
        fs.symlinkSync(process.execPath, path.join(bin, 'node'));
        return {
          PATH: bin,
          SLURM_JOB_ID: '4242',
          PROJECT_STARTUP_APPROVED_STORAGE: dirs.root
        };
      }
    });
    const s = server;
    expect(fs.readdirSync(path.join(s.dirs.root, 'bin')).sort()).toEqual([
      'node',
      'python3'
    ]);
    const p = await newPage();
    const { calls } = recordSidecarCalls(p);
    await openLab(p, s);
    // Nothing to confirm here: the notification opens the panel.
    await openFromNotification(p);
    await panel(p).waitFor({ state: 'visible', timeout: 30000 });
    await waitForPhase(p, 'unsupported-interface');
    const answer = await projection(s);
    expect(answer).toMatchObject({
      platform: 'cluster',
      interface: 'notebook',
      phase: 'unsupported-interface'
    });
    expect(answer.nextAction.id).toBe('switch-interface');
    expect(answer.compute.allocation).toMatchObject({
      scheduler: 'slurm',
      jobId: '4242',
      live: null
    });
    expect(
      answer.manifest.platform.evidence.signals.map(
        (sig: { name: string }) => sig.name
      )
    ).toContain('SLURM_JOB_ID');
    expect(
      answer.readinessChecks.find(
        (c: { id: string }) => c.id === 'approved-storage'
      )?.status
    ).toBe('pass');

    await waitForStatus(p, 'Setup phase: Interface not supported.');
    const intro = panel(p).locator('.jp-ProjectStartup-phase');
    await expect(intro.locator('h3').textContent()).resolves.toBe(
      'Set this project up in another way'
    );
    await expect(intro.textContent()).resolves.toContain(
      'This platform does not set projects up from JupyterLab.'
    );
    const ways = await intro
      .locator('.jp-ProjectStartup-interfaces li')
      .allTextContents();
    // The one way, named, with how to reach it (the service's text; it has Markdown backticks).
    expect(ways).toHaveLength(1);
    expect(ways[0]).toMatch(
      /^in a terminal: Run `?project-startup status`? in a terminal\.$/
    );
    await expect(fact(p, 'Platform').textContent()).resolves.toBe(
      'Cluster platform'
    );
    await expect(
      panel(p)
        .locator('tr[data-check-id="interface-support"]')
        .getAttribute('class')
    ).resolves.toContain('jp-mod-fail');
    await expect(
      panel(p).locator('.jp-ProjectStartup-summary').textContent()
    ).resolves.toContain('slurm job 4242');
    // Nothing here lets the person initialize from JupyterLab.
    expect(
      await panel(p).getByRole('button', { name: 'Initialize project' }).count()
    ).toBe(0);
    expect(await commandEnabled(p, 'project-startup:initialize')).toBe(false);
    await screenshot(p, 'panel-unsupported');
    await expectPanelAccessible(p, 'panel-unsupported');

    // Refresh is reachable from the keyboard too (Space on it) and asks again.
    const before = calls.length;
    await panel(p).getByRole('button', { name: 'Refresh' }).focus();
    await p.keyboard.press('Space');
    const deadline = Date.now() + 10000;
    while (calls.length === before && Date.now() < deadline) {
      await pause(50);
    }
    expect(calls.slice(before).map(describeCall)).toEqual([
      `GET ${STARTUP_PATH}?interface=notebook`
    ]);
    await waitForStatus(p, 'Setup phase: Interface not supported.');
    await waitForPhase(p, 'unsupported-interface');
    expect(calls.filter(c => c.method === 'POST')).toEqual([]);
    expect(fs.existsSync(path.join(s.dirs.project, '.project-startup'))).toBe(
      false
    );
    await useTheme(p, DARK);
    await screenshot(p, 'panel-unsupported-dark');
    await expectPanelAccessible(p, 'panel-unsupported-dark');
    expectOnlyProblems();
  }, 120000);

  test('not enabled: without the proxy entry the panel says so and how an operator enables it', async () => {
    server = await startPanelServer({
      baseUrl: BASE_URL,
      label: 'panel-not-enabled-server',
      // JupyterLab as pip installs it, without the wheel: its entry point and server extension
      // would otherwise be there.
      wheel: false,
      prepare: dirs => {
        jupyterInstall(dirs);
        removeProxyEntry(dirs);
      }
    });
    const s = server;
    const p = await newPage();
    await openLab(p, s);
    await openFromNotification(p);
    await panel(p).waitFor({ state: 'visible', timeout: 30000 });
    const section = panel(p).locator('.jp-ProjectStartup-notEnabled');
    await section.waitFor({ state: 'visible' });
    await waitForStatus(
      p,
      'The Project Startup service is not enabled on this Jupyter server.'
    );
    await expectFirstScreen(p, {
      heading: 'Project Startup is not set up on this server',
      who: 'administrator',
      action: 'Copy details for your administrator'
    });
    const details = await openDisclosure(p, 'administrator');
    const text = (await details.textContent()) ?? '';
    expect(text).toContain(
      `answered "not found" (HTTP 404) for ${s.base}project/startup?interface=notebook`
    );
    expect(text).toContain('In the environment that runs the Jupyter server:');
    const steps = await details
      .locator('.jp-ProjectStartup-steps li')
      .allTextContents();
    expect(steps).toEqual([
      'Install jupyter-server-proxy in that environment.',
      'Run project-startup jupyter install --sys-prefix in that environment.',
      'Restart the Jupyter server.'
    ]);
    expect(text).toContain('operator guide in the README');
    await expectPanelAccessible(p, 'panel-not-enabled-details');
    await setDisclosures(p, false);
    expect(
      await panel(p).locator('.jp-ProjectStartup-phaseBadge').count()
    ).toBe(0);
    expect(await commandEnabled(p, 'project-startup:initialize')).toBe(false);
    await screenshot(p, 'panel-not-enabled');
    await expectPanelAccessible(p, 'panel-not-enabled');
    await useTheme(p, DARK);
    await screenshot(p, 'panel-not-enabled-dark');
    await expectPanelAccessible(p, 'panel-not-enabled-dark');
    // Expected: Jupyter's 404 for {base_url}project/startup (and Chromium's console line for it).
    expectOnlyProblems(startupStatus(404));
    expect(problems()?.unexpected().length).toBeGreaterThan(0);
  }, 120000);

  test('failing: a proxy entry whose command exits non-zero gives a failure with a way forward', async () => {
    server = await startPanelServer({
      baseUrl: BASE_URL,
      label: 'panel-failing-server',
      // JupyterLab as pip installs it, without the wheel: its entry point and server extension
      // would otherwise be there.
      wheel: false,
      prepare: dirs => {
        jupyterInstall(dirs);
        breakProxyEntry(dirs);
      }
    });
    const s = server;
    const p = await newPage();
    const { calls, statuses } = recordSidecarCalls(p);
    const firstAsked = p.waitForRequest(
      r => new URL(r.url()).pathname === STARTUP_PATH,
      { timeout: 30000 }
    );
    await openLab(p, s);
    // Opened while the first answer is on its way (the proxy retries the command until its
    // start-up timeout): the panel says it is checking, and is busy.
    await firstAsked;
    await execute(p, 'project-startup:open');
    await panel(p).waitFor({ state: 'visible', timeout: 30000 });
    if ((await panel(p).locator('.jp-ProjectStartup-failing').count()) === 0) {
      await expect(
        panel(p).locator('.jp-ProjectStartup-loading').textContent()
      ).resolves.toBe('Checking the project setup…');
      await expect(
        panel(p).locator('[aria-busy]').getAttribute('aria-busy')
      ).resolves.toBe('true');
      await expect(panel(p).getByRole('status').textContent()).resolves.toBe(
        'Checking the project setup…'
      );
      await screenshot(p, 'panel-loading');
    }
    const section = panel(p).locator('.jp-ProjectStartup-failing');
    await section.waitFor({ state: 'visible', timeout: 30000 });
    await waitForStatus(p, 'The Project Startup service is failing.');
    await expect(section.locator('h3').first().textContent()).resolves.toBe(
      'Project Startup cannot start'
    );
    const text = (await section.textContent()) ?? '';
    expect(text).toContain(
      `The request to ${s.base}project/startup?interface=notebook failed with HTTP 500`
    );
    // The proxy's 500 with the server extension's answer: nothing the person can do here.
    expect(text).toContain(
      'Only your administrator can fix this: copy the details and send them in a message.'
    );
    await expectFirstScreen(p, {
      heading: 'Project Startup cannot start',
      who: 'administrator',
      action: 'Copy details for your administrator'
    });
    // No server extension here (the npm route): the panel says the diagnostics are unavailable
    // and where the sidecar's log is.
    expect(text).toContain(
      `Diagnostics are unavailable: ${s.base}api/project-startup/diagnostics answered HTTP 404, so the server extension of jupyterlab-project-startup is not installed on this Jupyter server (as with an npm-only install).`
    );
    expect(text).toContain(
      "The service's log is in the Jupyter server's log: the output (stderr) of jupyter server, jupyter lab or jupyter notebook."
    );
    // The log the panel points to says what is wrong.
    const cause = `Cannot find module '${missingSidecarScript(s.dirs)}'`;
    expect(s.logs()).toContain(cause);
    // The proxy (simpervisor) restarted the command each time it exited non-zero, until its
    // start-up timeout: Node said so more than once. (It logs the restarts at debug level only.)
    const launches = s.logs().split(cause).length - 1;
    expect(launches).toBeGreaterThanOrEqual(2);
    // Then it gave up, killed the command and answered 500. The real proxy logs why in one of two
    // ways: "could not start project in time", or, when its kill lands just after the command
    // exited on its own, an uncaught ProcessLookupError from simpervisor 1.0's kill (asyncio will
    // not signal a process it has reaped; seen in CI). Tornado logs the request once it has
    // answered, so the line may reach the server's pipe after the panel shows the answer: wait for
    // it, bounded.
    const startupRequest = String.raw`GET /user/alice/project/startup\?interface=notebook\S* \(127\.0\.0\.1\)`;
    const gaveUp = new RegExp(
      String.raw`500 ${startupRequest}: could not start project in time|Uncaught exception ${startupRequest}[\s\S]*?\bProcessLookupError\b`
    );
    await waitFor(() => gaveUp.test(s.logs()), {
      what: "the proxy's log line for the given-up launch",
      timeoutMs: 5000
    });
    expect(s.logs()).not.toContain(s.token);
    await screenshot(p, 'panel-failing');
    await expectPanelAccessible(p, 'panel-failing');

    // The way forward works from the keyboard: focus Refresh, press Enter, it asks again.
    const before = calls.length;
    await panel(p).getByRole('button', { name: 'Refresh' }).focus();
    await p.keyboard.press('Enter');
    await waitForStatus(p, 'Checking the project setup…');
    // The proxy takes its start-up timeout to give up: the panel says it is checking meanwhile.
    await screenshot(p, 'panel-checking');
    await waitForStatus(p, 'The Project Startup service is failing.', 30000);
    // One press, one request (the toolbar button does not also act on the click the key makes).
    expect(calls.slice(before).map(describeCall)).toEqual([
      `GET ${STARTUP_PATH}?interface=notebook`
    ]);
    // Every answer was the proxy's 500: the first one, the quiet one when the panel was shown, the pressed one.
    expect(statuses.length).toBeGreaterThanOrEqual(2);
    expect(new Set(statuses)).toEqual(new Set([`GET ${STARTUP_PATH} 500`]));
    expect(fs.existsSync(path.join(s.dirs.project, '.project-startup'))).toBe(
      false
    );
    await useTheme(p, DARK);
    await screenshot(p, 'panel-failing-dark');
    await expectPanelAccessible(p, 'panel-failing-dark');
    // Expected: the proxy's 500 for {base_url}project/startup (and Chromium's console line).
    expectOnlyProblems(startupStatus(500));
  }, 120000);
  test('keyboard only, dark theme: focus ring, the dialog traps the focus and gives it back, one announcement per phase', async () => {
    server = await startPanelServer({
      baseUrl: BASE_URL,
      label: 'panel-keyboard-server',
      prepare: dirs => {
        jupyterInstall(dirs);
        // The person chose the dark theme before: JupyterLab starts with it.
        const themes = path.join(
          dirs.settings,
          '@jupyterlab',
          'apputils-extension'
        );
        fs.mkdirSync(themes, { recursive: true });
        fs.writeFileSync(
          path.join(themes, 'themes.jupyterlab-settings'),
          JSON.stringify({ theme: DARK })
        );
      }
    });
    const s = server;
    const p = await newPage();
    const { calls } = recordSidecarCalls(p);
    await openLab(p, s);
    await p.waitForFunction(
      t => document.body.dataset.jpThemeName === t,
      DARK,
      { timeout: 20000 }
    );
    // Setup awaits the confirmation: the panel opens by itself beside the Launcher (which keeps
    // its place) and takes no focus.
    await panel(p).waitFor({ state: 'visible', timeout: 30000 });
    await waitForPhase(p, 'awaiting-confirmation');
    await waitForStatus(p, 'Setup phase: Awaiting confirmation.');
    await expectBesideLauncher(p);
    await screenshot(p, 'panel-opened-by-itself-dark');
    expect((await focused(p)).inPanel).toBe(false);
    await expectFirstScreen(p, {
      heading: 'Set up this project',
      who: 'user',
      action: 'Initialize project'
    });
    await screenshot(p, 'panel-awaiting-confirmation-dark');
    await expectPanelAccessible(p, 'panel-awaiting-confirmation-dark');
    await setDisclosures(p, true);
    await expectPanelAccessible(p, 'panel-awaiting-confirmation-dark-details');
    await setDisclosures(p, false);
    await expectOffers(p, (await projection(s)).manifest);
    await screenshotOffers(p, 'panel-offers-dark');

    // Every action is reachable with Tab, and the focus is visible: a ring of at least 3:1
    // against the panel's background (WCAG 2.1 1.4.11), in this theme and in the light one.
    // Refresh is the toolbar's, above the heading: Shift+Tab from the heading reaches it.
    await panel(p).getByRole('heading', { name: 'Project Startup' }).focus();
    await p.keyboard.press('Shift+Tab');
    expect(await focused(p)).toMatchObject({
      inPanel: true,
      action: 'refresh'
    });
    const ringDark = await focusRingContrast(p);
    expect(ringDark.outline).toMatch(/^solid /);
    expect(parseFloat(ringDark.width)).toBeGreaterThanOrEqual(2);
    expect(ringDark.ratio).toBeGreaterThanOrEqual(3);
    await p.keyboard.press('Tab');
    expect(await focused(p)).toMatchObject({
      inPanel: true,
      action: 'initialize',
      text: 'Initialize project'
    });
    expect((await focusRingContrast(p)).ratio).toBeGreaterThanOrEqual(3);
    await screenshot(p, 'panel-focus-ring-dark');

    // The dialog: opened with Enter, it holds the focus whatever Tab or Shift+Tab does.
    await p.keyboard.press('Enter');
    const dialog = p.locator('.jp-Dialog');
    await dialog.waitFor({ state: 'visible' });
    await p.waitForTimeout(300); // the dialog's fade-in, for a clear screenshot
    await screenshot(p, 'panel-dialog-dark');
    await expectDialogAccessible(p, 'panel-dialog-dark');
    expect(await focused(p)).toMatchObject({ inDialog: true, text: 'Cancel' });
    const seen = new Set<string>();
    for (let i = 0; i < 6; i++) {
      await p.keyboard.press('Tab');
      const now = await focused(p);
      expect(now.inDialog).toBe(true);
      seen.add(now.text);
    }
    for (let i = 0; i < 6; i++) {
      await p.keyboard.press('Shift+Tab');
      expect((await focused(p)).inDialog).toBe(true);
    }
    // Tab went round both buttons (and stayed inside).
    expect([...seen]).toEqual(
      expect.arrayContaining(['Cancel', 'Initialize project'])
    );
    // Escape closes it, sends nothing, and the focus returns to "Initialize project".
    await p.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(await focused(p)).toMatchObject({
      inPanel: true,
      action: 'initialize',
      text: 'Initialize project'
    });
    expect(calls.filter(c => c.method === 'POST')).toEqual([]);

    // An unchanged answer announces nothing: the panel closed and opened again asks the
    // service once more (the same answer) and its live region keeps its text.
    await p.evaluate(id => {
      const g = globalThis as unknown as {
        jupyterapp: {
          shell: {
            widgets(area: string): Iterable<{ id: string; close(): void }>;
          };
        };
      };
      for (const widget of g.jupyterapp.shell.widgets('main')) {
        if (widget.id === id) {
          widget.close();
        }
      }
    }, PANEL.slice(1));
    await panel(p).waitFor({ state: 'detached' });
    await recordAnnouncements(p);
    const before = calls.length;
    const asked = p.waitForResponse(
      r => new URL(r.url()).pathname === STARTUP_PATH,
      { timeout: 20000 }
    );
    await execute(p, 'project-startup:open');
    // The panel opened again asks afresh: a whole answer, or an empty 304 while it is unchanged.
    expect([200, 304]).toContain((await asked).status());
    await p.waitForFunction(
      selector =>
        document.querySelector(`${selector} [aria-busy="false"]`) !== null,
      PANEL,
      { timeout: 20000 }
    );
    await pause(300);
    expect(calls.slice(before).map(describeCall)).toEqual([
      `GET ${STARTUP_PATH}?interface=notebook`
    ]);
    expect(await announcements(p)).toEqual([
      'Setup phase: Awaiting confirmation.'
    ]);

    // The same focus ring in the light theme.
    await useTheme(p, LIGHT);
    await panel(p).getByRole('button', { name: 'Refresh' }).focus();
    await p.keyboard.press('Tab');
    await p.keyboard.press('Shift+Tab');
    expect(await focused(p)).toMatchObject({
      inPanel: true,
      action: 'refresh'
    });
    const ringLight = await focusRingContrast(p);
    expect(ringLight.ratio).toBeGreaterThanOrEqual(3);
    await screenshot(p, 'panel-focus-ring');
    expectOnlyProblems();
  }, 120000);

  test('a failed initialize, then blocked: the state path became a file after the panel showed it, in both themes', async () => {
    server = await startPanelServer({
      baseUrl: BASE_URL,
      label: 'panel-blocked-server',
      prepare: dirs => void jupyterInstall(dirs)
    });
    const s = server;
    const statePath = path.join(s.dirs.project, '.project-startup');
    const p = await newPage();
    const { calls } = recordSidecarCalls(p);
    await openLab(p, s);
    // Setup waits for the person's confirmation: the panel opens by itself.
    await panel(p).waitFor({ state: 'visible', timeout: 30000 });
    await waitForPhase(p, 'awaiting-confirmation');
    await expectTabIcon(p);

    // Meanwhile something else takes the private state path: not a directory this service made.
    fs.writeFileSync(statePath, 'not a state directory\n');
    await panel(p).getByRole('button', { name: 'Initialize project' }).click();
    const dialog = p.locator('.jp-Dialog');
    await dialog.waitFor({ state: 'visible' });
    const refused = p.waitForResponse(
      r => new URL(r.url()).pathname === INITIALIZE_PATH,
      { timeout: 20000 }
    );
    await dialog.getByRole('button', { name: 'Initialize project' }).click();
    await dialog.waitFor({ state: 'detached' });
    const refusal = await refused;
    expect(refusal.status()).toBe(409);
    // The alert says why, with the service's problem code, and the panel shows the new phase.
    const alert = panel(p).getByRole('alert');
    await alert.waitFor({ state: 'visible', timeout: 20000 });
    await waitForStatus(p, 'Initialization failed. Setup phase: Blocked.');
    await waitForPhase(p, 'blocked');
    const alertText = (await alert.textContent()) ?? '';
    expect(alertText).toMatch(/^Initialization failed/);
    expect(alertText).toMatch(/Problem code: (wrong-phase|state-unsafe)/);
    await screenshot(p, 'panel-initialize-failed');
    await expectPanelAccessible(p, 'panel-initialize-failed');

    // Refresh (a mouse click on the toolbar's button) asks once and clears the old notice.
    const before = calls.length;
    await panel(p)
      .getByRole('toolbar')
      .getByRole('button', { name: 'Refresh' })
      .click();
    await waitForStatus(p, 'Setup phase: Blocked.');
    await pause(300);
    // The click asks the service; the same click may also activate the panel (the dialog had
    // the focus), whose quiet refresh shares the request in flight or, when that one already
    // answered (a loaded machine delays Lumino's activate-request), asks once more: only
    // startup GETs, one or two, never anything else.
    const afterRefresh = calls.slice(before).map(describeCall);
    expect(afterRefresh.length).toBeGreaterThanOrEqual(1);
    expect(afterRefresh.length).toBeLessThanOrEqual(2);
    expect(new Set(afterRefresh)).toEqual(
      new Set([`GET ${STARTUP_PATH}?interface=notebook`])
    );
    expect(await panel(p).getByRole('alert').count()).toBe(0);
    const answer = await projection(s);
    expect(answer.phase).toBe('blocked');
    expect(
      answer.readinessChecks.find((c: { id: string }) => c.id === 'state-path')
        ?.status
    ).toBe('fail');
    await expect(
      panel(p).locator('tr[data-check-id="state-path"]').getAttribute('class')
    ).resolves.toContain('jp-mod-fail');
    await expect(
      panel(p)
        .locator(
          'tr[data-check-id="state-path"] .jp-ProjectStartup-checkStatus'
        )
        .textContent()
    ).resolves.toBe('Fail');
    // The person's own fix: who acts, the fix and Check again on the first screen.
    await expectBlockedWithUserFix(p, 'panel-blocked');
    expect(fs.readFileSync(statePath, 'utf8')).toBe('not a state directory\n');
    // Expected: the sidecar's 409 for the initialize (and Chromium's console line for it).
    expectOnlyProblems(
      problem =>
        problem.path === INITIALIZE_PATH &&
        problem.status === 409 &&
        (problem.kind === 'http' || problem.kind === 'console-error')
    );
  }, 120000);

  test('misconfigured (a refused site file), with a credential in the environment: one line per problem, the administrator acts, the copied report names the file and line and no credential', async () => {
    const site = refusedSiteFile();
    server = await startPanelServer({
      baseUrl: BASE_URL,
      label: 'panel-misconfigured-server',
      prepare: dirs => {
        jupyterInstall(dirs);
        return site.prepare(dirs);
      }
    });
    const s = server;
    const p = await newPage();
    await recordCopies(p);
    await openLab(p, s);
    await openFromNotification(p);
    await panel(p).waitFor({ state: 'visible', timeout: 30000 });
    await expectRefusedSiteFileShown(p, 'panel-misconfigured', {
      file: site.file,
      versions: 'Versions: JupyterLab 4.6.4',
      token: s.token
    });
    // Expected: the sidecar's 503 misconfigured through the proxy (and Chromium's console line).
    expectOnlyProblems(startupStatus(503));
  }, 120000);
});
