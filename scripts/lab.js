#!/usr/bin/env node
// `npm run lab`: JupyterLab (or Notebook 7) with this checkout's extension, server extension,
// proxy entry and sidecar, in one command after `npm ci`.
//
//   npm run lab [-- OPTIONS] [-- JUPYTER ARGUMENTS]
//
//   --notebook           Notebook 7 (`jupyter notebook`) instead of JupyterLab
//   --proxy-source SRC   where jupyter-server-proxy comes from when the package index lacks it
//                        (also PROJECT_STARTUP_PROXY_SOURCE): a wheel or sdist file, a source
//                        checkout, or a directory holding the jupyter_server_proxy and
//                        simpervisor packages
//   --python PY          the Python that makes the environment (default: $PYTHON, else python3)
//   --port N             the loopback port (default: a free one)
//   --no-browser         do not open a browser
//   anything after a second `--` goes to `jupyter lab` (or `jupyter notebook`) as it is
//
// 1. Builds what changed (the sidecar, lib/, the prebuilt labextension): each step runs only when
//    the contents of its inputs differ from those of its last build.
// 2. Makes or reuses .venv-lab/ (git-ignored) with the JupyterLab, Notebook and jupyter_server
//    versions of .ci/python-requirements.txt, jupyter-server-proxy SERVER_PROXY_VERSION, and the
//    wheel builders `build` and `hatchling`.
// 3. Builds this checkout's wheel and installs it there when its inputs changed.
// 4. Starts Jupyter on 127.0.0.1 and prints the address with its token. The Jupyter settings of
//    these runs stay in .venv-lab/jupyter/, apart from the user's own.
'use strict';

const { spawn, spawnSync } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const http = require('node:http');
const net = require('node:net');
const path = require('node:path');
const { sidecarUpToDate } = require('./prepare.js');

const ROOT = path.resolve(__dirname, '..');
const VENV = path.join(ROOT, '.venv-lab');
const VENV_BIN = path.join(VENV, 'bin');
const VENV_PYTHON = path.join(VENV_BIN, 'python');
const VENV_STAMP = path.join(VENV, '.project-startup-lab.json');
const WHEEL_STAMP = path.join(VENV, '.project-startup-wheel.json');
const PIP_LOG = path.join(VENV, 'pip.log');
const BUILD_STAMPS = path.join(
  ROOT,
  'node_modules',
  '.cache',
  'jupyterlab-project-startup',
  'lab-build.json'
);
/** The highest jupyter-server-proxy the project tests (docs/compatibility.md). */
const SERVER_PROXY_VERSION = '4.4.0';
const MIN_PYTHON = [3, 9];
const STARTED = Date.now();
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** The build steps, in order; each one's inputs are hashed after it ran. */
const BUILD_STEPS = [
  {
    what: 'the sidecar',
    script: 'build:sidecar',
    inputs: [
      'sidecar/src',
      'sidecar/schemas',
      'sidecar/static',
      'sidecar/tsconfig.json',
      'scripts/schema-code.js',
      'scripts/compile-sidecar.js',
      'scripts/bundle-sidecar.js',
      'scripts/third-party-licenses.js',
      'scripts/api.js',
      'scripts/manifest-words.js',
      'bin/project-startup.js',
      'package.json',
      'package-lock.json'
    ],
    outputs: [
      'sidecar/dist/bundle/project-startup.js',
      'sidecar/dist/cli/main.js'
    ],
    // `npm ci` built it (scripts/prepare.js) before there was any stamp.
    builtWithoutStamp: sidecarUpToDate
  },
  {
    what: 'lib/',
    script: 'build:lib',
    inputs: [
      'src',
      'sidecar/schemas',
      'docs/user-guide.md',
      'scripts/user-guide.js',
      'tsconfig.json',
      'package.json',
      'package-lock.json'
    ],
    outputs: ['lib/index.js']
  },
  {
    what: 'the labextension',
    script: 'build:labextension',
    inputs: [
      'lib',
      'style',
      'schema',
      'scripts/build-labextension.js',
      'package.json',
      'package-lock.json'
    ],
    outputs: ['jupyterlab_project_startup/labextension/package.json']
  }
];

