#!/usr/bin/env node
// The Python client decides the platform and places the state by the service's own rules: this
// writes jupyterlab_project_startup/platform_rules.json from sidecar/src/core/platforms/
// (rules.ts and placement.ts, as compiled to sidecar/dist by `npm run build:sidecar`), and
// `check` fails when the committed copy differs.
//
//   node scripts/platform-rules.js [generate|check]
'use strict';

const path = require('node:path');
const { writeOrCheck } = require('./generated-file');

const ROOT = path.resolve(__dirname, '..');
const COMPILED = path.join(
  ROOT,
  'sidecar',
  'dist',
  'core',
  'platforms',
  'rules-data.js'
);
const OUTPUT = path.join(
  ROOT,
  'jupyterlab_project_startup',
  'platform_rules.json'
);

function generate() {
  const { platformRulesData } = require(COMPILED);
  return `${JSON.stringify(platformRulesData(), null, 2)}\n`;
}

if (require.main === module) {
  writeOrCheck('platform-rules', OUTPUT, generate(), process.argv[2]);
}

module.exports = { generate, OUTPUT };
