// `project-startup jupyter install|uninstall`: puts the prebuilt labextension, a runnable copy of
// the sidecar and the notebook-server proxy entry where Jupyter looks, and takes them away again.
// Only our own files and our own `project` entry are ever touched: install writes a manifest of
// every file and the entry with their sha256, and uninstall removes only what it lists, unchanged.
//
// Nothing written points into the package this runs from (a checkout or npm's global prefix may
// move or go): the sidecar is copied next to the labextension in Jupyter's data directory, laid
// out like the wheel's `node/` directory, and the proxy entry runs that copy. An install either
// completes or leaves everything as it was: every target is checked first, and each change is
// undone if a later one fails.
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ConfigError } from '../config';
import { CREDENTIAL_NAME } from '../observe/probes';

export const PACKAGE_NAME = 'jupyterlab-project-startup';
export const PROXY_ENTRY = 'project';
/** jupyter-server-proxy releases before this lack what the entry needs (`unix_socket`, callables). */
export const MIN_SERVER_PROXY = [4, 1] as const;
const MIN_NODE_MAJOR = 20;
const PACKAGE_ROOT = packageRoot(__dirname);
const LABEXTENSION_BUILD = path.join(
  PACKAGE_ROOT,
  'jupyterlab_project_startup',
  'labextension'
);
const CONFIG_TEMPLATE = path.join(
  PACKAGE_ROOT,
  'jupyter-config',
  'jupyter_server_config.d',
  `${PACKAGE_NAME}.json`
);
const CONFIG_D_FILE = path.join(
  'jupyter_server_config.d',
  `${PACKAGE_NAME}.json`
);
const CONFIG_FILE = 'jupyter_server_config.json';
/** In the sidecar's home: every file, directory and entry install wrote, with content hashes. */
const MANIFEST_FILE = 'install-manifest.json';
/** What installs before the manifest kept there: only the directories they created. */
const LEGACY_RECORD_FILE = 'install-record.json';
/** The runnable sidecar, relative to the package root: what `bin/project-startup.js` needs with no node_modules. */
const RUNTIME_FILES = {
  bin: ['bin/project-startup.js'],
  bundle: [
    'sidecar/dist/bundle/project-startup.js',
    'sidecar/dist/bundle/project-startup.cache'
  ],
  dirs: ['sidecar/static', 'sidecar/schemas', 'sidecar/dist/api-docs']
};

type Env = Readonly<Record<string, string | undefined>>;

/**
 * The package's root: the nearest directory at or above `start` whose package.json is ours.
 * The compiled code (sidecar/dist), the production bundle (sidecar/dist/bundle) and the sources
 * under test (sidecar/src) sit at different depths below it.
 */
function packageRoot(start: string): string {
  for (let dir = start, i = 0; i < 6; i++, dir = path.dirname(dir)) {
    try {
      if (
        (
          JSON.parse(
            fs.readFileSync(path.join(dir, 'package.json'), 'utf8')
          ) as { name?: string }
        ).name === PACKAGE_NAME
      ) {
        return dir;
      }
    } catch {
      // not here: look one level up
    }
  }
  return path.join(start, '..', '..');
}

export type InstallScope =
  | { kind: 'user' }
  | { kind: 'sys-prefix' }
  | { kind: 'prefix'; prefix: string };

export interface JupyterPaths {
  data: string;
  config: string;
  /** The Python that runs Jupyter, where it could be found. */
  python?: string;
  /** How the paths were found, for the report. */
  source: 'jupyter' | 'rules' | 'prefix';
}

/** What the Jupyter's Python says about itself (see PROBE). */
export interface PythonProbe {
  prefix: string;
  /** jupyter_core's user and sys.prefix directories; absent when jupyter_core cannot be imported. */
  userData?: string;
  userConfig?: string;
  envData?: string;
  envConfig?: string;
  /** jupyter-server-proxy's version, null when it is not installed. */
  serverProxy: string | null;
}

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * Asks the Jupyter's own jupyter_core where it looks (the directories `jupyter --paths` lists
 * first for the user and for sys.prefix) and which jupyter-server-proxy it has: the installed
 * distribution's metadata, else the module's `__version__` (a copy on PYTHONPATH has no
 * metadata). Python 3.8+ standard library only.
 */
const PROBE = `
import json, sys
out = {"prefix": sys.prefix, "serverProxy": None}
try:
    from jupyter_core import paths
    out.update(userData=paths.jupyter_data_dir(), userConfig=paths.jupyter_config_dir(),
               envData=paths.ENV_JUPYTER_PATH[0], envConfig=paths.ENV_CONFIG_PATH[0])
except Exception:
    pass
try:
    from importlib.metadata import version
    out["serverProxy"] = version("jupyter-server-proxy")
except Exception:
    try:
        import jupyter_server_proxy
        out["serverProxy"] = str(getattr(jupyter_server_proxy, "__version__", "0"))
    except Exception:
        pass
print(json.dumps(out))
`;

/** Reads PROBE's output; throws when it is not what PROBE prints. */
export function parseProbe(stdout: string): PythonProbe {
  const value: unknown = JSON.parse(stdout.trim().split('\n').pop() ?? '');
  if (!isObject(value) || typeof value.prefix !== 'string') {
    throw new Error('unexpected answer');
  }
  const text = (key: string) =>
    typeof value[key] === 'string' ? (value[key] as string) : undefined;
  return {
    prefix: value.prefix,
    userData: text('userData'),
    userConfig: text('userConfig'),
    envData: text('envData'),
    envConfig: text('envConfig'),
    serverProxy: text('serverProxy') ?? null
  };
}

