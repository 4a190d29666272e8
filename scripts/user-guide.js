#!/usr/bin/env node
// Ships the user guide (docs/user-guide.md) with the extension: hub users have no network and
// there is no published URL, so the Help menu's "Project Startup user guide" shows this copy.
//
//   node scripts/user-guide.js [generate]   writes src/generated/user-guide.ts from docs/user-guide.md (build:lib runs it)
//   node scripts/user-guide.js check        exits 1 when src/generated/user-guide.ts differs from docs/user-guide.md
//
// The guide runs from its heading to the next heading of the same or a higher level.
'use strict';

const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const GUIDE = path.join(ROOT, 'docs', 'user-guide.md');
const MODULE = path.join(ROOT, 'src', 'generated', 'user-guide.ts');
const HEADING = '## Using Project Startup in JupyterLab and Notebook';
const LEVEL = HEADING.indexOf(' ');

/** The section of `markdown` under HEADING (heading included), without trailing blank lines. */
function extractSection(markdown) {
  const lines = markdown.replace(/\r\n/g, '\n').split('\n');
  const start = lines.findIndex(line => line.trim() === HEADING);
  if (start < 0) {
    throw new Error(
      `docs/user-guide.md has no heading "${HEADING}": the Help menu's user guide is that section. Restore the heading (or change HEADING in scripts/user-guide.js and src/help.ts).`
    );
  }
  let end = lines.length;
  let fenced = false;
  for (let i = start + 1; i < lines.length; i++) {
    if (/^(```|~~~)/.test(lines[i])) {
      fenced = !fenced;
    } else if (
      !fenced &&
      /^#{1,6} /.test(lines[i]) &&
      lines[i].indexOf(' ') <= LEVEL
    ) {
      end = i;
      break;
    }
  }
  return lines.slice(start, end).join('\n').replace(/\s+$/, '') + '\n';
}

/** The TypeScript module holding `section`. */
function moduleText(section) {
  return (
    '// Generated from docs/user-guide.md by scripts/user-guide.js (`npm run build:lib` or `npm run guide:generate`); do not edit.\n' +
    '\n' +
    `/** docs/user-guide.md, "${HEADING.slice(LEVEL + 1)}" (Markdown), shown by the Help menu's user guide. */\n` +
    `export const USER_GUIDE_MARKDOWN = ${JSON.stringify(section)};\n`
  );
}

function expected() {
  return moduleText(extractSection(fs.readFileSync(GUIDE, 'utf8')));
}

function main(argv) {
  const mode = argv[0] ?? 'generate';
  try {
    if (mode === 'generate') {
      const text = expected();
      const current = fs.existsSync(MODULE)
        ? fs.readFileSync(MODULE, 'utf8')
        : '';
      if (current !== text) {
        fs.writeFileSync(MODULE, text);
        process.stdout.write(
          `user-guide: wrote ${path.relative(ROOT, MODULE)} from docs/user-guide.md\n`
        );
      }
    } else if (mode === 'check') {
      const current = fs.existsSync(MODULE)
        ? fs.readFileSync(MODULE, 'utf8')
        : '';
      if (current !== expected()) {
        process.stderr.write(
          `user-guide: ${path.relative(ROOT, MODULE)} differs from docs/user-guide.md: run \`npm run guide:generate\` and commit it.\n`
        );
        return 1;
      }
      process.stdout.write(
        `user-guide: ${path.relative(ROOT, MODULE)} matches docs/user-guide.md\n`
      );
    } else {
      process.stderr.write(
        `user-guide: unknown mode "${mode}". Usage: node scripts/user-guide.js [generate|check]\n`
      );
      return 2;
    }
  } catch (error) {
    process.stderr.write(`user-guide: ${error.message}\n`);
    return 1;
  }
  return 0;
}

if (require.main === module) {
  process.exitCode = main(process.argv.slice(2));
}

module.exports = { HEADING, GUIDE, extractSection, moduleText, expected };
