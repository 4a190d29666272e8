#!/usr/bin/env node
'use strict';
// The sidecar's performance, measured side by side with two baselines in one run:
//
//   npm run build && npm run bench          (or: node bench/run.js [options])
//
// - a bare node:http server (bench/bare-server.js) answering the same bytes: the limit of a
//   Node HTTP service on this machine;
// - Debian's Jupyter Server answering its own /api/status: what users already run.
//
// It measures throughput and p50/p99 latency under concurrent load (autocannon, in a forked
// process per measurement), cold start (spawn to the first 200 from health), resident memory
// after start and after 50,000 requests, and the prebuilt labextension's size, then prints one
// table with every figure, ratio and target and writes bench/results.json. It builds nothing:
// `npm run build` first (the sidecar's bin, and the labextension it sizes).
//
// Every server listens on 127.0.0.1 only; every load is bounded in count and time; the whole
// run is bounded by a watchdog and cleans up the processes and directories it made.
//
// The sidecar as notebook users reach it, behind the real jupyter-server-proxy on Jupyter
// Server, is measured by bench/proxy.js (`npm run bench:proxy`), a separate run.
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const zlib = require('node:zlib');
const crypto = require('node:crypto');

const ROOT = path.resolve(__dirname, '..');
const BIN = path.join(ROOT, 'bin', 'project-startup.js');
// The bin's own rule for which code it runs (required, not run: it starts only as main).
const { BUNDLE, CODE_CACHE, entry } = require(BIN);
const {
  canPin,
  cleanup,
  fmt,
  freePort,
  httpAnswer,
  machineLine,
  markdownTable,
  median,
  messages,
  neutralStartEnv,
  parseOptions: parseBenchOptions,
  pin,
  rssMiB,
  runLoad,
  sleep,
  tempDir,
  track
} = require('./support');
const DIST_CLI = path.join(ROOT, 'sidecar', 'dist', 'cli', 'main.js');
const BARE = path.join(__dirname, 'bare-server.js');
const LABEXTENSION_STATIC = path.join(
  ROOT,
  'jupyterlab_project_startup',
  'labextension',
  'static'
);
const PYTHON = '/usr/bin/python3';

const TARGETS = {
  capabilitiesVsBare: { min: 0.6, text: '>= 0.60x bare' },
  startupVsBare: { min: 0.4, text: '>= 0.40x bare' },
  capabilitiesVsJupyter: { min: 5, text: '>= 5x Jupyter' },
  coldStartVsBare: { max: 1.5, text: '<= 1.5x bare' },
  memoryVsBare: { max: 1.3, text: '<= 1.3x bare' }
};

const HELP = `Usage: node bench/run.js [options]

  --connections N      concurrent connections per load run (default 10)
  --duration S         seconds measured per load run (default 5)
  --warmup S           seconds of warm-up before each load run (default 1)
  --rounds N           load runs per target, interleaved; the median is reported (default 3)
  --cold-runs N        cold starts per server; the median is reported (default 7)
  --memory-requests N  requests before the second memory reading (default 50000)
  --no-jupyter         skip Jupyter Server
  --no-pin             do not pin servers to CPU 0 and the load generator to CPU 1
  --out FILE           where to write the results (default bench/results.json)

The real path, behind jupyter-server-proxy on Jupyter Server: npm run bench:proxy`;

/** Which code `project-startup` runs, by the rule bin/project-startup.js applies. */
function sidecarEntry() {
  if (entry() === BUNDLE) {
    return `${path.relative(ROOT, BUNDLE)}${fs.existsSync(CODE_CACHE) ? ' with its code cache' : ''}`;
  }
  return `${path.relative(ROOT, DIST_CLI)} (no current bundle: npm run build)`;
}

function parseOptions(argv) {
  return parseBenchOptions(argv, {
    defaults: {
      connections: 10,
      duration: 5,
      warmup: 1,
      rounds: 3,
      coldRuns: 7,
      memoryRequests: 50000,
      jupyter: true,
      pin: true,
      out: path.join(__dirname, 'results.json')
    },
    numbers: {
      '--connections': ['connections', 1, 256],
      '--duration': ['duration', 1, 60],
      '--warmup': ['warmup', 0, 30],
      '--rounds': ['rounds', 1, 10],
      '--cold-runs': ['coldRuns', 1, 50],
      '--memory-requests': ['memoryRequests', 1000, 500000]
    },
    switches: {
      '--no-jupyter': ['jupyter', false],
      '--no-pin': ['pin', false]
    },
    help: HELP,
    fail
  });
}

