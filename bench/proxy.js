#!/usr/bin/env node
'use strict';
// The real path, measured: the sidecar behind the real jupyter-server-proxy on Debian's
// Jupyter Server, with Jupyter's own /api/status on the same server as the baseline.
//
//   npm run build && npm run bench:proxy          (or: node bench/proxy.js [options])
//
// Jupyter is `/usr/bin/python3 -m jupyter_server` (Debian's 1.23) at base_url /user/alice/, as
// under JupyterHub, with token authentication, on 127.0.0.1 only, in temporary JUPYTER_* and
// HOME directories. jupyter-server-proxy is the one installed for that Python where it can be
// imported, else the unmodified 4.4.0 vendored in ../shared/vendor/python (on PYTHONPATH, with
// PYTHONDONTWRITEBYTECODE=1 so nothing is written there). It is enabled through
// `ServerApp.jpserver_extensions`, and the `project` entry is the one `project-startup jupyter
// install` writes (jupyter-config/, absolute_url, unix_socket, `serve --ingress
// notebook-server-proxy`), run with this checkout's bin.
//
// It measures:
// - cold start: on a fresh Jupyter server per launch, once Jupyter answered its first
//   /api/status, the time from the first request for {base_url}project/capabilities (the proxy
//   launches the sidecar, polls it until ready, then forwards) to its answer; next to it, the
//   time of that first /api/status;
// - warm: throughput, p50/p99 latency and server CPU per request (Jupyter plus the sidecar) of
//   capabilities and startup?interface=notebook through the proxy, against /api/status, under
//   autocannon load (bench/load.js, a forked process per measurement).
// It prints one table with ratios against /api/status and writes bench/proxy-results.json. It
// asserts nothing about timing. It builds nothing: `npm run build` first.
//
// Every server listens on 127.0.0.1 only and runs in its own process group, which is ended
// (SIGTERM, then SIGKILL) after each use and on any failure; every load is bounded in time; the
// whole run is bounded by a watchdog.
const { spawn, spawnSync } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const BIN = path.join(ROOT, 'bin', 'project-startup.js');
const { BUNDLE, entry } = require(BIN);
const {
  canPin,
  cleanup,
  fmt,
  freePort,
  httpText,
  loadLine,
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
  trackGroup
} = require('./support');
const DIST_CLI = path.join(ROOT, 'sidecar', 'dist', 'cli', 'main.js');
// The proxy entry `project-startup jupyter install` writes, from the same template.
const PROXY_TEMPLATE = path.join(
  ROOT,
  'jupyter-config',
  'jupyter_server_config.d',
  'jupyterlab-project-startup.json'
);
const PROXY_ENTRY = 'project';
const VENDOR = path.resolve(ROOT, '..', 'shared', 'vendor', 'python');
const PYTHON = '/usr/bin/python3';
const BASE_URL = '/user/alice/';
const APT = 'apt-get install python3-jupyter-server python3-aiohttp';

const HELP = `Usage: node bench/proxy.js [options]

  --connections N   concurrent connections per load run (default 10)
  --duration S      seconds measured per load run (default 5)
  --warmup S        seconds of warm-up before each load run (default 1)
  --rounds N        load runs per target, interleaved; the median is reported (default 3)
  --cold-runs N     fresh Jupyter servers for the cold start; the median is reported (default 7)
  --no-pin          do not pin the servers to CPU 0 and the load generator to CPU 1
  --out FILE        where to write the results (default bench/proxy-results.json)`;

function parseOptions(argv) {
  return parseBenchOptions(argv, {
    defaults: {
      connections: 10,
      duration: 5,
      warmup: 1,
      rounds: 3,
      coldRuns: 7,
      pin: true,
      out: path.join(__dirname, 'proxy-results.json')
    },
    numbers: {
      '--connections': ['connections', 1, 256],
      '--duration': ['duration', 1, 60],
      '--warmup': ['warmup', 0, 30],
      '--rounds': ['rounds', 1, 10],
      '--cold-runs': ['coldRuns', 1, 30]
    },
    switches: { '--no-pin': ['pin', false] },
    help: HELP,
    fail
  });
}

