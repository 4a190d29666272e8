'use strict';
// The load generator, forked by bench/run.js once per measurement: it receives one job over
// IPC, runs autocannon (as a library) against a server in another process, and sends back the
// figures. Being its own process, it never shares an event loop (or a core, when run.js pins
// processes) with the server it measures, and every target meets a loader in the same state.
//
// Job: {url, method, headers, body, requests?, connections, warmupSeconds, durationSeconds,
//      pid? or pids? (the server's processes: bench/proxy.js counts Jupyter and the sidecar)}
//      or {..., amount} to send a fixed number of requests (no warm-up).
// Reply: {requests, seconds, rps, p50, p99, mean (ms), cpuUs (server CPU per request, when
//        the server's pids were given) and cpuUsEach (the same, per pid), errors, timeouts,
//        non2xx, bytes}
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const autocannon = require('autocannon');

const CLOCK_TICKS = (() => {
  try {
    return (
      Number(
        execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()
      ) || 100
    );
  } catch {
    return 100;
  }
})();

function run(options, onResponse) {
  return new Promise((resolve, reject) => {
    const instance = autocannon(options, (error, result) =>
      error ? reject(error) : resolve(result)
    );
    if (onResponse) {
      instance.on('response', onResponse);
    }
  });
}

/** CPU seconds (user + system, all threads) a process has used, from /proc/<pid>/stat. */
function cpuSeconds(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces) start after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

/** Nearest-rank percentile of sorted values. */
function percentile(sorted, p) {
  if (sorted.length === 0) {
    return null;
  }
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

async function measure(job) {
  const base = {
    url: job.url,
    method: job.method || 'GET',
    headers: job.headers || {},
    body: job.body,
    requests: job.requests,
    connections: job.connections,
    pipelining: 1,
    timeout: 10,
    // autocannon's own histogram has a 1 ms resolution: latencies are taken from its
    // 'response' events instead (microseconds).
    renderProgressBar: false,
    renderResultsTable: false,
    renderLatencyTable: false
  };
  if (job.warmupSeconds > 0) {
    await run({ ...base, duration: job.warmupSeconds });
  }
  const latencies = [];
  const pids = job.pids || (job.pid ? [job.pid] : []);
  const cpuBefore = pids.map(cpuSeconds);
  const started = process.hrtime.bigint();
  const result = await run(
    job.amount
      ? { ...base, amount: job.amount }
      : { ...base, duration: job.durationSeconds },
    (_client, statusCode, _bytes, responseTime) => {
      if (statusCode >= 200 && statusCode < 300) {
        latencies.push(responseTime);
      }
    }
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const cpuEach = pids.map((pid, i) => cpuSeconds(pid) - cpuBefore[i]);
  const cpu = pids.length
    ? cpuEach.reduce((sum, seconds) => sum + seconds, 0)
    : null;
  const sorted = Float64Array.from(latencies).sort();
  let sum = 0;
  for (const value of sorted) {
    sum += value;
  }
  const ok = result['2xx'];
  return {
    requests: ok,
    seconds,
    // autocannon ends a timed run at its duration; the requests counted are those answered.
    rps: ok / (job.amount ? seconds : result.duration),
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    mean: sorted.length ? sum / sorted.length : null,
    // The server's own CPU time (user + system) per answered request, in microseconds: less
    // sensitive than throughput to other work on the machine.
    cpuUs: cpu === null ? null : (cpu * 1e6) / ok,
    cpuUsEach: cpuEach.map(seconds => (seconds * 1e6) / ok),
    errors: result.errors,
    timeouts: result.timeouts,
    non2xx: result.non2xx,
    bytes: result.throughput.total
  };
}

process.once('message', job => {
  measure(job).then(
    figures => process.send({ ok: true, figures }, () => process.exit(0)),
    error =>
      process.send(
        { ok: false, error: String((error && error.stack) || error) },
        () => process.exit(1)
      )
  );
});
