'use strict';
// Small helpers the benches share (bench/run.js, bench/proxy.js): CPU pinning, a median, a free
// loopback port, number formatting for the tables.
const { spawnSync } = require('node:child_process');
const net = require('node:net');

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

module.exports = { fmt, freePort, median, pin };