/** What the wheel is made of (hatch_build.py stages jupyterlab_project_startup/node from these). */
const WHEEL_INPUTS = [
  'pyproject.toml',
  'hatch_build.py',
  'install.json',
  'jupyter-config',
  'jupyterlab_project_startup',
  'sidecar/dist',
  'sidecar/static',
  'sidecar/schemas',
  'bin',
  'package.json'
];

function say(message) {
  process.stdout.write(`lab: ${message}\n`);
}

function fail(message) {
  process.stderr.write(`lab: ${message}\n`);
  process.exit(1);
}

const USAGE =
  'Usage: npm run lab [-- [--notebook] [--proxy-source SRC] [--python PY] [--port N] [--no-browser] [-- JUPYTER ARGUMENTS]]';

function parse(argv) {
  const options = {
    notebook: false,
    proxySource: process.env.PROJECT_STARTUP_PROXY_SOURCE || undefined,
    python: undefined,
    port: undefined,
    browser: true,
    jupyterArgs: []
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => {
      if (argv[i + 1] === undefined) {
        fail(`${arg} needs a value. ${USAGE}`);
      }
      return argv[++i];
    };
    if (arg === '--') {
      options.jupyterArgs = argv.slice(i + 1);
      break;
    } else if (arg === '--notebook') {
      options.notebook = true;
    } else if (arg === '--no-browser') {
      options.browser = false;
    } else if (arg === '--proxy-source') {
      options.proxySource = value();
    } else if (arg === '--python') {
      options.python = value();
    } else if (arg === '--port') {
      const port = Number(value());
      if (!Number.isInteger(port) || port < 1 || port > 65535) {
        fail(`--port needs a port number from 1 to 65535. ${USAGE}`);
      }
      options.port = port;
    } else if (arg === '--help' || arg === '-h') {
      process.stdout.write(
        `${USAGE}\nSee the comment at the top of scripts/lab.js.\n`
      );
      process.exit(0);
    } else {
      fail(`unknown argument ${arg}. ${USAGE}`);
    }
  }
  if (options.proxySource !== undefined) {
    options.proxySource = path.resolve(options.proxySource);
    if (!fs.existsSync(options.proxySource)) {
      fail(
        `the jupyter-server-proxy source ${options.proxySource} does not exist (--proxy-source or PROJECT_STARTUP_PROXY_SOURCE).`
      );
    }
  }
  return options;
}

function* files(entry) {
  const stat = fs.statSync(entry, { throwIfNoEntry: false });
  if (!stat) {
    return;
  }
  if (stat.isDirectory()) {
    for (const name of fs.readdirSync(entry).sort()) {
      if (name !== '__pycache__' && name !== 'node_modules') {
        yield* files(path.join(entry, name));
      }
    }
  } else {
    yield entry;
  }
}

/** A hash of the inputs' names and contents (contents, not times: a checkout rewrites times). */
function contentHash(inputs, exclude = []) {
  const hash = crypto.createHash('sha256');
  for (const input of inputs) {
    for (const file of files(path.join(ROOT, input))) {
      const name = path.relative(ROOT, file);
      if (!exclude.some(prefix => name.startsWith(prefix))) {
        hash.update(`${name}\0`);
        hash.update(fs.readFileSync(file));
        hash.update('\0');
      }
    }
  }
  return hash.digest('hex');
}