const { log, fail } = messages('bench');

// ---------------------------------------------------------------- processes and clean-up

function start(file, args, options) {
  return track(
    spawn(file, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options })
  );
}

/** SIGTERM, then SIGKILL if it has not gone within 5 s. */
function stop(child) {
  if (!child || child.exitCode !== null || child.signalCode !== null) {
    return Promise.resolve();
  }
  return new Promise(resolve => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

// ---------------------------------------------------------------- HTTP helpers

function request(port, route, timeoutMs = 2000) {
  return httpAnswer(port, route, timeoutMs);
}

/** Polls until the route answers 200; resolves with the time of that answer (ns). */
async function waitFor200(port, route, child, deadlineMs) {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(
        `the process exited (${child.exitCode ?? child.signalCode}) before answering:\n${child.output()}`
      );
    }
    try {
      const answer = await request(port, route, 1000);
      if (answer.status === 200) {
        return process.hrtime.bigint();
      }
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      throw new Error(
        `no 200 from ${route.path} within ${deadlineMs} ms:\n${child.output()}`
      );
    }
    await new Promise(resolve => setTimeout(resolve, 2));
  }
}

// ---------------------------------------------------------------- the servers

function sidecarSandbox(token, closedUrl) {
  const root = tempDir('ps-bench-');
  const dirs = {
    home: path.join(root, 'home'),
    bin: path.join(root, 'bin'),
    run: path.join(root, 'run'),
    project: path.join(root, 'project')
  };
  for (const dir of [dirs.home, dirs.bin, dirs.project]) {
    fs.mkdirSync(dir, { recursive: true });
  }
  // The runtime directory is left for the sidecar to create (mode 0700), as on first use.
  return {
    ...dirs,
    env: {
      HOME: dirs.home,
      PATH: dirs.bin, // empty: no scheduler or D-Bus client to find
      PROJECT_STARTUP_PLATFORM: 'generic',
      PROJECT_STARTUP_RUNTIME_DIR: dirs.run,
      PROJECT_STARTUP_TOKEN: token,
      PROJECT_STARTUP_LOCAL_RUNTIME_URL: closedUrl,
      PROJECT_STARTUP_SERVING_RUNTIME_URL: closedUrl
    }
  };
}

/** `project-startup serve` as a person starts it, on 127.0.0.1:port. */
function spawnSidecar(sandbox, port) {
  return start(
    process.execPath,
    [
      BIN,
      'serve',
      '--host',
      '127.0.0.1',
      '--port',
      String(port),
      '--project-dir',
      sandbox.project
    ],
    {
      cwd: sandbox.project,
      env: sandbox.env
    }
  );
}

function spawnBare(port, bodiesFile) {
  return start(
    process.execPath,
    [BARE, String(port), ...(bodiesFile ? [bodiesFile] : [])],
    { cwd: __dirname, env: { PATH: process.env.PATH } }
  );
}

async function startJupyter(token) {
  if (!fs.existsSync(PYTHON)) {
    return { skipped: `${PYTHON} is not installed` };
  }
  const probe = spawnSync(
    PYTHON,
    ['-c', 'import jupyter_server; print(jupyter_server.__version__)'],
    { encoding: 'utf8' }
  );
  if (probe.status !== 0) {
    return {
      skipped:
        'jupyter_server is not installed for /usr/bin/python3 (apt-get install python3-jupyter-server)'
    };
  }
  const version = probe.stdout.trim();
  const root = tempDir('ps-bench-jupyter-');
  const env = {
    HOME: root,
    PATH: '/usr/bin:/bin',
    LANG: 'C.UTF-8',
    JUPYTER_CONFIG_DIR: path.join(root, 'config'),
    JUPYTER_DATA_DIR: path.join(root, 'data'),
    JUPYTER_RUNTIME_DIR: path.join(root, 'runtime')
  };
  const port = await freePort();
  const started = process.hrtime.bigint();
  const child = start(
    PYTHON,
    [
      '-m',
      'jupyter_server',
      `--ServerApp.token=${token}`,
      '--allow-root',
      '--no-browser',
      '--port',
      String(port),
      '--ip',
      '127.0.0.1',
      '--ServerApp.port_retries=0',
      `--ServerApp.root_dir=${root}`
    ],
    { cwd: root, env }
  );
  const route = {
    path: '/api/status',
    headers: { authorization: `token ${token}` }
  };
  const ready = await waitFor200(port, route, child, 60000);
  return {
    child,
    port,
    route,
    version,
    startMs: Number(ready - started) / 1e6
  };
}

