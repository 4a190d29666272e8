// The live state end to end: the project's prebuilt extension in the real `jupyter lab`
// (JupyterLab 4.6.4 on jupyter_server 2.21.1, pip-installed) in Debian's headless Chromium, at
// base_url /user/alice/, with the real sidecar behind the real jupyter-server-proxy (put in place by
// `project-startup jupyter install --user`). The person's settings set refreshInterval to 1 s.
// With no click at all, the open panel and the status bar item follow the service:
//
//   (a) the state directory made unsafe on disk (mode 0770: "accessible to other users") turns
//       the phase to Blocked, and back to Ready once it is 0700 again;
//   (b) the sidecar killed (SIGKILL) while its restarts fail (its runtime directory is not
//       private, so each relaunch by simpervisor exits 2): the panel and the status bar say the
//       service is failing, never the old phase as current, and recover by themselves once the
//       runtime directory is private again and the next relaunch answers;
//   (c) one poll answered with an HTML page (Playwright's page.route): the unexpected-answer
//       state; the next poll recovers;
//   (d) while the page is hidden the poll stands by (no request at all), and asks at once when
//       the page is visible again. Headless Chromium keeps every page visible (measured: a tab
//       brought to the front, a CDP foreground target, a minimized window all leave
//       document.visibilityState "visible"), and this machine has no X server for a headed one,
//       so the page's visibility is emulated (document.visibilityState / hidden and the
//       visibilitychange event, what the browser does on a tab switch); the requests are counted
//       on Chromium's network.
//
// Screenshots: live-ready, live-statusbar, live-unsafe-blocked, live-sidecar-failing,
// live-sidecar-recovered, live-unexpected-answer. axe-core scans the status bar item.
//
// Every wait is bounded; no duration is asserted.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type {
  Locator,
  Page,
  Request,
  Response as PageResponse
} from 'playwright-core';
import {
  Browser,
  checkPrerequisites,
  httpRequest,
  jupyterInstall,
  LabServer,
  launchBrowser,
  openLab,
  PageProblem,
  PageProblems,
  screenshot,
  startLabServer,
  stopAllLabServers
} from './helpers';
import {
  BASE_URL,
  checkExtensionBuilt,
  DIAGNOSTICS_PATH,
  newProblemPage,
  PANEL,
  pause,
  projection,
  STARTUP_PATH,
  STATUS_BUTTON,
  STATUS_ITEM,
  writePluginSetting,
  openDisclosure
} from './panel-helpers';
import { expectAccessible } from './axe';
import { seeProcess, stillRuns } from '../../helpers/processes';
import { waitFor } from '../../helpers/wait';

/** How long the page may take to show a change: many 1 s intervals, and the backoff's cap (10 s). */
const FOLLOW_MS = 30000;

function runtimeInfo(
  server: LabServer
): { pid: number; instanceId: string } | undefined {
  const dir = server.dirs.sidecarRuntime;
  const files = fs.existsSync(dir)
    ? fs.readdirSync(dir).filter(f => /^server-[0-9a-f]{12}\.json$/.test(f))
    : [];
  for (const file of files) {
    try {
      const info = JSON.parse(
        fs.readFileSync(path.join(dir, file), 'utf8')
      ) as { pid: number; instanceId: string };
      process.kill(info.pid, 0);
      return info;
    } catch {
      // a stale file of a killed sidecar, or one being written
    }
  }
  return undefined;
}

/** The panel's live region (role=status) and the status bar item's text, as the page shows them. */
function shown(page: Page): Promise<{
  panel: string | null;
  bar: string | null;
  tooltip: string | null;
}> {
  return page.evaluate(
    ([panel, bar]) => ({
      panel:
        document.querySelector(`${panel} [role="status"]`)?.textContent ?? null,
      bar: document.querySelector(bar)?.textContent ?? null,
      tooltip: document.querySelector(bar)?.getAttribute('title') ?? null
    }),
    [PANEL, STATUS_BUTTON] as const
  );
}

