// The first example of the live state, end to end: an allocation that ends shows in the
// open panel with no click. A real single-node Slurm (test/system/cluster/slurm.ts: munge, slurmctld,
// slurmd in the test's own directory), an allocation (`salloc --no-shell`), and a Jupyter server
// started inside it (SLURM_JOB_ID, SLURM_CONF, squeue on PATH), so the sidecar is on the
// Cluster platform and sees the job live; the real JupyterLab front end in Chromium with
// refreshInterval 1 s; then `scancel`. The notebook interface is not supported on the Cluster
// platform whatever the allocation does, so the phase stays "Interface not supported": what
// changes, without a click, is the panel's Compute readiness check (pass → warn, "not live").
//
// Screenshots: live-allocation-running, live-allocation-ended.
import { randomBytes } from 'node:crypto';
import type { Page } from 'playwright-core';
import { startSlurmCluster, SlurmCluster } from '../cluster/slurm';
import {
  Browser,
  checkPrerequisites,
  jupyterInstall,
  LabServer,
  launchBrowser,
  openLab,
  screenshot,
  startLabServer,
  stopAllLabServers
} from './helpers';
import {
  BASE_URL,
  checkExtensionBuilt,
  newProblemPage,
  PANEL,
  pause,
  projection,
  STATUS_BUTTON,
  writePluginSetting,
  openDisclosure
} from './panel-helpers';

const COMPUTE = `${PANEL} tr[data-check-id="compute-allocation"]`;

interface Check {
  id: string;
  status: string;
  observed: string;
}

describe('live state: an allocation that ends shows in the open panel (real Slurm, Chromium, real jupyter-server-proxy)', () => {
  let cluster: SlurmCluster | undefined;
  let server: LabServer | undefined;
  let browser: Browser | undefined;
  let page: Page | undefined;
  let jobId = '';

  beforeAll(async () => {
    checkPrerequisites();
    checkExtensionBuilt();
    cluster = await startSlurmCluster();
    jobId = await cluster.allocate(`ps-live-${randomBytes(4).toString('hex')}`);
    const slurmConf = cluster.conf;
    server = await startLabServer({
      baseUrl: BASE_URL,
      label: 'live-allocation-server',
      prepare: dirs => {
        jupyterInstall(dirs);
        writePluginSetting(dirs, { refreshInterval: 1 });
        // The Jupyter server runs inside the allocation; squeue is on its PATH (/usr/bin).
        return {
          SLURM_JOB_ID: jobId,
          SLURM_CONF: slurmConf,
          PROJECT_STARTUP_APPROVED_STORAGE: dirs.root,
          // squeue gets twice this bound; generous so a loaded machine never turns "live" into "failed".
          PROJECT_STARTUP_PROBE_TIMEOUT_MS: '4000'
        };
      }
    });
    browser = await launchBrowser();
  }, 180000);

  afterAll(async () => {
    await page?.close().catch(() => undefined);
    await browser?.close();
    await server?.stop();
    await cluster?.stop();
    await stopAllLabServers();
  }, 90000);

  async function computeCheck(): Promise<Check> {
    const answer = await projection(server as LabServer);
    expect(answer).toMatchObject({
      platform: 'cluster',
      phase: 'unsupported-interface'
    });
    return (answer.readinessChecks as Check[]).find(
      c => c.id === 'compute-allocation'
    ) as Check;
  }

  /** Waits (bounded) until `selector` holds `text` (the panel shows Markdown `code` as code: no backticks). */
  async function waitForPanelText(
    selector: string,
    markdown: string,
    timeoutMs: number
  ): Promise<void> {
    const text = markdown.replace(/`/g, '');
    try {
      await (page as Page).waitForFunction(
        ([sel, expected]) =>
          (document.querySelector(sel)?.textContent ?? '').includes(expected),
        [selector, text] as const,
        { timeout: timeoutMs, polling: 100 }
      );
    } catch {
      const now = await (page as Page).evaluate(
        sel => document.querySelector(sel)?.textContent ?? null,
        selector
      );
      throw new Error(
        `${selector} did not come to contain "${text}"; it shows ${JSON.stringify(now)}\n${cluster?.logTail(10)}`
      );
    }
  }

  test('scancel: the Compute check in the open panel turns from live to not live, with no click', async () => {
    const c = cluster as SlurmCluster;
    const running = await computeCheck();
    expect(running.status).toBe('pass');
    expect(running.observed).toContain(jobId);

    const opened = await newProblemPage(browser);
    page = opened.page;
    const problems = opened.problems;
    await openLab(page, server as LabServer);
    // Open the panel from the status bar item (a panel that opened by itself stays open too).
    await page
      .locator(STATUS_BUTTON)
      .waitFor({ state: 'visible', timeout: 30000 });
    await page.waitForFunction(
      selector =>
        document.querySelector(selector)?.textContent ===
        'Project: Interface not supported',
      STATUS_BUTTON,
      {
        timeout: 30000,
        polling: 100
      }
    );
    await page.locator(STATUS_BUTTON).click();
    // The checks are one click away, in their disclosure.
    await openDisclosure(page, 'checks');
    await page.locator(COMPUTE).waitFor({ state: 'visible', timeout: 20000 });
    await waitForPanelText(COMPUTE, running.observed, 20000);
    await page.locator(COMPUTE).scrollIntoViewIfNeeded();
    await screenshot(page, 'live-allocation-running');

    await c.cancel(jobId);
    expect(await c.waitForJobState(jobId, ['CANCELLED'])).toBe('CANCELLED');
    // The service notices within its 2 s liveness cache; the page within a poll after that.
    let ended = await computeCheck();
    const deadline = Date.now() + 30000;
    while (ended.status !== 'warn' && Date.now() < deadline) {
      await pause(250);
      ended = await computeCheck();
    }
    expect(ended.status).toBe('warn');
    expect(ended.observed).toContain('is not live');
    await waitForPanelText(COMPUTE, ended.observed, 20000);
    expect(await page.locator(COMPUTE).textContent()).not.toContain(
      running.observed.replace(/`/g, '')
    );
    await page.locator(COMPUTE).scrollIntoViewIfNeeded();
    await screenshot(page, 'live-allocation-ended');
    expect(problems.unexpected()).toEqual([]);
  }, 120000);
});
