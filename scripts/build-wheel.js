#!/usr/bin/env node
// Builds the Python wheel of jupyterlab-project-startup from a checkout, with no network:
// `npm run build` (sidecar bundle, lib/, prebuilt labextension), then the wheel with the PEP 517
// frontend `build` and the hatchling backend already installed (Debian: python3-build and
// python3-hatchling), without an isolated environment. hatch_build.py stages the sidecar
// into jupyterlab_project_startup/node/ during the build.
//
//   node scripts/build-wheel.js [--out-dir DIR] [--python PY] [--skip-npm-build]
//   npm run build:wheel -- --out-dir DIR
//
// --out-dir: where the wheel goes (default dist/). --python: the Python that builds (default:
// $PYTHON, else the first of python3 and /usr/bin/python3 that has `build` and `hatchling`).
// Prints the wheel's path last.
'use strict';

const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');

function fail(message) {
  process.stderr.write(`build-wheel: ${message}\n`);
  process.exit(1);
}

function parse(argv) {
  const options = {
    outDir: path.join(ROOT, 'dist'),
    python: undefined,
    npmBuild: true
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--skip-npm-build') {
      options.npmBuild = false;
    } else if (
      (arg === '--out-dir' || arg === '--python') &&
      argv[i + 1] !== undefined
    ) {
      options[arg === '--out-dir' ? 'outDir' : 'python'] = argv[++i];
    } else {
      fail(
        `unknown or incomplete argument ${arg}. Usage: node scripts/build-wheel.js [--out-dir DIR] [--python PY] [--skip-npm-build]`
      );
    }
  }
  options.outDir = path.resolve(options.outDir);
  return options;
}

function canBuild(python) {
  const probe = spawnSync(python, ['-c', 'import build, hatchling'], {
    stdio: 'ignore',
    timeout: 30000
  });
  return probe.status === 0;
}

function choosePython(requested) {
  if (requested) {
    if (!canBuild(requested)) {
      fail(
        `${requested} cannot import \`build\` and \`hatchling\`. Install them (Debian: apt-get install python3-build python3-hatchling; elsewhere: pip install build hatchling).`
      );
    }
    return requested;
  }
  const candidates = [process.env.PYTHON, 'python3', '/usr/bin/python3'].filter(
    Boolean
  );
  const found = candidates.find(canBuild);
  if (!found) {
    fail(
      `none of ${candidates.join(', ')} can import \`build\` and \`hatchling\`. Install them (Debian: apt-get install python3-build python3-hatchling; elsewhere: pip install build hatchling), or name a Python with --python.`
    );
  }
  return found;
}

function run(command, args, what) {
  process.stdout.write(`build-wheel: ${what}\n`);
  const result = spawnSync(command, args, {
    cwd: ROOT,
    stdio: 'inherit',
    env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' }
  });
  if (result.error) {
    fail(`${what} could not run: ${result.error.message}`);
  }
  if (result.status !== 0) {
    fail(
      `${what} failed (exit ${result.status === null ? `signal ${result.signal}` : result.status}); its errors are above.`
    );
  }
}

function main(argv) {
  const options = parse(argv);
  const python = choosePython(options.python);
  if (options.npmBuild) {
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    run(
      npm,
      ['run', 'build'],
      'npm run build (sidecar bundle, lib/, labextension)'
    );
  }
  const needed = [
    'jupyterlab_project_startup/labextension/package.json',
    'sidecar/dist/bundle/project-startup.js'
  ];
  const missing = needed.filter(file => !fs.existsSync(path.join(ROOT, file)));
  if (missing.length > 0) {
    fail(
      `${missing.join(' and ')} missing: run \`npm run build\` first, or leave out --skip-npm-build.`
    );
  }
  fs.mkdirSync(options.outDir, { recursive: true });
  const before = new Set(fs.readdirSync(options.outDir));
  // --no-isolation: no network, the installed hatchling builds. --skip-dependency-check: hatchling
  // asks `build` for `editables` (editable installs only), which Debian does not package.
  run(
    python,
    [
      '-m',
      'build',
      '--wheel',
      '--no-isolation',
      '--skip-dependency-check',
      '--outdir',
      options.outDir,
      ROOT
    ],
    `${python} -m build --wheel --no-isolation`
  );
  const wheels = fs
    .readdirSync(options.outDir)
    .filter(name => /^jupyterlab_project_startup-.+\.whl$/.test(name))
    .map(name => ({
      name,
      mtime: fs.statSync(path.join(options.outDir, name)).mtimeMs,
      isNew: !before.has(name)
    }))
    .sort((a, b) => Number(b.isNew) - Number(a.isNew) || b.mtime - a.mtime);
  if (wheels.length === 0) {
    fail(`no jupyterlab_project_startup-*.whl appeared in ${options.outDir}.`);
  }
  const wheel = path.join(options.outDir, wheels[0].name);
  // `build` leaves the file private (0600, from its temporary file); a wheel is for sharing.
  fs.chmodSync(wheel, 0o644);
  process.stdout.write(`${wheel}\n`);
}

main(process.argv.slice(2));