/**
 * The interpreter that runs Jupyter: $PROJECT_STARTUP_PYTHON, else the one named in the `#!`
 * line of the first `jupyter`, `jupyter-server` or `jupyter-lab` on PATH. (Not any python3 on
 * PATH: that one need not be the Jupyter's.)
 */
export function findJupyterPython(env: Env): string | undefined {
  if (env.PROJECT_STARTUP_PYTHON) {
    return env.PROJECT_STARTUP_PYTHON;
  }
  for (const dir of (env.PATH ?? '').split(path.delimiter).filter(Boolean)) {
    for (const command of ['jupyter', 'jupyter-server', 'jupyter-lab']) {
      try {
        const first = fs
          .readFileSync(path.join(dir, command), 'utf8')
          .split('\n', 1)[0];
        const match = /^#!\s*(\S+)(?:\s+(\S+))?/.exec(first);
        if (match) {
          return match[1].endsWith('/env') && match[2] ? match[2] : match[1];
        }
      } catch {
        // not here
      }
    }
  }
  return undefined;
}

/**
 * What the Python asked about Jupyter's paths and jupyter_server_proxy needs of the environment:
 * its search paths and virtual environment, the locale, Jupyter's own path variables; never a
 * credential (names as probes.ts recognises them).
 */
const PYTHON_ENV =
  /^(PATH|HOME|USER|LANG|LANGUAGE|TMPDIR|VIRTUAL_ENV|LD_LIBRARY_PATH|LC_.*|PYTHON.*|CONDA_.*|JUPYTER_.*|XDG_.*)$/;

function pythonEnvironment(env: Env): NodeJS.ProcessEnv {
  const childEnv: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (
      value !== undefined &&
      PYTHON_ENV.test(name) &&
      !CREDENTIAL_NAME.test(name)
    ) {
      childEnv[name] = value;
    }
  }
  return childEnv;
}

function probePython(python: string, env: Env): PythonProbe {
  let stdout: string;
  try {
    stdout = execFileSync(python, ['-c', PROBE], {
      env: { ...pythonEnvironment(env), PYTHONDONTWRITEBYTECODE: '1' },
      timeout: 30000,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe']
    });
  } catch (error) {
    const reason =
      (error as NodeJS.ErrnoException).code === 'ENOENT'
        ? 'it does not exist'
        : 'it failed';
    throw new ConfigError(
      `Could not ask the Jupyter's Python (${python}) where Jupyter looks: ${reason}. Set PROJECT_STARTUP_PYTHON to the python that runs Jupyter, or use --prefix.`
    );
  }
  try {
    return parseProbe(stdout);
  } catch {
    throw new ConfigError(
      `${python} gave an unexpected answer; set PROJECT_STARTUP_PYTHON to the python that runs Jupyter, or use --prefix.`
    );
  }
}

function truthy(value: string | undefined): boolean {
  // jupyter_core's envset(): set and not one of its "false" words.
  return (
    value !== undefined &&
    !['', 'no', 'n', 'false', 'off', '0', '0.0'].includes(value.toLowerCase())
  );
}

/**
 * jupyter_core's rules for the user's data and config directories, for when no Jupyter can be
 * asked (jupyter_core.paths.jupyter_data_dir / jupyter_config_dir, with JUPYTER_PLATFORM_DIRS
 * as platformdirs applies it).
 */
export function userJupyterPaths(
  env: Env,
  platform: NodeJS.Platform,
  home: string
): { data: string; config: string } {
  const platformDirs = truthy(env.JUPYTER_PLATFORM_DIRS);
  let config: string;
  if (env.JUPYTER_CONFIG_DIR) {
    config = env.JUPYTER_CONFIG_DIR;
  } else if (platformDirs) {
    config =
      platform === 'darwin'
        ? path.join(home, 'Library', 'Application Support', 'jupyter')
        : platform === 'win32'
          ? path.join(
              env.LOCALAPPDATA || path.join(home, 'AppData', 'Local'),
              'jupyter'
            )
          : path.join(
              env.XDG_CONFIG_HOME || path.join(home, '.config'),
              'jupyter'
            );
  } else {
    config = path.join(home, '.jupyter');
  }
  let data: string;
  if (env.JUPYTER_DATA_DIR) {
    data = env.JUPYTER_DATA_DIR;
  } else if (platformDirs) {
    data =
      platform === 'darwin'
        ? path.join(home, 'Library', 'Application Support', 'jupyter')
        : platform === 'win32'
          ? path.join(
              env.LOCALAPPDATA || path.join(home, 'AppData', 'Local'),
              'jupyter'
            )
          : path.join(
              env.XDG_DATA_HOME || path.join(home, '.local', 'share'),
              'jupyter'
            );
  } else if (platform === 'darwin') {
    data = path.join(home, 'Library', 'Jupyter');
  } else if (platform === 'win32') {
    data = env.APPDATA
      ? path.join(env.APPDATA, 'jupyter')
      : path.join(config, 'data');
  } else {
    data = path.join(
      env.XDG_DATA_HOME || path.join(home, '.local', 'share'),
      'jupyter'
    );
  }
  return { data: path.resolve(data), config: path.resolve(config) };
}

