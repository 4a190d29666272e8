'use strict';
// What the benches share: their options, messages and clean-up (every process, process group and
// temporary directory a bench made is ended and removed on exit, failure or interruption), the
// load generator (load.js, forked), CPU pinning and the CPU time and memory of a process, a
// median, a free loopback port, one HTTP answer, number formatting, the Markdown tables and the
// machine lines, and the environment every bench's servers start with.
const { fork, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const http = require('node:http');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');

const LOAD = path.join(__dirname, 'load.js');

// ---------------------------------------------------------------- what a bench made, ended once

const made = { children: new Set(), groups: new Set(), tempDirs: [] };
let cleanupRegistered = false;

function cleanup() {
  for (const pgid of made.groups) {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      // the group is gone
    }
  }
  made.groups.clear();
  for (const child of made.children) {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
    }
  }
  made.children.clear();
  for (const dir of made.tempDirs.splice(0)) {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Registered on the first thing made, so a bench that makes nothing keeps Node's defaults. */
function cleanUpOnExit() {
  if (cleanupRegistered) {
    return;
  }
  cleanupRegistered = true;
  process.on('exit', cleanup);
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.once(signal, () => {
      cleanup();
      process.exit(130);
    });
  }
}

/** A temporary directory (its real path), removed at the end. */
function tempDir(prefix) {
  cleanUpOnExit();
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  made.tempDirs.push(dir);
  return dir;
}

/** A child process, killed at the end if still running; `child.output()` is its last 8 KiB. */
function track(child) {
  cleanUpOnExit();
  made.children.add(child);
  child.once('exit', () => made.children.delete(child));
  let output = '';
  const keep = chunk => {
    output = (output + chunk).slice(-8192);
  };
  child.stdout?.setEncoding('utf8').on('data', keep);
  child.stderr?.setEncoding('utf8').on('data', keep);
  child.output = () => output;
  return child;
}

/** A process group (a detached child's pid), killed at the end; the returned function forgets it. */
function trackGroup(pgid) {
  cleanUpOnExit();
  made.groups.add(pgid);
  return () => made.groups.delete(pgid);
}

/** `name: message` on stderr, and `fail`, which also cleans up and exits 2. */
function messages(name) {
  const log = message => process.stderr.write(`${name}: ${message}\n`);
  const fail = message => {
    log(message);
    cleanup();
    process.exit(2);
  };
  return { log, fail };
}

/**
 * A bench's command line from a table: `defaults` (an `out` default makes `--out FILE` an
 * option), `numbers` ('--flag': [key, min, max], whole numbers), `switches` ('--no-x': [key,
 * value]); `--help` prints `help` and exits 0; anything else fails with the usage.
 */
function parseOptions(
  argv,
  { defaults, numbers = {}, switches = {}, help, fail }
) {
  const o = { ...defaults };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--help' || arg === '-h') {
      process.stdout.write(`${help}\n`);
      process.exit(0);
    } else if (switches[arg]) {
      const [key, value] = switches[arg];
      o[key] = value;
    } else if (arg === '--out' && 'out' in defaults) {
      o.out = path.resolve(argv[++i] || '');
    } else if (numbers[arg]) {
      const [key, min, max] = numbers[arg];
      const value = Number(argv[++i]);
      if (!Number.isInteger(value) || value < min || value > max) {
        fail(`${arg} takes a whole number from ${min} to ${max}.`);
      }
      o[key] = value;
    } else {
      fail(`unknown option ${arg}\n${help}`);
    }
  }
  return o;
}

/** One load (load.js's `job`) in a forked process, pinned to `cpu` when given: its figures. */
function runLoad(job, cpu) {
  return new Promise((resolve, reject) => {
    const child = track(
      fork(LOAD, [], { stdio: ['ignore', 'pipe', 'pipe', 'ipc'] })
    );
    if (cpu !== undefined) {
      pin(child.pid, cpu);
    }
    const limitMs =
      ((job.warmupSeconds || 0) + (job.durationSeconds || 0)) * 1000 + 120000;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(`the load generator did not finish within ${limitMs} ms`)
      );
    }, limitMs);
    child.once('message', reply => {
      clearTimeout(timer);
      if (reply.ok) {
        resolve(reply.figures);
      } else {
        reject(new Error(reply.error));
      }
    });
    child.once('exit', code => {
      clearTimeout(timer);
      reject(
        new Error(`the load generator exited (${code}):\n${child.output()}`)
      );
    });
    child.send(job);
  });
}

