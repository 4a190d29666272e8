// The browser tests' problem collector (PageProblems in helpers.ts) against real Chromium: a
// request aborted because its page navigated on is not a problem (a favicon still loading when a
// link is followed, which a slow service makes likely), and a request that really failed still is.
import * as http from 'node:http';
import { AddressInfo } from 'node:net';
import { Browser, launchBrowser, PageProblems } from './helpers';

let server: http.Server;
let origin: string;
let browser: Browser;
/** Released by the test once the favicon's fate is settled. */
let releaseFavicon: () => void = () => undefined;

beforeAll(async () => {
  server = http.createServer((request, response) => {
    if (request.url === '/favicon.svg') {
      // Held until the test has followed the link: the navigation aborts it.
      releaseFavicon = () => {
        response.writeHead(200, { 'Content-Type': 'image/svg+xml' });
        response.end('<svg xmlns="http://www.w3.org/2000/svg"/>');
      };
      return;
    }
    if (request.url === '/broken.js') {
      request.socket.destroy(); // no answer at all: a real failure
      return;
    }
    response.writeHead(200, { 'Content-Type': 'text/html' });
    response.end(
      request.url === '/next'
        ? '<title>next</title><p>next</p>'
        : '<title>first</title><link rel="icon" href="/favicon.svg"><a id="next" href="/next">next</a>'
    );
  });
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await launchBrowser();
});

afterAll(async () => {
  releaseFavicon();
  await browser?.close();
  server.closeAllConnections();
  await new Promise(resolve => server.close(resolve));
});

it('a request aborted by a navigation is not a problem; a failed one is', async () => {
  const page = await browser.newPage();
  const problems = new PageProblems(page);
  const faviconAsked = page.waitForRequest(`${origin}/favicon.svg`, {
    timeout: 10000
  });
  await page.goto(`${origin}/`);
  await faviconAsked;
  await Promise.all([page.waitForURL(`${origin}/next`), page.click('#next')]);
  await page.evaluate(async url => {
    await fetch(url).catch(() => undefined);
  }, `${origin}/broken.js`);

  expect(problems.ignored).toContain(
    'request aborted by a navigation: GET /favicon.svg'
  );
  // In either order: Chromium reports the failure and logs it.
  const unexpected = problems.unexpected();
  expect(unexpected).toHaveLength(2);
  expect(unexpected).toEqual(
    expect.arrayContaining([
      expect.stringMatching(/^request failed: GET \/broken\.js \(net::ERR_/),
      'console error: Failed to load resource: net::ERR_EMPTY_RESPONSE [/broken.js]'
    ])
  );
  await page.close();
}, 30000);
