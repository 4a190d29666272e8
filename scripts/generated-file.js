// Writes a generated file, or with `check` fails when the committed copy differs: the tail every
// generator of a single file shares (`npm run generate` and `generate:check` run them).
'use strict';

const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');

/** `generate` (default) writes `text` to `file`; `check` exits 1 when the file differs. */
function writeOrCheck(name, file, text, mode = 'generate') {
  const relative = path.relative(ROOT, file);
  if (mode === 'check') {
    const current = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
    if (current !== text) {
      process.stderr.write(
        `${name}: ${relative} is out of date; run \`npm run generate\`\n`
      );
      process.exit(1);
    }
    process.stdout.write(`${name}: ${relative} is current\n`);
    return;
  }
  fs.writeFileSync(file, text);
  process.stdout.write(`${name}: wrote ${relative}\n`);
}

module.exports = { writeOrCheck };