/**
 * Presses Enter on `item` as a person who reached it with Tab does, and says where the key went.
 * Right after the page loads JupyterLab may still move the focus (seen once in CI: the Enter went
 * elsewhere and the panel never opened), so the press is repeated, at most 3 times, only while the
 * key did not reach the item. An Enter the item received and ignored is the test's failure.
 */
async function pressEnterOn(
  page: Page,
  item: Locator
): Promise<{ reached: boolean; keyWentTo: string }> {
  let last = { reached: false, keyWentTo: '' };
  for (let attempt = 0; attempt < 3 && !last.reached; attempt++) {
    await item.focus();
    await item.evaluate(node => {
      const record = window as unknown as { enterReached?: string };
      record.enterReached = 'none';
      window.addEventListener(
        'keydown',
        event => {
          const target = event.target as Node | null;
          record.enterReached =
            target !== null && node.contains(target)
              ? 'item'
              : ((target as Element | null)?.outerHTML.slice(0, 120) ?? 'null');
        },
        { capture: true, once: true }
      );
    });
    await page.keyboard.press('Enter');
    const where = await page.evaluate(
      () => (window as unknown as { enterReached?: string }).enterReached ?? ''
    );
    last = { reached: where === 'item', keyWentTo: where };
  }
  return last;
}

/** Waits (bounded) until the panel's live region and the status bar item say these texts. */
async function waitForShown(
  page: Page,
  panel: string | RegExp,
  bar: string,
  timeoutMs = FOLLOW_MS
): Promise<void> {
  const source = typeof panel === 'string' ? null : panel.source;
  try {
    await page.waitForFunction(
      ([panelSelector, barSelector, text, pattern, expectedBar]) => {
        const live =
          document.querySelector(`${panelSelector} [role="status"]`)
            ?.textContent ?? '';
        const item = document.querySelector(barSelector)?.textContent ?? '';
        return (
          (pattern === null ? live === text : new RegExp(pattern).test(live)) &&
          item === expectedBar
        );
      },
      [
        PANEL,
        STATUS_BUTTON,
        typeof panel === 'string' ? panel : '',
        source,
        bar
      ] as const,
      { timeout: timeoutMs, polling: 100 }
    );
  } catch {
    const now = await shown(page);
    throw new Error(
      `the page did not come to show "${String(panel)}" / "${bar}"; it shows ${JSON.stringify(now)}`
    );
  }
}

/**
 * From now on, every text the panel's live region and the status bar item take is recorded in
 * the page, in order, each on its own (a MutationObserver): what was shown between two states.
 * (The panel and the status bar render in different frames, so they are recorded apart.)
 */
async function recordShown(page: Page): Promise<void> {
  await page.evaluate(
    ([panel, bar]) => {
      type Shown = { panel: string[]; bar: string[] };
      const g = globalThis as unknown as {
        e2eShown: Shown;
        e2eShownObserver?: MutationObserver;
      };
      g.e2eShownObserver?.disconnect();
      const shown: Shown = { panel: [], bar: [] };
      g.e2eShown = shown;
      const read = () => ({
        panel:
          document.querySelector(`${panel} [role="status"]`)?.textContent ?? '',
        bar: document.querySelector(bar)?.textContent ?? ''
      });
      let last = read();
      const observer = new MutationObserver(() => {
        const now = read();
        if (now.panel !== last.panel) {
          shown.panel.push(now.panel);
        }
        if (now.bar !== last.bar) {
          shown.bar.push(now.bar);
        }
        last = now;
      });
      observer.observe(document.body, {
        subtree: true,
        childList: true,
        characterData: true
      });
      g.e2eShownObserver = observer;
    },
    [PANEL, STATUS_BUTTON] as const
  );
}

function recorded(page: Page): Promise<{ panel: string[]; bar: string[] }> {
  return page.evaluate(
    () =>
      (
        globalThis as unknown as {
          e2eShown: { panel: string[]; bar: string[] };
        }
      ).e2eShown
  );
}