/** Where the install goes, from the scope and (when there is one) the Jupyter's own answer. */
export function jupyterPaths(
  scope: InstallScope,
  probe: PythonProbe | undefined,
  env: Env,
  platform: NodeJS.Platform,
  home: string
): JupyterPaths {
  switch (scope.kind) {
    case 'prefix':
      return {
        data: path.resolve(scope.prefix, 'share', 'jupyter'),
        config: path.resolve(scope.prefix, 'etc', 'jupyter'),
        source: 'prefix'
      };
    case 'user':
      if (probe?.userData && probe.userConfig) {
        return {
          data: probe.userData,
          config: probe.userConfig,
          source: 'jupyter'
        };
      }
      return { ...userJupyterPaths(env, platform, home), source: 'rules' };
    case 'sys-prefix':
      if (!probe) {
        throw new ConfigError(
          '--sys-prefix needs the Python that runs Jupyter: put `jupyter` on PATH or set PROJECT_STARTUP_PYTHON to that python, or use --prefix.'
        );
      }
      if (probe.envData && probe.envConfig) {
        return {
          data: probe.envData,
          config: probe.envConfig,
          source: 'jupyter'
        };
      }
      return {
        data: path.join(probe.prefix, 'share', 'jupyter'),
        config: path.join(probe.prefix, 'etc', 'jupyter'),
        source: 'rules'
      };
  }
}

/** Why this jupyter-server-proxy version cannot serve the entry, and the fix; undefined when it can. */
export function serverProxyProblem(
  version: string | null,
  python: string
): { problem: string; fix: string } | undefined {
  const fix = `Install it into the Python that runs Jupyter: \`${python} -m pip install 'jupyter-server-proxy>=${MIN_SERVER_PROXY.join('.')}'\` (or \`conda install -c conda-forge jupyter-server-proxy\`).`;
  if (version === null) {
    return {
      problem: `jupyter-server-proxy is not installed for ${python}, so Jupyter would answer 404 at {base_url}${PROXY_ENTRY}/.`,
      fix
    };
  }
  const match = /^(\d+)\.(\d+)/.exec(version);
  const [major, minor] = match ? [Number(match[1]), Number(match[2])] : [0, 0];
  if (
    major < MIN_SERVER_PROXY[0] ||
    (major === MIN_SERVER_PROXY[0] && minor < MIN_SERVER_PROXY[1])
  ) {
    return {
      problem: `jupyter-server-proxy ${version} (for ${python}) is too old: the entry needs ${MIN_SERVER_PROXY.join('.')} or newer (Unix sockets).`,
      fix
    };
  }
  return undefined;
}

/**
 * The absolute path of the executable `name` on `searchPath`, or undefined. Only absolute PATH
 * entries count: an empty or relative one (`PATH=:/usr/bin`, `.`) means "the current directory",
 * which is whatever directory the command happens to run in, perhaps one anyone can write to.
 * (The Python package's twin is checks.find_on_path.)
 */
export function findOnPath(
  name: string,
  searchPath: string | undefined
): string | undefined {
  for (const dir of (searchPath ?? '').split(path.delimiter)) {
    if (!path.isAbsolute(dir)) {
      continue;
    }
    // Windows finds `node` as node.exe (X_OK there only tests existence).
    const names =
      process.platform === 'win32' && !path.extname(name)
        ? [`${name}.exe`, `${name}.cmd`, name]
        : [name];
    for (const candidate of names.map(n => path.join(dir, n))) {
      try {
        if (fs.statSync(candidate).isFile()) {
          fs.accessSync(candidate, fs.constants.X_OK);
          return candidate;
        }
      } catch {
        // not here, or not executable: look further
      }
    }
  }
  return undefined;
}

/**
 * The Node the proxy entry runs, as an absolute path: $PROJECT_STARTUP_NODE or this one. A bare
 * name is looked up on PATH (absolute entries only); a relative path is refused, since the entry
 * would run whatever sits at that path below the Jupyter server's working directory. The version
 * is checked on the very file the entry will name.
 */
export function nodeForEntry(env: Env): string {
  const chosen = env.PROJECT_STARTUP_NODE;
  if (!chosen) {
    return process.execPath;
  }
  let node: string;
  if (path.isAbsolute(chosen)) {
    node = chosen;
  } else if (chosen.includes('/') || chosen.includes(path.sep)) {
    throw new ConfigError(
      `PROJECT_STARTUP_NODE=${chosen} is a relative path; the proxy entry would run whatever is at that path below the Jupyter server's working directory. Set it to an absolute path (such as /usr/bin/node) or a command name on PATH, or unset it to use this Node.`
    );
  } else {
    const found = findOnPath(chosen, env.PATH);
    if (found === undefined) {
      throw new ConfigError(
        `PROJECT_STARTUP_NODE=${chosen} is not an executable in any absolute directory on PATH (empty and relative PATH entries are not searched); set it to the absolute path of a Node.js ${MIN_NODE_MAJOR} or newer, or unset it to use this Node.`
      );
    }
    node = found;
  }
  let version = '';
  try {
    version = execFileSync(node, ['--version'], {
      encoding: 'utf8',
      timeout: 15000,
      stdio: ['ignore', 'pipe', 'ignore']
    }).trim();
  } catch {
    throw new ConfigError(
      `PROJECT_STARTUP_NODE=${chosen} does not run; set it to a Node.js ${MIN_NODE_MAJOR} or newer, or unset it to use this Node.`
    );
  }
  const major = Number(/^v(\d+)\./.exec(version)?.[1] ?? 0);
  if (major < MIN_NODE_MAJOR) {
    throw new ConfigError(
      `PROJECT_STARTUP_NODE=${chosen} is Node ${version || '(unknown)'}; Node.js ${MIN_NODE_MAJOR} or newer is needed. Point it at a newer Node, or unset it.`
    );
  }
  return node;
}

/**
 * `text` as a literal inside a jupyter-server-proxy command: the proxy formats every string
 * with Python's str.format ({port}, {unix_socket}, {base_url}), so a brace in a path would
 * fail the launch or be replaced. (The Python package's twin is escape_template.)
 */
