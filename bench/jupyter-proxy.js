#!/usr/bin/env node
'use strict';
// The sidecar against the fastest backend there could be, on the path users have: both behind
// the real jupyter-server-proxy, in the same Jupyter, in the same run.
//
//   npm run build && npm run bench:jupyter      (or: node bench/jupyter-proxy.js [options])
//
// Jupyter is started as bench/proxy.js starts it (Debian's Jupyter Server, base_url
// /user/alice/, token auth, 127.0.0.1, the installed or vendored jupyter-server-proxy) with two
// proxy entries: `project`, the one `project-startup jupyter install` writes (the sidecar on a
// Unix socket), and `bare`, bench/bare-server.js on a Unix socket the same way, replaying byte
// for byte (status, headers, body) the answers the sidecar gave to capabilities and
// startup?interface=notebook, captured from the sidecar's own socket at the start of the run.
//
// It prints three ratios, sidecar / bare, each with its raw figures and its target:
// - warm throughput of capabilities and of startup through the proxy (target >= 0.95): the
//   median of the rounds' ratios, with its 95% bootstrap interval. On a shared machine one
//   round's ratio moves by 20% either way even between two identical backends (bench/README.md,
//   "Calibration"); a median whose interval holds the target is said to be within the noise;
// - the cold first answer when the proxy launches the backend: on a fresh Jupyter server per
//   launch, once Jupyter answered its first /api/status, the time from the first proxied request
//   to its answer; the median of N servers per backend, interleaved (target <= 1.25);
// - RSS after the load (target <= 1.15).
// It exits 0 whatever the figures (a benchmark, not a test) unless `--check` is given: then 1
// when a target is missed. Every loop is bounded, every server listens on loopback or a Unix
// socket only and is ended after use. It builds nothing: `npm run build` first.
const fs = require('node:fs');
const path = require('node:path');

const {
  BASE_URL,
  childPid,
  prerequisites,
  request,
  sidecarPid,
  startJupyter,
  stopJupyter,
  timedGet
} = require('./proxy');
const {
  fmt,
  freePort,
  httpText,
  loadLine,
  machineLine,
  markdownTable,
  median,
  medianInterval,
  canPin,
  cleanup,
  messages,
  neutralStartEnv,
  pin,
  replayEntry,
  rssMiB,
  runLoad,
  tempDir
} = require('./support');

const BARE = path.join(__dirname, 'bare-server.js');
// The sidecar's bin, when --sidecar-bin names another one.
let sidecarBin;
const BARE_ENTRY = 'bare';
const TARGETS = {
  capabilities: 'capabilities',
  startup: 'startup?interface=notebook'
};
const GOALS = { throughput: 0.95, cold: 1.25, rss: 1.15 };

const HELP = `Usage: node bench/jupyter-proxy.js [options]

  --cold-runs N     fresh Jupyter servers per backend for the cold first answer (default 5)
  --connections N   concurrent connections per load run (default 10)
  --duration S      seconds measured per load run (default 5)
  --warmup S        seconds of warm-up before each load run (default 1)
  --rounds N        rounds (up to 60); each runs every target on both backends back to back,
                    and a throughput ratio is the median of the rounds' ratios (default 5)
  --no-pin          do not pin Jupyter and its backends to CPU 0 and the load generator to CPU 1
  --check           exit 1 when a ratio misses its target: for throughput, when the whole
                    interval lies below it (otherwise exit 0 regardless)
  --sidecar-bin F   the sidecar's bin/project-startup.js (default this checkout's), to measure
                    another build (another worktree) against the same baseline;
                    bench/replay-sidecar.js measures the bench itself (a bare backend
                    against a bare backend: the calibration)
  --node-option O   a Node option put before the bin in the sidecar's proxy command (repeatable),
                    e.g. --node-option=--max-semi-space-size=1
  --out FILE        where to write the results (default bench/jupyter-proxy-results.json)
  --pool FILE...    measure nothing: the warm rounds of earlier runs' result files (--out)
                    taken together, their throughput ratios and CPU as one run's (last option)`;

const { log, fail } = messages('bench:jupyter');

