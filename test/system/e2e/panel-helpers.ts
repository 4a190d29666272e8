// What the browser tests of the project's own extension share (panel, notifications, live,
// live-allocation, Notebook 7, the wheel's lab): where the extension lives under Jupyter's
// base_url, its settings file and proxy entry, and the page-side steps (the panel, its phase,
// its commands through window.jupyterapp, the palette, the notifications' action), so each test
// says only what it checks.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { expectAccessible } from './axe';
import {
  Browser,
  checkPrerequisites,
  httpRequest,
  LabServer,
  launchBrowser,
  PageProblem,
  PageProblems,
  PROJECT_LABEXTENSION,
  screenshot,
  stopAllLabServers,
  waitForSplashGone
} from './helpers';
import type { StartupProjection } from '../../../src/tokens';
import { delay } from '../../helpers/wait';

/** Jupyter's base_url in these tests (as JupyterHub gives a user's server). */
export const BASE_URL = '/user/alice/';
export const STARTUP_PATH = `${BASE_URL}project/startup`;
export const INITIALIZE_PATH = `${BASE_URL}project/initialize`;
/** The Python package's diagnostics route (a 404 where only the npm package is installed). */
export const DIAGNOSTICS_PATH = `${BASE_URL}api/project-startup/diagnostics`;
export const PACKAGE = 'jupyterlab-project-startup';
export const PLUGIN = `${PACKAGE}:plugin`;
export const PANEL = '#jp-project-startup-panel';
export const GUIDE = '#jp-project-startup-user-guide';
export const STATUS_ITEM = '.jp-ProjectStartup-statusItem';
export const STATUS_BUTTON = `${STATUS_ITEM} [role="button"]`;

/** Fails (with what to do) when the project's prebuilt extension has not been built. */
export function checkExtensionBuilt(): void {
  if (!fs.existsSync(path.join(PROJECT_LABEXTENSION, 'package.json'))) {
    throw new Error(
      `The project's prebuilt extension is missing (${PROJECT_LABEXTENSION}): run \`npm run build\` first.`
    );
  }
}

/** The user's settings file of the plugin (JupyterLab's user-settings directory). */
export function pluginSettingsFile(dirs: LabServer['dirs']): string {
  return path.join(dirs.settings, PACKAGE, 'plugin.jupyterlab-settings');
}

/** The person's own settings for the plugin (JupyterLab's user-settings directory), added to those written before. */
export function writePluginSetting(
  dirs: LabServer['dirs'],
  values: Record<string, unknown>
): void {
  const file = pluginSettingsFile(dirs);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const before: Record<string, unknown> = fs.existsSync(file)
    ? (JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>)
    : {};
  fs.writeFileSync(file, JSON.stringify({ ...before, ...values }, null, 2));
}

/** The `project` entry in the files `jupyter install` wrote, changed by `change`. */
function editProxyEntry(
  dirs: LabServer['dirs'],
  change: (entry: Record<string, unknown>) => void
): void {
  for (const file of [
    path.join(dirs.config, 'jupyter_server_config.json'),
    path.join(dirs.config, 'jupyter_server_config.d', `${PACKAGE}.json`)
  ]) {
    const config = JSON.parse(fs.readFileSync(file, 'utf8')) as {
      ServerProxy: { servers: { project: Record<string, unknown> } };
    };
    change(config.ServerProxy.servers.project);
    fs.writeFileSync(file, JSON.stringify(config, null, 2));
  }
}

/**
 * Removes the `project` entry `jupyter install` wrote (the extension stays installed), as when
 * it was removed or the install was only half done: Jupyter has nothing at {base_url}project/.
 */
export function removeProxyEntry(dirs: LabServer['dirs']): void {
  fs.rmSync(path.join(dirs.config, 'jupyter_server_config.json'));
  fs.rmSync(path.join(dirs.config, 'jupyter_server_config.d'), {
    recursive: true
  });
}