export function escapeProxyTemplate(text: string): string {
  return text.replace(/[{}]/g, brace => brace + brace);
}

/** The proxy entry running `bin` with `node` (both literal paths, escaped here). */
export function proxyEntry(node: string, bin: string): JsonObject {
  const template = JSON.parse(fs.readFileSync(CONFIG_TEMPLATE, 'utf8')) as {
    ServerProxy: { servers: JsonObject };
  };
  const entry = template.ServerProxy.servers[PROXY_ENTRY] as JsonObject & {
    command: string[];
  };
  return {
    ...entry,
    command: [
      escapeProxyTemplate(node),
      escapeProxyTemplate(bin),
      ...entry.command.slice(1)
    ]
  };
}

function sha256(content: string | Buffer): string {
  return createHash('sha256').update(content).digest('hex');
}

/** The hash a manifest keeps of a proxy entry (as JSON.parse gives it back: same key order). */
function entryHash(entry: unknown): string {
  return sha256(JSON.stringify(entry));
}

/** What install wrote, as its manifest lists it. */
interface InstallManifest {
  version: string;
  /** Every regular file written, with the sha256 of its content. */
  files: { path: string; sha256: string }[];
  /** Every directory written or created (the created parents included): removed when empty. */
  directories: string[];
  /** Our `project` entry merged into jupyter_server_config.json, by hash. */
  entry?: { file: string; sha256: string };
  /** Files that did not exist before the install (removed again when nothing else is in them). */
  createdFiles: string[];
}

function manifestPath(home: string): string {
  return path.join(home, MANIFEST_FILE);
}

/** The manifest an install left, or undefined (none, or not one: then nothing is ours by it). */
function readManifest(home: string): InstallManifest | undefined {
  let value: unknown;
  try {
    value = JSON.parse(fs.readFileSync(manifestPath(home), 'utf8'));
  } catch {
    return undefined;
  }
  if (!isObject(value) || !Array.isArray(value.files)) {
    return undefined;
  }
  const strings = (list: unknown) =>
    Array.isArray(list)
      ? list.filter(
          (d): d is string => typeof d === 'string' && path.isAbsolute(d)
        )
      : [];
  const entry = value.entry;
  return {
    version: String(value.version),
    files: value.files.filter(
      (f): f is { path: string; sha256: string } =>
        isObject(f) &&
        typeof f.path === 'string' &&
        path.isAbsolute(f.path) &&
        typeof f.sha256 === 'string'
    ),
    directories: strings(value.directories),
    entry:
      isObject(entry) &&
      typeof entry.file === 'string' &&
      typeof entry.sha256 === 'string'
        ? { file: entry.file, sha256: entry.sha256 }
        : undefined,
    createdFiles: strings(value.createdFiles)
  };
}

/**
 * Whether `entry` is the one the install at `home` wrote: by the manifest's hash, or (an install
 * made before the manifest) by naming that install's sidecar copy as the script to run.
 */
function isInstalledEntry(
  entry: unknown,
  home: string,
  manifest: InstallManifest | undefined
): boolean {
  if (manifest?.entry) {
    return entryHash(entry) === manifest.entry.sha256;
  }
  const bin = path.join(home, 'node', RUNTIME_FILES.bin[0]);
  return (
    isObject(entry) &&
    Array.isArray(entry.command) &&
    (entry.command[1] === bin || entry.command[1] === escapeProxyTemplate(bin))
  );
}

/** The package manager an installed labextension's install.json names (pip's says "python"). */
function labextensionPackageManager(dir: string): string | undefined {
  try {
    const value: unknown = JSON.parse(
      fs.readFileSync(path.join(dir, 'install.json'), 'utf8')
    );
    return isObject(value) && typeof value.packageManager === 'string'
      ? value.packageManager
      : undefined;
  } catch {
    return undefined;
  }
}

/** Regular files and directories below `dir` (not following links), with `dir` itself. */
function walk(dir: string): { files: string[]; directories: string[] } {
  const files: string[] = [];
  const directories: string[] = [];
  const visit = (d: string) => {
    directories.push(d);
    for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
      const full = path.join(d, entry.name);
      if (entry.isDirectory()) {
        visit(full);
      } else {
        files.push(full);
      }
    }
  };
  if (fs.existsSync(dir)) {
    visit(dir);
  }
  return { files, directories };
}

function readJsonObject(file: string): JsonObject | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ConfigError(
      `${file} is not valid JSON; fix or move it, then run the command again (nothing was changed).`
    );
  }
  if (!isObject(value)) {
    throw new ConfigError(
      `${file} does not hold a JSON object; fix or move it, then run the command again (nothing was changed).`
    );
  }
  return value;
}

function packageNameAt(file: string): string | undefined {
  try {
    return (JSON.parse(fs.readFileSync(file, 'utf8')) as { name?: string })
      .name;
  } catch {
    return undefined;
  }
}

function labextensionTarget(paths: JupyterPaths): string {
  return path.join(paths.data, 'labextensions', PACKAGE_NAME);
}

/** `<data>/jupyterlab-project-startup/`, holding `node/`: the sidecar copy the proxy entry runs. */
function sidecarHome(paths: JupyterPaths): string {
  return path.join(paths.data, PACKAGE_NAME);
}

const ours = {
  labextension: (dir: string) =>
    packageNameAt(path.join(dir, 'package.json')) === PACKAGE_NAME,
  sidecar: (home: string) =>
    packageNameAt(path.join(home, 'node', 'package.json')) === PACKAGE_NAME
};

