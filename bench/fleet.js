'use strict';
// bench:fleet: the real fleet service (`python3 -m jupyterlab_project_startup.fleet.service`, the
// hub's Python) fed 500 users' reports over HTTP at the heartbeat's rate, then its page for 500
// users rendered in Debian's Chromium. Prints the service's CPU (% of one core, from the kernel's
// schedstat of its threads), its RSS, the reports' latency and the page's render time.
//
// The hub is a stand-in (named so): a small HTTP server answering the two hub API calls the
// service makes (GET /hub/api/user for a token, GET /hub/api/users), as JupyterHub answers them.
// A real hub with 500 users and 500 single-user servers does not fit this machine; the service's
// cost does not depend on who answers those calls (cached for 5 minutes per token).
//
//   node bench/fleet.js [--users 500] [--heartbeat 300] [--seconds 60]
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const http = require('node:http');
const path = require('node:path');
const { freePort, threadsCpuMs } = require('./support');

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(`--${name}`);
  return at === -1 ? fallback : Number(args[at + 1]);
};
const USERS = option('users', 500);
const HEARTBEAT = option('heartbeat', 300);
const SECONDS = option('seconds', 60);
const ROOT = path.resolve(__dirname, '..');
const PREFIX = '/services/project-startup-fleet/';
const PHASES = ['ready', 'awaiting-confirmation', 'blocked', 'misconfigured'];
const name = i => `user${String(i).padStart(4, '0')}`;

function rssMb(pid) {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)[1]) / 1024;
}

function report(i) {
  const phase = PHASES[i % PHASES.length];
  return JSON.stringify({
    version: 1,
    phase,
    observedAt: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    extension: '0.1.0',
    failingChecks:
      phase === 'blocked'
        ? [
            {
              id: 'state-path',
              remedy: 'Make the state directory private to you (chmod 700).'
            }
          ]
        : [],
    misconfigured:
      phase === 'misconfigured'
        ? {
            setting: 'noSuchSetting',
            file: '/etc/jupyter/project-startup.json',
            line: 3,
            fix: 'Remove it.'
          }
        : null
  });
}

function post(port, token, body) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const request = http.request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: `${PREFIX}api/reports`,
        headers: {
          authorization: `token ${token}`,
          'content-type': 'application/json'
        }
      },
      answer => {
        answer.resume();
        answer.on('end', () =>
          resolve({
            status: answer.statusCode,
            ms: Number(process.hrtime.bigint() - started) / 1e6
          })
        );
      }
    );
    request.setTimeout(10000, () => request.destroy(new Error('timeout')));
    request.on('error', reject);
    request.end(body);
  });
}