function parseOptions(argv) {
  const o = {
    coldRuns: 5,
    connections: 10,
    duration: 5,
    warmup: 1,
    rounds: 5,
    pin: true,
    check: false,
    sidecarBin: undefined,
    nodeOptions: [],
    out: path.join(__dirname, 'jupyter-proxy-results.json'),
    pool: undefined
  };
  const numbers = {
    '--cold-runs': ['coldRuns', 1, 30],
    '--connections': ['connections', 1, 256],
    '--duration': ['duration', 1, 60],
    '--warmup': ['warmup', 0, 30],
    '--rounds': ['rounds', 1, 60]
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--help' || arg === '-h') {
      process.stdout.write(`${HELP}\n`);
      process.exit(0);
    } else if (arg === '--no-pin') {
      o.pin = false;
    } else if (arg === '--check') {
      o.check = true;
    } else if (arg === '--sidecar-bin') {
      o.sidecarBin = path.resolve(argv[++i] || '');
      if (!fs.existsSync(o.sidecarBin)) {
        fail(`--sidecar-bin ${o.sidecarBin} does not exist.`);
      }
    } else if (arg.startsWith('--node-option=')) {
      o.nodeOptions.push(arg.slice('--node-option='.length));
    } else if (arg === '--pool') {
      o.pool = argv.slice(i + 1);
      if (o.pool.length === 0) {
        fail('--pool needs one or more result files');
      }
      break;
    } else if (arg === '--out') {
      o.out = path.resolve(argv[++i] || '');
    } else if (numbers[arg]) {
      const [key, min, max] = numbers[arg];
      const value = Number(argv[++i]);
      if (!Number.isInteger(value) || value < min || value > max) {
        fail(`${arg} takes a whole number from ${min} to ${max}.`);
      }
      o[key] = value;
    } else {
      fail(`unknown option ${arg}\n${HELP}`);
    }
  }
  return o;
}

/** The two backends: where each is reached through the proxy, and how its process is found. */
const BACKENDS = {
  sidecar: { entry: 'project', find: pid => sidecarPid(pid, sidecarBin) },
  bare: { entry: BARE_ENTRY, find: pid => childPid(pid, BARE) }
};
// A load run's cpuUsEach, in the order its pids are given: Jupyter's, then the backend's.
const JUPYTER_CPU = 0;
const BACKEND_CPU = 1;

/** The names of a run's warm rounds (`sidecar capabilities`, ...), as results files key them. */
function roundNames() {
  return Object.keys(TARGETS).flatMap(target =>
    Object.keys(BACKENDS).map(backend => `${backend} ${target}`)
  );
}

const proxiedPath = (backend, target) =>
  `${BASE_URL}${BACKENDS[backend].entry}/${TARGETS[target]}`;

/** The `bare` proxy entry: like the sidecar's (Unix socket, absolute URL), replaying `answers`. */
function bareEntry(answers) {
  return {
    [BARE_ENTRY]: {
      command: [process.execPath, BARE, '{unix_socket}', answers],
      unix_socket: true,
      absolute_url: true,
      timeout: 20,
      new_browser_tab: false,
      launcher_entry: { enabled: false },
      update_last_activity: false
    }
  };
}

/** One GET over a Unix socket, straight to a backend; the whole answer. */
function socketGet(socketPath, target, headers) {
  return httpText(socketPath, { path: target, headers });
}

/**
 * The sidecar's answers to the measured targets, as it wrote them on its socket (the proxy
 * adds and rewrites headers on the way out, so they are taken before it): the bare server's
 * answers file, keyed by the paths the proxy will ask the bare server for. Each body is checked
 * against the one the proxy delivered.
 */
