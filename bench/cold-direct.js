#!/usr/bin/env node
'use strict';
// The cold start of `serve` as jupyter-server-proxy launches it, without Jupyter: spawns a bin
// (`serve --ingress notebook-server-proxy --unix-socket P`, generic platform), polls P on
// simpervisor 1.0's schedule (a check right away, then after 10, 20, 40, 80... ms, each a new
// connection and `GET /`, any answer counting) and records, per launch, the wall time to the first
// answer and the process's CPU (all threads, /proc/PID/task/*/schedstat) when that answer arrived.
// Bins are interleaved launch by launch; medians printed. Linux only. With `--every MS` it polls
// every MS ms instead (up to 5 s), which shows when a bin can first answer, without the schedule's
// steps.
//
//   node bench/cold-direct.js [--runs N] [--pin] [--every MS] BIN [BIN...]
//                                                  (BIN may be bench/bare-server.js)
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const { neutralStartEnv, threadsCpuMs } = require('./support');

const MAX_CHECKS = 10; // 0 .. 5.1 s of simpervisor's schedule: bounded
const MAX_WAIT_MS = 5000; // --every: bounded the same way

function check(socketPath) {
  return new Promise(resolve => {
    const req = http.get(
      { socketPath, path: '/', headers: { host: 'localhost' }, timeout: 5000 },
      res => {
        res.resume();
        resolve(true);
      }
    );
    req.on('error', () => resolve(false));
    req.on('timeout', () => {
      req.destroy();
      resolve(false);
    });
  });
}

async function launch(bin, pin, every) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ps-cold-'));
  const socket = path.join(dir, 's');
  // bench/bare-server.js takes the socket alone (the baseline backend of bench/jupyter-proxy.js).
  const args =
    path.basename(bin) === 'bare-server.js'
      ? [bin, socket]
      : [
          bin,
          'serve',
          '--ingress',
          'notebook-server-proxy',
          '--unix-socket',
          socket
        ];
  const command = pin ? 'taskset' : process.execPath;
  const start = process.hrtime.bigint();
  const child = spawn(
    command,
    pin ? ['-c', '0', process.execPath, ...args] : args,
    {
      stdio: 'ignore',
      env: { ...process.env, PROJECT_STARTUP_PLATFORM: 'generic' },
      cwd: dir
    }
  );
  // simpervisor's schedule (10 ms, doubling), or a fixed interval (--every) up to MAX_WAIT_MS.
  let wait = every ?? 10;
  const checks = every ? Math.ceil(MAX_WAIT_MS / every) : MAX_CHECKS;
  let result = { ms: NaN, cpu: NaN };
  for (let i = 0; i < checks; i++) {
    if (await check(socket)) {
      const pid = child.pid; // taskset execs node: the same pid
      result = {
        ms: Number(process.hrtime.bigint() - start) / 1e6,
        cpu: threadsCpuMs(pid)
      };
      break;
    }
    await new Promise(r => setTimeout(r, wait));
    wait = every ?? wait * 2;
  }
  child.kill('SIGTERM');
  await new Promise(r => child.once('exit', r));
  fs.rmSync(dir, { recursive: true, force: true });
  return result;
}

const median = xs => {
  const s = xs.filter(Number.isFinite).sort((a, b) => a - b);
  return s.length ? s[Math.floor((s.length - 1) / 2)] : NaN;
};

async function main() {
  const argv = process.argv.slice(2);
  const removed = neutralStartEnv();
  if (removed) {
    process.stderr.write(`cold-direct: ${removed}\n`);
  }
  let runs = 9;
  let pin = false;
  let every;
  const bins = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--runs') {
      runs = Math.max(1, Math.min(50, Number(argv[++i])));
    } else if (argv[i] === '--pin') {
      pin = true;
    } else if (argv[i] === '--every') {
      every = Math.max(1, Math.min(100, Number(argv[++i])));
    } else {
      bins.push(path.resolve(argv[i]));
    }
  }
  const results = bins.map(() => []);
  for (let r = 0; r < runs; r++) {
    for (let b = 0; b < bins.length; b++) {
      const k = (b + r) % bins.length; // alternate which goes first
      results[k].push(await launch(bins[k], pin, every));
    }
  }
  const load = os
    .loadavg()
    .map(x => x.toFixed(2))
    .join(' / ');
  process.stdout.write(
    `runs ${runs}, pin ${pin}, ${every ? `every ${every} ms` : "simpervisor's schedule"}, load ${load}\n`
  );
  bins.forEach((bin, i) => {
    const ms = results[i].map(x => x.ms);
    const cpu = results[i].map(x => x.cpu);
    process.stdout.write(
      `${bin}: first answer median ${median(ms).toFixed(1)} ms, CPU at it median ${median(cpu).toFixed(1)} ms; ms ${ms.map(x => x.toFixed(0)).join(',')}; cpu ${cpu.map(x => x.toFixed(0)).join(',')}\n`
    );
  });
}

main();