/** What the page showed may include: the startup route failing (and the diagnostics 404 after it). */
function sidecarFailures(problem: PageProblem): boolean {
  const startup =
    problem.path === STARTUP_PATH &&
    (problem.status === undefined || problem.status >= 500);
  const diagnostics =
    problem.path === DIAGNOSTICS_PATH && problem.status === 404;
  return (
    (startup || diagnostics) &&
    (problem.kind === 'http' ||
      problem.kind === 'console-error' ||
      problem.kind === 'request-failed')
  );
}

const READY = 'Setup phase: Ready.';
const BLOCKED = 'Setup phase: Blocked.';
const FAILING = /^The Project Startup service (is failing|cannot start: .+)\.$/;

describe('live state: the panel and the status bar follow the service without a click (Chromium, jupyter_server 2.21.1, real jupyter-server-proxy)', () => {
  let browser: Browser | undefined;
  let server: LabServer | undefined;
  let page: Page | undefined;
  let problems: PageProblems | undefined;
  /** GET {base_url}project/startup requests the page sent, as Chromium's network saw them. */
  const startupRequests: Request[] = [];
  /** Jupyter's last_activity before and after three GETs of the startup route (see beforeAll). */
  let pollActivity: { before: string; after: string } | undefined;
  const s = (): LabServer => server as LabServer;
  const p = (): Page => page as Page;

  beforeAll(async () => {
    checkPrerequisites();
    checkExtensionBuilt();
    server = await startLabServer({
      baseUrl: BASE_URL,
      label: 'live-server',
      prepare: dirs => {
        jupyterInstall(dirs);
        writePluginSetting(dirs, { refreshInterval: 1 });
      }
    });
    // The project initialized (exactly what the panel's dialog sends), so the phase is Ready.
    const auth = { authorization: `token ${s().token}` };
    const current = await projection(s());
    const created = await httpRequest(`${s().base}project/initialize`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({
        interface: 'notebook',
        confirm: {
          projectPath: current.projectPath,
          statePath: current.statePath
        }
      })
    });
    expect(created.status).toBe(201);

    // A poll is not activity: requests through jupyter-server-proxy (HTTP, not websocket) leave
    // Jupyter's last_activity alone, so JupyterHub's idle culler still ends an idle server
    // whose page polls. Measured here, before any page (JupyterLab's own API calls count).
    const activity = async (): Promise<string> => {
      const answer = await httpRequest(`${s().base}api/status`, {
        headers: auth
      });
      expect(answer.status).toBe(200);
      return answer.json.last_activity as string;
    };
    const before = await activity();
    for (let i = 0; i < 3; i++) {
      await pause(50);
      expect(
        (
          await httpRequest(`${s().base}project/startup?interface=notebook`, {
            headers: auth
          })
        ).status
      ).toBe(200);
    }
    pollActivity = { before, after: await activity() };

    browser = await launchBrowser();
    ({ page, problems } = await newProblemPage(browser, 900));
    page.on('request', request => {
      if (new URL(request.url()).pathname === STARTUP_PATH) {
        startupRequests.push(request);
      }
    });
    await openLab(page, s());
  }, 180000);

  afterAll(async () => {
    await page?.close().catch(() => undefined);
    await browser?.close();
    await server?.stop();
    await stopAllLabServers();
  }, 60000);

  function problemCount(): number {
    return (problems as PageProblems).entries.length;
  }

  /** The page's problems since the `since`-th one that `allowed` does not accept, as text. */
  function problemsSince(
    since: number,
    allowed: (problem: PageProblem) => boolean = () => false
  ): string[] {
    return (problems as PageProblems).entries
      .slice(since)
      .filter(problem => !allowed(problem))
      .map(problem => problem.text);
  }

  function statePath(): string {
    return path.join(s().dirs.project, '.project-startup');
  }

  test("a poll through the proxy is not user activity: Jupyter's last_activity stays (idle culling still works)", () => {
    expect(pollActivity?.before).toMatch(/^\d{4}-/);
    expect(pollActivity?.after).toBe(pollActivity?.before);
  });

  test('the status bar item shows the phase; a click opens the panel; it is accessible', async () => {
    await p()
      .locator(STATUS_BUTTON)
      .waitFor({ state: 'visible', timeout: 30000 });
    await p().waitForFunction(
      selector =>
        document.querySelector(selector)?.textContent === 'Project: Ready',
      STATUS_BUTTON,
      {
        timeout: FOLLOW_MS,
        polling: 100
      }
    );
    const item = p().getByRole('button', { name: 'Project: Ready' });
    expect(await item.count()).toBe(1);
    expect(await item.getAttribute('title')).toBe(READY);
    await screenshot(p(), 'live-statusbar');
    await expectAccessible(p(), 'live-statusbar-item', [STATUS_ITEM]);
    // The keyboard reaches it and Enter opens the panel (the open command).
    expect(await pressEnterOn(p(), item)).toEqual({
      reached: true,
      keyWentTo: 'item'
    });
    await p().locator(PANEL).waitFor({ state: 'visible', timeout: 20000 });
    await waitForShown(p(), READY, 'Project: Ready');
    await screenshot(p(), 'live-ready');
    expect(problemsSince(0)).toEqual([]);
  }, 90000);

  test('an unchanged answer is revalidated: each poll sends the last ETag and gets the empty 304 through the proxy', async () => {
    await waitForShown(p(), READY, 'Project: Ready');
    const answers: { status: number; tag: string | null }[] = [];
    const onResponse = (response: PageResponse): void => {
      if (new URL(response.url()).pathname === STARTUP_PATH) {
        answers.push({
          status: response.status(),
          tag: response.request().headers()['if-none-match'] ?? null
        });
      }
    };
    p().on('response', onResponse);
    try {
      // refreshInterval is 1 s: three polls within at most 10 s.
      for (let i = 0; i < 100 && answers.length < 3; i++) {
        await pause(100);
      }
    } finally {
      p().off('response', onResponse);
    }
    expect(answers.length).toBeGreaterThanOrEqual(3);
    for (const answer of answers) {
      expect(answer.status).toBe(304);
      expect(answer.tag).toMatch(/^"[^"]+"$/);
    }
    expect(await p().locator(STATUS_BUTTON).textContent()).toBe(
      'Project: Ready'
    );
  }, 60000);

  test('(a) a state directory made unsafe on disk shows as Blocked without a click, and Ready again once fixed', async () => {
    await waitForShown(p(), READY, 'Project: Ready');
    const seen = problemCount();
    await recordShown(p());
    fs.chmodSync(statePath(), 0o770);
    try {
      await waitForShown(p(), BLOCKED, 'Project: Blocked');
      // The readiness check that says why, in the open panel.
      // The readiness checks are one click away, in their disclosure.
      await openDisclosure(p(), 'checks');
      const check = p().locator(`${PANEL} tr[data-check-id="state-path"]`);
      await check.waitFor({ state: 'visible', timeout: 10000 });
      expect(await check.textContent()).toMatch(/mode 0770/);
      await screenshot(p(), 'live-unsafe-blocked');
    } finally {
      fs.chmodSync(statePath(), 0o700);
    }
    await waitForShown(p(), READY, 'Project: Ready');
    expect(await recorded(p())).toEqual({
      panel: [BLOCKED, READY],
      bar: ['Project: Blocked', 'Project: Ready']
    });
    expect(problemsSince(seen)).toEqual([]);
  }, 90000);

  test('(b) the sidecar killed mid-session: a clear failure, never the old phase as current; recovers by itself after the relaunch', async () => {
    await waitForShown(p(), READY, 'Project: Ready');
    const seen = problemCount();
    const info = runtimeInfo(s());
    if (!info) {
      throw new Error(`no running sidecar found in ${s().dirs.sidecarRuntime}`);
    }
    const victim = seeProcess(info.pid);
    await recordShown(p());
    // Each relaunch by the proxy's supervisor exits 2 while the runtime directory is not private.
    fs.chmodSync(s().dirs.sidecarRuntime, 0o770);
    try {
      process.kill(victim.pid, 'SIGKILL');
      await waitFor(() => !stillRuns(victim), {
        what: 'the killed sidecar to be gone',
        timeoutMs: 10000
      });
      await waitForShown(p(), FAILING, 'Project: Failing');
      const now = await shown(p());
      expect(now.tooltip).toMatch(FAILING);
      // The failure replaced the answer: the panel shows no phase as current.
      expect(
        await p().locator(`${PANEL} [role="status"]`).textContent()
      ).not.toMatch(/Setup phase/);
      await screenshot(p(), 'live-sidecar-failing');
    } finally {
      fs.chmodSync(s().dirs.sidecarRuntime, 0o700);
    }
    // No click: the poll (backing off, at most 10 s apart) finds the relaunched sidecar.
    await waitForShown(p(), READY, 'Project: Ready', 60000);
    const after = runtimeInfo(s());
    expect(after?.pid).not.toBe(victim.pid);
    await screenshot(p(), 'live-sidecar-recovered');
    const sequence = await recorded(p());
    // Ready, then only failures, then Ready: the old phase was never shown while failing.
    expect(sequence.bar).toEqual(['Project: Failing', 'Project: Ready']);
    expect(sequence.panel[sequence.panel.length - 1]).toBe(READY);
    expect(sequence.panel.length).toBeGreaterThan(1);
    for (const between of sequence.panel.slice(0, -1)) {
      expect(between).toMatch(FAILING);
    }
    expect(problemsSince(seen, sidecarFailures)).toEqual([]);
  }, 120000);

  test('(c) a garbage answer (an HTML page) shows the unexpected-answer state; the next poll recovers', async () => {
    await waitForShown(p(), READY, 'Project: Ready');
    const seen = problemCount();
    await recordShown(p());
    let fulfilled = 0;
    await p().route(
      url => url.pathname === STARTUP_PATH,
      async route => {
        fulfilled += 1;
        await route.fulfill({
          status: 200,
          contentType: 'text/html',
          body: '<!DOCTYPE html><html><body><h1>Sign in</h1></body></html>'
        });
      },
      { times: 1 }
    );
    await waitForShown(p(), FAILING, 'Project: Failing');
    expect(fulfilled).toBe(1);
    // The panel names what came instead of the service's answer.
    await p()
      .locator(PANEL)
      .getByText(/not what the service sends/)
      .waitFor({ state: 'visible', timeout: 10000 });
    await screenshot(p(), 'live-unexpected-answer');
    await waitForShown(p(), READY, 'Project: Ready');
    expect(await recorded(p())).toEqual({
      panel: ['The Project Startup service is failing.', READY],
      bar: ['Project: Failing', 'Project: Ready']
    });
    expect(problemsSince(seen)).toEqual([]);
  }, 90000);

  test('(d) while the page is hidden the poll stands by; visible again, it asks at once', async () => {
    await waitForShown(p(), READY, 'Project: Ready');
    const seen = problemCount();
    // Polling: more requests come while the page is visible.
    const before = startupRequests.length;
    await waitFor(() => startupRequests.length >= before + 2, {
      what: 'two more polls while the page is visible',
      timeoutMs: 15000
    });
    await p().evaluate(() => {
      Object.defineProperty(document, 'visibilityState', {
        configurable: true,
        get: () => 'hidden'
      });
      Object.defineProperty(document, 'hidden', {
        configurable: true,
        get: () => true
      });
      document.dispatchEvent(new Event('visibilitychange'));
    });
    // A request already on its way may still be sent; none after it.
    await pause(1500);
    const hiddenFrom = startupRequests.length;
    await pause(6000);
    expect(startupRequests.length).toBe(hiddenFrom);
    await p().evaluate(() => {
      delete (document as unknown as Record<string, unknown>).visibilityState;
      delete (document as unknown as Record<string, unknown>).hidden;
      document.dispatchEvent(new Event('visibilitychange'));
    });
    expect(await p().evaluate(() => document.visibilityState)).toBe('visible');
    await waitFor(() => startupRequests.length > hiddenFrom, {
      what: 'a poll once the page is visible again',
      timeoutMs: 5000
    });
    await waitForShown(p(), READY, 'Project: Ready');
    expect(problemsSince(seen)).toEqual([]);
  }, 60000);
});
