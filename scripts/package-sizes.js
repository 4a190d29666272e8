#!/usr/bin/env node
// The sizes of what users install : the npm package packed (the tarball `npm
// pack` makes) and unpacked, and the wheel as installed (the files its RECORD lists in a venv,
// data files included). docs/package-sizes.json holds them; docs/performance.md quotes its
// `display` strings. One measure, one file: the docs never carry a figure this script did not
// write.
//
//   node scripts/package-sizes.js --venv DIR            measure and print the JSON
//   node scripts/package-sizes.js --venv DIR --write    measure and write docs/package-sizes.json
//   node scripts/package-sizes.js --venv DIR --check    fail when a measure is off the file's by more
//                                                       than TOLERANCE
//   npm run sizes:packages -- --venv DIR [--write|--check]
//
// --venv: a venv with this checkout's wheel installed (default $PROJECT_STARTUP_VENV, else the
// system lane's venv, /var/tmp/jupyterlab-project-startup-ci/venv). `npm run build` must have run.
'use strict';

const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const SIZES_FILE = path.join(ROOT, 'docs', 'package-sizes.json');
/** Relative change a measure may show before the docs must be rewritten (every change moves bytes). */
const TOLERANCE = 0.1;
const DIST = 'jupyterlab_project_startup';

/** "1.24 MB" (decimal units, as npm and pip print them). */
function display(bytes) {
  return bytes >= 1e6
    ? `${(bytes / 1e6).toFixed(2)} MB`
    : `${Math.round(bytes / 1e3)} kB`;
}

/** `npm pack --dry-run`: the tarball's size and its unpacked size, in bytes. */
function npmSizes() {
  const result = spawnSync(
    'npm',
    ['pack', '--dry-run', '--json', '--ignore-scripts'],
    { cwd: ROOT, encoding: 'utf8', timeout: 120000 }
  );
  if (result.status !== 0) {
    throw new Error(`npm pack --dry-run failed:\n${result.stderr}`);
  }
  const [pack] = JSON.parse(result.stdout);
  return {
    packed: pack.size,
    unpacked: pack.unpackedSize,
    files: pack.entryCount
  };
}

/** The installed wheel in `venv`: the bytes of every file its RECORD lists, and its version. */
function wheelInstalledSize(venv) {
  const lib = path.join(venv, 'lib');
  const site = fs
    .readdirSync(lib)
    .map(v => path.join(lib, v, 'site-packages'))
    .find(dir => fs.existsSync(dir));
  const distInfo = site
    ? fs
        .readdirSync(site)
        .find(n => n.startsWith(`${DIST}-`) && n.endsWith('.dist-info'))
    : undefined;
  if (!site || !distInfo) {
    throw new Error(
      `${venv} has no ${DIST} installed: run the system lane (its globalSetup installs the wheel) or pip install it.`
    );
  }
  const record = fs.readFileSync(path.join(site, distInfo, 'RECORD'), 'utf8');
  let bytes = 0;
  let files = 0;
  for (const line of record.split('\n').filter(Boolean)) {
    const file = path.resolve(site, line.split(',')[0]);
    const stat = fs.statSync(file, { throwIfNoEntry: false });
    // RECORD lists the .pyc files pip compiles too; all that are there count.
    if (stat?.isFile()) {
      bytes += stat.size;
      files += 1;
    }
  }
  return {
    installed: bytes,
    files,
    version: distInfo.slice(0, -'.dist-info'.length).split('-')[1]
  };
}

function measure(venv) {
  const npm = npmSizes();
  const wheel = wheelInstalledSize(venv);
  return {
    version: wheel.version,
    npm: {
      packed: npm.packed,
      unpacked: npm.unpacked,
      files: npm.files,
      display: { packed: display(npm.packed), unpacked: display(npm.unpacked) }
    },
    wheel: {
      installed: wheel.installed,
      files: wheel.files,
      display: { installed: display(wheel.installed) }
    }
  };
}

/** The measures off the recorded ones by more than TOLERANCE, as lines for a person. */
function differences(recorded, measured) {
  const pairs = [
    ['npm packed', recorded.npm?.packed, measured.npm.packed],
    ['npm unpacked', recorded.npm?.unpacked, measured.npm.unpacked],
    ['wheel installed', recorded.wheel?.installed, measured.wheel.installed]
  ];
  return pairs
    .filter(
      ([, was, now]) =>
        typeof was !== 'number' || Math.abs(now - was) / was > TOLERANCE
    )
    .map(
      ([name, was, now]) =>
        `${name}: docs/package-sizes.json says ${was === undefined ? 'nothing' : display(was)}, measured ${display(now)}`
    );
}

function main(argv) {
  const at = argv.indexOf('--venv');
  const venv =
    at >= 0
      ? argv[at + 1]
      : (process.env.PROJECT_STARTUP_VENV ??
        '/var/tmp/jupyterlab-project-startup-ci/venv');
  const measured = measure(venv);
  if (argv.includes('--write')) {
    fs.writeFileSync(SIZES_FILE, `${JSON.stringify(measured, null, 2)}\n`);
  } else if (argv.includes('--check')) {
    const recorded = JSON.parse(fs.readFileSync(SIZES_FILE, 'utf8'));
    const off = differences(recorded, measured);
    if (off.length > 0) {
      process.stderr.write(
        `${off.join('\n')}\nRun \`npm run sizes:packages -- --write\` and update docs/performance.md.\n`
      );
      return 1;
    }
  }
  process.stdout.write(`${JSON.stringify(measured, null, 2)}\n`);
  return 0;
}

module.exports = { measure, differences, display, TOLERANCE, SIZES_FILE };

if (require.main === module) {
  process.exitCode = main(process.argv.slice(2));
}