/** VmRSS of a process (MiB); null once it is gone. */
function rssMiB(pid) {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/^VmRSS:\s+(\d+)\s+kB/m.exec(status)[1]) / 1024;
  } catch {
    return null;
  }
}

const sleep = ms => new Promise(resolve => setTimeout(resolve, ms));

const canPin = () => fs.existsSync('/usr/bin/taskset') && os.cpus().length >= 2;

/** Pins every thread of a process to one CPU (threads made later inherit it). */
function pin(pid, cpu) {
  const result = spawnSync(
    '/usr/bin/taskset',
    ['-a', '-c', '-p', String(cpu), String(pid)],
    { stdio: 'ignore' }
  );
  if (result.status !== 0) {
    throw new Error(`taskset could not pin process ${pid}`);
  }
}

function median(values) {
  const sorted = values
    .filter(v => v !== null && v !== undefined)
    .sort((a, b) => a - b);
  if (sorted.length === 0) {
    return null;
  }
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * The 95% interval of the median of `values`, from 2,000 bootstrap resamples drawn with a fixed
 * seed (the same figures give the same interval): how far the median could move from run to run.
 */
function medianInterval(values, resamples = 2000) {
  let seed = 0x9e3779b9;
  const random = () => {
    // mulberry32: small, seeded, good enough to draw resamples
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const medians = [];
  for (let i = 0; i < resamples; i++) {
    medians.push(
      median(values.map(() => values[Math.floor(random() * values.length)]))
    );
  }
  medians.sort((a, b) => a - b);
  return [
    medians[Math.floor(resamples * 0.025)],
    medians[Math.ceil(resamples * 0.975) - 1]
  ];
}

/**
 * Resolves once something answers HTTP on the Unix socket `socketPath` (any status), asking
 * every 10 ms at most 500 times; rejects naming `label` after that.
 */
async function untilAnswers(socketPath, label) {
  for (let i = 0; i < 500; i++) {
    if (
      fs.existsSync(socketPath) &&
      (await httpAnswer(socketPath, { path: '/' }, 5000).catch(
        () => undefined
      )) !== undefined
    ) {
      return;
    }
    await new Promise(resolve => setTimeout(resolve, 10));
  }
  throw new Error(`${label} did not answer within 5 s`);
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function fmt(value, digits = 0) {
  if (value === null || value === undefined || Number.isNaN(value)) {
    return 'n/a';
  }
  return value.toLocaleString('en-US', {
    minimumFractionDigits: digits,
    maximumFractionDigits: digits
  });
}

/** A Markdown table's lines (header, separator, rows), each column as wide as its widest cell. */
function markdownTable(header, rows) {
  const widths = header.map((h, i) =>
    Math.max(h.length, ...rows.map(row => String(row[i]).length))
  );
  const line = cells =>
    `| ${cells.map((c, i) => String(c).padEnd(widths[i])).join(' | ')} |`;
  return [
    line(header),
    line(widths.map(w => '-'.repeat(w))),
    ...rows.map(line)
  ];
}

/** The machine a bench ran on: CPUs, Node, operating system. */
function machineLine() {
  return `${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'}), Node ${process.version}, ${os.platform()} ${os.release()}`;
}

/** How busy the machine was (other work moves every figure): the load averages, `when`. */
function loadLine(when) {
  return `load average ${os
    .loadavg()
    .map(v => fmt(v, 2))
    .join(' / ')} (1 / 5 / 15 min) ${when}`;
}

/**
 * Removes from this process's environment, so from every server a bench starts, the variables
 * that change how long any Node process takes to start, and returns a line naming them (or ''):
 * NODE_EXTRA_CA_CERTS makes Node read and parse a certificate bundle before it runs anything,
 * about 100 ms of CPU per start with Debian's bundle (measured: `node -e 0` 20 -> 120 ms),
 * which would drown the start-up differences the benches compare; NODE_OPTIONS could add flags.
 */
function neutralStartEnv() {
  const removed = ['NODE_EXTRA_CA_CERTS', 'NODE_OPTIONS'].filter(
    name => process.env[name] !== undefined
  );
  for (const name of removed) {
    delete process.env[name];
  }
  return removed.length === 0
    ? ''
    : `removed from the servers' environment: ${removed.join(', ')} (they change every Node start)`;
}

/**
 * The CPU time of every thread of a process, in ms (/proc/PID/task/TID/schedstat, nanoseconds;
 * /proc/PID/schedstat alone is the main thread's). NaN once the process is gone. Linux only.
 */
function threadsCpuMs(pid) {
  try {
    return fs
      .readdirSync(`/proc/${pid}/task`)
      .map(
        tid =>
          Number(
            fs
              .readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8')
              .split(' ')[0]
          ) / 1e6
      )
      .reduce((a, b) => a + b, 0);
  } catch {
    return NaN;
  }
}

/**
 * One HTTP request on a connection of its own (as jupyter-server-proxy sends them) to a port on
 * 127.0.0.1 or a Unix socket (`where`: a number or a path): the whole answer, its body a Buffer.
 * Rejects on a connection error, or when no answer has come within timeoutMs.
 */
function httpAnswer(
  where,
  { method = 'GET', path: target, headers = {}, body },
  timeoutMs = 10000
) {
  const to =
    typeof where === 'number'
      ? { host: '127.0.0.1', port: where }
      : { socketPath: where };
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        ...to,
        method,
        path: target,
        headers,
        agent: false,
        timeout: timeoutMs
      },
      res => {
        const chunks = [];
        res.on('data', chunk => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode,
            headers: res.headers,
            body: Buffer.concat(chunks)
          })
        );
        res.on('error', reject);
      }
    );
    req.on('timeout', () =>
      req.destroy(new Error(`no answer within ${timeoutMs} ms`))
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** httpAnswer, its body as UTF-8 text. */
function httpText(where, request, timeoutMs) {
  return httpAnswer(where, request, timeoutMs).then(answer => ({
    ...answer,
    body: answer.body.toString('utf8')
  }));
}

// Headers of one connection, not of the answer: bare-server.js's node:http writes its own.
const HOP_BY_HOP = new Set([
  'connection',
  'content-length',
  'date',
  'keep-alive',
  'transfer-encoding'
]);

/** An answer as bench/bare-server.js replays it (its answers file's entry): status, headers, body. */
function replayEntry(answer) {
  return {
    status: answer.status,
    headers: Object.fromEntries(
      Object.entries(answer.headers).filter(([name]) => !HOP_BY_HOP.has(name))
    ),
    body: answer.body
  };
}

/** Loads a .ts file (and the .ts files it imports) as CommonJS, types stripped: the browser
 * benches reuse the system tests' helpers (test/system/e2e/helpers.ts) without a build. */
function requireTypeScript(file) {
  const ts = require('typescript');
  const previous = require.extensions['.ts'];
  require.extensions['.ts'] = (module, filename) => {
    const { outputText } = ts.transpileModule(
      fs.readFileSync(filename, 'utf8'),
      {
        fileName: filename,
        compilerOptions: {
          module: ts.ModuleKind.CommonJS,
          target: ts.ScriptTarget.ES2020,
          esModuleInterop: true
        }
      }
    );
    module._compile(outputText, filename);
  };
  try {
    return require(file);
  } finally {
    if (previous) {
      require.extensions['.ts'] = previous;
    } else {
      delete require.extensions['.ts'];
    }
  }
}

/**
 * The start of a browser bench: the labextension must be built; the system tests' helpers
 * (test/system/e2e/helpers.ts) are loaded; a watchdog stops every Lab server the run started
 * if it takes longer than `boundMs`. The helpers, and the watchdog to clear when done.
 */
function startLabBench(log, boundMs) {
  const root = path.resolve(__dirname, '..');
  const built = path.join(
    root,
    'jupyterlab_project_startup',
    'labextension',
    'package.json'
  );
  if (!fs.existsSync(built)) {
    log('the labextension is not built: run `npm run build` first.');
    process.exit(2);
  }
  // The venv's wheel is this build's, as the system lane makes it (skipped when it is already):
  // otherwise the bench would measure the extension of whichever checkout installed it last.
  require('../test/helpers/real-stack-setup').prepareRealStack();
  const h = requireTypeScript(
    path.join(root, 'test', 'system', 'e2e', 'helpers.ts')
  );
  const watchdog = setTimeout(() => {
    log('the run took too long; stopping');
    void h.stopAllLabServers().finally(() => process.exit(3));
  }, boundMs);
  watchdog.unref();
  return { h, watchdog };
}

module.exports = {
  startLabBench,
  canPin,
  cleanup,
  fmt,
  httpAnswer,
  httpText,
  neutralStartEnv,
  freePort,
  loadLine,
  machineLine,
  markdownTable,
  median,
  medianInterval,
  messages,
  parseOptions,
  pin,
  replayEntry,
  rssMiB,
  runLoad,
  sleep,
  tempDir,
  threadsCpuMs,
  track,
  trackGroup,
  untilAnswers
};