async function captureAnswers(server, sidecar) {
  const argv = fs.readFileSync(`/proc/${sidecar}/cmdline`, 'utf8').split('\0');
  const socketPath = argv[argv.indexOf('--unix-socket') + 1];
  if (!socketPath || !fs.existsSync(socketPath)) {
    throw new Error(
      `the sidecar's Unix socket was not found (${argv.join(' ')})`
    );
  }
  const answers = {};
  for (const target of Object.keys(TARGETS)) {
    const direct = await socketGet(
      socketPath,
      proxiedPath('sidecar', target),
      server.auth
    );
    const proxied = await request(
      server.port,
      proxiedPath('sidecar', target),
      server.auth,
      10000
    );
    if (direct.status !== 200 || direct.body !== proxied.body) {
      throw new Error(
        `${target}: the sidecar's own answer (${direct.status}) is not the one the proxy delivered (${proxied.status})`
      );
    }
    answers[`GET ${proxiedPath('bare', target)}`] = replayEntry(direct);
  }
  return answers;
}

/** A fresh Jupyter; its first /api/status; then the first request to `backend`, timed. */
async function coldFirstAnswer(env, backend) {
  const server = await startJupyter(env);
  try {
    await timedGet(server, `${BASE_URL}api/status`, 30000);
    if (BACKENDS[backend].find(server.pid) !== undefined) {
      throw new Error(`${backend} was running before its first request`);
    }
    return await timedGet(server, proxiedPath(backend, 'capabilities'), 30000);
  } finally {
    await stopJupyter(server);
  }
}

async function measureCold(o, env) {
  const cold = { sidecar: [], bare: [] };
  for (let i = 0; i < o.coldRuns; i++) {
    // Alternate which backend goes first, so drift on the machine hits both alike.
    const order = i % 2 ? ['bare', 'sidecar'] : ['sidecar', 'bare'];
    for (const backend of order) {
      log(`cold ${i + 1}/${o.coldRuns}: ${backend}`);
      cold[backend].push(await coldFirstAnswer(env, backend));
    }
  }
  return cold;
}

/**
 * Load rounds in one Jupyter. In each round every target is measured on both backends back to
 * back, the order alternating from round to round, so each round gives a ratio of two runs taken
 * seconds apart: this shared machine's speed drifts between runs (bare alone moved 444 -> 612
 * req/s between two runs), and a drift between a pair's two halves is all a ratio then sees.
 */
async function loadRounds(o, server, pids, pinned) {
  const targets = Object.keys(TARGETS);
  const backends = Object.keys(BACKENDS);
  const warm = Object.fromEntries(roundNames().map(name => [name, []]));
  for (let round = 0; round < o.rounds; round++) {
    const turn = list => (round % 2 ? [...list].reverse() : list);
    const order = turn(targets).flatMap(target =>
      turn(backends).map(backend => ({ backend, target }))
    );
    for (const { backend, target } of order) {
      const name = `${backend} ${target}`;
      log(`round ${round + 1}/${o.rounds}: ${name}`);
      const figures = await runLoad(
        {
          url: `http://127.0.0.1:${server.port}${proxiedPath(backend, target)}`,
          method: 'GET',
          headers: server.auth,
          pids: [server.pid, pids[backend]], // JUPYTER_CPU, BACKEND_CPU
          connections: o.connections,
          warmupSeconds: o.warmup,
          durationSeconds: o.duration
        },
        pinned ? 1 : undefined
      );
      if (figures.errors || figures.non2xx || figures.timeouts) {
        throw new Error(
          `${name}: ${figures.errors} errors, ${figures.timeouts} timeouts, ${figures.non2xx} non-2xx answers`
        );
      }
      warm[name].push(figures);
    }
  }
  return warm;
}