const { log, fail } = messages('bench:proxy');

function request(port, target, headers, timeoutMs) {
  return httpText(port, { path: target, headers }, timeoutMs);
}

/** One GET, timed from the request to the whole answer (ms); fails unless it is a JSON 200. */
async function timedGet(server, target, timeoutMs) {
  const started = process.hrtime.bigint();
  const answer = await request(server.port, target, server.auth, timeoutMs);
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (
    answer.status !== 200 ||
    !/json/.test(answer.headers['content-type'] || '')
  ) {
    throw new Error(
      `GET ${target} answered ${answer.status} (${answer.headers['content-type']}): ${answer.body.slice(0, 300)}\n--- Jupyter log (tail) ---\n${server.output().slice(-3000)}`
    );
  }
  return ms;
}

// ---------------------------------------------------------------- prerequisites

/** What Python runs, and where jupyter-server-proxy comes from; exits with the fix if missing. */
function prerequisites() {
  if (!fs.existsSync(DIST_CLI) && !fs.existsSync(BUNDLE)) {
    fail('the sidecar is not built: run `npm run build` first.');
  }
  if (!fs.existsSync(PROXY_TEMPLATE)) {
    fail(
      `${path.relative(ROOT, PROXY_TEMPLATE)} is missing: the proxy entry cannot be configured.`
    );
  }
  if (!fs.existsSync(PYTHON)) {
    fail(`${PYTHON} is not installed. Install Debian's Jupyter Server: ${APT}`);
  }
  const ask = (code, extraPath) =>
    spawnSync(PYTHON, ['-c', code], {
      encoding: 'utf8',
      timeout: 30000,
      env: {
        PATH: '/usr/bin:/bin',
        PYTHONDONTWRITEBYTECODE: '1',
        ...(extraPath ? { PYTHONPATH: extraPath } : {})
      }
    });
  const lastLine = result =>
    (result.stderr || result.error?.message || '').trim().split('\n').pop();
  const base = ask(
    'import jupyter_server, aiohttp; print(jupyter_server.__version__)'
  );
  if (base.status !== 0) {
    fail(
      `${PYTHON} cannot import jupyter_server and aiohttp (${lastLine(base)}). Install Debian's packages: ${APT}`
    );
  }
  const versions =
    'import jupyter_server_proxy, simpervisor; print(jupyter_server_proxy.__version__, simpervisor.__version__)';
  let source = 'installed';
  let pythonPath = '';
  let probe = ask(versions);
  if (probe.status !== 0) {
    if (!fs.existsSync(path.join(VENDOR, 'jupyter_server_proxy'))) {
      fail(
        `jupyter-server-proxy is neither installed for ${PYTHON} nor vendored in ${VENDOR}. ` +
          'Install it (pip install jupyter-server-proxy) or put the vendored copy there (../shared/vendor/python beside the clone).'
      );
    }
    source = `vendored, ${VENDOR}`;
    pythonPath = VENDOR;
    probe = ask(versions, pythonPath);
    if (probe.status !== 0) {
      fail(
        `the vendored jupyter-server-proxy in ${VENDOR} cannot be imported by ${PYTHON} (${lastLine(probe)}).`
      );
    }
  }
  const [proxyVersion, simpervisorVersion] = probe.stdout.trim().split(' ');
  return {
    jupyterServer: base.stdout.trim(),
    proxyVersion,
    simpervisorVersion,
    source,
    pythonPath
  };
}

/**
 * The `project` entry as `project-startup jupyter install` writes it: this Node, this bin (or
 * `sidecar.bin`, another checkout's, with `sidecar.nodeOptions` before it, to compare builds).
 */
