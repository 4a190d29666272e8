#!/usr/bin/env node
'use strict';
// The calibration of bench/jupyter-proxy.js: `node bench/jupyter-proxy.js --sidecar-bin
// bench/replay-sidecar.js` measures a bare backend against a bare backend, so the spread of its
// ratios is the bench's own noise on this machine, and any ratio it prints away from 1 is noise.
//
// Launched by the proxy as the sidecar is (`serve ... --unix-socket P --base-url B`), it runs
// this checkout's real sidecar once on a private socket, keeps its answers to the measured
// targets (status, headers, body), ends it, and then serves them as bench/bare-server.js does,
// in this process (the bench finds it, and counts its CPU and memory, by this file's path).
// Its cold first answer includes that capture and means nothing.
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { serveBare } = require('./bare-server');
const { httpText, replayEntry, untilAnswers } = require('./support');

const BIN = path.join(__dirname, '..', 'bin', 'project-startup.js');
const TARGETS = ['capabilities', 'startup?interface=notebook'];

function option(argv, name, fallback) {
  const at = argv.indexOf(name);
  return at < 0 ? fallback : argv[at + 1];
}

/** The real sidecar's answers to TARGETS under `baseUrl`, keyed as bare-server.js reads them. */
async function capture(argv, baseUrl) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ps-replay-'));
  const socket = path.join(dir, 's');
  const args = [...argv];
  args[args.indexOf('--unix-socket') + 1] = socket;
  const child = spawn(process.execPath, [BIN, ...args], {
    stdio: 'ignore',
    env: process.env
  });
  const get = target =>
    httpText(
      socket,
      {
        path: target,
        headers: { host: '127.0.0.1', 'user-agent': 'Tornado/6.2' }
      },
      5000
    ).catch(() => undefined);
  try {
    await untilAnswers(socket, 'the sidecar');
    const answers = {};
    for (const target of TARGETS) {
      const at = `${baseUrl}project/${target}`;
      const answer = await get(at);
      if (answer === undefined || answer.status !== 200) {
        throw new Error(`the sidecar did not answer ${at}`);
      }
      answers[`GET ${at}`] = replayEntry(answer);
    }
    return answers;
  } finally {
    child.kill('SIGTERM');
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function main(argv) {
  if (argv[0] !== 'serve' || !argv.includes('--unix-socket')) {
    throw new Error('usage: replay-sidecar.js serve ... --unix-socket PATH');
  }
  const answers = await capture(argv, option(argv, '--base-url', '/'));
  serveBare(option(argv, '--unix-socket'), answers);
}

if (require.main === module) {
  main(process.argv.slice(2)).catch(error => {
    process.stderr.write(`replay-sidecar: ${error.message}\n`);
    process.exit(1);
  });
}