async function main() {
  const [hubPort, servicePort] = [await freePort(), await freePort()];
  const started = new Date().toISOString();
  // The stand-in hub API.
  const hub = http.createServer((request, answer) => {
    const token = (request.headers.authorization || '').split(' ')[1] || '';
    let body;
    if (request.url.startsWith('/hub/api/users')) {
      const offset = Number(
        new URL(request.url, 'http://x').searchParams.get('offset') || 0
      );
      body = [];
      for (let i = offset; i < Math.min(USERS, offset + 200); i += 1) {
        body.push({ name: name(i), servers: { '': { started, ready: true } } });
      }
    } else if (request.url.startsWith('/hub/api/user')) {
      body =
        token === 'admin-token'
          ? {
              kind: 'user',
              name: 'operator',
              admin: true,
              scopes: ['access:services']
            }
          : token.startsWith('tok-')
            ? { kind: 'user', name: token.slice(4), admin: false, scopes: [] }
            : null;
      if (body === null) {
        answer.writeHead(403).end();
        return;
      }
    }
    answer
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify(body));
  });
  await new Promise(resolve => hub.listen(hubPort, '127.0.0.1', resolve));
  const service = spawn(
    '/usr/bin/python3',
    [
      '-m',
      'jupyterlab_project_startup.fleet.service',
      '--heartbeat-seconds',
      String(HEARTBEAT),
      '--log-level',
      'WARNING'
    ],
    {
      cwd: ROOT,
      env: {
        PATH: '/usr/bin:/bin',
        PYTHONPATH: ROOT,
        PYTHONDONTWRITEBYTECODE: '1',
        JUPYTERHUB_API_TOKEN: 'service-token',
        JUPYTERHUB_API_URL: `http://127.0.0.1:${hubPort}/hub/api`,
        JUPYTERHUB_SERVICE_PREFIX: PREFIX,
        JUPYTERHUB_SERVICE_URL: `http://127.0.0.1:${servicePort}`,
        JUPYTERHUB_CLIENT_ID: 'service-project-startup-fleet',
        JUPYTERHUB_BASE_URL: '/',
        JUPYTERHUB_OAUTH_CALLBACK_URL: `${PREFIX}oauth_callback`,
        JUPYTERHUB_SERVICE_NAME: 'project-startup-fleet'
      },
      stdio: ['ignore', 'inherit', 'inherit']
    }
  );
  try {
    for (let i = 0; ; i += 1) {
      const up = await post(servicePort, 'none', '{}').catch(() => undefined);
      if (up) {
        break;
      }
      if (i > 200) {
        throw new Error('the service did not start');
      }
      await new Promise(resolve => setTimeout(resolve, 100));
    }
    // Every user's first report (a restarted service, or all servers starting), then the
    // heartbeat's steady rate: USERS reports per HEARTBEAT seconds, spread evenly.
    for (let i = 0; i < USERS; i += 1) {
      const answer = await post(servicePort, `tok-${name(i)}`, report(i));
      if (answer.status !== 200) {
        throw new Error(`report ${i}: HTTP ${answer.status}`);
      }
    }
    const cpu0 = threadsCpuMs(service.pid);
    const t0 = Date.now();
    const latencies = [];
    const interval = (HEARTBEAT * 1000) / USERS;
    let sent = 0;
    while (Date.now() - t0 < SECONDS * 1000) {
      const i = sent % USERS;
      const answer = await post(servicePort, `tok-${name(i)}`, report(i));
      if (answer.status !== 200 && answer.status !== 429) {
        throw new Error(`HTTP ${answer.status}`);
      }
      latencies.push(answer.ms);
      sent += 1;
      const next = t0 + sent * interval;
      await new Promise(resolve =>
        setTimeout(resolve, Math.max(0, next - Date.now()))
      );
    }
    const cpuPercent =
      ((threadsCpuMs(service.pid) - cpu0) / (Date.now() - t0)) * 100;
    const rss = rssMb(service.pid);
    // The page for USERS users in Chromium, with the admin's token (the hub's OAuth takes it too).
    const { chromium } = require('playwright-core');
    const profile = fs.mkdtempSync('/tmp/ps-bench-fleet-');
    const browser = await chromium.launchPersistentContext(profile, {
      executablePath: '/usr/bin/chromium',
      headless: true,
      args: ['--no-sandbox'],
      extraHTTPHeaders: { authorization: 'token admin-token' }
    });
    const renders = [];
    const timings = [];
    let hubCss;
    try {
      const page = await browser.newPage();
      // JupyterHub's own stylesheet, which the page links from the hub (the stand-in has none):
      // JupyterHub 5.2's from the Debian 13 root when it is there, else Debian 12's.
      hubCss = [
        '/var/tmp/jupyterlab-project-startup-ci/trixie/usr/share/jupyterhub/static/css/style.min.css',
        '/usr/share/jupyterhub/static/css/style.min.css'
      ].find(file => fs.existsSync(file));
      if (hubCss) {
        await page.route('**/hub/static/css/style.min.css', route =>
          route.fulfill({ path: hubCss, contentType: 'text/css' })
        );
      }
      // One navigation first, not counted: it starts the renderer process.
      for (let round = 0; round < 6; round += 1) {
        const begin = Date.now();
        await page.goto(`http://127.0.0.1:${servicePort}${PREFIX}`, {
          waitUntil: 'load'
        });
        if (round === 0) {
          continue;
        }
        renders.push(Date.now() - begin);
        // Where the time goes, from the page's own navigation and paint timings.
        timings.push(
          await page.evaluate(() => {
            const nav = performance.getEntriesByType('navigation')[0];
            const paint = performance
              .getEntriesByType('paint')
              .find(entry => entry.name === 'first-contentful-paint');
            return {
              response: nav.responseEnd - nav.requestStart,
              paint: paint ? paint.startTime - nav.responseEnd : NaN,
              load: nav.loadEventEnd - nav.responseEnd
            };
          })
        );
      }
      const rows = await page.locator('table.fleet-table tbody tr').count();
      if (rows !== USERS) {
        throw new Error(`the page shows ${rows} rows, not ${USERS}`);
      }
    } finally {
      await browser.close();
      fs.rmSync(profile, { recursive: true, force: true });
    }
    latencies.sort((a, b) => a - b);
    renders.sort((a, b) => a - b);
    console.log(
      `machine: ${os.cpus().length} CPUs, load average ${os
        .loadavg()
        .map(v => v.toFixed(1))
        .join(
          ' '
        )} (wall-clock figures below are only as good as the machine is quiet)`
    );
    console.log(
      `fleet service, ${USERS} users, heartbeat ${HEARTBEAT} s, ${SECONDS} s measured (${sent} reports):`
    );
    console.log(`  CPU: ${cpuPercent.toFixed(2)}% of one core`);
    console.log(
      `  RSS: ${rss.toFixed(1)} MB (after the page renders: ${rssMb(service.pid).toFixed(1)} MB)`
    );
    console.log(
      `  report latency: median ${latencies[Math.floor(latencies.length / 2)].toFixed(1)} ms, max ${latencies[latencies.length - 1].toFixed(1)} ms`
    );
    console.log(
      `  page for ${USERS} users in Chromium (load event): median ${renders[2]} ms of 5 (${renders.join(', ')} ms)`
    );
    // The median of the runs that reported it (a browser may report no paint timing).
    const median = key => {
      const values = timings
        .map(t => t[key])
        .filter(Number.isFinite)
        .sort((a, b) => a - b);
      return values.length === 0
        ? 'not reported'
        : values[Math.floor(values.length / 2)].toFixed(0);
    };
    console.log(
      `    styled with ${hubCss ?? "no hub stylesheet (JupyterHub's static files not found)"}`
    );
    console.log(
      `    of which: the service's answer ${median('response')} ms, then first contentful paint +${median('paint')}, load event +${median('load')} (medians, ms)`
    );
  } finally {
    service.kill('SIGTERM');
    hub.close();
  }
}

main().catch(error => {
  console.error(`bench:fleet: ${error.message}`);
  process.exit(1);
});