function proxyEntry(sidecar = {}) {
  const template = JSON.parse(fs.readFileSync(PROXY_TEMPLATE, 'utf8'));
  const entryConfig = template.ServerProxy.servers[PROXY_ENTRY];
  return {
    ...entryConfig,
    command: [
      process.execPath,
      ...(sidecar.nodeOptions || []),
      sidecar.bin || BIN,
      ...entryConfig.command.slice(1)
    ]
  };
}

// ---------------------------------------------------------------- Jupyter

/**
 * A fresh Jupyter server with the proxy entry, in its own process group and directories.
 * Resolves once it has written its server info file (it does so just before its event loop
 * starts); no HTTP request has reached it yet.
 */
async function startJupyter(env) {
  const root = tempDir('ps-bench-proxy-');
  const dirs = {};
  for (const name of [
    'home',
    'config',
    'data',
    'runtime',
    'project',
    'bin',
    'sidecar-runtime'
  ]) {
    dirs[name] = path.join(root, name);
    fs.mkdirSync(dirs[name], { mode: 0o700 });
  }
  // On jupyter_server 1.23 the proxy's servers must be in jupyter_server_config.json.
  fs.writeFileSync(
    path.join(dirs.config, 'jupyter_server_config.json'),
    JSON.stringify({
      ServerApp: { jpserver_extensions: { jupyter_server_proxy: true } },
      // Other entries beside the sidecar's (bench/jupyter-proxy.js adds its bare backend).
      ServerProxy: {
        servers: { [PROXY_ENTRY]: proxyEntry(env.sidecar), ...env.servers }
      }
    })
  );
  const token = crypto.randomBytes(24).toString('hex');
  const closedUrl = `http://127.0.0.1:${env.closedPort}/`;
  const port = await freePort();
  const child = spawn(
    PYTHON,
    [
      '-m',
      'jupyter_server',
      '--allow-root',
      '--no-browser',
      '--ServerApp.ip=127.0.0.1',
      `--ServerApp.port=${port}`,
      '--ServerApp.port_retries=0',
      `--ServerApp.base_url=${BASE_URL}`,
      `--ServerApp.root_dir=${dirs.project}`
    ],
    {
      cwd: dirs.project,
      detached: true, // its own process group, so the sidecar the proxy starts goes with it
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        HOME: dirs.home,
        // An empty directory, as for the sidecar in bench/run.js: no scheduler or D-Bus
        // client to find (Python and the sidecar's command are absolute paths).
        PATH: dirs.bin,
        LANG: 'C.UTF-8',
        PYTHONDONTWRITEBYTECODE: '1',
        ...(env.pythonPath ? { PYTHONPATH: env.pythonPath } : {}),
        JUPYTER_TOKEN: token,
        JUPYTER_CONFIG_DIR: dirs.config,
        JUPYTER_DATA_DIR: dirs.data,
        JUPYTER_RUNTIME_DIR: dirs.runtime,
        JUPYTER_PLATFORM_DIRS: '0',
        // The sidecar inherits Jupyter's environment: the generic platform, a private runtime
        // directory, and runtime probes that fail fast (a closed loopback port), as in run.js.
        PROJECT_STARTUP_PLATFORM: 'generic',
        PROJECT_STARTUP_RUNTIME_DIR: dirs['sidecar-runtime'],
        PROJECT_STARTUP_LOCAL_RUNTIME_URL: closedUrl,
        PROJECT_STARTUP_SERVING_RUNTIME_URL: closedUrl
      }
    }
  );
  const forgetGroup = trackGroup(child.pid);
  let output = '';
  const keep = chunk => {
    output = (output + chunk).slice(-16384);
  };
  child.stdout.setEncoding('utf8').on('data', keep);
  child.stderr.setEncoding('utf8').on('data', keep);
  const exited = new Promise(resolve =>
    child.once('exit', (code, signal) => resolve({ code, signal }))
  );
  let exit;
  exited.then(value => {
    exit = value;
  });
  const server = {
    pid: child.pid,
    port,
    root,
    auth: { authorization: `token ${token}` },
    output: () => output,
    exited,
    running: () => exit === undefined,
    forgetGroup
  };
  const spawnedAt = process.hrtime.bigint();
  const infoFile = path.join(dirs.runtime, `jpserver-${child.pid}.json`);
  const deadline = Date.now() + 60000;
  while (!fs.existsSync(infoFile)) {
    if (exit !== undefined) {
      await stopJupyter(server);
      throw new Error(
        `Jupyter exited (${exit.code ?? exit.signal}) before listening:\n${output.slice(-3000)}`
      );
    }
    if (Date.now() > deadline) {
      await stopJupyter(server);
      throw new Error(
        `Jupyter did not start within 60 s:\n${output.slice(-3000)}`
      );
    }
    await sleep(10);
  }
  server.startMs = Number(process.hrtime.bigint() - spawnedAt) / 1e6;
  return server;
}

