#!/usr/bin/env node
'use strict';
// What open Project Startup panels cost the one sidecar a hub user runs: CPU and memory of the
// sidecar (and of the Jupyter server that proxies to it) while N panels poll it.
//
//   npm run build:sidecar && npm run bench:idle          (about 12 minutes)
//   BENCH_IDLE_QUICK=1 npm run bench:idle                (a smoke run, about 2 minutes)
//
// The sidecar runs where it runs for a hub user: launched by the real jupyter-server-proxy on
// Debian's Jupyter Server, started exactly as bench/proxy.js starts it (its startJupyter). Each
// simulated panel is a poller doing what the panel's model does through @lumino/polling and
// ServerConnection.makeRequest: `GET {base_url}project/startup?interface=notebook&<ms>` (the
// `&<ms>` is makeRequest's cache buster for `cache: 'no-store'`) with `Accept: application/json`,
// `Content-Type: application/json` and Jupyter's auth (`Authorization: token …`, or with
// BENCH_IDLE_AUTH=cookie the login cookie and X-XSRFToken a real page sends), the next tick
// one interval after the previous answer, backing off after a failure as Poll does. Each panel
// has its own keep-alive connection, as each user's page has, and the panels start spread over
// one interval, as pages opened at different times.
//
// Phases, one after the other on the same server, each measured after a ramp of one interval:
//   0 panels (the sidecar started, then idle: the baseline), 1, 10 and 100 panels polling;
//   100 hidden panels (each page polled once, then stood by: its connection open, no request);
//   100 panels sending If-None-Match with the last ETag (what a panel could do; see the notes);
//   100 panels at a fast interval (default 1 s), plain and with If-None-Match: the cost of one
//   request shows clearly there.
// Every few seconds it samples utime+stime and RSS of the sidecar and of Jupyter (/proc on
// Linux; `ps -o time=,rss=` elsewhere, e.g. macOS). It prints one table with ratios against the
// 0-panel baseline of the same run and writes bench/idle-panels-results.json. It asserts
// nothing about timing; it fails when a request fails or the sidecar's process changes.
//
// Settings (environment):
//   BENCH_IDLE_SECONDS        measured seconds per phase (default 90; quick 15)
//   BENCH_IDLE_INTERVAL       the panels' refreshInterval in seconds (default 10, the setting's default)
//   BENCH_IDLE_FAST_INTERVAL  the fast phases' interval in seconds (default 1)
//   BENCH_IDLE_FAST_SECONDS   measured seconds per fast phase (default 60; quick 10)
//   BENCH_IDLE_SAMPLE         seconds between samples (default 3; quick 1)
//   BENCH_IDLE_PANELS         the polling phases' panel counts (default 1,10,100)
//   BENCH_IDLE_AUTH           token (Authorization: token, default) or cookie (login cookie and
//                             X-XSRFToken, as a page signed in by cookie sends)
//   BENCH_IDLE_QUICK=1        the quick defaults above
//   BENCH_IDLE_HEAP_ONLY=1    only the heap check (the sidecar's heap after GC per request batch)
//   BENCH_IDLE_HEAP_BATCHES   batches of 2,000 requests in the heap check (default 10; quick: 6 of 500)
//   BENCH_IDLE_OUT            where to write the results (default bench/idle-panels-results.json)
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const {
  fmt,
  freePort,
  loadLine,
  machineLine,
  cleanup,
  markdownTable,
  median,
  messages,
  sleep
} = require('./support');
const {
  BASE_URL,
  prerequisites,
  request,
  sidecarPid,
  startJupyter,
  stopJupyter
} = require('./proxy');

const STARTUP_PATH = `${BASE_URL}project/startup?interface=notebook`;
const MAX_BACKOFF_MS = 5 * 60 * 1000;

const { log, fail } = messages('bench:idle');

function setting(name, fallback, { min, max, integer = false }) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') {
    return fallback;
  }
  const value = Number(raw);
  if (
    !Number.isFinite(value) ||
    value < min ||
    value > max ||
    (integer && !Number.isInteger(value))
  ) {
    fail(
      `${name}=${raw}: give a ${integer ? 'whole ' : ''}number from ${min} to ${max}.`
    );
  }
  return value;
}