/**
 * Makes the `project` entry's command exit non-zero before it listens, as a broken install
 * would: the sidecar's script is missing, so Node says "Cannot find module" and exits 1. (A bad
 * PROJECT_STARTUP_* setting no longer does this under the proxy: the sidecar stays up and
 * answers 503 misconfigured, see test/system/e2e/misconfigured-proxy.test.ts.) The proxy's own default
 * start-up timeout (5 s) instead of the installed 20 s keeps the test short; the proxy restarts
 * the failing command until then.
 */
export function breakProxyEntry(dirs: LabServer['dirs']): void {
  editProxyEntry(dirs, entry => {
    const [node, , ...args] = entry.command as string[];
    entry.command = [node, missingSidecarScript(dirs), ...args];
    entry.timeout = 5;
  });
}

/** The sidecar script breakProxyEntry names: it does not exist. */
export function missingSidecarScript(dirs: LabServer['dirs']): string {
  return path.join(dirs.root, 'removed', 'project-startup.js');
}

/** The service's own answer for the notebook interface, through Jupyter (a GET changes nothing). */
export async function projection(
  server: Pick<LabServer, 'base' | 'token'>
): Promise<StartupProjection> {
  const answer = await httpRequest(
    `${server.base}project/startup?interface=notebook`,
    { headers: { authorization: `token ${server.token}` } }
  );
  expect(answer.status).toBe(200);
  return answer.json;
}

/**
 * Problems a page may have where the service answers `status`: that answer of
 * {base_url}project/startup (and Chromium's console line), then the panel's request to the
 * Python package's diagnostics route, a 404 here (npm install: no server extension).
 */
export function startupStatus(
  status: number
): (problem: PageProblem) => boolean {
  return problem =>
    ((problem.path === STARTUP_PATH && problem.status === status) ||
      (problem.path === DIAGNOSTICS_PATH && problem.status === 404)) &&
    (problem.kind === 'http' || problem.kind === 'console-error');
}

/** Pacing between steps: the one helper's delay (test/helpers/wait.ts), under the suites' name. */
export const pause = delay;

export function panel(page: Page): Locator {
  return page.locator(PANEL);
}

/** Waits (bounded) for the panel's phase badge. */
export async function waitForPhase(
  page: Page,
  phase: string,
  timeoutMs = 30000
): Promise<void> {
  await panel(page)
    .locator(`.jp-ProjectStartup-phaseBadge.jp-mod-${phase}`)
    .waitFor({ state: 'visible', timeout: timeoutMs });
}

/**
 * axe-core on the panel: nothing serious or critical under WCAG 2.1 A/AA (./axe.ts), with the
 * viewport grown to the whole content of the element that scrolls (the panel's content region
 * inside its MainAreaWidget where there is one, else the panel).
 */
export async function expectPanelAccessible(
  page: Page,
  name: string
): Promise<void> {
  const region = `${PANEL} .jp-ProjectStartup-region`;
  const fit = (await page.locator(region).count()) > 0 ? region : PANEL;
  await expectAccessible(page, name, [PANEL], { fit });
}

/** The application as these tests read it in the page (window.jupyterapp). */
interface PageApp {
  commands: {
    keyBindings: readonly { command: string }[];
    isEnabled(id: string): boolean;
    execute(id: string, args: unknown): Promise<unknown>;
  };
}

/** Whether a command of window.jupyterapp is enabled. */
export function commandEnabled(page: Page, id: string): Promise<boolean> {
  return page.evaluate(command => {
    const g = globalThis as unknown as { jupyterapp: PageApp };
    return g.jupyterapp.commands.isEnabled(command);
  }, id);
}

/**
 * Starts a command of window.jupyterapp without waiting for it (a dialog it opens stays open);
 * its result, once there, is in window.e2eLastResult.
 */
export function execute(
  page: Page,
  command: string,
  args: Record<string, unknown> = {}
): Promise<void> {
  return page.evaluate(
    ([id, a]) => {
      const g = globalThis as unknown as {
        jupyterapp: PageApp;
        e2eLastResult?: unknown;
      };
      g.e2eLastResult = undefined;
      void g.jupyterapp.commands
        .execute(id, a)
        .then(result => (g.e2eLastResult = result));
    },
    [command, args] as const
  );
}

