#!/usr/bin/env node
'use strict';
/* global document, performance, MutationObserver, requestAnimationFrame, window -- in Chromium */
// How fast the extension shows itself in the real JupyterLab (the system lane's venv with the
// wheel, JupyterLab 4.6.4), in Debian's Chromium, with a cold sidecar: every run starts a fresh
// Jupyter server (test/system/e2e/helpers.ts), so the first proxied request spawns the sidecar.
// A fresh project is awaiting confirmation, so the panel opens by itself, beside JupyterLab's
// Launcher (which JupyterLab opens only into an empty main area: the extension opens it first).
//
//   npm run build && node bench/panel-first-paint.js [--runs N]     (default 3 runs)
//
// Per run, from the page's own clock (the first animation frame after an element is in the
// DOM, i.e. the paint that shows it), relative to the shell (JupyterLab's main dock panel):
//   - the phase in the status bar;
//   - the heading of the panel that opens itself;
//   - when the first start-up GET left and when its answer arrived (resource timing), and when
//     JupyterLab's layout was restored: the heading can precede neither;
//   - the baseline, measured in the same run: JupyterLab's own file browser showing its first
//     item (a server request of its own, to Jupyter's contents API), and the ratio
//     heading / listing;
//   - the Launcher the panel opens beside, and the heading's lag behind it (0: the same paint);
//   - when the panel's chunk was asked for: beside the GET on a first visit (src/panel-hint.ts;
//     each run is a fresh browser context, so a first visit).
// Then the labextension's gzipped size (every file of labextension/static, gzip -9).
const fs = require('node:fs');
const path = require('node:path');
const zlib = require('node:zlib');
const { startLabBench } = require('./support');

const ROOT = path.resolve(__dirname, '..');
const LABEXTENSION = path.join(
  ROOT,
  'jupyterlab_project_startup',
  'labextension'
);
const BASE_URL = '/user/alice/';

function log(message) {
  process.stderr.write(`bench:panel-first-paint: ${message}\n`);
}

function gzippedSize() {
  let total = 0;
  const walk = dir => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        walk(file);
      } else {
        total += zlib.gzipSync(fs.readFileSync(file), { level: 9 }).length;
      }
    }
  };
  walk(path.join(LABEXTENSION, 'static'));
  return total;
}

/** In the page before any script: the first frame after each watched element appears. */
function watchPaints() {
  const selectors = {
    shell: '#jp-main-dock-panel',
    listing: '.jp-DirListing-item',
    status:
      '.jp-ProjectStartup-statusItem [data-phase], .jp-ProjectStartup-statusItem',
    heading: '#jp-project-startup-panel .jp-ProjectStartup-stateTitle',
    launcher: '#jp-main-dock-panel .jp-Launcher'
  };
  const seen = {};
  window.__firstPaint = seen;
  let hooked = false;
  const check = () => {
    // JupyterLab's layout restored (window.jupyterapp, which the tests' page config exposes):
    // the panel that opens itself waits for it, so that the Launcher is in place beside it.
    if (!hooked && window.jupyterapp) {
      hooked = true;
      window.jupyterapp.restored.then(() => {
        seen.restored = performance.now();
      });
    }
    for (const [name, selector] of Object.entries(selectors)) {
      if (seen[name] === undefined) {
        const el = document.querySelector(selector);
        if (el && (name !== 'status' || el.textContent.trim() !== '')) {
          seen[name] = null;
          requestAnimationFrame(() => {
            seen[name] = performance.now();
          });
        }
      }
    }
  };
  new MutationObserver(check).observe(document, {
    childList: true,
    subtree: true,
    characterData: true
  });
}

const median = xs => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