/** One Jupyter, both backends launched by their first request; the answers captured; load. */
async function measureWarm(o, env, answersFile, pinned) {
  const server = await startJupyter(env);
  try {
    if (pinned) {
      pin(server.pid, 0); // the backends the proxy starts inherit it
    }
    await timedGet(server, `${BASE_URL}api/status`, 30000);
    await timedGet(server, proxiedPath('sidecar', 'capabilities'), 30000);
    const sidecar = BACKENDS.sidecar.find(server.pid);
    if (sidecar === undefined) {
      throw new Error('the sidecar answered but its process was not found');
    }
    const answers = await captureAnswers(server, sidecar);
    fs.writeFileSync(answersFile, JSON.stringify(answers));
    await timedGet(server, proxiedPath('bare', 'capabilities'), 30000);
    const pids = { sidecar, bare: BACKENDS.bare.find(server.pid) };
    for (const target of Object.keys(TARGETS)) {
      const bare = await request(
        server.port,
        proxiedPath('bare', target),
        server.auth,
        10000
      );
      const wanted = answers[`GET ${proxiedPath('bare', target)}`].body;
      if (bare.status !== 200 || bare.body !== wanted) {
        throw new Error(`the bare backend's ${target} is not the sidecar's`);
      }
    }
    const idle = { sidecar: rssMiB(pids.sidecar), bare: rssMiB(pids.bare) };
    const warm = await loadRounds(o, server, pids, pinned);
    const rss = { sidecar: rssMiB(pids.sidecar), bare: rssMiB(pids.bare) };
    return { warm, rss, idle, answers };
  } finally {
    await stopJupyter(server);
  }
}

/** Sidecar / bare throughput of each round (loadRounds measures the two back to back). */
function roundRatios(warm, target) {
  const bare = warm[`bare ${target}`];
  return warm[`sidecar ${target}`].map((run, i) => run.rps / bare[i].rps);
}

/**
 * A throughput ratio's verdict: met when its whole interval is at or above the target, missed
 * when the whole interval is below it, and within the noise when the interval holds the target
 * (more rounds, or a quieter machine, would tell).
 */
function throughputVerdict([low, high]) {
  if (low >= GOALS.throughput) {
    return 'yes';
  }
  return high < GOALS.throughput ? 'NO' : 'within noise';
}

/**
 * The warm throughput rows: per target the median of the rounds' ratios, with its interval and
 * verdict; its columns show each backend's median req/s.
 */
function throughputRows(warm) {
  const rps = name => median(warm[name].map(r => r.rps));
  const rows = [];
  for (const target of Object.keys(TARGETS)) {
    const ratios = roundRatios(warm, target);
    const interval = medianInterval(ratios);
    const verdict = throughputVerdict(interval);
    rows.push({
      measure: `warm throughput, ${TARGETS[target]} (req/s)`,
      sidecar: rps(`sidecar ${target}`),
      bare: rps(`bare ${target}`),
      ratio: median(ratios),
      interval,
      target: `>= ${GOALS.throughput}`,
      verdict,
      met: verdict !== 'NO'
    });
  }
  return rows;
}

/**
 * What each target costs above bare, in µs of CPU per request: the median of the rounds' paired
 * differences (the two runs of a round are back to back), for the backend itself and for
 * Jupyter in front of it. Pinned, the two together are what the core gives up.
 */
function pairedCpuLine(warm) {
  const above = (target, index) => {
    const bare = warm[`bare ${target}`];
    const sign = v => (v < 0 ? '' : '+') + fmt(v, 1);
    return sign(
      median(
        warm[`sidecar ${target}`].map(
          (run, i) => run.cpuUsEach[index] - bare[i].cpuUsEach[index]
        )
      )
    );
  };
  return `CPU per request above bare's (µs, median of the rounds' paired differences), the backend: capabilities ${above('capabilities', BACKEND_CPU)}, startup ${above('startup', BACKEND_CPU)}; Jupyter in front of it: capabilities ${above('capabilities', JUPYTER_CPU)}, startup ${above('startup', JUPYTER_CPU)}`;
}

/**
 * The three ratios, each with its raw figures and whether it meets its target. A throughput
 * ratio is the median of the rounds' ratios, with its interval; its columns show each backend's
 * median req/s.
 */
function verdicts(cold, warm, rss) {
  const rows = throughputRows(warm);
  const cs = median(cold.sidecar);
  const cb = median(cold.bare);
  const coldMet = cs / cb <= GOALS.cold;
  const rssMet = rss.sidecar / rss.bare <= GOALS.rss;
  rows.push({
    measure: `cold first answer, capabilities (ms, median of ${cold.sidecar.length})`,
    sidecar: cs,
    bare: cb,
    ratio: cs / cb,
    target: `<= ${GOALS.cold}`,
    met: coldMet,
    verdict: coldMet ? 'yes' : 'NO'
  });
  rows.push({
    measure: 'RSS after the load (MiB)',
    sidecar: rss.sidecar,
    bare: rss.bare,
    ratio: rss.sidecar / rss.bare,
    target: `<= ${GOALS.rss}`,
    met: rssMet,
    verdict: rssMet ? 'yes' : 'NO'
  });
  return rows;
}