function authSetting() {
  const auth = process.env.BENCH_IDLE_AUTH || 'token';
  if (auth !== 'token' && auth !== 'cookie') {
    fail(`BENCH_IDLE_AUTH=${auth}: give token or cookie.`);
  }
  return auth;
}

/**
 * The auth headers a panel sends. token: `Authorization: token …` (makeRequest with a token in
 * its settings). cookie: Jupyter's login cookie and an X-XSRFToken, as a page signed in with
 * `?token=` sends them (seen in Chromium by bench/idle-browser.js: no Authorization then).
 */
async function panelAuth(server, auth) {
  if (auth === 'token') {
    return { authorization: server.auth.authorization };
  }
  // Jupyter Server 1.x sets its login cookie on a token-authenticated request.
  const answer = await request(
    server.port,
    `${BASE_URL}api/status`,
    server.auth,
    30000
  );
  const login = (answer.headers['set-cookie'] ?? [])
    .map(c => c.split(';')[0])
    .find(c => c.startsWith('username-'));
  if (!login) {
    throw new Error(`Jupyter set no login cookie (status ${answer.status})`);
  }
  const xsrf = require('node:crypto').randomBytes(16).toString('hex');
  return { cookie: `${login}; _xsrf=${xsrf}`, 'x-xsrftoken': xsrf };
}

function options() {
  const quick = process.env.BENCH_IDLE_QUICK === '1';
  const panelsRaw = process.env.BENCH_IDLE_PANELS || '1,10,100';
  const panels = panelsRaw.split(',').map(Number);
  if (panels.some(n => !Number.isInteger(n) || n < 1 || n > 1000)) {
    fail(
      `BENCH_IDLE_PANELS=${panelsRaw}: give panel counts from 1 to 1000, separated by commas.`
    );
  }
  return {
    quick,
    seconds: setting('BENCH_IDLE_SECONDS', quick ? 15 : 90, {
      min: 5,
      max: 3600
    }),
    interval: setting('BENCH_IDLE_INTERVAL', 10, { min: 0.1, max: 3600 }),
    fastInterval: setting('BENCH_IDLE_FAST_INTERVAL', 1, {
      min: 0.05,
      max: 60
    }),
    fastSeconds: setting('BENCH_IDLE_FAST_SECONDS', quick ? 10 : 60, {
      min: 5,
      max: 3600
    }),
    sample: setting('BENCH_IDLE_SAMPLE', quick ? 1 : 3, { min: 0.2, max: 60 }),
    panels,
    auth: authSetting(),
    out: path.resolve(
      process.env.BENCH_IDLE_OUT ||
        path.join(__dirname, 'idle-panels-results.json')
    )
  };
}

// ---------------------------------------------------------------- sampling a process

const CLOCK_TICKS = (() => {
  if (process.platform !== 'linux') {
    return undefined;
  }
  try {
    return (
      Number(
        execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()
      ) || 100
    );
  } catch {
    return 100; // the kernel's USER_HZ on every Linux architecture Node runs on
  }
})();

/** `[[dd-]hh:]mm:ss[.cc]` (ps's cumulative CPU time) in seconds. */
function psSeconds(text) {
  const [days, rest] = text.includes('-') ? text.split('-') : ['0', text];
  return (
    rest.split(':').reduce((sum, part) => sum * 60 + Number(part), 0) +
    Number(days) * 86400
  );
}

/**
 * CPU seconds (user + system) and RSS (KiB) of one process. Linux reads /proc/<pid>/stat and
 * /proc/<pid>/status (no process started per sample); elsewhere (macOS has no /proc) `ps`.
 */
function sampleProcess(pid) {
  if (CLOCK_TICKS !== undefined) {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces), from field 3 (state) on.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    return {
      cpu: ticks / CLOCK_TICKS,
      rssKiB: Number(/^VmRSS:\s+(\d+)\s+kB/m.exec(status)[1])
    };
  }
  const [time, rss] = execFileSync(
    'ps',
    ['-o', 'time=,rss=', '-p', String(pid)],
    { encoding: 'utf8' }
  )
    .trim()
    .split(/\s+/);
  return { cpu: psSeconds(time), rssKiB: Number(rss) };
}

