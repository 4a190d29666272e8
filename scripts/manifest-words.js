#!/usr/bin/env node
// The Python client shows a manifest in the same words as the command line: this writes
// jupyterlab_project_startup/manifest_words.json from sidecar/src/core/manifest-words.ts (as
// compiled to sidecar/dist by `npm run build:sidecar`). test/service/manifest-words.test.ts fails when
// the two differ.
//
//   node scripts/manifest-words.js [generate|check]
'use strict';

const path = require('node:path');
const { writeOrCheck } = require('./generated-file');

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
  writeOrCheck('manifest-words', OUTPUT, generate(), process.argv[2]);
}

module.exports = { generate, OUTPUT };