// ---------------------------------------------------------------- load

function summarize(runs) {
  return {
    rps: median(runs.map(r => r.rps)),
    p50: median(runs.map(r => r.p50)),
    p99: median(runs.map(r => r.p99)),
    cpuUs: median(runs.map(r => r.cpuUs)),
    runs
  };
}

// ---------------------------------------------------------------- labextension

function labextensionSize() {
  if (!fs.existsSync(LABEXTENSION_STATIC)) {
    return {
      missing: `${path.relative(ROOT, LABEXTENSION_STATIC)} is not built (npm run build)`
    };
  }
  const files = [];
  const walk = dir => {
    for (const name of fs.readdirSync(dir).sort()) {
      const file = path.join(dir, name);
      const stat = fs.statSync(file);
      if (stat.isDirectory()) {
        walk(file);
      } else {
        const data = fs.readFileSync(file);
        files.push({
          file: path.relative(LABEXTENSION_STATIC, file),
          bytes: data.length,
          gzipBytes: zlib.gzipSync(data, { level: 9 }).length
        });
      }
    }
  };
  walk(LABEXTENSION_STATIC);
  return {
    files,
    bytes: files.reduce((sum, f) => sum + f.bytes, 0),
    gzipBytes: files.reduce((sum, f) => sum + f.gzipBytes, 0)
  };
}

// ---------------------------------------------------------------- the run