/** Opens "Open Project Startup" from the command palette with the keyboard only. */
export async function openFromPalette(page: Page): Promise<void> {
  // The shortcut exists once the host's shortcuts plugin has read its settings.
  await page.waitForFunction(
    () => {
      const g = globalThis as unknown as { jupyterapp: PageApp };
      return g.jupyterapp.commands.keyBindings.some(
        b => b.command === 'apputils:activate-command-palette'
      );
    },
    undefined,
    { timeout: 20000, polling: 100 }
  );
  await chooseFromPalette(
    page,
    'Open Project Startup',
    'Open Project Startup',
    {
      keyboard: true
    }
  );
}

/**
 * Opens the modal command palette with its shortcut, types `query` and runs the first item
 * showing `itemText`: with Enter on the active item (`keyboard`), else with a click; `onShown`
 * runs once the item shows. The palette closes whenever any command runs
 * (ModalCommandPalette.hideAndReset), and on a loaded machine JupyterLab's own start-up route
 * (`router:tree`) can run a moment after the page looks ready (measured: 120-300 ms after the
 * palette opened, at a load average of 12): a palette closed under the test is opened again, at
 * most three times.
 */
export async function chooseFromPalette(
  page: Page,
  query: string,
  itemText: string,
  options: { keyboard?: boolean; onShown?: () => Promise<void> } = {}
): Promise<void> {
  const palette = page.locator('.jp-ModalCommandPalette');
  for (let attempt = 1; ; attempt += 1) {
    try {
      await page.keyboard.press('Control+Shift+C');
      await palette.waitFor({ state: 'visible' });
      await palette.locator('input').fill(query, { timeout: 5000 });
      const item = palette
        .locator(
          options.keyboard
            ? '.lm-CommandPalette-item.lm-mod-active'
            : '.lm-CommandPalette-item'
        )
        .filter({ hasText: itemText })
        .first();
      await item.waitFor({ state: 'visible', timeout: 10000 });
      await options.onShown?.();
      if (options.keyboard) {
        await page.keyboard.press('Enter');
      } else {
        await item.click({ timeout: 5000 });
      }
      await palette.waitFor({ state: 'hidden', timeout: 10000 });
      return;
    } catch (error) {
      if (attempt >= 3 || (await palette.isVisible())) {
        throw error;
      }
    }
  }
}

/**
 * Outside awaiting-confirmation the panel does not open by itself: the state's notification
 * does, with its "Open Project Startup" action (which also closes it; test/system/e2e/notifications.test.ts).
 */
export async function openFromNotification(
  page: Page,
  timeoutMs = 30000
): Promise<void> {
  const button = page.locator(
    '.jp-toastContainer .Toastify__toast .jp-toast-button',
    { hasText: 'Open Project Startup' }
  );
  await button.waitFor({ state: 'visible', timeout: timeoutMs });
  await button.click();
  await button.waitFor({ state: 'detached', timeout: 10000 });
}

/** A new page of `browser` with its problems recorded (1280 wide, `height` tall). */
export async function newProblemPage(
  browser: Browser | undefined,
  height = 1000
): Promise<{ page: Page; problems: PageProblems }> {
  const page = await (browser as Browser).newPage();
  await page.setViewportSize({ width: 1280, height });
  return { page, problems: new PageProblems(page) };
}

/** Fails, listing them with the tail of the server's log, on the page's problems `allowed` does not admit. */
function expectOnlyProblems(
  problems: PageProblems | undefined,
  server: { logs(): string } | undefined,
  allowed: (problem: PageProblem) => boolean = () => false
): void {
  const found = (problems as PageProblems).unexpected(allowed);
  if (found.length > 0) {
    throw new Error(
      `page problems:\n  ${found.join('\n  ')}\n--- server log (tail) ---\n${server?.logs().slice(-3000)}`
    );
  }
}

