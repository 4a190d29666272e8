#!/usr/bin/env node
'use strict';
// CPU per request of several backends measured together: each is spawned as jupyter-server-proxy
// spawns it (`serve --ingress notebook-server-proxy --unix-socket P`, generic platform), all
// pinned to CPU 0, and the requests alternate between them one at a time (a new connection each,
// as the proxy makes), 1 ms apart after each turn. So every backend runs under the same machine
// at the same moment, with caches the others left, as behind the proxy; the CPU each spent (all
// threads, /proc/PID/task/*/schedstat) is divided by its requests. Measured apart, the machine's
// drift between launches hid a difference of 100-300 us per request (bench/README.md).
// The last backend is the baseline: each launch's difference from it, median of the launches.
// Linux only. Bounded: LAUNCHES x REQUESTS requests per backend, 5 s per request at most.
//
//   node bench/paired-cpu.js [--launches N] [--requests N] [--target PATH] BACKEND... BASELINE
//
// A BACKEND is a bin (`bin/project-startup.js`, another worktree's), optionally with Node options
// before it (`--optimize-for-size=bin/project-startup.js`: the options, the last `=`, the bin),
// or `bench/bare-server.js`, which replays the first backend's answer to the target byte for byte.
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const {
  httpText,
  loadLine,
  markdownTable,
  median,
  neutralStartEnv,
  replayEntry,
  threadsCpuMs,
  untilAnswers
} = require('./support');

const BASE_URL = '/user/alice/';
const WARM_UP = 500; // requests per backend before measuring
const sleep = ms => new Promise(resolve => setTimeout(resolve, ms));

/** One GET over the socket, as the proxy sends it; the whole answer, or undefined. */
function get(socketPath, target) {
  const headers = {
    host: '127.0.0.1:8888',
    'user-agent': 'Tornado/6.2',
    connection: 'close'
  };
  return httpText(socketPath, { path: target, headers }, 5000).catch(
    () => undefined
  );
}

function parseBackend(spec) {
  const at = spec.lastIndexOf('=');
  const bin = path.resolve(at < 0 ? spec : spec.slice(at + 1));
  const options = at < 0 ? [] : spec.slice(0, at).split(' ').filter(Boolean);
  return {
    label:
      path.relative(process.cwd(), bin) +
      (options.length ? ` ${options.join(' ')}` : ''),
    bin,
    options
  };
}

const isBare = backend => path.basename(backend.bin) === 'bare-server.js';

function launch(backend, bodiesFile) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ps-paired-'));
  const socket = path.join(dir, 's');
  const args = isBare(backend)
    ? [backend.bin, socket, ...(bodiesFile ? [bodiesFile] : [])]
    : [
        backend.bin,
        'serve',
        '--ingress',
        'notebook-server-proxy',
        '--unix-socket',
        socket,
        '--base-url',
        BASE_URL
      ];
  const child = spawn(
    'taskset',
    ['-c', '0', process.execPath, ...backend.options, ...args],
    {
      stdio: 'ignore',
      env: { ...process.env, PROJECT_STARTUP_PLATFORM: 'generic' },
      cwd: dir
    }
  );
  const prefix = isBare(backend) ? `${BASE_URL}bare/` : `${BASE_URL}project/`;
  return { backend, dir, socket, child, prefix };
}

function ready(running) {
  return untilAnswers(running.socket, running.backend.label);
}

async function stop(running) {
  running.child.kill('SIGTERM');
  if (running.child.exitCode === null && running.child.signalCode === null) {
    await new Promise(resolve => running.child.once('exit', resolve));
  }
  fs.rmSync(running.dir, { recursive: true, force: true });
}

/** The first backend's answer to the target, for bare-server.js to replay. */
async function captureBodies(backend, target, file) {
  const running = launch(backend);
  try {
    await ready(running);
    const answer = await get(running.socket, running.prefix + target);
    if (answer === undefined || answer.status !== 200) {
      throw new Error(
        `${backend.label} answered ${target} with ${answer ? answer.status : 'nothing'}`
      );
    }
    fs.writeFileSync(
      file,
      JSON.stringify({ [`GET ${BASE_URL}bare/${target}`]: replayEntry(answer) })
    );
  } finally {
    await stop(running);
  }
}

