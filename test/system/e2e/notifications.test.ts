// "Quiet until it can help", end to end: the project's prebuilt extension in the real
// `jupyter lab` (JupyterLab 4.6.4 on jupyter_server 2.21.1, pip-installed) in Debian's Chromium,
// at base_url /user/alice/ with the real jupyter-server-proxy, set up by the
// operator's own `project-startup jupyter install --user` (helpers.ts jupyterInstall).
//
//   not enabled (no proxy entry): a toast with the problem, the fix and both actions, no panel;
//     "Open Project Startup" opens the panel; "Don't show again" writes mutedNotifications to the
//     user's settings and, after a reload, nothing shows;
//   failing (an entry whose command exits non-zero, no server extension as with an npm install):
//     an error toast that says where the cause is (the real cause from the diagnostics route is
//     in test/system/install/wheel.test.ts, where the Python package's server extension serves it);
//   blocked: a warning naming the failing check and its remedy;
//   awaiting confirmation: the panel opens by itself and nothing toasts;
//   the Help menu's "Project Startup user guide" opens the README's user section, rendered by
//   JupyterLab's Markdown renderer.
//
// Screenshots: test-artifacts/e2e/notification-*.png and user-guide.png; axe-core scans the
// toasts and the guide (WCAG 2.1 A/AA, ./axe.ts).
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import {
  jupyterInstall,
  LabServer,
  openLab,
  screenshot,
  startLabServer
} from './helpers';
import {
  BASE_URL,
  removeProxyEntry,
  breakProxyEntry,
  missingSidecarScript,
  pageSuite,
  GUIDE,
  PANEL,
  pause,
  pluginSettingsFile,
  STARTUP_PATH,
  startupStatus
} from './panel-helpers';
import { expectAccessible } from './axe';

const TOASTS = '.jp-toastContainer';

function toasts(page: Page): Locator {
  return page.locator(`${TOASTS} .Toastify__toast`);
}

/** The one toast whose message has `text`. */
function toast(page: Page, text: string): Locator {
  return toasts(page).filter({
    has: page.locator('.jp-toast-message', { hasText: text })
  });
}