const WRITE_FIX =
  'Nothing was changed. Run the command as a user who may write there (for a system-wide Jupyter, e.g. with sudo), or install for yourself with --user, or choose a --prefix you own.';

/** Throws when `target` could not be created or replaced: its nearest existing ancestor must be a writable directory. */
function checkWritable(target: string): void {
  let dir = path.dirname(target);
  while (!fs.existsSync(dir)) {
    const parent = path.dirname(dir);
    if (parent === dir) {
      break;
    }
    dir = parent;
  }
  if (!fs.statSync(dir).isDirectory()) {
    throw new ConfigError(
      `Cannot create ${target}: ${dir} is not a directory. ${WRITE_FIX}`
    );
  }
  try {
    // access() asks the kernel with this process's credentials (root passes; a read-only
    // mount still fails later, and is then rolled back).
    fs.accessSync(dir, fs.constants.W_OK | fs.constants.X_OK);
    if (fs.existsSync(target) && fs.statSync(target).isDirectory()) {
      fs.accessSync(target, fs.constants.W_OK | fs.constants.X_OK);
    }
  } catch {
    throw new ConfigError(
      `Cannot write to ${fs.existsSync(target) ? target : dir} (permission denied), so ${PACKAGE_NAME} cannot be installed there. ${WRITE_FIX}`
    );
  }
}

/** Where writing `file` goes: the file itself, or the target of the symbolic link it is. */
function writeTarget(file: string): string {
  let isLink = false;
  try {
    isLink = fs.lstatSync(file).isSymbolicLink();
  } catch {
    return file; // not there yet
  }
  if (!isLink) {
    return file;
  }
  try {
    return fs.realpathSync(file);
  } catch {
    throw new ConfigError(
      `${file} is a symbolic link to a file that does not exist; point it at an existing file or remove it, then run the command again (nothing was changed).`
    );
  }
}

/** Changes made so far, each with its undo, so a failed install leaves everything as it was. */
class Changes {
  private readonly undo: (() => void)[] = [];
  private readonly leftovers: string[] = [];
  /** The directories created, parents first: uninstall removes them again when they are empty. */
  readonly created: string[] = [];

  /** Creates `dir` and the missing directories above it. */
  mkdirs(dir: string): void {
    const missing: string[] = [];
    for (let d = dir; !fs.existsSync(d); d = path.dirname(d)) {
      missing.unshift(d);
    }
    for (const d of missing) {
      fs.mkdirSync(d, { mode: 0o755 });
      this.created.push(d);
      this.undo.push(() => fs.rmdirSync(d));
    }
  }

  /** Puts a directory filled by `fill` at `target`, replacing what was there. */
  replaceDir(target: string, fill: (dir: string) => void): void {
    this.mkdirs(path.dirname(target));
    const suffix = randomBytes(6).toString('hex');
    const staged = `${target}.${suffix}.new`;
    this.undo.push(() => fs.rmSync(staged, { recursive: true, force: true }));
    fs.mkdirSync(staged, { mode: 0o755 });
    fill(staged);
    if (fs.existsSync(target)) {
      const old = `${target}.${suffix}.old`;
      fs.renameSync(target, old);
      this.undo.push(() => fs.renameSync(old, target));
      this.leftovers.push(old);
    }
    fs.renameSync(staged, target);
    this.undo.push(() => fs.rmSync(target, { recursive: true, force: true }));
  }

  /**
   * Writes `file` (temporary file, then rename), keeping its old content for the undo. A symbolic
   * link (a config file kept elsewhere, e.g. in a dotfiles repository) stays a link: its target
   * is written in place.
   */
  writeFile(link: string, text: string): void {
    const file = writeTarget(link);
    this.mkdirs(path.dirname(file));
    let before: { text: Buffer; mode: number } | undefined;
    try {
      before = {
        text: fs.readFileSync(file),
        mode: fs.statSync(file).mode & 0o7777
      };
    } catch {
      before = undefined;
    }
    const temporary = `${file}.${randomBytes(6).toString('hex')}.tmp`;
    this.undo.push(() => fs.rmSync(temporary, { force: true }));
    fs.writeFileSync(temporary, text, { mode: before?.mode ?? 0o644 });
    fs.renameSync(temporary, file);
    this.undo.push(() =>
      before
        ? fs.writeFileSync(file, before.text)
        : fs.rmSync(file, { force: true })
    );
  }

  rollback(): void {
    for (const step of this.undo.reverse()) {
      try {
        step();
      } catch {
        // keep undoing the rest
      }
    }
  }

  commit(): void {
    for (const old of this.leftovers) {
      fs.rmSync(old, { recursive: true, force: true });
    }
  }
}

function writeFailure(error: unknown): Error {
  if (error instanceof ConfigError) {
    return error;
  }
  const e = error as NodeJS.ErrnoException & { dest?: string };
  const where = e.dest ?? e.path ?? '';
  if (e.code === 'EACCES' || e.code === 'EPERM' || e.code === 'EROFS') {
    return new ConfigError(
      `Cannot write to ${where} (${e.code === 'EROFS' ? 'read-only file system' : 'permission denied'}). ${WRITE_FIX}`
    );
  }
  return new ConfigError(
    `Writing ${where || 'the install'} failed (${e.code ?? e.message}). Nothing was changed; fix that and run the command again.`
  );
}

export interface InstallOptions {
  /** Install even when the Jupyter's Python has no (or too old a) jupyter-server-proxy. */
  skipProxyCheck?: boolean;
}