/** What a describe block of pageSuite tests gets: its pages and their problems. */
export interface PageSuite {
  /** A new page with its problems recorded (the test's previous page, if any, closed). */
  newPage(): Promise<Page>;
  /** Fails on the current page's problems that `allowed` (or the suite's `alwaysAllowed`) does not admit. */
  expectOnlyProblems(allowed?: (problem: PageProblem) => boolean): void;
  /** The current page's problems. */
  problems(): PageProblems | undefined;
}

/**
 * The hooks of a describe block whose tests each start a Jupyter server (kept by the test in its
 * own variable, read through `server`) and open pages of it in one Chromium: Chromium launched
 * once after the checks (Chromium, Jupyter, the built extension; then `prepare`); after each
 * test the page closed and the server stopped (`forgetServer` clears the test's variable); at
 * the end the browser closed and any server left stopped.
 */
export function pageSuite(options: {
  server: () => { stop(): Promise<unknown>; logs(): string } | undefined;
  forgetServer: () => void;
  /** The viewport's height (1280 wide). */
  height?: number;
  /**
   * Whether to check first for Chromium, Jupyter, the host app and the extension built from this
   * checkout (default); false where the extension comes from elsewhere (a wheel's data files).
   */
  checkBuilt?: boolean;
  /** More checks before Chromium starts. */
  prepare?: () => void;
  /** Problems the host itself has, admitted in every test. */
  alwaysAllowed?: (problem: PageProblem) => boolean;
}): PageSuite {
  let browser: Browser | undefined;
  let page: Page | undefined;
  let problems: PageProblems | undefined;
  const always = options.alwaysAllowed ?? (() => false);

  beforeAll(async () => {
    if (options.checkBuilt ?? true) {
      checkPrerequisites();
      checkExtensionBuilt();
    }
    options.prepare?.();
    browser = await launchBrowser();
  }, 90000);

  afterEach(async () => {
    await page?.close().catch(() => undefined);
    page = undefined;
    await options.server()?.stop();
    options.forgetServer();
  }, 60000);

  afterAll(async () => {
    await browser?.close();
    await stopAllLabServers();
  }, 60000);

  return {
    newPage: async () => {
      await page?.close().catch(() => undefined);
      ({ page, problems } = await newProblemPage(browser, options.height));
      return page;
    },
    expectOnlyProblems: (allowed = () => false) =>
      expectOnlyProblems(
        problems,
        options.server(),
        problem => allowed(problem) || always(problem)
      ),
    problems: () => problems
  };
}

/** Opens one of the panel's disclosures (a native <details>) by clicking its summary. */
export async function openDisclosure(page: Page, id: string): Promise<Locator> {
  const details = panel(page).locator(`details[data-disclosure="${id}"]`);
  if (!(await details.evaluate(d => (d as HTMLDetailsElement).open))) {
    await details.locator('summary').click();
  }
  await details.locator('.jp-ProjectStartup-disclosureBody').waitFor({
    state: 'visible'
  });
  return details;
}

/** Every disclosure of the panel opened or closed, as axe is to see it. */
export async function setDisclosures(page: Page, open: boolean): Promise<void> {
  await panel(page)
    .locator('details[data-disclosure]')
    .evaluateAll((all, want) => {
      for (const d of all as HTMLDetailsElement[]) {
        d.open = want;
      }
    }, open);
}

/**
 * The first screen at 1400 × 850: the state in words, the one thing to do (its button, when the
 * state has one) and who must act are all visible in the panel without scrolling it. Returns
 * what they say.
 */
