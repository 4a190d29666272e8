// The API docs page in real Chromium: reached from the setup page's link, rendered by the
// Swagger UI the package ships (no CDN), under the page's Content-Security-Policy, showing every
// operation of the OpenAPI document the service serves.
import { runCli, startServe, trackedSandboxes } from '../../helpers/cli';
import { request } from '../../helpers/harness';
import { Browser, launchBrowser, PageProblems, screenshot } from './helpers';

const sandbox = trackedSandboxes();
let browser: Browser | undefined;

afterEach(async () => {
  await browser?.close();
  browser = undefined;
});

describe('the API docs page in Chromium', () => {
  it('opens from the setup page and shows every operation, with no error and no request leaving the service', async () => {
    const s = sandbox();
    const serve = await startServe([], { env: s.env, cwd: s.projectDir });
    const url = await runCli(['url'], { env: s.env, cwd: s.projectDir });
    expect(url.code).toBe(0);
    const document = (await request(`${serve.url}openapi.json`)).json as {
      paths: Record<string, Record<string, { operationId: string }>>;
    };
    const operations = Object.values(document.paths).flatMap(item =>
      Object.values(item).map(op => op.operationId)
    );

    browser = await launchBrowser();
    const page = await browser.newPage();
    const problems = new PageProblems(page);
    const origins = new Set<string>();
    page.on('request', r => origins.add(new URL(r.url()).origin));
    const violations: string[] = [];
    page.on('console', m => {
      if (/Content Security Policy/i.test(m.text())) {
        violations.push(m.text());
      }
    });

    await page.goto(url.stdout.trim());
    await page.getByRole('link', { name: 'API documentation' }).click();
    expect(page.url()).toBe(`${serve.url}api-docs`);
    await page.locator('.opblock').first().waitFor();
    const shown = await page.locator('.opblock').count();
    expect(shown).toBe(operations.length);
    for (const id of operations) {
      expect(await page.locator(`#operations-default-${id}`).count()).toBe(1);
    }
    // No warning box: the document is one Swagger UI fully understands.
    expect(await page.locator('.errors-wrapper').count()).toBe(0);
    await screenshot(page, 'api-docs');

    expect(problems.unexpected()).toEqual([]);
    expect(violations).toEqual([]);
    expect([...origins]).toEqual([new URL(serve.url).origin]);
    await serve.stop();
  }, 90000);
});
