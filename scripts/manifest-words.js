#!/usr/bin/env node
// The Python client shows a manifest in the same words as the command line: this writes
// jupyterlab_project_startup/manifest_words.json from sidecar/src/core/manifest-words.ts (as
// compiled to sidecar/dist by `npm run build:sidecar`). test/service/manifest-words.test.ts fails when
// the two differ.
//
//   node scripts/manifest-words.js [generate|check]
'use strict';

const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const COMPILED = path.join(
  ROOT,
  'sidecar',
  'dist',
  'core',
  'manifest-words.js'
);
const OUTPUT = path.join(
  ROOT,
  'jupyterlab_project_startup',
  'manifest_words.json'
);

function generate() {
  const { MANIFEST_WORDS } = require(COMPILED);
  return `${JSON.stringify(MANIFEST_WORDS, null, 2)}\n`;
}

if (require.main === module) {
  const mode = process.argv[2] ?? 'generate';
  const relative = path.relative(ROOT, OUTPUT);
  if (mode === 'check') {
    const current = fs.existsSync(OUTPUT)
      ? fs.readFileSync(OUTPUT, 'utf8')
      : '';
    if (current !== generate()) {
      process.stderr.write(
        `manifest-words: ${relative} is out of date; run \`npm run generate\`\n`
      );
      process.exit(1);
    }
    process.stdout.write(`manifest-words: ${relative} is current\n`);
  } else {
    fs.writeFileSync(OUTPUT, generate());
    process.stdout.write(`manifest-words: wrote ${relative}\n`);
  }
}

module.exports = { generate, OUTPUT };