function killGroup(pgid, signal) {
  try {
    process.kill(-pgid, signal);
  } catch {
    // the group is gone
  }
}

/** SIGTERM to the server's process group, SIGKILL after 5 s; then removes its directories. */
async function stopJupyter(server) {
  if (server.running()) {
    killGroup(server.pid, 'SIGTERM');
    const result = await Promise.race([
      server.exited,
      sleep(5000).then(() => 'timeout')
    ]);
    if (result === 'timeout') {
      killGroup(server.pid, 'SIGKILL');
      await server.exited;
    }
  }
  // Anything left in the group (a sidecar that outlived Jupyter) goes now.
  killGroup(server.pid, 'SIGKILL');
  server.forgetGroup();
  fs.rmSync(server.root, { recursive: true, force: true });
}

/** The sidecar the proxy started: Jupyter's child process running this checkout's bin (or `bin`). */
function sidecarPid(jupyterPid, bin = BIN) {
  return childPid(jupyterPid, bin);
}

/** A child process of Jupyter's whose command line holds `marker` (a script's path). */
function childPid(jupyterPid, marker) {
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) {
      continue;
    }
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (
        Number(fields[1]) === jupyterPid &&
        fs.readFileSync(`/proc/${name}/cmdline`, 'utf8').includes(marker)
      ) {
        return Number(name);
      }
    } catch {
      // it ended meanwhile
    }
  }
  return undefined;
}

function summarize(runs) {
  return {
    rps: median(runs.map(r => r.rps)),
    p50: median(runs.map(r => r.p50)),
    p99: median(runs.map(r => r.p99)),
    cpuUs: median(runs.map(r => r.cpuUs)),
    // Of that, the sidecar's (the second pid, when there is one).
    sidecarCpuUs: median(
      runs.map(r => (r.cpuUsEach.length > 1 ? r.cpuUsEach[1] : null))
    ),
    runs
  };
}

// ---------------------------------------------------------------- the run

const TARGETS = {
  status: { label: 'Jupyter /api/status', path: `${BASE_URL}api/status` },
  capabilities: {
    label: 'capabilities',
    path: `${BASE_URL}project/capabilities`
  },
  startup: {
    label: 'startup?interface=notebook',
    path: `${BASE_URL}project/startup?interface=notebook`
  }
};