async function measureLaunch(backends, target, requests, bodiesFile) {
  const running = backends.map(backend => launch(backend, bodiesFile));
  try {
    for (const r of running) {
      await ready(r);
    }
    for (let i = 0; i < WARM_UP; i++) {
      for (const r of running) {
        await get(r.socket, r.prefix + target);
      }
    }
    await sleep(1200); // past the bin's one-second flag
    const before = running.map(r => threadsCpuMs(r.child.pid));
    const failed = running.map(() => 0);
    for (let i = 0; i < requests; i++) {
      const order = i % 2 === 0 ? running : [...running].reverse();
      for (const r of order) {
        const answer = await get(r.socket, r.prefix + target);
        if (answer === undefined || answer.status !== 200) {
          failed[running.indexOf(r)]++;
        }
      }
      await sleep(1);
    }
    return running.map((r, k) => ({
      us: ((threadsCpuMs(r.child.pid) - before[k]) * 1000) / requests,
      failed: failed[k]
    }));
  } finally {
    for (const r of running) {
      await stop(r);
    }
  }
}

function parseArgs(argv) {
  const options = {
    launches: 5,
    requests: 2000,
    target: 'capabilities',
    backends: []
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--launches' || arg === '--requests') {
      const value = Number(argv[++i]);
      if (
        !Number.isInteger(value) ||
        value < 1 ||
        value > (arg === '--launches' ? 50 : 20000)
      ) {
        throw new Error(
          `${arg} takes a whole number (at most ${arg === '--launches' ? 50 : 20000})`
        );
      }
      options[arg.slice(2)] = value;
    } else if (arg === '--target') {
      options.target = argv[++i] || '';
    } else if (arg === '--help' || arg === '-h') {
      options.help = true;
    } else {
      options.backends.push(parseBackend(arg));
    }
  }
  if (!options.help && options.backends.length < 2) {
    throw new Error('name at least two backends, the baseline last');
  }
  return options;
}

async function main() {
  let options;
  try {
    options = parseArgs(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(
      `paired-cpu: ${error.message}. See node bench/paired-cpu.js --help\n`
    );
    process.exit(2);
  }
  if (options.help) {
    const usage = fs.readFileSync(__filename, 'utf8').split('\n').slice(2, 17);
    process.stdout.write(
      `${usage.map(line => line.replace(/^\/\/ ?/, '')).join('\n')}\n`
    );
    return;
  }
  const removed = neutralStartEnv();
  if (removed) {
    process.stderr.write(`paired-cpu: ${removed}\n`);
  }
  const { backends, target, requests, launches } = options;
  let bodiesFile;
  if (backends.some(isBare)) {
    bodiesFile = path.join(
      fs.mkdtempSync(path.join(os.tmpdir(), 'ps-paired-bodies-')),
      'bodies.json'
    );
    await captureBodies(
      backends.find(b => !isBare(b)),
      target,
      bodiesFile
    );
  }
  process.stdout.write(`${loadLine('at the start')}\n`);
  const perLaunch = [];
  for (let l = 0; l < launches; l++) {
    perLaunch.push(await measureLaunch(backends, target, requests, bodiesFile));
    process.stderr.write(`paired-cpu: launch ${l + 1}/${launches}\n`);
  }
  if (bodiesFile) {
    fs.rmSync(path.dirname(bodiesFile), { recursive: true, force: true });
  }
  const base = backends.length - 1;
  const rows = backends.map((backend, k) => {
    const us = perLaunch.map(launch => launch[k].us);
    const over = perLaunch.map(launch => launch[k].us - launch[base].us);
    const failed = perLaunch.reduce((sum, launch) => sum + launch[k].failed, 0);
    return [
      backend.label,
      Math.round(median(us)),
      k === base ? 'baseline' : Math.round(median(over)),
      k === base
        ? ''
        : `${(median(us) / median(perLaunch.map(launch => launch[base].us))).toFixed(2)}x`,
      us.map(Math.round).join(' '),
      failed
    ];
  });
  process.stdout.write(
    `${target}: ${launches} launches x ${requests} requests each, alternating, all pinned to CPU 0\n\n` +
      `${markdownTable(['backend', 'CPU/request (us)', 'above baseline, median of launches', 'ratio', 'per launch', 'failed'], rows).join('\n')}\n`
  );
}

main().catch(error => {
  process.stderr.write(`paired-cpu: ${error.message}\n`);
  process.exit(1);
});