export async function expectFirstScreen(
  page: Page,
  expected: { heading: string; who: string | null; action: string | null }
): Promise<void> {
  await page.setViewportSize({ width: 1400, height: 850 });
  const region = panel(page).locator('.jp-ProjectStartup-region');
  await region.evaluate(node => node.scrollTo(0, 0));
  const state = panel(page)
    .locator(
      '.jp-ProjectStartup-state, .jp-ProjectStartup-notEnabled, .jp-ProjectStartup-failing'
    )
    .first();
  await expect(state.locator('h3').first().textContent()).resolves.toBe(
    expected.heading
  );
  const parts = [state.locator('h3').first()];
  if (expected.who !== null) {
    const who = state.locator('[data-who]');
    await expect(who.getAttribute('data-who')).resolves.toBe(expected.who);
    parts.push(who);
  }
  if (expected.action !== null) {
    parts.push(state.getByRole('button', { name: expected.action }));
  }
  const bounds = await region.boundingBox();
  for (const part of parts) {
    await expect(part.isVisible()).resolves.toBe(true);
    const box = await part.boundingBox();
    expect(box).not.toBeNull();
    // Inside the panel's scrolling region as it first shows, and inside the 850 px window.
    expect((box?.y ?? 0) + (box?.height ?? 0)).toBeLessThanOrEqual(
      Math.min(850, (bounds?.y ?? 0) + (bounds?.height ?? 0))
    );
    expect(box?.y ?? -1).toBeGreaterThanOrEqual(bounds?.y ?? 0);
  }
}

/**
 * The panel that opened itself on a first visit sits beside JupyterLab's Launcher, in a split of
 * its own to the Launcher's right, and the Launcher is still there (JupyterLab opens it only into
 * an empty main area, so a panel that came first would have taken its place for good).
 */
export async function expectBesideLauncher(page: Page): Promise<void> {
  const launcher = page.locator('#jp-main-dock-panel .jp-Launcher');
  await launcher.waitFor({ state: 'visible', timeout: 30000 });
  const launcherBox = await launcher.boundingBox();
  const panelBox = await panel(page).boundingBox();
  expect(launcherBox).not.toBeNull();
  expect(panelBox).not.toBeNull();
  expect(panelBox?.x ?? 0).toBeGreaterThanOrEqual(
    (launcherBox?.x ?? 0) + (launcherBox?.width ?? 0)
  );
  // Both tabs show, each in its own tab bar, and the Launcher's is still the current one there.
  const tabBars = await page.evaluate(() =>
    Array.from(
      document.querySelectorAll('#jp-main-dock-panel .lm-DockPanel-tabBar')
    ).map(bar =>
      Array.from(bar.querySelectorAll('.lm-TabBar-tab')).map(tab => ({
        label: tab.querySelector('.lm-TabBar-tabLabel')?.textContent ?? '',
        current: tab.classList.contains('lm-mod-current')
      }))
    )
  );
  expect(tabBars).toEqual(
    expect.arrayContaining([
      [{ label: 'Launcher', current: true }],
      [{ label: 'Project Startup', current: true }]
    ])
  );
}

export const LIGHT = 'JupyterLab Light';
export const DARK = 'JupyterLab Dark';

/**
 * Switches the theme (the command JupyterLab and Notebook 7 share) and waits (bounded) until the
 * panel is drawn with it.
 */
export async function useTheme(page: Page, theme: string): Promise<void> {
  await execute(page, 'apputils:change-theme', { theme });
  await page.waitForFunction(
    t => document.body.dataset.jpThemeName === t,
    theme,
    { timeout: 20000 }
  );
  await waitForSplashGone(page);
  await page.waitForFunction(
    ([selector, dark]) => {
      const node = document.querySelector(selector);
      const rgb =
        (node ? getComputedStyle(node).backgroundColor : '')
          .match(/\d+/g)
          ?.map(Number) ?? [];
      return rgb.length >= 3 && rgb[0] + rgb[1] + rgb[2] < 3 * 96 === dark;
    },
    [PANEL, theme === DARK] as const,
    { timeout: 20000, polling: 100 }
  );
}

/**
 * One state of the panel as a person sees it, in the light theme and then the dark one (the page
 * is left dark): its first screen at 1400 × 850 (expectFirstScreen), the screenshots `name` and
 * `name-dark` in test-artifacts/e2e/, and axe on the panel with its disclosures closed and open
 * (`name[-dark]` and `name[-dark]-details`).
 */