async function main() {
  const o = parseOptions(process.argv.slice(2));
  const removed = neutralStartEnv();
  if (removed) {
    log(removed);
  }
  const found = prerequisites();
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
  // A loopback port that refuses connections, for the sidecar's runtime probes.
  const env = { closedPort: await freePort(), pythonPath: found.pythonPath };
  log(
    `Jupyter Server ${found.jupyterServer}, jupyter-server-proxy ${found.proxyVersion} (${found.source}), simpervisor ${found.simpervisorVersion}`
  );

  // 1. Cold start: a fresh server per launch; first /api/status, then the first proxied request.
  const cold = { jupyterStartMs: [], status: [], capabilities: [] };
  for (let i = 0; i < o.coldRuns; i++) {
    log(`cold start ${i + 1}/${o.coldRuns}`);
    const server = await startJupyter(env);
    try {
      cold.jupyterStartMs.push(server.startMs);
      cold.status.push(await timedGet(server, TARGETS.status.path, 30000));
      if (sidecarPid(server.pid) !== undefined) {
        throw new Error(
          'the sidecar was running before the first proxied request'
        );
      }
      cold.capabilities.push(
        await timedGet(server, TARGETS.capabilities.path, 30000)
      );
    } finally {
      await stopJupyter(server);
    }
  }

  // 2. Warm: one server (pinned before the proxy starts the sidecar, which inherits it).
  log('warm: starting Jupyter');
  const server = await startJupyter(env);
  const warm = { status: [], capabilities: [], startup: [] };
  let memory;
  try {
    if (pinned) {
      pin(server.pid, 0);
    }
    await timedGet(server, TARGETS.status.path, 30000);
    await timedGet(server, TARGETS.capabilities.path, 30000);
    await timedGet(server, TARGETS.startup.path, 30000);
    const sidecar = sidecarPid(server.pid);
    if (sidecar === undefined) {
      throw new Error(
        'the sidecar answered but its process was not found among Jupyter’s children'
      );
    }
    const names = Object.keys(warm);
    for (let round = 0; round < o.rounds; round++) {
      // Rotate the order so drift on the machine hits every target alike.
      const order = names.map((_, k) => names[(k + round) % names.length]);
      for (const name of order) {
        log(`round ${round + 1}/${o.rounds}: ${TARGETS[name].label}`);
        const figures = await runLoad(
          {
            url: `http://127.0.0.1:${server.port}${TARGETS[name].path}`,
            method: 'GET',
            headers: server.auth,
            // Server CPU: Jupyter's, plus the sidecar's when the request goes through it.
            pids: name === 'status' ? [server.pid] : [server.pid, sidecar],
            connections: o.connections,
            warmupSeconds: o.warmup,
            durationSeconds: o.duration
          },
          pinned ? 1 : undefined
        );
        if (figures.errors || figures.non2xx || figures.timeouts) {
          throw new Error(
            `${TARGETS[name].label}: ${figures.errors} errors, ${figures.timeouts} timeouts, ${figures.non2xx} non-2xx answers`
          );
        }
        warm[name].push(figures);
      }
    }
    memory = { jupyterMiB: rssMiB(server.pid), sidecarMiB: rssMiB(sidecar) };
  } finally {
    await stopJupyter(server);
  }
  clearTimeout(watchdog);
  const results = report({ o, pinned, found, cold, warm, memory });
  fs.writeFileSync(o.out, `${JSON.stringify(results, null, 2)}\n`);
  log(`wrote ${path.relative(process.cwd(), o.out) || o.out}`);
}

// ---------------------------------------------------------------- the table