async function main() {
  const o = parseOptions(process.argv.slice(2));
  const removed = neutralStartEnv();
  if (removed) {
    log(removed);
  }
  if (!fs.existsSync(DIST_CLI) && !fs.existsSync(BUNDLE)) {
    fail('the sidecar is not built: run `npm run build` first.');
  }
  const watchdog = setTimeout(
    () => {
      log('the run took longer than 10 minutes; stopping');
      cleanup();
      process.exit(3);
    },
    10 * 60 * 1000
  );
  watchdog.unref();

  const pinned = o.pin && canPin();
  const serverCpu = pinned ? 0 : undefined;
  const loadCpu = pinned ? 1 : undefined;
  const token = crypto.randomBytes(32).toString('hex');
  const jupyterToken = crypto.randomBytes(24).toString('hex');

  // A loopback port that refuses connections: the runtime probes fail fast, as in the tests.
  const closedPort = await freePort();
  const closedUrl = `http://127.0.0.1:${closedPort}/`;
  const auth = { authorization: `Bearer ${token}` };
  const gatewayBody = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'project.startup',
    params: { interface: 'notebook' }
  });
  const ROUTES = {
    capabilities: {
      key: 'GET /project/capabilities',
      method: 'GET',
      path: '/project/capabilities',
      headers: auth
    },
    startup: {
      key: 'GET /project/startup?interface=terminal',
      method: 'GET',
      path: '/project/startup?interface=terminal',
      headers: auth
    },
    gateway: {
      key: 'POST /project/gateway',
      method: 'POST',
      path: '/project/gateway',
      headers: { ...auth, 'content-type': 'application/json' },
      body: gatewayBody
    },
    health: {
      key: 'GET /project/health',
      method: 'GET',
      path: '/project/health',
      headers: {}
    }
  };
  const LOADED = ['capabilities', 'startup', 'gateway'];

  // 1. The sidecar, then the bare server holding the very bytes the sidecar served.
  log(`sidecar entry: ${sidecarEntry()}`);
  const sandbox = sidecarSandbox(token, closedUrl);
  const sidecarPort = await freePort();
  const sidecar = spawnSidecar(sandbox, sidecarPort);
  await waitFor200(sidecarPort, ROUTES.health, sidecar, 20000);
  const bodies = {};
  for (const name of [...LOADED, 'health']) {
    const route = ROUTES[name];
    const answer = await request(sidecarPort, route);
    if (answer.status !== 200) {
      fail(
        `the sidecar answered ${route.key} with ${answer.status}: ${answer.body.toString('utf8').slice(0, 300)}`
      );
    }
    bodies[route.key] = {
      type: answer.headers['content-type'],
      body: answer.body.toString('utf8')
    };
  }
  const bodiesFile = path.join(tempDir('ps-bench-bodies-'), 'bodies.json');
  fs.writeFileSync(bodiesFile, JSON.stringify(bodies));
  const barePort = await freePort();
  const bare = spawnBare(barePort, bodiesFile);
  await waitFor200(barePort, ROUTES.health, bare, 20000);
  const sizes = {};
  for (const name of LOADED) {
    const route = ROUTES[name];
    const [a, b] = await Promise.all([
      request(sidecarPort, route),
      request(barePort, route)
    ]);
    if (!a.body.equals(b.body)) {
      fail(`the bare server's ${route.key} differs from the sidecar's`);
    }
    sizes[name] = a.body.length;
  }

  // 2. Jupyter Server answering its own /api/status.
  let jupyter = { skipped: 'turned off with --no-jupyter' };
  if (o.jupyter) {
    log('starting Jupyter Server');
    jupyter = await startJupyter(jupyterToken);
    if (jupyter.skipped) {
      log(`Jupyter Server skipped: ${jupyter.skipped}`);
    }
  }
  if (pinned) {
    for (const child of [sidecar, bare, jupyter.child].filter(Boolean)) {
      pin(child.pid, serverCpu);
    }
  }

  // 3. Load: every target in turn, rounds interleaved so drift hits all alike.
  const job = (port, route, pid) => ({
    pid,
    url: `http://127.0.0.1:${port}${route.path}`,
    method: route.method,
    headers: route.headers,
    body: route.body,
    connections: o.connections,
    warmupSeconds: o.warmup,
    durationSeconds: o.duration
  });
  const load = { sidecar: {}, bare: {}, jupyter: [] };
  for (const name of LOADED) {
    load.sidecar[name] = [];
    load.bare[name] = [];
  }
  for (let round = 0; round < o.rounds; round++) {
    for (const name of LOADED) {
      const order = round % 2 === 0 ? ['bare', 'sidecar'] : ['sidecar', 'bare'];
      for (const who of order) {
        const [port, pid] =
          who === 'bare' ? [barePort, bare.pid] : [sidecarPort, sidecar.pid];
        log(`round ${round + 1}/${o.rounds}: ${who} ${name}`);
        const figures = await runLoad(job(port, ROUTES[name], pid), loadCpu);
        if (figures.errors || figures.non2xx || figures.timeouts) {
          fail(
            `${who} ${name}: ${figures.errors} errors, ${figures.timeouts} timeouts, ${figures.non2xx} non-2xx answers`
          );
        }
        load[who][name].push(figures);
      }
    }
    if (jupyter.child) {
      log(`round ${round + 1}/${o.rounds}: jupyter /api/status`);
      const figures = await runLoad(
        job(jupyter.port, jupyter.route, jupyter.child.pid),
        loadCpu
      );
      if (figures.errors || figures.non2xx || figures.timeouts) {
        fail(
          `jupyter: ${figures.errors} errors, ${figures.timeouts} timeouts, ${figures.non2xx} non-2xx answers`
        );
      }
      load.jupyter.push(figures);
    }
  }
  const jupyterRssMiB = jupyter.child ? rssMiB(jupyter.child.pid) : null;
  await Promise.all([stop(sidecar), stop(bare), stop(jupyter.child)]);

  // 4. Resident memory: fresh processes, after start and after a fixed number of requests
  //    (the three loaded routes in turn).
  log(`memory: ${o.memoryRequests} requests each`);
  const memory = {};
  {
    const memSandbox = sidecarSandbox(token, closedUrl);
    const ports = { sidecar: await freePort(), bare: await freePort() };
    const procs = {
      sidecar: spawnSidecar(memSandbox, ports.sidecar),
      bare: spawnBare(ports.bare, bodiesFile)
    };
    for (const who of ['sidecar', 'bare']) {
      await waitFor200(ports[who], ROUTES.health, procs[who], 20000);
      if (pinned) {
        pin(procs[who].pid, serverCpu);
      }
    }
    await sleep(1000);
    for (const who of ['sidecar', 'bare']) {
      memory[who] = { afterStartMiB: rssMiB(procs[who].pid) };
    }
    for (const who of ['bare', 'sidecar']) {
      const figures = await runLoad(
        {
          url: `http://127.0.0.1:${ports[who]}/`,
          requests: LOADED.map(name => {
            const r = ROUTES[name];
            return {
              method: r.method,
              path: r.path,
              headers: r.headers,
              ...(r.body ? { body: r.body } : {})
            };
          }),
          connections: o.connections,
          amount: o.memoryRequests
        },
        loadCpu
      );
      if (
        figures.errors ||
        figures.non2xx ||
        figures.timeouts ||
        figures.requests < o.memoryRequests
      ) {
        fail(
          `memory load on ${who}: ${figures.requests} answered, ${figures.errors} errors, ${figures.non2xx} non-2xx`
        );
      }
      memory[who].afterLoadMiB = rssMiB(procs[who].pid);
      memory[who].requests = figures.requests;
    }
    await Promise.all([stop(procs.sidecar), stop(procs.bare)]);
  }

  // 5. Cold start: spawn to the first 200 from health, alternating which goes first.
  log(`cold start: ${o.coldRuns} runs each`);
  const cold = { sidecar: [], bare: [] };
  const coldSandbox = sidecarSandbox(token, closedUrl);
  for (let i = 0; i < o.coldRuns; i++) {
    for (const who of i % 2 === 0 ? ['bare', 'sidecar'] : ['sidecar', 'bare']) {
      const port = await freePort();
      const started = process.hrtime.bigint();
      const child =
        who === 'bare' ? spawnBare(port) : spawnSidecar(coldSandbox, port);
      const answered = await waitFor200(port, ROUTES.health, child, 20000);
      cold[who].push(Number(answered - started) / 1e6);
      await stop(child);
    }
  }

  // 6. The labextension as the browser downloads it.
  const labextension = labextensionSize();

  clearTimeout(watchdog);
  const results = report({
    o,
    pinned,
    sizes,
    load,
    jupyter,
    jupyterRssMiB,
    memory,
    cold,
    labextension
  });
  fs.writeFileSync(o.out, `${JSON.stringify(results, null, 2)}\n`);
  log(`wrote ${path.relative(process.cwd(), o.out) || o.out}`);
  log(
    'the real path, behind jupyter-server-proxy on Jupyter Server: npm run bench:proxy'
  );
}