function readJson(file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

function writeJson(file, value) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

/** Runs `npm run <script>` for each build step whose inputs changed since its last build. */
function buildWhatChanged() {
  const stamps = readJson(BUILD_STAMPS) ?? {};
  const built = [];
  for (const step of BUILD_STEPS) {
    const outputsThere = step.outputs.every(file =>
      fs.existsSync(path.join(ROOT, file))
    );
    const known = stamps[step.script];
    const current =
      outputsThere &&
      (known !== undefined
        ? known === contentHash(step.inputs)
        : (step.builtWithoutStamp?.() ?? false));
    if (!current) {
      say(`building ${step.what} (npm run ${step.script})`);
      const result = spawnSync(NPM, ['run', '--silent', step.script], {
        cwd: ROOT,
        stdio: 'inherit'
      });
      if (result.status !== 0) {
        fail(
          `npm run ${step.script} failed (${result.error ? result.error.message : `exit ${result.status ?? result.signal}`}); its errors are above. Fix them and run \`npm run lab\` again.`
        );
      }
      built.push(step.what);
    }
    stamps[step.script] = contentHash(step.inputs);
    writeJson(BUILD_STAMPS, stamps);
  }
  if (built.length === 0) {
    say('the sidecar, lib/ and the labextension are up to date');
  }
  return built;
}

function pythonVersion(python) {
  const probe = spawnSync(
    python,
    ['-c', 'import sys; print("%d.%d.%d" % sys.version_info[:3])'],
    { encoding: 'utf8', timeout: 30000 }
  );
  return probe.status === 0 ? probe.stdout.trim() : undefined;
}

function choosePython(requested) {
  const candidates = requested
    ? [requested]
    : [process.env.PYTHON, 'python3', 'python'].filter(Boolean);
  for (const python of candidates) {
    const version = pythonVersion(python);
    if (version === undefined) {
      continue;
    }
    const [major, minor] = version.split('.').map(Number);
    if (
      major < MIN_PYTHON[0] ||
      (major === MIN_PYTHON[0] && minor < MIN_PYTHON[1])
    ) {
      fail(
        `${python} is Python ${version}; JupyterLab 4 needs ${MIN_PYTHON.join('.')} or newer. Install one and name it with --python (or $PYTHON).`
      );
    }
    return { python, version };
  }
  fail(
    `no Python found (tried ${candidates.join(', ')}). Install Python ${MIN_PYTHON.join('.')} or newer and name it with --python (or $PYTHON).`
  );
}

/** The pinned Jupyter packages of .ci/python-requirements.txt, the versions the tests use. */
function jupyterRequirements() {
  const file = path.join(ROOT, '.ci', 'python-requirements.txt');
  const wanted = ['jupyterlab', 'notebook', 'jupyter_server'];
  const pins = fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .map(line => line.trim())
    .filter(
      line => wanted.includes(line.split('==')[0]) && line.includes('==')
    );
  if (pins.length !== wanted.length) {
    fail(
      `.ci/python-requirements.txt does not pin all of ${wanted.join(', ')} with ==; they are the versions this command installs.`
    );
  }
  return pins;
}

/** Runs pip in the venv, its output into PIP_LOG; answers the log's text on failure. */
function pip(args, what, note = '') {
  say(`${what} with pip${note} (log: ${path.relative(ROOT, PIP_LOG)})`);
  const log = fs.openSync(PIP_LOG, 'a');
  fs.writeSync(log, `\n$ pip ${args.join(' ')}\n`);
  const result = spawnSync(
    VENV_PYTHON,
    ['-m', 'pip', 'install', '--disable-pip-version-check', ...args],
    {
      cwd: ROOT,
      stdio: ['ignore', log, log],
      env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' }
    }
  );
  fs.closeSync(log);
  if (result.status === 0) {
    return undefined;
  }
  const text = fs.readFileSync(PIP_LOG, 'utf8');
  return text.slice(text.lastIndexOf('\n$ pip '));
}

/** What to do about pip's failure, from its output (the log of that one pip run). */
function pipAdvice(output) {
  const missing = /No matching distribution found for (\S+)/.exec(output);
  const unreachable =
    /NewConnectionError|Temporary failure in name resolution|Name or service not known|Max retries exceeded|Read timed out|ProxyError|SSLError/.test(
      output
    );
  const reach = unreachable
    ? ' pip also could not reach one of its indexes (network errors in the log): if that index should have it, check the network or HTTPS_PROXY.'
    : '';
  if (missing && /^jupyter[-_]server[-_]proxy\b/i.test(missing[1])) {
    return (
      `jupyter-server-proxy ${SERVER_PROXY_VERSION} is not on the package index pip uses (\`pip config list\` shows it). ` +
      'Give a local copy: `npm run lab -- --proxy-source SRC` (or PROJECT_STARTUP_PROXY_SOURCE=SRC), where SRC is a wheel or sdist file, a source checkout, ' +
      'or a directory holding the jupyter_server_proxy and simpervisor packages (the tests use ../shared/vendor/python).' +
      reach
    );
  }
  if (missing) {
    return `${missing[1]} is not on the package index pip uses (\`pip config list\` shows it). Point pip at an index that has it (pip config set global.index-url URL), or install it into .venv-lab yourself, then run \`npm run lab\` again.${reach}`;
  }
  if (/requires a different Python|Requires-Python/.test(output)) {
    return 'these versions need a newer Python: name one with --python (or $PYTHON), delete .venv-lab and run `npm run lab` again.';
  }
  if (/No space left on device/.test(output)) {
    return 'the disk is full: free some space and run `npm run lab` again.';
  }
  if (unreachable) {
    return 'pip could not reach its package index. Check the network (or HTTPS_PROXY), or point pip at a reachable index (pip config set global.index-url URL), then run `npm run lab` again.';
  }
  return 'its last lines are above. If the environment is broken, delete .venv-lab and run `npm run lab` again to make it afresh.';
}

/** Stops with pip's last lines and what to do about its failure. */
function pipFailed(output) {
  const lines = output
    .split('\n')
    .filter(
      line => line.trim() && !line.includes('is neither a file nor a directory')
    );
  process.stderr.write(`${lines.slice(-12).join('\n')}\n`);
  fail(
    `pip failed: ${pipAdvice(output)} Full log: ${path.relative(ROOT, PIP_LOG)}`
  );
}

function venvPython(code) {
  return spawnSync(VENV_PYTHON, ['-c', code], {
    encoding: 'utf8',
    timeout: 60000,
    env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' }
  });
}

/** The jupyter-server-proxy version the venv imports, or undefined. */
function serverProxyVersion() {
  const probe = venvPython(
    'import jupyter_server_proxy as j; print(j.__version__)'
  );
  return probe.status === 0 ? probe.stdout.trim() : undefined;
}

/** Puts jupyter-server-proxy from a local source into the venv. */
function installServerProxyFrom(source) {
  const isPackageDir =
    fs.statSync(source).isDirectory() &&
    fs.existsSync(path.join(source, 'jupyter_server_proxy', '__init__.py'));
  if (!isPackageDir) {
    // A wheel, an sdist or a source checkout: pip installs it (simpervisor from the index).
    const output = pip(
      [source],
      `installing jupyter-server-proxy from ${source}`
    );
    if (output !== undefined) {
      pipFailed(output);
    }
    return;
  }
  // Importable packages (jupyter_server_proxy, simpervisor): copied into site-packages as pip
  // would put them, with the server-extension switch its wheel would install.
  say(`copying jupyter-server-proxy from ${source} into .venv-lab`);
  const purelib = venvPython(
    'import sysconfig; print(sysconfig.get_paths()["purelib"])'
  ).stdout.trim();
  for (const name of ['jupyter_server_proxy', 'simpervisor']) {
    const from = path.join(source, name);
    if (fs.existsSync(from)) {
      fs.rmSync(path.join(purelib, name), { recursive: true, force: true });
      fs.cpSync(from, path.join(purelib, name), {
        recursive: true,
        filter: src => path.basename(src) !== '__pycache__'
      });
    }
  }
  if (venvPython('import simpervisor').status !== 0) {
    const output = pip(['simpervisor>=1.0'], 'installing simpervisor');
    if (output !== undefined) {
      pipFailed(output);
    }
  }
  writeJson(
    path.join(
      VENV,
      'etc',
      'jupyter',
      'jupyter_server_config.d',
      'jupyter_server_proxy.json'
    ),
    { ServerApp: { jpserver_extensions: { jupyter_server_proxy: true } } }
  );
}

/** Makes .venv-lab or reuses it; answers whether it was reused as it was. */
function prepareVenv(options) {
  const requirements = [
    ...jupyterRequirements(),
    // jupyter-server-proxy needs aiohttp; `build` and `hatchling` build the wheel.
    'aiohttp',
    'build',
    'hatchling'
  ];
  const stamp = readJson(VENV_STAMP);
  // One quick look (no import of Jupyter): the venv's Python runs, and it has the proxy package.
  const probe = fs.existsSync(VENV_PYTHON)
    ? venvPython(
        'import sys, importlib.util; print("%d.%d.%d" % sys.version_info[:3]); print(importlib.util.find_spec("jupyter_server_proxy") is not None)'
      )
    : undefined;
  const works =
    probe?.status === 0 ? probe.stdout.trim().split('\n')[0] : undefined;
  if (
    works &&
    stamp?.serverProxy &&
    JSON.stringify(stamp.requirements) === JSON.stringify(requirements) &&
    probe.stdout.trim().endsWith('True')
  ) {
    say(
      `reusing the environment .venv-lab (Python ${works}; ${requirements.slice(0, 3).join(', ')}, jupyter-server-proxy ${stamp.serverProxy})`
    );
    return true;
  }
  if (!works) {
    const { python, version } = choosePython(options.python);
    say(`making the environment .venv-lab with ${python} (Python ${version})`);
    fs.rmSync(VENV, { recursive: true, force: true });
    const made = spawnSync(python, ['-m', 'venv', VENV], { encoding: 'utf8' });
    if (made.status !== 0) {
      fs.rmSync(VENV, { recursive: true, force: true });
      const text = `${made.stdout}${made.stderr}`;
      fail(
        `${python} -m venv failed:\n${text.trim()}\n` +
          (/ensurepip|venv/.test(text)
            ? "Install Python's venv module (Debian and Ubuntu: apt-get install python3-venv), or name another Python with --python."
            : 'Name another Python with --python.')
      );
    }
  }
  const output = pip(
    requirements,
    `installing ${requirements.join(' ')} into .venv-lab`,
    ', a few minutes the first time'
  );
  if (output !== undefined) {
    pipFailed(output);
  }
  if (options.proxySource !== undefined) {
    installServerProxyFrom(options.proxySource);
  } else if (serverProxyVersion() === undefined) {
    const proxyOutput = pip(
      [`jupyter-server-proxy==${SERVER_PROXY_VERSION}`],
      `installing jupyter-server-proxy ${SERVER_PROXY_VERSION}`
    );
    if (proxyOutput !== undefined) {
      pipFailed(proxyOutput);
    }
  }
  const version = serverProxyVersion();
  if (version === undefined || !version.startsWith('4.')) {
    fail(
      `.venv-lab's jupyter-server-proxy is ${version ?? 'not importable'}; Project Startup needs 4.1 or newer. Give another with --proxy-source.`
    );
  }
  writeJson(VENV_STAMP, { requirements, serverProxy: version });
  return false;
}

/** Builds this checkout's wheel and installs it into the venv when its inputs changed. */
function installWheel() {
  // jupyterlab_project_startup/node is the wheel build's own copy of the sidecar.
  const exclude = ['jupyterlab_project_startup/node'];
  const hash = contentHash(WHEEL_INPUTS, exclude);
  const stamp = readJson(WHEEL_STAMP);
  if (stamp && stamp.inputs === hash && fs.existsSync(stamp.wheel)) {
    say("this checkout's wheel is installed and up to date");
    return false;
  }
  say("building this checkout's wheel (scripts/build-wheel.js)");
  const outDir = path.join(VENV, 'wheel');
  fs.rmSync(outDir, { recursive: true, force: true });
  const built = spawnSync(
    process.execPath,
    [
      path.join(__dirname, 'build-wheel.js'),
      '--skip-npm-build',
      '--python',
      VENV_PYTHON,
      '--out-dir',
      outDir
    ],
    { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }
  );
  if (built.status !== 0) {
    process.stderr.write(built.stdout);
    fail('building the wheel failed; its errors are above.');
  }
  const wheel = built.stdout.trim().split('\n').pop();
  const output = pip(
    ['--no-deps', '--force-reinstall', '--no-index', wheel],
    `installing ${path.basename(wheel)} into .venv-lab`
  );
  if (output !== undefined) {
    pipFailed(output);
  }
  writeJson(WHEEL_STAMP, { inputs: hash, wheel });
  return true;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Whether Jupyter answers GET {url}api (it does without a token). */
function answers(url) {
  return new Promise(resolve => {
    const request = http.get(`${url}api`, { timeout: 2000 }, response => {
      response.resume();
      resolve(response.statusCode === 200);
    });
    request.on('timeout', () => request.destroy());
    request.on('error', () => resolve(false));
  });
}

async function startJupyter(options) {
  const app = options.notebook ? 'notebook' : 'lab';
  const port = options.port ?? (await freePort());
  const token = crypto.randomBytes(24).toString('hex');
  const url = `http://127.0.0.1:${port}/`;
  const jupyterDir = path.join(VENV, 'jupyter');
  const args = [
    app,
    '--ServerApp.ip=127.0.0.1',
    `--ServerApp.port=${port}`,
    '--ServerApp.port_retries=0',
    ...(options.browser ? [] : ['--no-browser']),
    // Jupyter refuses root without it: containers and CI run as root.
    ...(process.getuid?.() === 0 ? ['--allow-root'] : []),
    ...options.jupyterArgs
  ];
  say(`starting jupyter ${app} on ${url}`);
  const child = spawn(path.join(VENV_BIN, 'jupyter'), args, {
    cwd: ROOT,
    stdio: 'inherit',
    env: {
      ...process.env,
      PATH: `${VENV_BIN}${path.delimiter}${process.env.PATH ?? ''}`,
      VIRTUAL_ENV: VENV,
      // The token goes through the environment, not the command line (which `ps` shows).
      JUPYTER_TOKEN: token,
      JUPYTER_CONFIG_DIR: path.join(jupyterDir, 'config'),
      JUPYTER_DATA_DIR: path.join(jupyterDir, 'data'),
      // The sidecar runs on the Node.js that runs this command.
      PROJECT_STARTUP_NODE: process.execPath
    }
  });
  let exited = false;
  child.on('exit', (code, signal) => {
    exited = true;
    process.exit(code ?? (signal ? 1 : 0));
  });
  // A terminal's Ctrl-C reaches Jupyter too (it asks whether to stop); a TERM is passed on.
  process.on('SIGINT', () => undefined);
  process.on('SIGTERM', () => child.kill('SIGTERM'));
  const deadline = Date.now() + 180000;
  while (!exited && !(await answers(url))) {
    if (Date.now() > deadline) {
      child.kill('SIGTERM');
      fail(
        `jupyter ${app} did not answer on ${url} within 180 s; its log is above.`
      );
    }
    await new Promise(resolve => setTimeout(resolve, 250));
  }
  const page = options.notebook ? 'tree' : 'lab';
  say(
    `ready after ${((Date.now() - STARTED) / 1000).toFixed(1)} s. ${options.notebook ? 'Notebook 7' : 'JupyterLab'} with this checkout's Project Startup is at\n\n    ${url}${page}?token=${token}\n\nlab: Ctrl-C stops it.`
  );
}

async function main(argv) {
  const options = parse(argv);
  buildWhatChanged();
  prepareVenv(options);
  installWheel();
  await startJupyter(options);
}

// The unit tests read pipAdvice; `node scripts/lab.js` runs.
module.exports = { pipAdvice };

if (require.main === module) {
  main(process.argv.slice(2)).catch(error =>
    fail(error.message ?? String(error))
  );
}