export interface InstallReport {
  paths: JupyterPaths;
  labextension: string;
  /** The sidecar copy the proxy entry runs (`<data>/jupyterlab-project-startup/node`). */
  sidecar: string;
  configFiles: string[];
  /** What the operator still has to do. */
  remaining: string[];
}

function checkBuilt(): void {
  if (
    packageNameAt(path.join(LABEXTENSION_BUILD, 'package.json')) !==
      PACKAGE_NAME ||
    !fs.existsSync(path.join(LABEXTENSION_BUILD, 'static'))
  ) {
    throw new ConfigError(
      `The prebuilt labextension is missing from ${PACKAGE_ROOT}: in a checkout, run \`npm run build\` first; from npm, reinstall the package.`
    );
  }
  for (const file of [
    ...RUNTIME_FILES.bin,
    ...RUNTIME_FILES.bundle,
    ...RUNTIME_FILES.dirs
  ]) {
    if (!fs.existsSync(path.join(PACKAGE_ROOT, file))) {
      throw new ConfigError(
        `${file} is missing from ${PACKAGE_ROOT}: in a checkout, run \`npm run build\` first; from npm, reinstall the package.`
      );
    }
  }
}

function packageVersion(): string {
  return (
    JSON.parse(
      fs.readFileSync(path.join(PACKAGE_ROOT, 'package.json'), 'utf8')
    ) as { version: string }
  ).version;
}

/** The directories an install before the manifest recorded as created by it (none without a record). */
function legacyCreatedDirectories(home: string): string[] {
  let record: JsonObject | undefined;
  try {
    record = ours.sidecar(home)
      ? readJsonObject(path.join(home, LEGACY_RECORD_FILE))
      : undefined;
  } catch {
    record = undefined; // a damaged record: keep every directory
  }
  const dirs = record?.createdDirectories;
  return Array.isArray(dirs)
    ? dirs.filter(
        (d): d is string => typeof d === 'string' && path.isAbsolute(d)
      )
    : [];
}

/** Fills `dir` with the runnable sidecar: the layout of the wheel's `node/` directory. */
function copySidecar(dir: string): void {
  fs.writeFileSync(
    path.join(dir, 'package.json'),
    `${JSON.stringify({ name: PACKAGE_NAME, version: packageVersion(), private: true }, null, 2)}\n`,
    {
      mode: 0o644
    }
  );
  for (const file of [...RUNTIME_FILES.bin, ...RUNTIME_FILES.bundle]) {
    fs.mkdirSync(path.join(dir, path.dirname(file)), {
      recursive: true,
      mode: 0o755
    });
    fs.copyFileSync(path.join(PACKAGE_ROOT, file), path.join(dir, file));
  }
  fs.chmodSync(path.join(dir, RUNTIME_FILES.bin[0]), 0o755);
  for (const sub of RUNTIME_FILES.dirs) {
    fs.cpSync(path.join(PACKAGE_ROOT, sub), path.join(dir, sub), {
      recursive: true
    });
  }
}