export async function expectStateInBothThemes(
  page: Page,
  name: string,
  firstScreen: Parameters<typeof expectFirstScreen>[1]
): Promise<void> {
  for (const [theme, suffix] of [
    [LIGHT, ''],
    [DARK, '-dark']
  ] as const) {
    await useTheme(page, theme);
    await expectFirstScreen(page, firstScreen);
    await screenshot(page, `${name}${suffix}`);
    await expectPanelAccessible(page, `${name}${suffix}`);
    await setDisclosures(page, true);
    await expectPanelAccessible(page, `${name}${suffix}-details`);
    await setDisclosures(page, false);
  }
}

/**
 * From the page's next load on, what JupyterLab's Clipboard.copyToSystem puts on the clipboard
 * (through a copy event's DataTransfer) is kept in the page; `copied` reads the last of it.
 */
export async function recordCopies(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const set = DataTransfer.prototype.setData;
    DataTransfer.prototype.setData = function (format, data) {
      (globalThis as unknown as { e2eCopied?: string }).e2eCopied = data;
      return set.call(this, format, data);
    };
  });
}

/** Waits (bounded) for a copy recorded by recordCopies and returns its text. */
export async function copied(page: Page): Promise<string> {
  const handle = await page.waitForFunction(
    () => (globalThis as unknown as { e2eCopied?: string }).e2eCopied,
    undefined,
    { timeout: 10000 }
  );
  return (await handle.jsonValue()) as string;
}

/**
 * Waits (bounded) until the element lies inside the viewport and is what the page shows at its
 * centre: a toast slides in from the side, and one drawn off-screen or under another element
 * would be "visible" to Playwright but not to a person.
 */
