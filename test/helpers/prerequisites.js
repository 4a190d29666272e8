// Jest's globalSetup: before a full run, checks that the machine has what the real-service
// suites drive (Debian's Jupyter, JupyterHub, Chromium, Slurm, keyring, Python build tools,
// podman), and stops at once with one message naming what is missing and the command that
// installs it, instead of dozens of failing suites. A run of chosen suites
// (`npx jest test/service/x.test.ts`) or one that leaves those suites out (the other Node lines
// in .ci/run) is not held up by it.
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const PYTHON = '/usr/bin/python3';
const PYTHON_MODULES = [
  'jupyter_server',
  'jupyterlab_server',
  'nbclient',
  'ipykernel',
  'jupyterhub',
  'aiohttp',
  'hatchling',
  'build',
  'venv',
  'pip'
];
const PROGRAMS = [
  'chromium',
  'slurmctld',
  'slurmd',
  'munged',
  'gnome-keyring-daemon',
  'secret-tool',
  'dbus-daemon',
  'dbus-send',
  'configurable-http-proxy',
  'podman'
];
const SEARCH_PATH = [
  '/usr/local/sbin',
  '/usr/local/bin',
  '/usr/sbin',
  '/usr/bin',
  '/sbin',
  '/bin'
];

function missingPrerequisites() {
  const missing = PROGRAMS.filter(
    program => !SEARCH_PATH.some(dir => fs.existsSync(path.join(dir, program)))
  );
  if (!fs.existsSync(PYTHON)) {
    return [...missing, PYTHON];
  }
  const probe = spawnSync(
    PYTHON,
    [
      '-c',
      `import importlib.util as u; print(" ".join(m for m in ${JSON.stringify(PYTHON_MODULES)} if u.find_spec(m) is None))`
    ],
    { encoding: 'utf8', timeout: 20000 }
  );
  const modules =
    probe.status === 0
      ? probe.stdout.trim().split(/\s+/).filter(Boolean)
      : PYTHON_MODULES;
  return [...missing, ...modules.map(name => `python module ${name}`)];
}

module.exports = async function prerequisites(globalConfig, projectConfig) {
  const ignored = projectConfig?.testPathIgnorePatterns ?? [];
  const chosen =
    (globalConfig.testPathPattern ?? '') !== '' ||
    ignored.some(pattern => pattern.includes('system'));
  if (chosen || process.env.PROJECT_STARTUP_SKIP_PREREQUISITES === '1') {
    return;
  }
  const missing = missingPrerequisites();
  if (missing.length > 0) {
    throw new Error(
      `npm test drives real Jupyter, JupyterHub, Chromium, Slurm and keyring services, and this machine lacks: ${missing.join(', ')}.\n` +
        'Run `bash .ci/run` (the test command of docs/testing.md): it installs the Debian packages with apt-get, then runs npm ci and npm test.\n' +
        'To run only the pure suites, which need none of them: npm run test:unit'
    );
  }
};