function installJson(scope: InstallScope): string {
  const option =
    scope.kind === 'prefix' ? `--prefix ${scope.prefix}` : `--${scope.kind}`;
  return `${JSON.stringify(
    {
      packageManager: 'npm',
      packageName: PACKAGE_NAME,
      uninstallInstructions: `Run \`project-startup jupyter uninstall ${option}\`, then \`npm uninstall -g ${PACKAGE_NAME}\``
    },
    null,
    2
  )}\n`;
}

export function installJupyter(
  scope: InstallScope,
  env: Env,
  options: InstallOptions = {}
): InstallReport {
  checkBuilt();
  const python = findJupyterPython(env);
  const probe = python ? probePython(python, env) : undefined;
  const paths = {
    ...jupyterPaths(
      scope,
      probe,
      env,
      process.platform,
      env.HOME || os.homedir()
    ),
    python
  };
  const remaining: string[] = [];
  if (python && probe) {
    const found = serverProxyProblem(probe.serverProxy, python);
    if (found && !options.skipProxyCheck) {
      throw new ConfigError(
        `${found.problem} Nothing was changed. ${found.fix} Then run this command again. If Jupyter runs from another Python, set PROJECT_STARTUP_PYTHON to it; to install anyway (the proxy comes later, e.g. in an image build), add --skip-proxy-check.`
      );
    }
    if (found) {
      remaining.push(`${found.problem} ${found.fix}`);
    }
  } else {
    remaining.push(
      `No Jupyter was found to check (no \`jupyter\` on PATH, no PROJECT_STARTUP_PYTHON): make sure jupyter-server-proxy ${MIN_SERVER_PROXY.join('.')} or newer is installed where Jupyter runs.`
    );
  }
  const node = nodeForEntry(env);

  // Read and check everything before changing anything.
  const mainFile = path.join(paths.config, CONFIG_FILE);
  const main = readJsonObject(mainFile) ?? {};
  const configD = path.join(paths.config, CONFIG_D_FILE);
  const labextension = labextensionTarget(paths);
  const home = sidecarHome(paths);
  const manifest = readManifest(home);
  if (fs.existsSync(labextension) && !ours.labextension(labextension)) {
    throw new ConfigError(
      `${labextension} exists and is not this package's labextension; move it aside first (nothing was changed).`
    );
  }
  const manager = fs.existsSync(labextension)
    ? labextensionPackageManager(labextension)
    : undefined;
  if (manager !== undefined && manager !== 'npm') {
    throw new ConfigError(
      `${labextension} was installed by ${manager === 'python' ? 'pip (the wheel of this package)' : manager} (its install.json says packageManager "${manager}"), not by this command. Use one way, not both: remove that one first (for pip: \`pip uninstall ${PACKAGE_NAME}\`), or install into another scope (nothing was changed).`
    );
  }
  if (fs.existsSync(home) && !ours.sidecar(home)) {
    throw new ConfigError(
      `${home} exists and was not written by this command; move it aside first (nothing was changed).`
    );
  }
  const existingEntry =
    isObject(main.ServerProxy) && isObject(main.ServerProxy.servers)
      ? main.ServerProxy.servers[PROXY_ENTRY]
      : undefined;
  if (
    existingEntry !== undefined &&
    !isInstalledEntry(existingEntry, home, manifest)
  ) {
    throw new ConfigError(
      `${mainFile} already has a different ServerProxy.servers.${PROXY_ENTRY} entry; remove or rename it, then run the command again (nothing was changed).`
    );
  }
  for (const target of [
    labextension,
    path.join(home, 'node'),
    configD,
    writeTarget(mainFile)
  ]) {
    checkWritable(target);
  }
  const earlierCreated = (
    manifest?.directories ?? legacyCreatedDirectories(home)
  ).filter(dir => fs.existsSync(dir));
  const mainFileCreated =
    !fs.existsSync(mainFile) ||
    (manifest?.createdFiles.includes(mainFile) ?? false);

  const sidecar = path.join(home, 'node');
  const entry = proxyEntry(node, path.join(sidecar, RUNTIME_FILES.bin[0]));
  const serverProxy = isObject(main.ServerProxy) ? main.ServerProxy : {};
  const servers = isObject(serverProxy.servers) ? serverProxy.servers : {};
  const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
  const changes = new Changes();
  try {
    changes.replaceDir(labextension, dir => {
      fs.cpSync(LABEXTENSION_BUILD, dir, { recursive: true });
      fs.writeFileSync(path.join(dir, 'install.json'), installJson(scope), {
        mode: 0o644
      });
    });
    changes.replaceDir(sidecar, copySidecar);
    changes.writeFile(
      configD,
      json({ ServerProxy: { servers: { [PROXY_ENTRY]: entry } } })
    );
    changes.writeFile(
      mainFile,
      json({
        ...main,
        ServerProxy: {
          ...serverProxy,
          servers: { ...servers, [PROXY_ENTRY]: entry }
        }
      })
    );
    // What uninstall may take away again: each file by the hash of what was written here,
    // the entry by its hash, the directories (an earlier install's included) when empty.
    const trees = [walk(labextension), walk(sidecar)];
    const written: InstallManifest = {
      version: packageVersion(),
      files: [...trees.flatMap(tree => tree.files), configD].map(file => ({
        path: file,
        sha256: sha256(fs.readFileSync(file))
      })),
      directories: [
        ...new Set([
          ...earlierCreated,
          ...changes.created,
          home,
          ...trees.flatMap(tree => tree.directories)
        ])
      ],
      entry: { file: mainFile, sha256: entryHash(entry) },
      createdFiles: mainFileCreated ? [mainFile] : []
    };
    changes.writeFile(manifestPath(home), json(written));
  } catch (error) {
    changes.rollback();
    throw writeFailure(error);
  }
  changes.commit();
  // An install before the manifest kept only this record; the manifest now says it all.
  fs.rmSync(path.join(home, LEGACY_RECORD_FILE), { force: true });

  remaining.push(
    'Restart the Jupyter server (for JupyterHub: restart the single-user servers) to load the extension and the proxy entry.'
  );
  return {
    paths,
    labextension,
    sidecar,
    configFiles: [configD, mainFile],
    remaining
  };
}

export interface UninstallReport {
  paths: JupyterPaths;
  removed: string[];
  /** What was left in place, each with why: uninstall removes only what the manifest lists, unchanged. */
  kept: { path: string; reason: string }[];
}

/** Our `project` entry taken out of a jupyter_server_config.json object (and emptied containers). */
function withoutEntry(main: JsonObject): JsonObject {
  const serverProxy = main.ServerProxy as JsonObject;
  const { [PROXY_ENTRY]: _ours, ...otherServers } =
    serverProxy.servers as JsonObject;
  void _ours;
  const { servers: _servers, ...otherProxy } = serverProxy;
  void _servers;
  const nextProxy =
    Object.keys(otherServers).length > 0
      ? { ...otherProxy, servers: otherServers }
      : otherProxy;
  const { ServerProxy: _proxy, ...rest } = main;
  void _proxy;
  return Object.keys(nextProxy).length > 0
    ? { ...rest, ServerProxy: nextProxy }
    : rest;
}

/**
 * What an install made before the manifest seems to have left: reported, never removed (nothing
 * proves which files it wrote, or that they are unchanged).
 */
function legacyInstall(
  labextension: string,
  home: string,
  configD: string,
  mainFile: string,
  mainEntry: unknown
): { path: string; reason: string }[] {
  const found: string[] = [];
  if (
    ours.labextension(labextension) &&
    labextensionPackageManager(labextension) === 'npm'
  ) {
    found.push(labextension);
  }
  if (ours.sidecar(home)) {
    found.push(home);
  }
  const configDEntry = (() => {
    try {
      const value = readJsonObject(configD);
      return isObject(value?.ServerProxy) && isObject(value.ServerProxy.servers)
        ? value.ServerProxy.servers[PROXY_ENTRY]
        : undefined;
    } catch {
      return undefined;
    }
  })();
  if (isInstalledEntry(configDEntry, home, undefined)) {
    found.push(configD);
  }
  if (isInstalledEntry(mainEntry, home, undefined)) {
    found.push(`${mainFile} (ServerProxy.servers.${PROXY_ENTRY})`);
  }
  return found.map(p => ({
    path: p,
    reason:
      'written by an earlier version of `project-startup jupyter install`, which kept no manifest of what it wrote. To remove it: run `project-startup jupyter install` with the same scope, then uninstall again; or delete it by hand'
  }));
}

