#!/usr/bin/env node
'use strict';
/* global document -- the page.evaluate callbacks run in Chromium */
// The simulation of bench/idle-panels.js checked against the real thing: real JupyterLab pages
// with this extension, in Debian's Chromium, for a minute, counting the startup requests they
// send and showing what those requests carry (header names only: never a value).
//
//   npm run build && npm run bench:idle-browser
//
// It uses the browser tests' helpers (test/system/e2e/helpers.ts, loaded through TypeScript's
// transpiler): the real `jupyter lab` of the system lane's venv with the real
// jupyter-server-proxy, installed by `project-startup jupyter install --user`, at base_url
// /user/alice/. Phases: every page visible for BENCH_BROWSER_SECONDS, then every page hidden
// (document.hidden true and a visibilitychange event, which @lumino/polling's 'when-hidden'
// standby reads) for half that time.
//
// Settings (environment):
//   BENCH_BROWSER_PAGES      pages open at once (default 3)
//   BENCH_BROWSER_SECONDS    seconds with every page visible (default 60)
//   BENCH_BROWSER_INTERVAL   the refreshInterval setting written for the pages (default 10)
const fs = require('node:fs');
const path = require('node:path');

const { startLabBench } = require('./support');

function log(message) {
  process.stderr.write(`bench:idle-browser: ${message}\n`);
}

function setting(name, fallback, min, max) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') {
    return fallback;
  }
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    log(`${name}=${raw}: give a whole number from ${min} to ${max}.`);
    process.exit(2);
  }
  return value;
}

const PACKAGE = 'jupyterlab-project-startup';
const BASE_URL = '/user/alice/';
const STARTUP_PATH = `${BASE_URL}project/startup`;
const sleep = ms => new Promise(resolve => setTimeout(resolve, ms));

async function main() {
  const pages = setting('BENCH_BROWSER_PAGES', 3, 1, 20);
  const seconds = setting('BENCH_BROWSER_SECONDS', 60, 10, 3600);
  const interval = setting('BENCH_BROWSER_INTERVAL', 10, 0, 3600);
  const { h, watchdog } = startLabBench(log, (seconds * 1.5 + 300) * 1000);

  const server = await h.startLabServer({
    baseUrl: BASE_URL,
    label: 'idle-browser',
    prepare: dirs => {
      h.jupyterInstall(dirs);
      const dir = path.join(dirs.settings, PACKAGE);
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(
        path.join(dir, 'plugin.jupyterlab-settings'),
        JSON.stringify({ refreshInterval: interval }, null, 2)
      );
    }
  });
  const browser = await h.launchBrowser();
  /** Every startup request any page sent: when, which page, header names, the answer. */
  const seen = [];
  let phase = 'opening';
  try {
    const opened = [];
    for (let i = 0; i < pages; i++) {
      const page = await browser.newPage();
      page.on('request', req => {
        const url = new URL(req.url());
        if (url.pathname !== STARTUP_PATH) {
          return;
        }
        const headers = req.headers();
        const entry = {
          page: i,
          phase,
          at: Date.now(),
          query: [...url.searchParams.keys()]
            .map(k => (/^\d+$/.test(k) ? '<ms>' : k))
            .join('&'),
          headerNames: Object.keys(headers).sort(),
          conditional: 'if-none-match' in headers,
          status: undefined
        };
        seen.push(entry);
        req
          .response()
          .then(res => {
            entry.status = res?.status();
          })
          .catch(() => undefined);
      });
      await h.openLab(page, server);
      opened.push(page);
      log(`page ${i + 1}/${pages} open`);
    }
    // Each page is counted from when all are open; the panel need not be open (the model polls).
    phase = 'visible';
    const visibleFrom = Date.now();
    await sleep(seconds * 1000);
    const visibleMs = Date.now() - visibleFrom;
    phase = 'hidden';
    for (const page of opened) {
      await page.evaluate(() => {
        Object.defineProperty(document, 'hidden', {
          configurable: true,
          get: () => true
        });
        Object.defineProperty(document, 'visibilityState', {
          configurable: true,
          get: () => 'hidden'
        });
        document.dispatchEvent(new Event('visibilitychange'));
      });
    }
    // Poll lingers one tick after the page hides (its `linger`, 1 by default), then stands by:
    // requests in the first interval after hiding are counted apart ('hiding').
    await sleep((interval + 1) * 1000);
    const hiddenFrom = Date.now();
    for (const e of seen) {
      if (e.phase === 'hidden' && e.at < hiddenFrom) {
        e.phase = 'hiding';
      }
    }
    await sleep((seconds / 2) * 1000);
    const hiddenMs = Date.now() - hiddenFrom;
    report({ pages, interval, visibleMs, hiddenMs, seen, server });
  } finally {
    clearTimeout(watchdog);
    await browser.close();
    await server.stop();
  }
}

function report({ pages, interval, visibleMs, hiddenMs, seen, server }) {
  const count = (p, i) =>
    seen.filter(e => e.phase === p && (i === undefined || e.page === i)).length;
  const visible = count('visible');
  const expected = interval > 0 ? (pages * visibleMs) / 1000 / interval : 0;
  const lines = [
    '',
    `Real JupyterLab pages in Chromium, jupyter-server-proxy ${server.serverProxy.version} (${server.serverProxy.file}); refreshInterval ${interval} s; ${pages} page(s)`,
    `Visible, ${(visibleMs / 1000).toFixed(0)} s: ${visible} startup requests (per page: ${[...Array(pages).keys()].map(i => count('visible', i)).join(', ')}); ` +
      `a poller every ${interval} s would send about ${expected.toFixed(1)}`,
    `Hidden, ${(hiddenMs / 1000).toFixed(0)} s after one interval of lingering (${count('hiding')} request(s) then): ${count('hidden')} startup requests (standby sends none)`,
    `While opening: ${count('opening')} request(s); answers: ${[...new Set(seen.map(e => e.status))].join(', ')}`,
    `Query as sent: ${[...new Set(seen.map(e => e.query))].join(' | ')}`,
    `Header names sent: ${[...new Set(seen.map(e => e.headerNames.join(', ')))].join(' | ')}`,
    `With If-None-Match: ${seen.filter(e => e.conditional).length} of ${seen.length}`,
    ''
  ];
  if (interval > 0 && visible === 0) {
    lines.push(
      'No request while visible: the pages do not poll (is the polling on this branch?).',
      ''
    );
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

main().catch(error => {
  log(error && error.stack ? error.stack : String(error));
  process.exit(1);
});