function report({ o, pinned, found, cold, warm, memory }) {
  const ratio = (a, b) => (a !== null && b ? a / b : null);
  const x = r => (r === null ? 'n/a' : `${fmt(r, 2)}x`);
  const spread = values =>
    `${fmt(median(values), 1)} (${fmt(Math.min(...values), 1)}–${fmt(Math.max(...values), 1)})`;
  const agg = Object.fromEntries(
    Object.entries(warm).map(([name, runs]) => [name, summarize(runs)])
  );
  const status = agg.status;

  const rows = [];
  const coldMedian = {
    status: median(cold.status),
    capabilities: median(cold.capabilities),
    jupyterStartMs: median(cold.jupyterStartMs)
  };
  rows.push([
    `cold: first answer on a fresh server, ms, median (min–max) of ${o.coldRuns}`,
    `${spread(cold.capabilities)} capabilities, sidecar launched`,
    spread(cold.status),
    x(ratio(coldMedian.capabilities, coldMedian.status))
  ]);
  for (const name of ['capabilities', 'startup']) {
    const s = agg[name];
    rows.push([
      `${TARGETS[name].label} throughput (req/s)`,
      fmt(s.rps),
      fmt(status.rps),
      x(ratio(s.rps, status.rps))
    ]);
    rows.push([
      `${TARGETS[name].label} latency p50 / p99 (ms)`,
      `${fmt(s.p50, 2)} / ${fmt(s.p99, 2)}`,
      `${fmt(status.p50, 2)} / ${fmt(status.p99, 2)}`,
      `${x(ratio(s.p50, status.p50))} / ${x(ratio(s.p99, status.p99))}`
    ]);
    rows.push([
      `${TARGETS[name].label} server CPU per request (µs)`,
      `${fmt(s.cpuUs, 1)} (sidecar ${fmt(s.sidecarCpuUs, 1)})`,
      fmt(status.cpuUs, 1),
      x(ratio(s.cpuUs, status.cpuUs))
    ]);
  }
  rows.push([
    'RSS after the load (MiB)',
    `${fmt(memory.sidecarMiB, 1)} sidecar`,
    `${fmt(memory.jupyterMiB, 1)} Jupyter`,
    ''
  ]);

  const header = [
    'Measure',
    'Through jupyter-server-proxy',
    'Jupyter /api/status',
    'Ratio'
  ];
  const machine = machineLine();
  // Other work on the machine moves every figure here: say how busy it was.
  const busy = loadLine('at the end of the run');
  const setup = `${o.connections} connections, ${o.warmup} s warm-up + ${o.duration} s per run, median of ${o.rounds} interleaved rounds; ${
    pinned
      ? 'Jupyter and the sidecar pinned to CPU 0, load generator to CPU 1'
      : 'no CPU pinning'
  }`;
  const sidecarEntry =
    entry() === BUNDLE
      ? path.relative(ROOT, BUNDLE)
      : `${path.relative(ROOT, DIST_CLI)} (no current bundle: npm run build)`;
  const out = [
    '',
    `Machine: ${machine}; ${busy}`,
    `Jupyter Server ${found.jupyterServer} (${PYTHON}), jupyter-server-proxy ${found.proxyVersion} (${found.source}), simpervisor ${found.simpervisorVersion}; base_url ${BASE_URL}, token auth, 127.0.0.1`,
    `Sidecar: ${sidecarEntry}, entry "${PROXY_ENTRY}" (absolute_url, unix_socket, --ingress notebook-server-proxy)`,
    `Load: ${setup}`,
    `Cold: Jupyter itself took ${fmt(coldMedian.jupyterStartMs, 0)} ms (median) from spawn to its server info file; the first /api/status is timed, then the first proxied request`,
    '',
    ...markdownTable(header, rows),
    '',
    'Ratios: proxied figure / /api/status figure (throughput: above 1 is faster; latency, CPU, cold: below 1 is faster).',
    "Server CPU: Jupyter (with the proxy in it) plus the sidecar, per answered request; the sidecar's own share in brackets.",
    ''
  ];
  process.stdout.write(`${out.join('\n')}\n`);
  return {
    when: new Date().toISOString(),
    machine,
    busy,
    setup,
    options: { ...o, out: undefined },
    jupyterServer: found.jupyterServer,
    jupyterServerProxy: { version: found.proxyVersion, source: found.source },
    simpervisor: found.simpervisorVersion,
    sidecarEntry,
    baseUrl: BASE_URL,
    coldStartMs: { ...cold, median: coldMedian },
    load: agg,
    memory
  };
}

// bench/idle-panels.js starts its Jupyter server the same way.
module.exports = {
  BASE_URL,
  childPid,
  log,
  prerequisites,
  request,
  sidecarPid,
  startJupyter,
  stopJupyter,
  timedGet
};

if (require.main === module) {
  main().catch(error => {
    log(error && error.stack ? error.stack : String(error));
    cleanup();
    process.exit(1);
  });
}
