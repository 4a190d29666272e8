// The system lane's real Jupyter stack: the venv of .ci/python-env.sh (JupyterLab 4.6.4,
// Notebook 7.6.3, jupyter_server 2.21.1 as users pip-install them) with this checkout's wheel
// pip-installed into it, as an operator installs it. Reinstalled only when the wheel's inputs
// changed (a stamp in the venv); a lock directory keeps two runs on one machine from installing
// at once. Give each checkout its own venv (PROJECT_STARTUP_VENV) when several work side by side.
//
// Called by the system lane's globalSetup (once per run, before any worker); the tests read
// what it wrote (test-artifacts/stack/stack.json) through test/helpers/real-stack.ts.
'use strict';
const { spawnSync } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..', '..');
const STACK_VENV =
  process.env.PROJECT_STARTUP_VENV ??
  '/var/tmp/jupyterlab-project-startup-ci/venv';
const OUT = path.join(ROOT, 'test-artifacts', 'stack');
const STACK_FILE = path.join(OUT, 'stack.json');
/** What the wheel is made of (built by `npm run build`, then scripts/build-wheel.js). */
const WHEEL_INPUTS = [
  'pyproject.toml',
  'hatch_build.py',
  'install.json',
  'jupyter-config',
  'jupyterlab_project_startup',
  'sidecar/dist',
  'sidecar/static',
  'bin',
  'package.json'
];

function run(command, args, timeoutMs) {
  const result = spawnSync(command, args, {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: timeoutMs,
    env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' }
  });
  if (result.status !== 0) {
    throw new Error(
      `${command} ${args.join(' ')} failed (${result.error ? result.error.message : `exit ${result.status}`}):\n${result.stdout}\n${result.stderr}`
    );
  }
  return result.stdout;
}

function* files(entry) {
  const stat = fs.statSync(entry, { throwIfNoEntry: false });
  if (!stat) {
    return;
  }
  if (stat.isDirectory()) {
    for (const name of fs.readdirSync(entry).sort()) {
      if (name !== '__pycache__') {
        yield* files(path.join(entry, name));
      }
    }
  } else {
    yield [entry, stat];
  }
}

/** A hash of the wheel's inputs: names, sizes and modification times. */
function inputsHash() {
  const hash = crypto.createHash('sha256');
  for (const input of WHEEL_INPUTS) {
    for (const [file, stat] of files(path.join(ROOT, input))) {
      hash.update(
        `${path.relative(ROOT, file)} ${stat.size} ${stat.mtimeMs}\n`
      );
    }
  }
  return hash.digest('hex');
}

/** Holds `dir` as a lock while `body` runs: waits (bounded) for another run to let go. */
function withLock(dir, body) {
  const deadline = Date.now() + 300000;
  for (;;) {
    try {
      fs.mkdirSync(dir);
      break;
    } catch (error) {
      if (error.code !== 'EEXIST' || Date.now() > deadline) {
        throw new Error(
          `could not take the lock ${dir} within 300 s (${error.code}); remove it if no run holds it`
        );
      }
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 500);
    }
  }
  try {
    return body();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Installs this checkout's wheel into the stack venv when needed; answers what stack.json holds. */
function prepareRealStack() {
  const python = path.join(STACK_VENV, 'bin', 'python');
  if (!fs.existsSync(python)) {
    throw new Error(
      `The system lane runs the real Jupyter stack from the venv ${STACK_VENV}, which is missing.\n` +
        'Run `bash .ci/python-env.sh` (pip installs .ci/python-requirements.txt), or all of `bash .ci/run`.'
    );
  }
  const hash = inputsHash();
  const stamp = path.join(STACK_VENV, '.project-wheel-inputs');
  const stack = withLock(path.join(STACK_VENV, '.project-wheel-lock'), () => {
    let wheel = fs.existsSync(stamp)
      ? fs.readFileSync(stamp, 'utf8').split('\n')[1]
      : '';
    if (
      !fs.existsSync(stamp) ||
      !fs.readFileSync(stamp, 'utf8').startsWith(`${hash}\n`) ||
      !fs.existsSync(wheel)
    ) {
      fs.rmSync(OUT, { recursive: true, force: true });
      fs.mkdirSync(OUT, { recursive: true });
      wheel = run(
        process.execPath,
        [
          path.join(ROOT, 'scripts', 'build-wheel.js'),
          '--skip-npm-build',
          '--python',
          '/usr/bin/python3',
          '--out-dir',
          path.join(OUT, 'dist')
        ],
        180000
      )
        .trim()
        .split('\n')
        .pop();
      run(
        python,
        [
          '-m',
          'pip',
          'install',
          '--quiet',
          '--no-index',
          '--no-deps',
          '--force-reinstall',
          '--disable-pip-version-check',
          wheel
        ],
        180000
      );
      fs.writeFileSync(stamp, `${hash}\n${wheel}\n`);
    }
    const versions = JSON.parse(
      run(
        python,
        [
          '-c',
          'import json, sys; from importlib.metadata import version as v; print(json.dumps({"jupyterlab": v("jupyterlab"), "notebook": v("notebook"), "jupyter_server": v("jupyter_server"), "python": sys.version.split()[0]}))'
        ],
        60000
      )
    );
    return {
      venv: STACK_VENV,
      python,
      bin: path.join(STACK_VENV, 'bin'),
      wheel,
      versions
    };
  });
  fs.mkdirSync(OUT, { recursive: true });
  fs.writeFileSync(STACK_FILE, `${JSON.stringify(stack, null, 2)}\n`);
  return stack;
}

module.exports = { prepareRealStack, STACK_FILE };
