#!/usr/bin/env node
// Compiles the sidecar (`tsc -p sidecar/tsconfig.json` into sidecar/dist) unless the last
// successful compile is newer than every source: `npm run test:prepare` runs generate:check,
// which needs the compiled sidecar, and then the build, which would otherwise compile the same
// sources a second time (about 10 s). A compile that fails leaves no mark, so the next one runs
// again and fails again: the build never bundles code that did not type-check.
//
//   node scripts/compile-sidecar.js          compiles when needed
//   node scripts/compile-sidecar.js --force  always compiles
'use strict';

const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const SIDECAR = path.join(ROOT, 'sidecar');
/** Written after a successful compile; its time is the compile's. */
const MARK = path.join(SIDECAR, 'dist', '.compiled');
/** What the compile reads: the sources (a directory's time changes when a file is added or removed). */
const MAIN = path.join(SIDECAR, 'dist', 'cli', 'main.js');
const INPUTS = [
  path.join(SIDECAR, 'src'),
  path.join(SIDECAR, 'tsconfig.json'),
  path.join(ROOT, 'node_modules', 'typescript', 'package.json')
];

function newest(file) {
  const stat = fs.statSync(file, { throwIfNoEntry: false });
  if (stat === undefined) {
    return Infinity; // gone: compile, and let tsc say what is missing
  }
  if (!stat.isDirectory()) {
    return stat.mtimeMs;
  }
  return fs
    .readdirSync(file)
    .reduce(
      (latest, name) => Math.max(latest, newest(path.join(file, name))),
      stat.mtimeMs
    );
}

/** Whether `mark` (a successful compile) is newer than every input and `output` exists. */
function current(mark = MARK, inputs = INPUTS, output = MAIN) {
  const stat = fs.statSync(mark, { throwIfNoEntry: false });
  return (
    stat !== undefined &&
    inputs.every(input => newest(input) <= stat.mtimeMs) &&
    fs.existsSync(output)
  );
}

function main(force) {
  if (!force && current()) {
    process.stdout.write('compile-sidecar: sidecar/dist is current\n');
    return 0;
  }
  fs.rmSync(MARK, { force: true });
  const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const result = spawnSync(
    process.execPath,
    [tsc, '-p', path.join('sidecar', 'tsconfig.json')],
    { cwd: ROOT, stdio: 'inherit' }
  );
  if (result.error) {
    throw result.error;
  }
  if (result.status !== 0) {
    return result.status ?? 1;
  }
  fs.writeFileSync(MARK, '');
  return 0;
}

if (require.main === module) {
  process.exitCode = main(process.argv.includes('--force'));
}

module.exports = { current, MARK };