async function main() {
  const i = process.argv.indexOf('--runs');
  const runs = i > 0 ? Number(process.argv[i + 1]) : 3;
  if (!Number.isInteger(runs) || runs < 1 || runs > 30) {
    log('--runs takes a whole number from 1 to 30');
    process.exit(2);
  }
  const { h, watchdog } = startLabBench(log, runs * 120000 + 60000);
  // The panel's chunk, as the system lane's start-load test finds it in the build.
  const panelChunk = h.lazyChunks().panel;
  const browser = await h.launchBrowser();
  const rows = [];
  try {
    for (let run = 0; run < runs; run++) {
      const server = await h.startLabServer({
        baseUrl: BASE_URL,
        label: `first-paint-${run}`,
        prepare: dirs => {
          h.jupyterInstall(dirs);
          fs.writeFileSync(
            path.join(dirs.project, 'notes.txt'),
            'a file for the listing\n'
          );
        }
      });
      try {
        const page = await browser.newPage();
        await page.setViewportSize({ width: 1400, height: 850 });
        await page.addInitScript(watchPaints);
        await h.openLab(page, server);
        await page
          .waitForFunction(
            () => {
              const s = window.__firstPaint;
              return [
                'shell',
                'listing',
                'status',
                'heading',
                'launcher',
                'restored'
              ].every(k => typeof s[k] === 'number');
            },
            undefined,
            { timeout: 20000, polling: 50 }
          )
          .catch(async e => {
            log(
              `seen: ${JSON.stringify(await page.evaluate(() => window.__firstPaint))}`
            );
            throw e;
          });
        const s = await page.evaluate(chunkFile => {
          // From the page's resource timing: when the first start-up GET left and answered, and
          // when the panel's chunk was asked for.
          const resources = performance.getEntriesByType('resource');
          const get = resources.find(e =>
            new URL(e.name).pathname.endsWith('/project/startup')
          );
          const chunk = resources.find(e =>
            new URL(e.name).pathname.endsWith(`/${chunkFile}`)
          );
          return {
            ...window.__firstPaint,
            asked: get ? get.startTime : NaN,
            answered: get ? get.responseEnd : NaN,
            chunk: chunk ? chunk.startTime : NaN
          };
        }, panelChunk);
        const row = {
          status: s.status - s.shell,
          heading: s.heading - s.shell,
          listing: s.listing - s.shell,
          asked: s.asked - s.shell,
          answered: s.answered - s.shell,
          restored: s.restored - s.shell,
          afterRestored: s.heading - s.restored,
          launcher: s.launcher - s.shell,
          afterLauncher: s.heading - s.launcher,
          chunk: s.chunk - s.shell
        };
        rows.push(row);
        log(
          `run ${run + 1}/${runs}: status ${row.status.toFixed(0)} ms, heading ${row.heading.toFixed(0)} ms, file listing ${row.listing.toFixed(0)} ms, Launcher ${row.launcher.toFixed(0)} ms after the shell; the start-up GET left at ${row.asked.toFixed(0)} ms and was answered at ${row.answered.toFixed(0)} ms; the layout was restored at ${row.restored.toFixed(0)} ms`
        );
        await page.close();
      } finally {
        await server.stop();
      }
    }
  } finally {
    clearTimeout(watchdog);
    await browser.close();
  }
  const fmt = k =>
    `median ${median(rows.map(r => r[k])).toFixed(0)} ms (runs: ${rows.map(r => r[k].toFixed(0)).join(', ')})`;
  const bytes = gzippedSize();
  const ratio =
    median(rows.map(r => r.heading)) /
    Math.max(1, median(rows.map(r => r.listing)));
  process.stdout.write(
    [
      '',
      `Real JupyterLab in Chromium, a cold sidecar per run, ${runs} run(s); times after the shell's first paint:`,
      `  status bar phase:        ${fmt('status')}`,
      `  panel heading:           ${fmt('heading')} (target <= 300 ms)`,
      `  baseline, file listing: ${fmt('listing')}; heading / listing ${ratio.toFixed(2)}`,
      `  the Launcher:            ${fmt('launcher')} (JupyterLab's; the panel opens beside it)`,
      `  heading after Launcher:  ${fmt('afterLauncher')} (0: in the Launcher's paint)`,
      `  start-up GET sent:       ${fmt('asked')}`,
      `  start-up GET answered:   ${fmt('answered')} (a cold sidecar: spawned by this GET)`,
      `  panel chunk asked for:   ${fmt('chunk')} (beside the GET on a first visit)`,
      `  layout restored:         ${fmt('restored')} (JupyterLab's own; the panel opens after it)`,
      `  heading after restored:  ${fmt('afterRestored')}`,
      `labextension static/, gzip -9: ${bytes} B (${(bytes / 1024).toFixed(1)} KiB; target <= 30,720 B)`,
      ''
    ].join('\n')
  );
}

main().catch(error => {
  log(error && error.stack ? error.stack : String(error));
  process.exit(1);
});