/** The sidecar the proxy started (Linux: /proc, in proxy.js; elsewhere: `ps`). */
function findSidecar(jupyterPid) {
  if (process.platform === 'linux') {
    return sidecarPid(jupyterPid);
  }
  const lines = execFileSync('ps', ['-A', '-o', 'pid=,ppid=,command='], {
    encoding: 'utf8'
  }).split('\n');
  for (const line of lines) {
    const match = /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line);
    if (
      match &&
      Number(match[2]) === jupyterPid &&
      match[3].includes('project-startup')
    ) {
      return Number(match[1]);
    }
  }
  return undefined;
}

// ---------------------------------------------------------------- the simulated panels

/**
 * One open panel: its own keep-alive connection, the panel's request every `intervalMs` after
 * the previous answer, Poll's backoff after a failure. With `conditional`, it sends the
 * last ETag it saw as If-None-Match and takes a 304 as "unchanged".
 */
class Panel {
  constructor(server, stats, { intervalMs, delayMs, conditional, once }) {
    this.server = server;
    this.stats = stats;
    this.intervalMs = intervalMs;
    this.conditional = conditional;
    this.once = once;
    this.agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    this.etag = undefined;
    this.stopped = false;
    this.timer = setTimeout(() => this.tick(), delayMs);
    this.inFlight = undefined;
  }

  tick() {
    this.timer = undefined;
    if (this.stopped) {
      return;
    }
    this.inFlight = this.send().then(ok => {
      this.inFlight = undefined;
      if (this.stopped || (this.once && ok)) {
        return;
      }
      // @lumino/polling's backoff: a random wait between the interval and three times the last
      // one, up to the model's cap (ten intervals, at most five minutes).
      const cap = Math.max(
        this.intervalMs,
        Math.min(10 * this.intervalMs, MAX_BACKOFF_MS)
      );
      const last = this.wait ?? this.intervalMs;
      this.wait = ok
        ? this.intervalMs
        : Math.min(
            cap,
            this.intervalMs +
              Math.random() * Math.max(0, last * 3 - this.intervalMs)
          );
      this.timer = setTimeout(() => this.tick(), this.wait);
    });
  }

  send() {
    const headers = {
      accept: 'application/json',
      ...this.server.panelAuth,
      'content-type': 'application/json'
    };
    if (this.conditional && this.etag) {
      headers['if-none-match'] = this.etag;
    }
    const target = `${STARTUP_PATH}&${Date.now()}`;
    return new Promise(resolve => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port: this.server.port,
          method: 'GET',
          path: target,
          headers,
          agent: this.agent,
          timeout: 30000
        },
        res => {
          let bytes = 0;
          res.on('data', chunk => {
            bytes += chunk.length;
          });
          res.on('end', () => {
            const counted = this.stats.counting;
            if (res.statusCode === 200 || res.statusCode === 304) {
              if (res.headers.etag) {
                this.etag = res.headers.etag;
              }
              if (counted) {
                this.stats.ok += 1;
                this.stats.notModified += res.statusCode === 304 ? 1 : 0;
                this.stats.bytes += bytes;
              }
              resolve(true);
            } else {
              if (counted) {
                this.stats.failed += 1;
              }
              this.stats.lastFailure = `HTTP ${res.statusCode}`;
              resolve(false);
            }
          });
          res.on('error', () => resolve(false));
        }
      );
      req.on('timeout', () => req.destroy(new Error('no answer within 30 s')));
      req.on('error', error => {
        if (this.stats.counting) {
          this.stats.failed += 1;
        }
        this.stats.lastFailure = error.message;
        resolve(false);
      });
      req.end();
    });
  }

  /** Stops polling; the connection stays open until close(), as a hidden page keeps it. */
  async stop() {
    this.stopped = true;
    if (this.timer) {
      clearTimeout(this.timer);
    }
    await this.inFlight;
  }

  close() {
    this.agent.destroy();
  }
}

// ---------------------------------------------------------------- one phase

/** Least-squares slope of (seconds, KiB) points, in KiB per minute. */
function slopePerMinute(points) {
  const perSecond = slope(points);
  return perSecond === null ? null : perSecond * 60;
}

