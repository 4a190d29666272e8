#!/usr/bin/env node
// `npm ci` (and `npm exec`/`npx project-startup` in a checkout, which npm 11 treats as installing
// the project) run `prepare`. It builds the sidecar only when its build is missing or older than
// what it is built from: rebuilding an up-to-date bundle rewrote it under whatever was running
// from it (a service started by the README's quick start, a test suite), and made every `npx`
// wait for tsc and webpack.
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const OUTPUTS = [
  'sidecar/dist/cli/main.js',
  'sidecar/dist/bundle/project-startup.js',
  'sidecar/dist/bundle/project-startup.cache',
  'sidecar/dist/api-docs/swagger-ui-bundle.js',
  'sidecar/dist/THIRD_PARTY_LICENSES.md'
];
const INPUTS = [
  'sidecar/src',
  'sidecar/schemas',
  'sidecar/static',
  'sidecar/tsconfig.json',
  'scripts/bundle-sidecar.js',
  'scripts/api.js',
  'scripts/third-party-licenses.js',
  'bin/project-startup.js',
  'package.json',
  'package-lock.json'
];

function newestInput(file) {
  const stat = fs.statSync(file, { throwIfNoEntry: false });
  if (stat === undefined) {
    return 0;
  }
  if (!stat.isDirectory()) {
    return stat.mtimeMs;
  }
  return Math.max(
    0,
    ...fs.readdirSync(file).map(name => newestInput(path.join(file, name)))
  );
}

function upToDate() {
  const outputs = OUTPUTS.map(file =>
    fs.statSync(path.join(ROOT, file), { throwIfNoEntry: false })
  );
  if (outputs.some(stat => stat === undefined)) {
    return false;
  }
  const oldestOutput = Math.min(...outputs.map(stat => stat.mtimeMs));
  return INPUTS.every(
    input => newestInput(path.join(ROOT, input)) <= oldestOutput
  );
}

function main() {
  if (upToDate()) {
    process.stdout.write(
      'prepare: the sidecar build is up to date (npm run build:sidecar rebuilds it anyway).\n'
    );
    return;
  }
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const result = spawnSync(npm, ['run', 'build:sidecar'], {
    cwd: ROOT,
    stdio: 'inherit'
  });
  process.exit(result.status ?? 1);
}

// scripts/lab.js asks the same question before it rebuilds anything.
module.exports = { sidecarUpToDate: upToDate };

if (require.main === module) {
  main();
}