describe('notifications and the user guide in JupyterLab (Chromium, jupyter_server 2.21.1, base_url /user/alice/)', () => {
  let server: LabServer | undefined;
  const { newPage, expectOnlyProblems } = pageSuite({
    server: () => server,
    forgetServer: () => (server = undefined),
    height: 900
  });

  /** Opens the lab and resolves with the status of the first {base_url}project/startup answer. */
  async function openAndAsk(p: Page, s: LabServer): Promise<number> {
    const asked = p.waitForResponse(
      r => new URL(r.url()).pathname === STARTUP_PATH,
      { timeout: 60000 }
    );
    await openLab(p, s);
    return (await asked).status();
  }

  test('not enabled: a toast with the fix and both actions instead of the panel; "Open Project Startup"; "Don\'t show again" lasts', async () => {
    server = await startLabServer({
      baseUrl: BASE_URL,
      label: 'notifications-not-enabled-server',
      // JupyterLab as pip installs it, without the wheel: its entry point and server extension
      // would otherwise be there.
      wheel: false,
      prepare: dirs => {
        jupyterInstall(dirs);
        removeProxyEntry(dirs);
      }
    });
    const s = server;
    let p = await newPage();
    expect(await openAndAsk(p, s)).toBe(404);
    const shown = toast(
      p,
      'Project Startup is not enabled on this Jupyter server.'
    );
    await shown.waitFor({ state: 'visible', timeout: 20000 });
    await expect(shown.locator('.jp-toast-message').innerText()).resolves.toBe(
      'Project Startup is not enabled on this Jupyter server.\nYour administrator needs to enable it on this Jupyter server.'
    );
    await expect(shown.getAttribute('class')).resolves.toContain(
      'jp-Notification-Toast-warning'
    );
    expect(await shown.locator('.jp-toast-button').allInnerTexts()).toEqual([
      'Open Project Startup',
      "Don't show again"
    ]);
    // One toast, and the panel did not open by itself.
    await pause(1000);
    expect(await toasts(p).count()).toBe(1);
    expect(await p.locator(PANEL).count()).toBe(0);
    await screenshot(p, 'notification-not-enabled');
    await expectAccessible(p, 'notification-not-enabled', [TOASTS]);

    // "Open Project Startup" opens the panel (with the same answer and its steps) and closes the toast.
    await shown.getByRole('button', { name: 'Open Project Startup' }).click();
    await p
      .locator(`${PANEL} .jp-ProjectStartup-notEnabled`)
      .waitFor({ state: 'visible', timeout: 20000 });
    await shown.waitFor({ state: 'detached', timeout: 10000 });
    await screenshot(p, 'notification-not-enabled-opened');
    expect(fs.existsSync(pluginSettingsFile(s.dirs))).toBe(false);

    // A new session says it again, once; "Don't show again" keeps the kind in the user's settings.
    p = await newPage();
    expect(await openAndAsk(p, s)).toBe(404);
    const again = toast(
      p,
      'Project Startup is not enabled on this Jupyter server.'
    );
    await again.waitFor({ state: 'visible', timeout: 20000 });
    await again.getByRole('button', { name: "Don't show again" }).click();
    await again.waitFor({ state: 'detached', timeout: 10000 });
    const deadline = Date.now() + 10000;
    while (
      !(
        fs.existsSync(pluginSettingsFile(s.dirs)) &&
        fs
          .readFileSync(pluginSettingsFile(s.dirs), 'utf8')
          .includes('not-enabled')
      ) &&
      Date.now() < deadline
    ) {
      await pause(100);
    }
    // JupyterLab writes the settings as JSON5 with comments; the value is the array.
    expect(fs.readFileSync(pluginSettingsFile(s.dirs), 'utf8')).toMatch(
      /"mutedNotifications":\s*\[\s*"not-enabled"\s*\]/
    );
    expect(await p.locator(PANEL).count()).toBe(0);

    // After a reload: the same state, silence.
    p = await newPage();
    expect(await openAndAsk(p, s)).toBe(404);
    await pause(2000);
    expect(await toasts(p).count()).toBe(0);
    expect(await p.locator(PANEL).count()).toBe(0);
    expectOnlyProblems(startupStatus(404));
  }, 180000);

  test('failing, without the server extension (npm install): an error toast that stays and says where the cause is', async () => {
    server = await startLabServer({
      baseUrl: BASE_URL,
      label: 'notifications-failing-server',
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
    expect(await openAndAsk(p, s)).toBe(500);
    const shown = toast(p, 'The Project Startup service failed (HTTP 500).');
    await shown.waitFor({ state: 'visible', timeout: 30000 });
    await expect(shown.locator('.jp-toast-message').innerText()).resolves.toBe(
      "The Project Startup service failed (HTTP 500).\nYour administrator can find the cause in the Jupyter server's log."
    );
    await expect(shown.getAttribute('class')).resolves.toContain(
      'jp-Notification-Toast-error'
    );
    // Errors do not close by themselves.
    await pause(1500);
    await expect(shown.isVisible()).resolves.toBe(true);
    expect(await p.locator(PANEL).count()).toBe(0);
    // The log it points to has the cause.
    expect(s.logs()).toContain(
      `Cannot find module '${missingSidecarScript(s.dirs)}'`
    );
    await screenshot(p, 'notification-failing');
    await expectAccessible(p, 'notification-failing', [TOASTS]);
    expectOnlyProblems(startupStatus(500));
  }, 120000);

  test('blocked: a warning naming the failing check and its remedy; the panel stays closed', async () => {
    server = await startLabServer({
      baseUrl: BASE_URL,
      label: 'notifications-blocked-server',
      prepare: dirs => {
        jupyterInstall(dirs);
        fs.writeFileSync(
          path.join(dirs.project, '.project-startup'),
          'not a state directory\n'
        );
      }
    });
    const s = server;
    const p = await newPage();
    expect(await openAndAsk(p, s)).toBe(200);
    const shown = toast(p, 'Project setup is blocked: ');
    await shown.waitFor({ state: 'visible', timeout: 20000 });
    const [problemLine, fixLine, ...rest] = (
      await shown.locator('.jp-toast-message').innerText()
    ).split('\n');
    expect(rest).toEqual([]);
    expect(problemLine).toBe(
      'Project setup is blocked: Private state location.'
    );
    // The check's remedy (the service's words), whole or shortened by us, never cut by JupyterLab.
    expect(fixLine.length).toBeGreaterThan(20);
    expect(problemLine.length + 1 + fixLine.length).toBeLessThanOrEqual(140);
    await expect(shown.getAttribute('class')).resolves.toContain(
      'jp-Notification-Toast-warning'
    );
    await pause(1000);
    expect(await p.locator(PANEL).count()).toBe(0);
    await screenshot(p, 'notification-blocked');
    expectOnlyProblems();
  }, 120000);

  test('awaiting confirmation: the panel opens by itself and nothing toasts; the Help menu opens the user guide', async () => {
    server = await startLabServer({
      baseUrl: BASE_URL,
      label: 'notifications-awaiting-server',
      prepare: dirs => void jupyterInstall(dirs)
    });
    const s = server;
    const p = await newPage();
    expect(await openAndAsk(p, s)).toBe(200);
    await p
      .locator(
        `${PANEL} .jp-ProjectStartup-phaseBadge.jp-mod-awaiting-confirmation`
      )
      .waitFor({ state: 'visible', timeout: 30000 });
    await pause(1000);
    expect(await toasts(p).count()).toBe(0);

    // Help → "Project Startup user guide".
    await p.locator('.lm-MenuBar-itemLabel', { hasText: /^Help$/ }).click();
    const item = p.locator('.lm-Menu-item', {
      hasText: 'Project Startup user guide'
    });
    await item.waitFor({ state: 'visible' });
    await screenshot(p, 'user-guide-help-menu');
    await item.click();
    const guide = p.locator(GUIDE);
    await guide.waitFor({ state: 'visible', timeout: 20000 });
    // The current tab of its area (the panel that opened by itself may have its own area, beside
    // the Launcher's, with a current tab of its own).
    await expect(
      p
        .locator(
          '#jp-main-dock-panel .lm-TabBar-tab.lm-mod-current .lm-TabBar-tabLabel'
        )
        .allInnerTexts()
    ).resolves.toContain('Project Startup user guide');
    // Rendered by JupyterLab's Markdown renderer (the host's rendermime registry): a heading, a
    // list with bold lead-ins and code, no Markdown syntax left, nothing unsanitized.
    const rendered = guide.locator('.jp-RenderedMarkdown');
    // (with the ¶ anchor JupyterLab's renderer adds to headings, shown on hover)
    await expect(rendered.locator('h2').first().textContent()).resolves.toBe(
      'Using Project Startup in JupyterLab and Notebook¶'
    );
    expect(await rendered.locator('h2 a.jp-InternalAnchorLink').count()).toBe(
      1
    );
    const leads = await rendered.locator('li strong').allInnerTexts();
    expect(leads).toEqual(
      expect.arrayContaining([
        'It stays out of the way.',
        'The status bar',
        'Settings'
      ])
    );
    expect(
      await rendered.locator('code', { hasText: 'mutedNotifications' }).count()
    ).toBe(1);
    const text = (await guide.innerText()).replace(/\s+/g, ' ');
    expect(text).not.toContain('**');
    expect(text).not.toContain('## ');
    expect(await guide.locator('script, [onclick], [onerror]').count()).toBe(0);
    // The pointer rests where the menu item was, over the heading, whose anchor shows on hover: move it away.
    await p.mouse.move(640, 890);
    await screenshot(p, 'user-guide');
    await expectAccessible(p, 'user-guide', [GUIDE], {
      fit: `${GUIDE} .jp-ProjectStartup-guide`
    });
    expectOnlyProblems();
  }, 120000);
});