// ---------------------------------------------------------------- the table

function verdict(target, ratio) {
  if (ratio === null || ratio === undefined) {
    return 'n/a';
  }
  const met =
    target.min !== undefined ? ratio >= target.min : ratio <= target.max;
  return met ? 'yes' : 'NO';
}

function report({
  o,
  pinned,
  sizes,
  load,
  jupyter,
  jupyterRssMiB,
  memory,
  cold,
  labextension
}) {
  const agg = { sidecar: {}, bare: {} };
  for (const who of ['sidecar', 'bare']) {
    for (const [name, runs] of Object.entries(load[who])) {
      agg[who][name] = summarize(runs);
    }
  }
  const jup = load.jupyter.length ? summarize(load.jupyter) : null;
  const ratio = (a, b) => (a !== null && b ? a / b : null);
  const coldMedian = { sidecar: median(cold.sidecar), bare: median(cold.bare) };

  const rows = [];
  const row = (measure, sidecarValue, baseline, r, target) =>
    rows.push([
      measure,
      sidecarValue,
      baseline,
      r === null ? '' : `${fmt(r, 2)}x`,
      target ? target.text : '',
      target ? verdict(target, r) : ''
    ]);

  for (const name of ['capabilities', 'startup', 'gateway']) {
    const s = agg.sidecar[name];
    const b = agg.bare[name];
    const target =
      name === 'capabilities'
        ? TARGETS.capabilitiesVsBare
        : name === 'startup'
          ? TARGETS.startupVsBare
          : undefined;
    row(
      `${name} throughput (req/s)`,
      fmt(s.rps),
      `${fmt(b.rps)} bare`,
      ratio(s.rps, b.rps),
      target
    );
    row(
      `${name} latency p50 / p99 (ms)`,
      `${fmt(s.p50, 2)} / ${fmt(s.p99, 2)}`,
      `${fmt(b.p50, 2)} / ${fmt(b.p99, 2)} bare`,
      null
    );
    row(
      `${name} server CPU per request (µs)`,
      fmt(s.cpuUs, 1),
      `${fmt(b.cpuUs, 1)} bare`,
      ratio(s.cpuUs, b.cpuUs)
    );
  }
  if (jup) {
    for (const name of ['capabilities', 'startup', 'gateway']) {
      const s = agg.sidecar[name];
      row(
        `${name} vs Jupyter /api/status (req/s)`,
        fmt(s.rps),
        `${fmt(jup.rps)} Jupyter`,
        ratio(s.rps, jup.rps),
        name === 'capabilities' ? TARGETS.capabilitiesVsJupyter : undefined
      );
    }
    row(
      'Jupyter /api/status p50 / p99 (ms)',
      '',
      `${fmt(jup.p50, 2)} / ${fmt(jup.p99, 2)} Jupyter`,
      null
    );
    row(
      'Jupyter /api/status server CPU per request (µs)',
      '',
      `${fmt(jup.cpuUs, 1)} Jupyter`,
      null
    );
  } else {
    row('vs Jupyter /api/status', 'n/a', jupyter.skipped || 'n/a', null);
  }
  row(
    `cold start, spawn to health 200 (ms, median of ${o.coldRuns})`,
    fmt(coldMedian.sidecar, 1),
    `${fmt(coldMedian.bare, 1)} bare`,
    ratio(coldMedian.sidecar, coldMedian.bare),
    TARGETS.coldStartVsBare
  );
  row(
    'RSS after start (MiB)',
    fmt(memory.sidecar.afterStartMiB, 1),
    `${fmt(memory.bare.afterStartMiB, 1)} bare`,
    ratio(memory.sidecar.afterStartMiB, memory.bare.afterStartMiB),
    TARGETS.memoryVsBare
  );
  row(
    `RSS after ${fmt(o.memoryRequests)} requests (MiB)`,
    fmt(memory.sidecar.afterLoadMiB, 1),
    `${fmt(memory.bare.afterLoadMiB, 1)} bare`,
    ratio(memory.sidecar.afterLoadMiB, memory.bare.afterLoadMiB),
    TARGETS.memoryVsBare
  );
  if (labextension.missing) {
    row('labextension static/', 'n/a', labextension.missing, null);
  } else {
    row(
      `labextension static/ (KiB, ${labextension.files.length} files)`,
      `${fmt(labextension.gzipBytes / 1024, 1)} gzipped`,
      `${fmt(labextension.bytes / 1024, 1)} raw`,
      null
    );
  }

  const header = ['Measure', 'Sidecar', 'Baseline', 'Ratio', 'Target', 'Met'];
  const machine = machineLine();
  const setup = `${o.connections} connections, ${o.warmup} s warm-up + ${o.duration} s per run, median of ${o.rounds} interleaved rounds; ${
    pinned
      ? 'servers pinned to CPU 0, load generator to CPU 1'
      : 'no CPU pinning'
  }`;
  const out = [
    '',
    `Machine: ${machine}`,
    `Load: ${setup}`,
    `Sidecar: ${sidecarEntry()}; bodies: capabilities ${sizes.capabilities} B, startup ${sizes.startup} B, gateway ${sizes.gateway} B${
      jupyter.version ? `; Jupyter Server ${jupyter.version}` : ''
    }`,
    '',
    ...markdownTable(header, rows),
    ''
  ];
  process.stdout.write(`${out.join('\n')}\n`);

  const met = {
    capabilitiesVsBare: ratio(
      agg.sidecar.capabilities.rps,
      agg.bare.capabilities.rps
    ),
    startupVsBare: ratio(agg.sidecar.startup.rps, agg.bare.startup.rps),
    capabilitiesVsJupyter: jup
      ? ratio(agg.sidecar.capabilities.rps, jup.rps)
      : null,
    coldStartVsBare: ratio(coldMedian.sidecar, coldMedian.bare),
    memoryVsBare: Math.max(
      ratio(memory.sidecar.afterStartMiB, memory.bare.afterStartMiB),
      ratio(memory.sidecar.afterLoadMiB, memory.bare.afterLoadMiB)
    )
  };
  return {
    when: new Date().toISOString(),
    machine,
    setup,
    options: { ...o, out: undefined },
    sidecarEntry: sidecarEntry(),
    bodies: sizes,
    load: {
      sidecar: agg.sidecar,
      bare: agg.bare,
      jupyter: jup,
      jupyterVersion: jupyter.version ?? null,
      jupyterSkipped: jupyter.skipped ?? null
    },
    jupyterStartMs: jupyter.startMs ?? null,
    jupyterRssMiB,
    coldStartMs: { sidecar: cold.sidecar, bare: cold.bare, median: coldMedian },
    memory,
    labextension,
    targets: Object.fromEntries(
      Object.entries(TARGETS).map(([key, target]) => [
        key,
        { ...target, ratio: met[key], met: verdict(target, met[key]) === 'yes' }
      ])
    )
  };
}

main().catch(error => {
  process.stderr.write(
    `bench: ${error && error.stack ? error.stack : error}\n`
  );
  cleanup();
  process.exit(1);
});