/** Least-squares slope of (t, v) points: v per unit of t. */
function slope(points) {
  if (points.length < 3) {
    return null;
  }
  const n = points.length;
  const mx = points.reduce((s, p) => s + p.t, 0) / n;
  const my = points.reduce((s, p) => s + p.v, 0) / n;
  const sxx = points.reduce((s, p) => s + (p.t - mx) ** 2, 0);
  const sxy = points.reduce((s, p) => s + (p.t - mx) * (p.v - my), 0);
  return sxx === 0 ? null : sxy / sxx;
}

async function runPhase(server, pids, o, phase) {
  const stats = {
    counting: false,
    ok: 0,
    notModified: 0,
    failed: 0,
    bytes: 0,
    lastFailure: undefined
  };
  const intervalMs = phase.interval * 1000;
  const panels = [];
  for (let i = 0; i < phase.panels; i++) {
    // Pages opened at different times: spread evenly over one interval, with a little jitter.
    const delayMs = ((i + Math.random() * 0.5) * intervalMs) / phase.panels;
    panels.push(
      new Panel(server, stats, {
        intervalMs,
        delayMs,
        conditional: phase.conditional,
        once: phase.hidden
      })
    );
  }
  // Ramp: every page open (and, for the hidden phase, its one request answered) before measuring.
  await sleep(phase.panels ? intervalMs + 500 : 2000);
  if (phase.hidden) {
    await Promise.all(panels.map(p => p.stop()));
  }
  stats.counting = true;
  const samples = [];
  const take = () => {
    const at = process.hrtime.bigint();
    samples.push({
      t: Number(at) / 1e9,
      sidecar: sampleProcess(pids.sidecar),
      jupyter: sampleProcess(pids.jupyter)
    });
  };
  take();
  const endAt = Date.now() + phase.seconds * 1000;
  while (Date.now() < endAt) {
    await sleep(Math.min(o.sample * 1000, Math.max(0, endAt - Date.now())));
    take();
    if (findSidecar(pids.jupyter) !== pids.sidecar) {
      throw new Error(
        'the sidecar process changed during the phase (it restarted): see the Jupyter log'
      );
    }
  }
  stats.counting = false;
  await Promise.all(panels.map(p => p.stop()));
  panels.forEach(p => p.close());
  if (stats.failed) {
    throw new Error(
      `${phase.label}: ${stats.failed} requests failed (last: ${stats.lastFailure})`
    );
  }
  const first = samples[0];
  const last = samples[samples.length - 1];
  const wall = last.t - first.t;
  const rss = samples.map(s => s.sidecar.rssKiB);
  return {
    ...phase,
    measuredSeconds: wall,
    requests: stats.ok,
    notModified: stats.notModified,
    bytesPerAnswer: stats.ok ? stats.bytes / stats.ok : null,
    rps: stats.ok / wall,
    sidecarCpuPercent: ((last.sidecar.cpu - first.sidecar.cpu) / wall) * 100,
    jupyterCpuPercent: ((last.jupyter.cpu - first.jupyter.cpu) / wall) * 100,
    sidecarCpuSeconds: last.sidecar.cpu - first.sidecar.cpu,
    jupyterCpuSeconds: last.jupyter.cpu - first.jupyter.cpu,
    rssStartKiB: rss[0],
    rssEndKiB: rss[rss.length - 1],
    rssMaxKiB: Math.max(...rss),
    rssSlopeKiBPerMin: slopePerMinute(
      samples.map(s => ({ t: s.t - first.t, v: s.sidecar.rssKiB }))
    ),
    jupyterRssEndKiB: last.jupyter.rssKiB,
    loadAverage: os.loadavg(),
    samples: samples.map(s => ({
      t: s.t - first.t,
      sidecarCpu: s.sidecar.cpu,
      sidecarRssKiB: s.sidecar.rssKiB,
      jupyterCpu: s.jupyter.cpu
    })),
    lastFailure: undefined
  };
}

// ---------------------------------------------------------------- the heap after GC

/**
 * The built service in a child process with --expose-gc (bench/idle-heap.js): batches of
 * startup requests for the notebook interface straight to it (the fast lane, and a connection
 * per request, as through the proxy), its live heap after full collections between batches.
 * Flat means nothing is kept per request.
 */