/** The ratios as a markdown table, a row per measure. */
function ratioTable(rows) {
  const digits = row => (row.measure.startsWith('warm') ? 0 : 1);
  return markdownTable(
    ['Measure', 'Sidecar', 'Bare node:http', 'Ratio', 'Target', 'Met'],
    rows.map(row => [
      row.measure,
      fmt(row.sidecar, digits(row)),
      fmt(row.bare, digits(row)),
      row.interval
        ? `${fmt(row.ratio, 2)}x (${fmt(row.interval[0], 2)}-${fmt(row.interval[1], 2)})`
        : `${fmt(row.ratio, 2)}x`,
      row.target,
      row.verdict
    ])
  );
}

/**
 * `--pool`: the warm rounds of earlier runs' result files taken together, as one run of all
 * their rounds (the throughput rows and the CPU line; nothing is measured). Runs of one mode
 * only: pinned and unpinned rounds measure different things.
 */
function pool(files) {
  const names = roundNames();
  const warm = {};
  const modes = new Set();
  for (const file of files) {
    let results;
    try {
      results = JSON.parse(fs.readFileSync(file, 'utf8'));
    } catch (error) {
      fail(`--pool: cannot read ${file}: ${error.message}`);
    }
    if (
      !results.load ||
      names.some(name => !Array.isArray(results.load[name]))
    ) {
      fail(`--pool: ${file} holds no warm rounds (write one with --out)`);
    }
    modes.add(
      results.options && results.options.pin === false ? 'not pinned' : 'pinned'
    );
    for (const name of names) {
      warm[name] = [...(warm[name] || []), ...results.load[name]];
    }
  }
  if (modes.size > 1) {
    fail(
      '--pool: the files mix pinned and unpinned runs; pool runs of one mode'
    );
  }
  const rows = throughputRows(warm);
  const out = [
    '',
    `Pooled: ${files.length} run${files.length === 1 ? '' : 's'}, ${warm['sidecar capabilities'].length} rounds, ${[...modes][0]} (${files.join(', ')})`,
    '',
    ...ratioTable(rows),
    '',
    pairedCpuLine(warm),
    ''
  ];
  process.stdout.write(`${out.join('\n')}\n`);
  return rows;
}

function report({ o, pinned, found, cold, measured }) {
  const { warm, rss, idle } = measured;
  const rows = verdicts(cold, warm, rss);
  const coldRange = values => `${values.map(v => fmt(v, 0)).join(', ')}`;
  const table = ratioTable(rows);
  const cpu = name => median(warm[name].map(r => r.cpuUsEach[BACKEND_CPU]));
  const out = [
    '',
    `Machine: ${machineLine()}; ${loadLine('at the end of the run')}`,
    `Sidecar: ${o.sidecarBin || 'this checkout'}${o.nodeOptions.length ? `, node ${o.nodeOptions.join(' ')}` : ''}`,
    `Jupyter Server ${found.jupyterServer}, jupyter-server-proxy ${found.proxyVersion} (${found.source}), simpervisor ${found.simpervisorVersion}; base_url ${BASE_URL}`,
    `Load: ${o.connections} connections, ${o.warmup} s warm-up + ${o.duration} s per run, ${o.rounds} rounds (each backend back to back per target; a throughput ratio is the median of the rounds' ratios, with its 95% bootstrap interval); ${pinned ? 'Jupyter and its backends on CPU 0, load generator on CPU 1' : 'no CPU pinning'}`,
    '',
    ...table,
    '',
    `Throughput ratio of each round, capabilities: ${roundRatios(
      warm,
      'capabilities'
    )
      .map(r => fmt(r, 2))
      .join(', ')}; startup: ${roundRatios(warm, 'startup')
      .map(r => fmt(r, 2))
      .join(', ')}`,
    `Cold first answers (ms), sidecar: ${coldRange(cold.sidecar)}; bare: ${coldRange(cold.bare)}`,
    `RSS after the first answers, before the load (MiB): sidecar ${fmt(idle.sidecar, 1)}, bare ${fmt(idle.bare, 1)}`,
    `Backend CPU per request (µs), capabilities: sidecar ${fmt(cpu('sidecar capabilities'), 1)}, bare ${fmt(cpu('bare capabilities'), 1)}; startup: sidecar ${fmt(cpu('sidecar startup'), 1)}, bare ${fmt(cpu('bare startup'), 1)}`,
    pairedCpuLine(warm),
    'Ratios: sidecar / bare (throughput: above 1 is faster; cold and RSS: below 1 is better).',
    ''
  ];
  process.stdout.write(`${out.join('\n')}\n`);
  return rows;
}

