#!/usr/bin/env node
// Every file made from another in this repository, by one command:
//
//   npm run generate         writes them all
//   npm run generate:check   fails when a committed one differs from what generate would write
//
// The generators, in the order they depend on each other:
//   scripts/schema-code.js      validators and lists from sidecar/schemas (sidecar, extension, Python)
//   scripts/site-config-doc.js  the site file's schema as TypeScript, and its reference in
//                               docs/site-configuration.md
//   (scripts/compile-sidecar.js: the four below read the compiled sidecar)
//   scripts/api.js              sidecar/schemas/api-types.d.ts (and sidecar/dist/openapi.json)
//   scripts/manifest-words.js   the Python client's manifest words
//   scripts/platform-rules.js   the Python client's platform rules
//   scripts/user-guide.js       the Help menu's copy of docs/user-guide.md
//
// Both compile the sidecar between the two groups, so check needs no build first; it runs before
// the build (test:prepare), whose compile then finds sidecar/dist current and skips (a compile
// after the bundle would leave the bundle older than sidecar/dist, which the wheel's build
// refuses). .gitattributes marks the outputs generated.
'use strict';

const { spawnSync } = require('node:child_process');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');

const BEFORE_COMPILE = ['schema-code.js', 'site-config-doc.js'];
const AFTER_COMPILE = [
  'api.js',
  'manifest-words.js',
  'platform-rules.js',
  'user-guide.js'
];

function run(command, args) {
  const result = spawnSync(command, args, { cwd: ROOT, stdio: 'inherit' });
  if (result.error) {
    throw result.error;
  }
  return result.status ?? 1;
}

function main(mode) {
  if (mode !== 'generate' && mode !== 'check') {
    process.stderr.write('usage: node scripts/generate.js generate|check\n');
    return 2;
  }
  const script = name =>
    run(process.execPath, [path.join('scripts', name), mode]);
  let failed = BEFORE_COMPILE.filter(name => script(name) !== 0);
  if (mode === 'generate' && failed.length > 0) {
    // The sidecar would compile against sources that were not written.
    return 1;
  }
  if (
    run(process.execPath, [path.join('scripts', 'compile-sidecar.js')]) !== 0
  ) {
    return 1;
  }
  failed = failed.concat(AFTER_COMPILE.filter(name => script(name) !== 0));
  if (failed.length > 0) {
    process.stderr.write(
      mode === 'check'
        ? `generate:check: out of date (${failed.join(', ')}); run \`npm run generate\` and commit the result\n`
        : `generate: failed (${failed.join(', ')})\n`
    );
    return 1;
  }
  return 0;
}

process.exitCode = main(process.argv[2] ?? 'generate');