export function uninstallJupyter(
  scope: InstallScope,
  env: Env
): UninstallReport {
  const python = findJupyterPython(env);
  // --prefix needs no Python; the others ask it where Jupyter looks, as install did.
  const probe =
    python && scope.kind !== 'prefix' ? probePython(python, env) : undefined;
  const paths = {
    ...jupyterPaths(
      scope,
      probe,
      env,
      process.platform,
      env.HOME || os.homedir()
    ),
    python
  };
  const labextension = labextensionTarget(paths);
  const home = sidecarHome(paths);
  const configD = path.join(paths.config, CONFIG_D_FILE);
  const mainFile = path.join(paths.config, CONFIG_FILE);
  const manifest = readManifest(home);

  const main = readJsonObject(mainFile);
  const mainEntry =
    main && isObject(main.ServerProxy) && isObject(main.ServerProxy.servers)
      ? main.ServerProxy.servers[PROXY_ENTRY]
      : undefined;
  const kept: { path: string; reason: string }[] = [];
  // pip's copy of this labextension (same name, same place with --sys-prefix) is pip's to remove.
  const manager = labextensionPackageManager(labextension);
  const pipsLabextension =
    fs.existsSync(labextension) && manager !== undefined && manager !== 'npm';
  if (pipsLabextension) {
    kept.push({
      path: labextension,
      reason: `installed by ${manager === 'python' ? 'pip' : manager} (install.json says packageManager "${manager}"), not by this command${manager === 'python' ? `: remove it with \`pip uninstall ${PACKAGE_NAME}\`` : ''}`
    });
  }
  if (!manifest) {
    kept.push(
      ...legacyInstall(labextension, home, configD, mainFile, mainEntry)
    );
    return { paths, removed: [], kept };
  }

  const inside = (dir: string, file: string) =>
    file === dir || file.startsWith(dir + path.sep);
  const files = manifest.files.filter(
    f => !(pipsLabextension && inside(labextension, f.path))
  );
  const toRemove: string[] = [];
  for (const file of files) {
    let content: Buffer;
    try {
      content = fs.readFileSync(file.path);
    } catch {
      continue; // already gone
    }
    if (sha256(content) === file.sha256) {
      toRemove.push(file.path);
    } else {
      kept.push({ path: file.path, reason: 'changed since the install' });
    }
  }
  const entryIsOurs =
    mainEntry !== undefined &&
    manifest.entry !== undefined &&
    manifest.entry.file === mainFile &&
    entryHash(mainEntry) === manifest.entry.sha256;
  if (mainEntry !== undefined && !entryIsOurs) {
    kept.push({
      path: `${mainFile} (ServerProxy.servers.${PROXY_ENTRY})`,
      reason:
        "not the entry the install wrote (changed since, or another app's)"
    });
  }
  const mainTarget = writeTarget(mainFile);
  for (const target of [
    ...toRemove,
    ...(entryIsOurs ? [mainTarget] : []),
    manifestPath(home)
  ]) {
    checkWritable(target);
  }

  const removed: string[] = [];
  try {
    if (entryIsOurs && main) {
      const next = withoutEntry(main);
      if (
        Object.keys(next).length === 0 &&
        manifest.createdFiles.includes(mainFile) &&
        mainTarget === mainFile
      ) {
        fs.rmSync(mainFile, { force: true });
      } else {
        new Changes().writeFile(mainFile, `${JSON.stringify(next, null, 2)}\n`);
      }
      removed.push(`${mainFile} (ServerProxy.servers.${PROXY_ENTRY})`);
    }
    for (const file of toRemove) {
      fs.rmSync(file, { force: true });
    }
  } catch (error) {
    const e = error as NodeJS.ErrnoException;
    throw new ConfigError(
      `Removing ${e.path ?? 'the install'} failed (${e.code ?? e.message})${removed.length > 0 ? `; already removed: ${removed.join(', ')}` : ''}. Fix that (permissions?) and run the command again.`
    );
  }
  // What sits in our directories that the install did not write, and is left there.
  const listed = new Set(manifest.files.map(f => f.path));
  for (const root of pipsLabextension ? [home] : [labextension, home]) {
    for (const file of walk(root).files) {
      if (!listed.has(file) && file !== manifestPath(home)) {
        kept.push({ path: file, reason: 'not written by the install' });
      }
    }
  }
  // The manifest stays while anything it lists is left, so a later run says the same.
  if (kept.length === (pipsLabextension ? 1 : 0)) {
    fs.rmSync(manifestPath(home), { force: true });
  }
  // The directories install wrote or created, when nothing else is in them now (deepest first).
  for (const dir of [...manifest.directories].sort(
    (a, b) => b.length - a.length
  )) {
    if (pipsLabextension && inside(labextension, dir)) {
      continue;
    }
    try {
      fs.rmdirSync(dir);
    } catch {
      // not empty (something else lives there) or already gone: keep it
    }
  }
  // Each tree as one line when all of it went, else the files removed from it.
  for (const root of [labextension, home]) {
    const removedHere = toRemove.filter(f => inside(root, f));
    if (removedHere.length > 0) {
      removed.push(...(fs.existsSync(root) ? removedHere : [root]));
    }
  }
  if (toRemove.includes(configD)) {
    removed.push(configD);
  }
  return { paths, removed, kept };
}