/**
 * Why `bin` would not run what ships, or undefined. bin/project-startup.js runs the compiled
 * code instead of its bundle when that code is newer (a `tsc` since the last build), and the
 * compiled code starts slower and runs differently. A bin that is not ours (the calibration's
 * stand-in) passes.
 */
function notTheBundle(bin) {
  const loaded = require(bin);
  if (typeof loaded.entry !== 'function' || loaded.entry() === loaded.BUNDLE) {
    return undefined;
  }
  return `${path.relative(process.cwd(), bin)} would run ${path.relative(process.cwd(), loaded.entry())}, not its bundle, which is older: run \`npm run build:sidecar\` first.`;
}

async function main() {
  const o = parseOptions(process.argv.slice(2));
  if (o.pool) {
    return exitCode(o, pool(o.pool));
  }
  const why = notTheBundle(
    o.sidecarBin || path.join(__dirname, '..', 'bin', 'project-startup.js')
  );
  if (why) {
    fail(why);
  }
  const removed = neutralStartEnv();
  if (removed) {
    log(removed);
  }
  const found = prerequisites();
  // Ten minutes for the cold launches and the set-up, and each load run three times its length.
  const limitMinutes = Math.ceil(
    10 + (o.rounds * 4 * 3 * (o.warmup + o.duration)) / 60
  );
  const watchdog = setTimeout(
    () => {
      log(`the run took longer than ${limitMinutes} minutes; stopping`);
      cleanup();
      process.exit(3);
    },
    limitMinutes * 60 * 1000
  );
  watchdog.unref();
  const pinned = o.pin && canPin();
  const answersFile = path.join(tempDir('ps-bench-jupyter-'), 'answers.json');
  const env = {
    closedPort: await freePort(),
    pythonPath: found.pythonPath,
    servers: bareEntry(answersFile),
    sidecar: { bin: o.sidecarBin, nodeOptions: o.nodeOptions }
  };
  sidecarBin = o.sidecarBin;
  log(
    `Jupyter Server ${found.jupyterServer}, jupyter-server-proxy ${found.proxyVersion} (${found.source})`
  );
  // Warm first: it captures the answers the cold bare backend replays.
  const measured = await measureWarm(o, env, answersFile, pinned);
  const cold = await measureCold(o, env);
  clearTimeout(watchdog);
  const rows = report({ o, pinned, found, cold, measured });
  fs.writeFileSync(
    o.out,
    `${JSON.stringify(
      {
        when: new Date().toISOString(),
        machine: machineLine(),
        busy: loadLine('at the end of the run'),
        options: { ...o, out: undefined },
        ratios: rows,
        coldMs: cold,
        rssMiB: measured.rss,
        rssBeforeLoadMiB: measured.idle,
        load: measured.warm
      },
      null,
      2
    )}\n`
  );
  log(`wrote ${path.relative(process.cwd(), o.out) || o.out}`);
  return exitCode(o, rows);
}

/** 1 under --check when a ratio misses its target, else 0. */
function exitCode(o, rows) {
  return o.check && rows.some(row => !row.met) ? 1 : 0;
}

main().then(
  code => {
    cleanup();
    process.exit(code);
  },
  error => {
    log(error && error.stack ? error.stack : String(error));
    cleanup();
    process.exit(2);
  }
);