async function heapCheck(o) {
  const { fork } = require('node:child_process');
  const closed = `http://127.0.0.1:${await freePort()}/`;
  const child = fork(path.join(__dirname, 'idle-heap.js'), [closed], {
    execArgv: ['--expose-gc'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc']
  });
  const next = () =>
    new Promise((resolve, reject) => {
      const onExit = code =>
        reject(new Error(`bench/idle-heap.js exited (${code})`));
      child.once('exit', onExit);
      child.once('message', message => {
        child.off('exit', onExit);
        if (message.error) {
          reject(new Error(message.error));
        } else {
          resolve(message);
        }
      });
    });
  try {
    const { url, token } = await next();
    const target = new URL(`${url}startup?interface=notebook`);
    // A new connection per request, as jupyter-server-proxy makes one (a client per request).
    const agent = new http.Agent({ keepAlive: false, maxSockets: 10 });
    let etag;
    const one = conditional =>
      new Promise((resolve, reject) => {
        const headers = {
          accept: 'application/json',
          authorization: `Bearer ${token}`
        };
        if (conditional && etag) {
          headers['if-none-match'] = etag;
        }
        const req = http.get(
          {
            host: target.hostname,
            port: target.port,
            path: `${target.pathname}${target.search}&${Date.now()}`,
            headers,
            agent,
            timeout: 30000
          },
          res => {
            res.resume();
            res.on('end', () => {
              if (res.statusCode !== 200 && res.statusCode !== 304) {
                reject(new Error(`startup answered ${res.statusCode}`));
              } else {
                etag = res.headers.etag ?? etag;
                resolve();
              }
            });
          }
        );
        req.on('timeout', () =>
          req.destroy(new Error('no answer within 30 s'))
        );
        req.on('error', reject);
      });
    const batch = async (count, conditional) => {
      let sent = 0;
      const worker = async () => {
        while (sent < count) {
          sent += 1;
          await one(conditional);
        }
      };
      await Promise.all(Array.from({ length: 10 }, worker));
    };
    const measure = () => {
      child.send('measure');
      return next();
    };
    await batch(500, false); // warm: JIT, probes, the memo
    const perBatch = o.quick ? 500 : 2000;
    const batches = setting('BENCH_IDLE_HEAP_BATCHES', o.quick ? 6 : 10, {
      min: 4,
      max: 200,
      integer: true
    });
    const points = [];
    let requests = 0;
    points.push({ requests, ...(await measure()) });
    for (let i = 0; i < batches; i++) {
      // The first half plain, the second half with If-None-Match, as a panel could send.
      await batch(perBatch, i >= batches / 2);
      requests += perBatch;
      points.push({ requests, ...(await measure()) });
    }
    agent.destroy();
    // The first batch still warms (code, inline caches): the trend is read from the rest.
    const fit = slope(
      points.slice(1).map(p => ({ t: p.requests / 1000, v: p.heapUsed }))
    );
    return { points, requests, bytesPerThousandRequests: fit };
  } finally {
    child.send('stop');
    await new Promise(resolve => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        resolve();
      }, 5000);
      child.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}

function heapLine(heap) {
  return (
    `Heap after GC (the built sidecar, ${fmt(heap.requests)} startup requests in batches, the second half with If-None-Match): ` +
    `${heap.points.map(p => fmt(p.heapUsed / 1024 / 1024, 2)).join(' → ')} MiB; slope after the first batch ${fmt(heap.bytesPerThousandRequests, 0)} bytes per 1,000 requests`
  );
}

// ---------------------------------------------------------------- the run

function phasesOf(o) {
  const at = `every ${fmt(o.interval, o.interval % 1 ? 1 : 0)} s`;
  const fast = `every ${fmt(o.fastInterval, o.fastInterval % 1 ? 2 : 0)} s`;
  const max = Math.max(...o.panels);
  return [
    {
      label: '0 panels (sidecar idle)',
      panels: 0,
      interval: o.interval,
      seconds: o.seconds
    },
    ...o.panels.map(n => ({
      label: `${n} panel${n === 1 ? '' : 's'} ${at}`,
      panels: n,
      interval: o.interval,
      seconds: o.seconds
    })),
    {
      label: `${max} hidden panels (standby)`,
      panels: max,
      interval: o.interval,
      seconds: o.seconds,
      hidden: true
    },
    {
      label: `${max} panels ${at}, If-None-Match`,
      panels: max,
      interval: o.interval,
      seconds: o.seconds,
      conditional: true
    },
    {
      label: `${max} panels ${fast}`,
      panels: max,
      interval: o.fastInterval,
      seconds: o.fastSeconds
    },
    {
      label: `${max} panels ${fast}, If-None-Match`,
      panels: max,
      interval: o.fastInterval,
      seconds: o.fastSeconds,
      conditional: true
    }
  ];
}

async function main() {
  const o = options();
  if (process.env.BENCH_IDLE_HEAP_ONLY === '1') {
    const heap = await heapCheck(o);
    process.stdout.write(`${heapLine(heap)}\n${JSON.stringify(heap.points)}\n`);
    return;
  }
  const found = prerequisites();
  const phases = phasesOf(o);
  const plannedSeconds =
    phases.reduce(
      (s, p) => s + p.seconds + (p.panels ? p.interval : 2) + 2,
      0
    ) + 60;
  const watchdog = setTimeout(
    () => {
      log(
        `the run took longer than ${Math.round((plannedSeconds * 2) / 60)} minutes; stopping`
      );
      cleanup();
      process.exit(3);
    },
    plannedSeconds * 2 * 1000
  );
  watchdog.unref();
  log(
    `Jupyter Server ${found.jupyterServer}, jupyter-server-proxy ${found.proxyVersion} (${found.source}); about ${Math.round(plannedSeconds / 60)} minutes`
  );
  const server = await startJupyter({
    closedPort: await freePort(),
    pythonPath: found.pythonPath
  });
  server.panelAuth = await panelAuth(server, o.auth);
  const results = [];
  let sidecarInfo;
  try {
    // The first request launches the sidecar; a few more warm it (probes cached, JIT warm).
    const warmStats = {
      counting: true,
      ok: 0,
      failed: 0,
      notModified: 0,
      bytes: 0
    };
    const warm = new Panel(server, warmStats, { intervalMs: 200, delayMs: 0 });
    const deadline = Date.now() + 60000;
    while (warmStats.ok < 5) {
      if (Date.now() > deadline) {
        throw new Error(
          `the sidecar did not answer within 60 s (${warmStats.lastFailure}):\n${server.output().slice(-3000)}`
        );
      }
      await sleep(200);
    }
    const pid = findSidecar(server.pid);
    if (pid === undefined) {
      throw new Error(
        'the sidecar answered but its process was not found among Jupyter’s children'
      );
    }
    await sleep(3000);
    await warm.stop();
    warm.close();
    const pids = { sidecar: pid, jupyter: server.pid };
    sidecarInfo = { pid, rssAfterLaunchKiB: sampleProcess(pid).rssKiB };
    for (const phase of phases) {
      log(`${phase.label}: ${phase.seconds} s`);
      const result = await runPhase(server, pids, o, phase);
      results.push(result);
      log(
        `  ${fmt(result.rps, 2)} req/s, sidecar ${fmt(result.sidecarCpuPercent, 2)} % CPU, RSS ${fmt(result.rssEndKiB / 1024, 1)} MiB, Jupyter ${fmt(result.jupyterCpuPercent, 2)} % CPU, load ${fmt(os.loadavg()[0], 2)}`
      );
    }
  } finally {
    await stopJupyter(server);
  }
  log("the sidecar's heap after GC, between batches of startup requests");
  const heap = await heapCheck(o);
  clearTimeout(watchdog);
  const report = table(o, found, results, sidecarInfo, heap);
  fs.writeFileSync(o.out, `${JSON.stringify(report, null, 2)}\n`);
  log(`wrote ${path.relative(process.cwd(), o.out) || o.out}`);
}

// ---------------------------------------------------------------- the table

function table(o, found, results, sidecarInfo, heap) {
  const base = results[0];
  const ratio = (a, b) => (b > 0 ? `${fmt(a / b, 1)}x` : 'n/a');
  const mib = kib => fmt(kib / 1024, 1);
  const header = [
    'Phase',
    'req/s',
    '304 share',
    'Sidecar CPU % (x base)',
    'Sidecar CPU µs/req (above base)',
    'Sidecar RSS MiB start / end / max',
    'RSS slope KiB/min',
    'Jupyter CPU % (x base)',
    'Jupyter CPU µs/req (above base)',
    'Load avg 1 min'
  ];
  const perRequest = (cpuSeconds, baseCpuSeconds, r) =>
    r.requests
      ? fmt(
          ((cpuSeconds -
            (baseCpuSeconds / base.measuredSeconds) * r.measuredSeconds) /
            r.requests) *
            1e6,
          0
        )
      : '–';
  const rows = results.map(r => [
    r.label,
    fmt(r.rps, 2),
    r.requests ? `${fmt((r.notModified / r.requests) * 100, 0)} %` : '–',
    `${fmt(r.sidecarCpuPercent, 2)} (${ratio(r.sidecarCpuPercent, base.sidecarCpuPercent)})`,
    perRequest(r.sidecarCpuSeconds, base.sidecarCpuSeconds, r),
    `${mib(r.rssStartKiB)} / ${mib(r.rssEndKiB)} / ${mib(r.rssMaxKiB)}`,
    fmt(r.rssSlopeKiBPerMin, 0),
    `${fmt(r.jupyterCpuPercent, 2)} (${ratio(r.jupyterCpuPercent, base.jupyterCpuPercent)})`,
    perRequest(r.jupyterCpuSeconds, base.jupyterCpuSeconds, r),
    fmt(r.loadAverage[0], 2)
  ]);
  const machine = machineLine();
  const busy = loadLine('at the end');
  // What polling adds per hub: the per-request CPU of the busiest plain phase, times requests.
  const polling = results.filter(
    r =>
      !r.hidden && !r.conditional && r.panels > 0 && r.interval === o.interval
  );
  const widest = polling[polling.length - 1];
  const answerBytes = median(
    results.map(r => (r.notModified === 0 ? r.bytesPerAnswer : null))
  );
  const out = [
    '',
    `Machine: ${machine}; ${busy}`,
    `Jupyter Server ${found.jupyterServer}, jupyter-server-proxy ${found.proxyVersion} (${found.source}); base_url ${BASE_URL}; sidecar pid ${sidecarInfo.pid}, ${mib(sidecarInfo.rssAfterLaunchKiB)} MiB RSS after launch`,
    `Panels: GET ${STARTUP_PATH}&<ms> (Accept, Content-Type, ${o.auth === 'token' ? 'Authorization: token' : 'login cookie + X-XSRFToken'}, as ServerConnection.makeRequest), one keep-alive connection each, starts spread over one interval; ${fmt(o.seconds)} s measured per phase (${fmt(o.fastSeconds)} s for the fast ones) after a one-interval ramp, sampled every ${fmt(o.sample, 1)} s`,
    `Answer: ${fmt(answerBytes)} bytes of JSON per 200`,
    '',
    ...markdownTable(header, rows),
    '',
    'CPU %: of one core, user + system, over the measured window. x base: against the 0-panel phase of this run.',
    "µs/req: the phase's CPU minus the baseline's for the same time, divided by the requests answered.",
    widest
      ? `At ${widest.panels} panels every ${fmt(o.interval)} s the sidecar used ${fmt(widest.sidecarCpuPercent, 2)} % of a core (${fmt(base.sidecarCpuPercent, 2)} % idle).`
      : '',
    heapLine(heap),
    ''
  ];
  process.stdout.write(`${out.join('\n')}\n`);
  return {
    when: new Date().toISOString(),
    machine,
    busy,
    options: { ...o, out: undefined },
    jupyterServer: found.jupyterServer,
    jupyterServerProxy: { version: found.proxyVersion, source: found.source },
    sidecar: sidecarInfo,
    answerBytes,
    phases: results,
    heapAfterGc: heap
  };
}

main().catch(error => {
  log(error && error.stack ? error.stack : String(error));
  cleanup();
  process.exit(1);
});
