#!/usr/bin/env node
// The Python client decides the platform and places the state by the service's own rules: this
// writes jupyterlab_project_startup/platform_rules.json from sidecar/src/core/platforms/
// (rules.ts and placement.ts, as compiled to sidecar/dist by `npm run build:sidecar`), and
// `check` fails when the committed copy differs.
//
//   node scripts/platform-rules.js [generate|check]
'use strict';

const fs = require('node:fs');
const path = require('node:path');

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
  const mode = process.argv[2] ?? 'generate';
  const relative = path.relative(ROOT, OUTPUT);
  if (mode === 'check') {
    const current = fs.existsSync(OUTPUT)
      ? fs.readFileSync(OUTPUT, 'utf8')
      : '';
    if (current !== generate()) {
      process.stderr.write(
        `platform-rules: ${relative} is out of date; run \`node scripts/platform-rules.js\`\n`
      );
      process.exit(1);
    }
    process.stdout.write(`platform-rules: ${relative} is current\n`);
  } else {
    fs.writeFileSync(OUTPUT, generate());
    process.stdout.write(`platform-rules: wrote ${relative}\n`);
  }
}

module.exports = { generate, OUTPUT };
