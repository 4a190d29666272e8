// The browser interface on the generic platform: the setup page at {base_url}project/, driven
// in real Chromium from the address `project-startup url` prints through confirm to ready.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runCli, startServe, trackedSandboxes } from '../../helpers/cli';
import type { Page } from 'playwright-core';
import { expectAccessible, focusRingContrast } from './axe';
import { Browser, launchBrowser, PageProblems, screenshot } from './helpers';

/** axe-core (WCAG 2.1 A/AA) on the whole page in its light and its dark colour scheme. */
async function expectPageAccessible(page: Page, name: string): Promise<void> {
  // The whole page in view (fit, see ./axe.ts).
  await page.emulateMedia({ colorScheme: 'light' });
  await expectAccessible(page, name, ['html'], { fit: 'html' });
  await page.emulateMedia({ colorScheme: 'dark' });
  await screenshot(page, `${name}-dark`);
  await expectAccessible(page, `${name}-dark`, ['html'], { fit: 'html' });
  await page.emulateMedia({ colorScheme: 'light' });
}

const sandbox = trackedSandboxes();
let browser: Browser | undefined;

afterEach(async () => {
  await browser?.close();
  browser = undefined;
});

describe('the generic setup page in Chromium', () => {
  it('signs in with the one-time address, shows the phase and checks, and confirms to ready', async () => {
    const s = sandbox();
    const serve = await startServe([], { env: s.env, cwd: s.projectDir });
    const url = await runCli(['url'], { env: s.env, cwd: s.projectDir });
    expect(url.code).toBe(0);
    const signIn = url.stdout.trim();
    expect(signIn).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/project\/\?token=/);

    browser = await launchBrowser();
    const page = await browser.newPage();
    const problems = new PageProblems(page);

    // Without the token: the sign-in page says how to get in, and shows no token.
    await page.goto(serve.url);
    await page.getByRole('heading', { name: /Sign in/ }).waitFor();
    await screenshot(page, 'setup-page-sign-in');
    await expectPageAccessible(page, 'setup-page-sign-in');
    expect(await page.content()).toContain('project-startup url');

    // With it: the cookie is set and the address bar loses the token.
    await page.goto(signIn);
    expect(page.url()).toBe(serve.url);
    await page
      .locator('#phase')
      .filter({ hasText: 'awaiting-confirmation' })
      .waitFor();
    expect(await page.locator('#platform').textContent()).toContain('generic');
    expect(await page.locator('#project-path').textContent()).toBe(
      s.projectDir
    );
    const checks = await page.locator('#checks tr').count();
    expect(checks).toBe(11);
    expect(await page.locator('#creates').textContent()).toContain(
      path.join(s.projectDir, '.project-startup')
    );
    await screenshot(page, 'setup-page-awaiting-confirmation');
    await expectPageAccessible(page, 'setup-page-awaiting-confirmation');

    // Keyboard: Tab from the top reaches "Create project state", whose focus ring is 3:1 or
    // more against the page in both colour schemes.
    await page.locator('h1').evaluate(h => {
      h.setAttribute('tabindex', '-1');
      h.focus();
    });
    for (
      let i = 0;
      i < 10 &&
      (await page.evaluate(() => document.activeElement?.id)) !== 'confirm';
      i++
    ) {
      await page.keyboard.press('Tab');
    }
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      const ring = await focusRingContrast(page, 'body');
      expect(ring).toMatchObject({ id: 'confirm' });
      expect(ring.outline).toMatch(/^solid /);
      expect(ring.ratio).toBeGreaterThanOrEqual(3);
    }
    await screenshot(page, 'setup-page-focus-ring-dark');
    await page.emulateMedia({ colorScheme: 'light' });
    expect(fs.existsSync(path.join(s.projectDir, '.project-startup'))).toBe(
      false
    );

    await page.getByRole('button', { name: 'Create project state' }).click();
    await page.locator('#phase').filter({ hasText: 'ready' }).waitFor();
    expect(await page.locator('#status').textContent()).toMatch(/set up/);
    expect(await page.locator('#confirm-area').isHidden()).toBe(true);
    await screenshot(page, 'setup-page-ready');
    await expectPageAccessible(page, 'setup-page-ready');

    const state = path.join(s.projectDir, '.project-startup');
    expect(fs.statSync(state).mode & 0o777).toBe(0o700);
    const record = JSON.parse(
      fs.readFileSync(path.join(state, 'initialization.json'), 'utf8')
    );
    expect(record.confirmation).toMatchObject({
      interface: 'web',
      method: 'setup-page',
      ingress: 'direct-loopback'
    });
    expect(
      fs.statSync(path.join(state, 'initialization.json')).mode & 0o777
    ).toBe(0o600);

    // The page's own requests all succeeded, and the token never reached the page's script.
    expect(
      problems.unexpected(p => p.path.endsWith('/project/') && p.status === 401)
    ).toEqual([]);
    await serve.stop();
  }, 90000);
});