export async function waitOnScreen(
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

/**
 * Node missing as a person meets it, wherever the server's `project` entry names a Node that is
 * not there (`nodePath`): the panel does not open by itself; an error notification gives the
 * cause from the diagnostics route and says the administrator fixes it (its screenshot,
 * `toastScreenshot`); its action opens the panel, whose problem names the setting and gives the
 * fix to the administrator, not to the person.
 */
export async function expectNodeMissingShown(
  page: Page,
  nodePath: string,
  toastScreenshot: string
): Promise<void> {
  const { toast, cause } = await administratorNotification(
    page,
    'Project Startup cannot start: Node.js was not found.'
  );
  expect(cause).toBe('Project Startup cannot start: Node.js was not found.');
  expect(await panel(page).count()).toBe(0);
  await waitOnScreen(page, toast);
  await screenshot(page, toastScreenshot);
  await toast.getByRole('button', { name: 'Open Project Startup' }).click();
  const item = panel(page).locator('[data-problem-code="node-missing"]');
  await item.waitFor({ state: 'visible', timeout: 30000 });
  await expect(item.textContent()).resolves.toContain(
    `PROJECT_STARTUP_NODE is set to ${nodePath}, which is not an executable file.`
  );
  await expect(item.textContent()).resolves.toContain(
    'For your administrator: Set PROJECT_STARTUP_NODE to the path of Node.js 20 or newer'
  );
  await expect(
    panel(page).locator('[role="status"]').textContent()
  ).resolves.toBe(
    'The Project Startup service cannot start: Node.js was not found.'
  );
}

/** What the first screen of a state the administrator must fix shows. */
export const ADMINISTRATOR_FIXES = {
  heading: 'Project Startup cannot start',
  who: 'administrator',
  action: 'Copy details for your administrator'
} as const;

/**
 * Waits (bounded) for the error notification of a problem only the administrator can fix, whose
 * text starts with `causeStart`: its first line is the cause, its second says who fixes it (never
 * the researcher's task). Returns the toast and its first line.
 */
export async function administratorNotification(
  page: Page,
  causeStart: string
): Promise<{ toast: Locator; cause: string }> {
  const toast = page.locator('.jp-toastContainer .Toastify__toast', {
    hasText: causeStart
  });
  await toast.waitFor({ state: 'visible', timeout: 30000 });
  await expect(toast.getAttribute('class')).resolves.toContain(
    'jp-Notification-Toast-error'
  );
  const [cause, fix] = (
    await toast.locator('.jp-toast-message').innerText()
  ).split('\n');
  expect(cause.startsWith(causeStart)).toBe(true);
  expect(fix).toBe('Your administrator needs to fix this.');
  return { toast, cause };
}

/** Credentials in the server's environment: no copied report may carry their values. */
export const ENVIRONMENT_CREDENTIALS = {
  HF_TOKEN: 'hf_s33StatesNeverCopied7f3a',
  OPENAI_API_KEY: 'sk-s33-states-never-copied-9c1d'
} as const;

/**
 * A site file the service refuses (line 3 holds a key it does not know): `prepare` writes it in
 * the server's root directory and returns the server's environment, PROJECT_STARTUP_CONFIG naming
 * it with ENVIRONMENT_CREDENTIALS beside it; `file` is its path once written.
 */
export function refusedSiteFile(): {
  readonly file: string;
  prepare(dirs: LabServer['dirs']): Record<string, string>;
} {
  let file = '';
  return {
    get file() {
      return file;
    },
    prepare: dirs => {
      file = path.join(dirs.root, 'site.json');
      fs.writeFileSync(file, '{\n  "platform": {},\n  "notAKey": true\n}\n', {
        mode: 0o644
      });
      return { PROJECT_STARTUP_CONFIG: file, ...ENVIRONMENT_CREDENTIALS };
    }
  };
}

/**
 * The panel (opened) on the site file of refusedSiteFile, as a person sees it: the problem on a
 * line of its own with the file and line, and its code; the first screen, screenshots (`name`,
 * `name-dark`) and axe in both themes (expectStateInBothThemes); then the administrator's report
 * it copies (expectAdministratorReport: the page under recordCopies).
 */
export async function expectRefusedSiteFileShown(
  page: Page,
  name: string,
  expected: { file: string; versions: string; token: string }
): Promise<void> {
  const failing = panel(page).locator('.jp-ProjectStartup-failing');
  await failing.waitFor({ state: 'visible', timeout: 30000 });
  const shown = (await failing.textContent()) ?? '';
  expect(shown).toContain(
    `${expected.file}:3: notAKey is not a known key at the top level.`
  );
  expect(shown).toContain('Problem code: misconfigured');
  await expectStateInBothThemes(page, name, ADMINISTRATOR_FIXES);
  await expectAdministratorReport(page, failing, expected);
}

/**
 * "Copy details for your administrator" in `section` (the page under recordCopies) copies a report
 * that names the problem, the site file and line and the host's `versions`, and no credential: no
 * value of ENVIRONMENT_CREDENTIALS, nor the server's `token`.
 */
export async function expectAdministratorReport(
  page: Page,
  section: Locator,
  expected: { file: string; versions: string; token: string }
): Promise<string> {
  await section
    .getByRole('button', { name: 'Copy details for your administrator' })
    .click();
  const report = await copied(page);
  expect(report).toContain('Project Startup: details for the administrator');
  expect(report).toContain('misconfigured');
  expect(report).toContain(`${expected.file}:3`);
  expect(report).toContain(expected.versions);
  for (const value of [
    ...Object.values(ENVIRONMENT_CREDENTIALS),
    expected.token
  ]) {
    expect(report).not.toContain(value);
  }
  return report;
}

/**
 * Blocked by a check the person can fix, as they see it: the fix ("To fix it: …") and no way to
 * initialize; the first screen says so with Check again and that they act, with screenshots
 * (`name`, `name-dark`) and axe in both themes (expectStateInBothThemes).
 */
export async function expectBlockedWithUserFix(
  page: Page,
  name: string
): Promise<void> {
  await expect(
    panel(page).locator('.jp-ProjectStartup-state').textContent()
  ).resolves.toContain('To fix it:');
  expect(
    await panel(page)
      .getByRole('button', { name: 'Initialize project' })
      .count()
  ).toBe(0);
  await expectStateInBothThemes(page, name, {
    heading: 'Setup is blocked',
    who: 'user',
    action: 'Check again'
  });
}
