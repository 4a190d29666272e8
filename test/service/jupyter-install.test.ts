// `project-startup jupyter install|uninstall`, run as a person would, against temporary
// Jupyter paths: what lands where, what is kept, what is refused (changing nothing), and what is
// taken away again. The Jupyter asked is Debian's /usr/bin/python3 (jupyter_core), with the
// real jupyter-server-proxy from ../shared/vendor/python on PYTHONPATH where a test wants one.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  REPO_ROOT,
  runCli,
  runProcess,
  trackedSandboxes,
  CliSandbox,
  RunResult
} from '../helpers/cli';
import {
  serverProxyProblem,
  userJupyterPaths
} from '../../sidecar/src/cli/jupyter-install';
import { SIDECAR_SERVE_ARGS } from '../system/e2e/helpers';

const sandbox = trackedSandboxes();
const NAME = 'jupyterlab-project-startup';
const BUILT = path.join(
  REPO_ROOT,
  'jupyterlab_project_startup',
  'labextension'
);
const BUNDLE = path.join(
  REPO_ROOT,
  'sidecar',
  'dist',
  'bundle',
  'project-startup.js'
);
const PYTHON = '/usr/bin/python3';
const VENDOR = path.resolve(REPO_ROOT, '..', 'shared', 'vendor', 'python');
const VERSION = (
  JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
    version: string;
  }
).version;
/** The uid/gid of `nobody`, for running as a user without write permission when the tests run as root. */
const NOBODY = 65534;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
function readJson(file: string): Record<string, any> {
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}

/** The sandbox's environment with the Jupyter's Python set, and the real proxy importable when `proxy`. */
function jupyterEnv(
  s: CliSandbox,
  proxy: boolean | string = true
): Record<string, string> {
  const env: Record<string, string> = {
    ...s.env,
    PROJECT_STARTUP_PYTHON: PYTHON,
    PYTHONDONTWRITEBYTECODE: '1'
  };
  if (proxy) {
    env.PYTHONPATH = typeof proxy === 'string' ? proxy : VENDOR;
  }
  return env;
}

/** Every entry below `dir` (relative paths, directories with a trailing slash), sorted. */
function tree(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
      const full = path.join(d, entry.name);
      const rel = path.relative(dir, full);
      if (entry.isDirectory()) {
        out.push(`${rel}/`);
        walk(full);
      } else {
        out.push(rel);
      }
    }
  };
  if (fs.existsSync(dir)) {
    walk(dir);
  }
  return out.sort();
}

/** Runs the command line as `nobody` when these tests run as root (so permissions apply), else as is. */
function runCliUnprivileged(
  args: string[],
  env: Record<string, string>,
  cwd: string
): Promise<RunResult> {
  const node = [
    process.execPath,
    path.join(REPO_ROOT, 'bin', 'project-startup.js'),
    ...args
  ];
  if (process.getuid?.() !== 0) {
    return runProcess(node[0], node.slice(1), { env, cwd });
  }
  return runProcess(
    '/usr/bin/setpriv',
    [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', ...node],
    { env, cwd, timeoutMs: 30000 }
  );
}

beforeAll(() => {
  for (const needed of [path.join(BUILT, 'package.json'), BUNDLE]) {
    if (!fs.existsSync(needed)) {
      throw new Error(
        `${needed} is missing: run \`npm run build\` (npm test does) first.`
      );
    }
  }
  if (!fs.existsSync(path.join(VENDOR, 'jupyter_server_proxy'))) {
    throw new Error(
      `The vendored jupyter-server-proxy is missing at ${VENDOR} (see ../shared/vendor/README.md).`
    );
  }
  if (
    spawnSync(PYTHON, ['-c', 'import jupyter_core'], { timeout: 20000 })
      .status !== 0
  ) {
    throw new Error(
      `${PYTHON} cannot import jupyter_core: run the apt step of .ci/run (python3-jupyter-server).`
    );
  }
});

describe('project-startup jupyter install', () => {
  it('--prefix: copies the labextension and a runnable sidecar, and points the proxy entry at that copy, keeping other config', async () => {
    const s = sandbox();
    const prefix = path.join(s.root, 'prefix');
    const configDir = path.join(prefix, 'etc', 'jupyter');
    fs.mkdirSync(configDir, { recursive: true });
    const existing = {
      ServerApp: { ip: '127.0.0.1' },
      ServerProxy: {
        servers: { other: { command: ['other-app', '{port}'] } },
        host_allowlist: ['localhost']
      }
    };
    fs.writeFileSync(
      path.join(configDir, 'jupyter_server_config.json'),
      JSON.stringify(existing)
    );

    const r = await runCli(['jupyter', 'install', '--prefix', prefix], {
      env: jupyterEnv(s),
      cwd: s.projectDir,
      timeoutMs: 30000
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);

    const installed = path.join(
      prefix,
      'share',
      'jupyter',
      'labextensions',
      NAME
    );
    expect(readJson(path.join(installed, 'package.json')).name).toBe(NAME);
    expect(
      readJson(path.join(installed, 'package.json')).jupyterlab._build
    ).toBeDefined();
    expect(
      fs
        .readdirSync(path.join(installed, 'static'))
        .some(f => /^remoteEntry\..*\.js$/.test(f))
    ).toBe(true);
    expect(readJson(path.join(installed, 'install.json'))).toMatchObject({
      packageManager: 'npm',
      packageName: NAME
    });

    // The sidecar copy: the wheel's node/ layout, no node_modules.
    const sidecar = path.join(prefix, 'share', 'jupyter', NAME, 'node');
    expect(readJson(path.join(sidecar, 'package.json'))).toEqual({
      name: NAME,
      version: VERSION,
      private: true
    });
    expect(
      tree(sidecar).filter(
        p => !/^sidecar\/(static|schemas|dist\/api-docs)\/./.test(p)
      )
    ).toEqual([
      'bin/',
      'bin/project-startup.js',
      'package.json',
      'sidecar/',
      'sidecar/dist/',
      'sidecar/dist/api-docs/',
      'sidecar/dist/bundle/',
      'sidecar/dist/bundle/listen-first.js',
      'sidecar/dist/bundle/project-startup.cache',
      'sidecar/dist/bundle/project-startup.js',
      'sidecar/schemas/',
      'sidecar/static/'
    ]);
    expect(
      fs.readdirSync(path.join(sidecar, 'sidecar', 'schemas')).sort()
    ).toEqual(
      fs.readdirSync(path.join(REPO_ROOT, 'sidecar', 'schemas')).sort()
    );
    expect(
      fs.readdirSync(path.join(sidecar, 'sidecar', 'static')).sort()
    ).toEqual(fs.readdirSync(path.join(REPO_ROOT, 'sidecar', 'static')).sort());

    const d = readJson(
      path.join(configDir, 'jupyter_server_config.d', `${NAME}.json`)
    );
    const entry = d.ServerProxy.servers.project;
    expect(entry.command).toEqual([
      process.execPath,
      path.join(sidecar, 'bin', 'project-startup.js'),
      ...SIDECAR_SERVE_ARGS
    ]);
    expect(entry).toMatchObject({ unix_socket: true, absolute_url: true });
    expect(entry.timeout).toBeGreaterThanOrEqual(5);

    const main = readJson(path.join(configDir, 'jupyter_server_config.json'));
    expect(main.ServerApp).toEqual(existing.ServerApp);
    expect(main.ServerProxy.host_allowlist).toEqual(['localhost']);
    expect(main.ServerProxy.servers.other).toEqual(
      existing.ServerProxy.servers.other
    );
    expect(main.ServerProxy.servers.project).toEqual(entry);

    // Nothing written refers to this checkout, and nothing staged is left over. (V8's code
    // cache keeps the script name it was made under as data; it is checked below to be taken
    // at the new place.)
    for (const file of tree(prefix).filter(
      p => !p.endsWith('/') && !p.endsWith('.cache')
    )) {
      expect({
        file,
        refersToCheckout: fs
          .readFileSync(path.join(prefix, file), 'utf8')
          .includes(REPO_ROOT)
      }).toEqual({ file, refersToCheckout: false });
    }
    expect(tree(prefix).filter(p => /\.(new|old|tmp)\/?$/.test(p))).toEqual([]);

    // The copy runs on its own: from elsewhere, with no node_modules.
    const version = await runProcess(
      process.execPath,
      [path.join(sidecar, 'bin', 'project-startup.js'), '--version'],
      { env: s.env, cwd: s.root }
    );
    expect(version.stdout.trim()).toBe(VERSION);
    const capabilities = await runProcess(
      process.execPath,
      [
        path.join(sidecar, 'bin', 'project-startup.js'),
        'capabilities',
        '--local',
        '--json'
      ],
      {
        env: s.env,
        cwd: s.projectDir
      }
    );
    expect(capabilities.code).toBe(0);
    expect(JSON.parse(capabilities.stdout).platform).toBeDefined();
    const cacheCheck = await runProcess(
      process.execPath,
      [
        '-e',
        `const b = require(process.argv[1]);
         const cache = b.readCodeCache();
         const { script } = b.loadWithCodeCache(b.BUNDLE, cache);
         process.stdout.write(JSON.stringify({ bundle: b.BUNDLE, handedToV8: cache !== undefined, rejected: script.cachedDataRejected === true }));`,
        path.join(sidecar, 'bin', 'project-startup.js')
      ],
      { env: s.env, cwd: s.root }
    );
    // The copy's cache is used exactly where the checkout's would be: on the V8 that made it.
    const cacheMadeBy = /^project-startup-code-cache\/1 (\S+)\n/.exec(
      fs
        .readFileSync(
          path.join(
            sidecar,
            'sidecar',
            'dist',
            'bundle',
            'project-startup.cache'
          )
        )
        .toString('latin1', 0, 200)
    )?.[1];
    expect(JSON.parse(cacheCheck.stdout)).toEqual({
      bundle: path.join(
        sidecar,
        'sidecar',
        'dist',
        'bundle',
        'project-startup.js'
      ),
      handedToV8: cacheMadeBy === process.versions.v8,
      rejected: false
    });

    expect(r.stdout).toContain(installed);
    expect(r.stdout).toContain(sidecar);
    expect(r.stdout).toMatch(/Restart the Jupyter server/);
    expect(r.stdout).not.toMatch(/jupyter-server-proxy/);
  });

  it('--user asks the Jupyter (jupyter_core) for its directories; a second install replaces the first cleanly', async () => {
    const s = sandbox();
    const env = {
      ...jupyterEnv(s),
      JUPYTER_DATA_DIR: path.join(s.root, 'data'),
      JUPYTER_CONFIG_DIR: path.join(s.root, 'config')
    };
    for (let i = 0; i < 2; i++) {
      const r = await runCli(['jupyter', 'install', '--user'], {
        env,
        cwd: s.projectDir,
        timeoutMs: 30000
      });
      expect(r.code).toBe(0);
    }
    expect(
      fs.existsSync(
        path.join(s.root, 'data', 'labextensions', NAME, 'package.json')
      )
    ).toBe(true);
    expect(
      readJson(path.join(s.root, 'config', 'jupyter_server_config.json'))
        .ServerProxy.servers.project.unix_socket
    ).toBe(true);
    expect(tree(s.root).filter(p => /\.(new|old|tmp)\/?$/.test(p))).toEqual([]);

    // No JUPYTER_* variables: jupyter_core's own answer for this HOME.
    const plain = await runCli(['jupyter', 'install', '--user'], {
      env: jupyterEnv(s),
      cwd: s.projectDir,
      timeoutMs: 30000
    });
    expect(plain.code).toBe(0);
    expect(
      fs.existsSync(
        path.join(
          s.home,
          '.local',
          'share',
          'jupyter',
          'labextensions',
          NAME,
          'package.json'
        )
      )
    ).toBe(true);
    expect(
      fs.existsSync(path.join(s.home, '.jupyter', 'jupyter_server_config.json'))
    ).toBe(true);
  });

  it("--user with no Jupyter to ask follows jupyter_core's rules and says the proxy could not be checked", async () => {
    const s = sandbox();
    const env = { ...s.env, XDG_DATA_HOME: path.join(s.root, 'xdg') };
    const r = await runCli(['jupyter', 'install'], { env, cwd: s.projectDir });
    expect(r.code).toBe(0);
    expect(
      fs.existsSync(path.join(s.root, 'xdg', 'jupyter', 'labextensions', NAME))
    ).toBe(true);
    expect(
      fs.existsSync(
        path.join(s.home, '.jupyter', 'jupyter_server_config.d', `${NAME}.json`)
      )
    ).toBe(true);
    expect(r.stdout).toMatch(
      /No Jupyter was found to check .* jupyter-server-proxy 4\.1 or newer/
    );
  });

  it("--sys-prefix installs into the sys.prefix of the Jupyter's Python (a venv)", async () => {
    const s = sandbox();
    const venv = path.join(s.root, 'venv');
    const made = spawnSync(
      PYTHON,
      ['-m', 'venv', '--system-site-packages', '--without-pip', venv],
      { timeout: 60000, encoding: 'utf8' }
    );
    expect(made.stderr).toBe('');
    const r = await runCli(['jupyter', 'install', '--sys-prefix'], {
      env: {
        ...jupyterEnv(s),
        PROJECT_STARTUP_PYTHON: path.join(venv, 'bin', 'python3')
      },
      cwd: s.projectDir,
      timeoutMs: 30000
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(
      fs.existsSync(
        path.join(
          venv,
          'share',
          'jupyter',
          'labextensions',
          NAME,
          'package.json'
        )
      )
    ).toBe(true);
    expect(
      fs.existsSync(
        path.join(
          venv,
          'share',
          'jupyter',
          NAME,
          'node',
          'bin',
          'project-startup.js'
        )
      )
    ).toBe(true);
    expect(
      fs.existsSync(
        path.join(
          venv,
          'etc',
          'jupyter',
          'jupyter_server_config.d',
          `${NAME}.json`
        )
      )
    ).toBe(true);
    const un = await runCli(['jupyter', 'uninstall', '--sys-prefix'], {
      env: {
        ...jupyterEnv(s),
        PROJECT_STARTUP_PYTHON: path.join(venv, 'bin', 'python3')
      },
      cwd: s.projectDir,
      timeoutMs: 30000
    });
    expect(un.code).toBe(0);
    expect(fs.existsSync(path.join(venv, 'share', 'jupyter', NAME))).toBe(
      false
    );
    expect(
      fs.existsSync(path.join(venv, 'share', 'jupyter', 'labextensions', NAME))
    ).toBe(false);
  });

  it('--sys-prefix with no Jupyter to ask says what to do', async () => {
    const s = sandbox();
    const r = await runCli(['jupyter', 'install', '--sys-prefix'], {
      env: s.env,
      cwd: s.projectDir
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /--sys-prefix needs the Python that runs Jupyter: put `jupyter` on PATH or set PROJECT_STARTUP_PYTHON/
    );
  });

  it('refuses, changing nothing, when the Jupyter has no jupyter-server-proxy, and says how to fix it; --skip-proxy-check installs anyway', async () => {
    const s = sandbox();
    const prefix = path.join(s.root, 'prefix');
    const r = await runCli(['jupyter', 'install', '--prefix', prefix], {
      env: jupyterEnv(s, false),
      cwd: s.projectDir,
      timeoutMs: 30000
    });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(
      `jupyter-server-proxy is not installed for ${PYTHON}`
    );
    expect(r.stderr).toContain(
      `\`${PYTHON} -m pip install 'jupyter-server-proxy>=4.1'\``
    );
    expect(r.stderr).toMatch(/Nothing was changed/);
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(fs.existsSync(prefix)).toBe(false);

    const anyway = await runCli(
      ['jupyter', 'install', '--prefix', prefix, '--skip-proxy-check'],
      {
        env: jupyterEnv(s, false),
        cwd: s.projectDir,
        timeoutMs: 30000
      }
    );
    expect(anyway.code).toBe(0);
    expect(anyway.stdout).toMatch(
      /What remains:\n {2}- jupyter-server-proxy is not installed for .*pip install/
    );
    expect(
      fs.existsSync(
        path.join(prefix, 'share', 'jupyter', 'labextensions', NAME)
      )
    ).toBe(true);
  });

  it('refuses a jupyter-server-proxy older than 4.1 (by its metadata, else its __version__), changing nothing', async () => {
    const s = sandbox();
    const old = path.join(s.root, 'old-proxy');
    fs.mkdirSync(path.join(old, 'jupyter_server_proxy'), { recursive: true });
    fs.writeFileSync(
      path.join(old, 'jupyter_server_proxy', '__init__.py'),
      '__version__ = "3.2.2"\n'
    );
    const prefix = path.join(s.root, 'prefix');
    const r = await runCli(['jupyter', 'install', '--prefix', prefix], {
      env: jupyterEnv(s, old),
      cwd: s.projectDir,
      timeoutMs: 30000
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `jupyter-server-proxy 3.2.2 (for ${PYTHON}) is too old: the entry needs 4.1 or newer`
    );
    expect(r.stderr).toContain("pip install 'jupyter-server-proxy>=4.1'");
    expect(fs.existsSync(prefix)).toBe(false);

    // An installed distribution's metadata is what counts (the module's __version__ only without one).
    const dist = path.join(s.root, 'dist');
    fs.mkdirSync(path.join(dist, 'jupyter_server_proxy-4.0.0.dist-info'), {
      recursive: true
    });
    fs.writeFileSync(
      path.join(dist, 'jupyter_server_proxy-4.0.0.dist-info', 'METADATA'),
      'Metadata-Version: 2.1\nName: jupyter-server-proxy\nVersion: 4.0.0\n'
    );
    const viaMetadata = await runCli(
      ['jupyter', 'install', '--prefix', prefix],
      {
        env: jupyterEnv(s, `${dist}:${VENDOR}`),
        cwd: s.projectDir,
        timeoutMs: 30000
      }
    );
    expect(viaMetadata.code).toBe(2);
    expect(viaMetadata.stderr).toContain(
      `jupyter-server-proxy 4.0.0 (for ${PYTHON}) is too old`
    );
    expect(fs.existsSync(prefix)).toBe(false);
  });

  it('refuses a PROJECT_STARTUP_NODE older than 20', async () => {
    const s = sandbox();
    const oldNode = path.join(s.root, 'node18');
    fs.writeFileSync(oldNode, '#!/bin/sh\necho v18.19.0\n', { mode: 0o755 });
    const prefix = path.join(s.root, 'prefix');
    const r = await runCli(['jupyter', 'install', '--prefix', prefix], {
      env: { ...jupyterEnv(s), PROJECT_STARTUP_NODE: oldNode },
      cwd: s.projectDir,
      timeoutMs: 30000
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `PROJECT_STARTUP_NODE=${oldNode} is Node v18.19.0; Node.js 20 or newer is needed`
    );
    expect(fs.existsSync(prefix)).toBe(false);
  });

  it('refuses a prefix it may not write, with the fix, leaving nothing behind', async () => {
    const s = sandbox();
    fs.chmodSync(s.root, 0o755); // let the unprivileged user reach the sandbox
    const prefix = path.join(s.root, 'prefix');
    // The data side is writable, the config side is not: an install must not stop half way.
    fs.mkdirSync(path.join(prefix, 'share'), { recursive: true, mode: 0o777 });
    fs.chmodSync(path.join(prefix, 'share'), 0o777);
    fs.mkdirSync(path.join(prefix, 'etc'), { mode: 0o755 });
    if (process.getuid?.() !== 0) {
      fs.chmodSync(path.join(prefix, 'etc'), 0o555);
    }
    const env = { ...jupyterEnv(s), HOME: s.root };
    const r = await runCliUnprivileged(
      ['jupyter', 'install', '--prefix', prefix],
      env,
      s.root
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `Cannot write to ${path.join(prefix, 'etc')} (permission denied)`
    );
    expect(r.stderr).toMatch(
      /Nothing was changed\. Run the command as a user who may write there .* --user, or choose a --prefix you own\./
    );
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(tree(prefix)).toEqual(['etc/', 'share/']);
  });

  it('undoes every change when a write fails after the checks passed', async () => {
    const s = sandbox();
    const prefix = path.join(s.root, 'prefix');
    // A directory where the 1.x config file goes: the checks pass, the last write fails.
    fs.mkdirSync(
      path.join(prefix, 'etc', 'jupyter', 'jupyter_server_config.json'),
      { recursive: true }
    );
    fs.mkdirSync(
      path.join(prefix, 'share', 'jupyter', 'labextensions', 'other-ext'),
      { recursive: true }
    );
    const before = tree(prefix);
    const r = await runCli(['jupyter', 'install', '--prefix', prefix], {
      env: jupyterEnv(s),
      cwd: s.projectDir,
      timeoutMs: 30000
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /jupyter_server_config\.json.*Nothing was changed/
    );
    expect(tree(prefix)).toEqual(before);
  });

  it('refuses a config file that is not JSON, changing nothing', async () => {
    const s = sandbox();
    const prefix = path.join(s.root, 'prefix');
    fs.mkdirSync(path.join(prefix, 'etc', 'jupyter'), { recursive: true });
    fs.writeFileSync(
      path.join(prefix, 'etc', 'jupyter', 'jupyter_server_config.json'),
      '{ not json'
    );
    const r = await runCli(['jupyter', 'install', '--prefix', prefix], {
      env: jupyterEnv(s),
      cwd: s.projectDir,
      timeoutMs: 30000
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/jupyter_server_config\.json is not valid JSON/);
    expect(fs.existsSync(path.join(prefix, 'share'))).toBe(false);
    expect(
      fs.readFileSync(
        path.join(prefix, 'etc', 'jupyter', 'jupyter_server_config.json'),
        'utf8'
      )
    ).toBe('{ not json');
  });

  it("never replaces another app's `project` proxy entry", async () => {
    const s = sandbox();
    const prefix = path.join(s.root, 'prefix');
    const mainFile = path.join(
      prefix,
      'etc',
      'jupyter',
      'jupyter_server_config.json'
    );
    fs.mkdirSync(path.dirname(mainFile), { recursive: true });
    const theirs = JSON.stringify({
      ServerProxy: {
        servers: { project: { command: ['their-app', '{port}'] } }
      }
    });
    fs.writeFileSync(mainFile, theirs);
    const r = await runCli(['jupyter', 'install', '--prefix', prefix], {
      env: jupyterEnv(s),
      cwd: s.projectDir,
      timeoutMs: 30000
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `${mainFile} already has a different ServerProxy.servers.project entry; remove or rename it`
    );
    expect(fs.readFileSync(mainFile, 'utf8')).toBe(theirs);
    expect(fs.existsSync(path.join(prefix, 'share'))).toBe(false);
  });

  it('never replaces a labextension of another package at the same place', async () => {
    const s = sandbox();
    const prefix = path.join(s.root, 'prefix');
    const foreign = path.join(
      prefix,
      'share',
      'jupyter',
      'labextensions',
      NAME
    );
    fs.mkdirSync(foreign, { recursive: true });
    fs.writeFileSync(
      path.join(foreign, 'package.json'),
      JSON.stringify({ name: 'someone-else' })
    );
    const r = await runCli(['jupyter', 'install', '--prefix', prefix], {
      env: jupyterEnv(s),
      cwd: s.projectDir,
      timeoutMs: 30000
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/not this package's labextension/);
    expect(readJson(path.join(foreign, 'package.json')).name).toBe(
      'someone-else'
    );
  });

  it('rejects two scopes at once and unknown actions', async () => {
    const s = sandbox();
    expect(
      (
        await runCli(['jupyter', 'install', '--user', '--prefix', '/x'], {
          env: s.env,
          cwd: s.projectDir
        })
      ).code
    ).toBe(2);
    expect(
      (
        await runCli(['jupyter', 'reinstall'], {
          env: s.env,
          cwd: s.projectDir
        })
      ).code
    ).toBe(2);
    expect(
      (
        await runCli(['jupyter', 'uninstall', '--skip-proxy-check'], {
          env: s.env,
          cwd: s.projectDir
        })
      ).code
    ).toBe(2);
    expect(
      (await runCli(['jupyter', '--help'], { env: s.env, cwd: s.projectDir }))
        .stdout
    ).toMatch(/--sys-prefix/);
  });
});

describe('project-startup jupyter uninstall', () => {
  it('removes exactly what install wrote and keeps everything else; a second run finds nothing and exits 0', async () => {
    const s = sandbox();
    const prefix = path.join(s.root, 'prefix');
    const configDir = path.join(prefix, 'etc', 'jupyter');
    fs.mkdirSync(configDir, { recursive: true });
    const existing = {
      ServerApp: { ip: '127.0.0.1' },
      ServerProxy: { servers: { other: { command: ['other-app'] } } }
    };
    fs.writeFileSync(
      path.join(configDir, 'jupyter_server_config.json'),
      JSON.stringify(existing)
    );
    const otherExtension = path.join(
      prefix,
      'share',
      'jupyter',
      'labextensions',
      'other-ext'
    );
    fs.mkdirSync(otherExtension, { recursive: true });
    // An empty directory that was there before is not ours to remove.
    fs.mkdirSync(path.join(configDir, 'jupyter_server_config.d'));
    const before = tree(prefix);

    expect(
      (
        await runCli(['jupyter', 'install', '--prefix', prefix], {
          env: jupyterEnv(s),
          cwd: s.projectDir,
          timeoutMs: 30000
        })
      ).code
    ).toBe(0);
    const r = await runCli(['jupyter', 'uninstall', '--prefix', prefix], {
      env: s.env,
      cwd: s.projectDir
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Removed:/);
    expect(tree(prefix)).toEqual(before);
    expect(
      readJson(path.join(configDir, 'jupyter_server_config.json'))
    ).toEqual(existing);

    const again = await runCli(['jupyter', 'uninstall', '--prefix', prefix], {
      env: s.env,
      cwd: s.projectDir
    });
    expect(again.code).toBe(0);
    expect(again.stderr).toBe('');
    expect(again.stdout).toMatch(
      /Nothing of jupyterlab-project-startup is installed/
    );
  });

  it('leaves an empty prefix empty again, also after installing twice', async () => {
    const s = sandbox();
    const prefix = path.join(s.root, 'prefix');
    fs.mkdirSync(prefix);
    for (let i = 0; i < 2; i++) {
      expect(
        (
          await runCli(['jupyter', 'install', '--prefix', prefix], {
            env: jupyterEnv(s),
            cwd: s.projectDir,
            timeoutMs: 30000
          })
        ).code
      ).toBe(0);
    }
    expect(
      (
        await runCli(['jupyter', 'uninstall', '--prefix', prefix], {
          env: s.env,
          cwd: s.projectDir
        })
      ).code
    ).toBe(0);
    expect(tree(prefix)).toEqual([]);
  });

  it('refuses, removing nothing, where it may not write', async () => {
    const s = sandbox();
    fs.chmodSync(s.root, 0o755);
    const prefix = path.join(s.root, 'prefix');
    expect(
      (
        await runCli(['jupyter', 'install', '--prefix', prefix], {
          env: jupyterEnv(s),
          cwd: s.projectDir,
          timeoutMs: 30000
        })
      ).code
    ).toBe(0);
    const installed = tree(prefix);
    if (process.getuid?.() !== 0) {
      for (const dir of installed.filter(p => p.endsWith('/'))) {
        fs.chmodSync(path.join(prefix, dir), 0o555);
      }
    }
    const r = await runCliUnprivileged(
      ['jupyter', 'uninstall', '--prefix', prefix],
      { ...s.env, HOME: s.root },
      s.root
    );
    if (process.getuid?.() !== 0) {
      for (const dir of installed.filter(p => p.endsWith('/'))) {
        fs.chmodSync(path.join(prefix, dir), 0o755);
      }
    }
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/Cannot write to .* \(permission denied\)/);
    expect(tree(prefix)).toEqual(installed);
  });
});

describe("where Jupyter looks, by jupyter_core's rules", () => {
  const home = '/home/ada';
  it('Linux: XDG data home, ~/.jupyter; the JUPYTER_*_DIR variables win', () => {
    expect(userJupyterPaths({}, 'linux', home)).toEqual({
      data: '/home/ada/.local/share/jupyter',
      config: '/home/ada/.jupyter'
    });
    expect(userJupyterPaths({ XDG_DATA_HOME: '/x' }, 'linux', home).data).toBe(
      '/x/jupyter'
    );
    expect(
      userJupyterPaths(
        { JUPYTER_DATA_DIR: '/d', JUPYTER_CONFIG_DIR: '/c' },
        'darwin',
        home
      )
    ).toEqual({ data: '/d', config: '/c' });
  });
  it('macOS: ~/Library/Jupyter for data, ~/.jupyter for config', () => {
    expect(userJupyterPaths({}, 'darwin', '/Users/ada')).toEqual({
      data: '/Users/ada/Library/Jupyter',
      config: '/Users/ada/.jupyter'
    });
  });
  it('JUPYTER_PLATFORM_DIRS: the platform directories', () => {
    expect(
      userJupyterPaths({ JUPYTER_PLATFORM_DIRS: '1' }, 'linux', home)
    ).toEqual({
      data: '/home/ada/.local/share/jupyter',
      config: '/home/ada/.config/jupyter'
    });
    expect(
      userJupyterPaths({ JUPYTER_PLATFORM_DIRS: '1' }, 'darwin', '/Users/ada')
        .data
    ).toBe('/Users/ada/Library/Application Support/jupyter');
    expect(
      userJupyterPaths({ JUPYTER_PLATFORM_DIRS: '0' }, 'darwin', '/Users/ada')
        .data
    ).toBe('/Users/ada/Library/Jupyter');
  });
});

describe('jupyter-server-proxy versions', () => {
  it('needs 4.1 or newer', () => {
    expect(serverProxyProblem(null, 'py')?.problem).toMatch(/not installed/);
    expect(serverProxyProblem('4.0.9', 'py')?.problem).toMatch(/too old/);
    expect(serverProxyProblem('3.2.4', 'py')?.problem).toMatch(/too old/);
    expect(serverProxyProblem('4.1.0', 'py')).toBeUndefined();
    expect(serverProxyProblem('4.4.0', 'py')).toBeUndefined();
    expect(serverProxyProblem('5.0.0a1', 'py')).toBeUndefined();
  });
});

// Uninstall removes only what the install manifest lists, each file by the
// sha256 of what was written; anything else is left and named, and a symlinked config file
// stays a link.
describe('jupyter uninstall removes only what the install wrote', () => {
  const dataDir = (prefix: string) => path.join(prefix, 'share', 'jupyter');
  const configDir = (prefix: string) => path.join(prefix, 'etc', 'jupyter');
  const install = (s: CliSandbox, prefix: string) =>
    runCli(['jupyter', 'install', '--prefix', prefix], {
      env: jupyterEnv(s),
      cwd: s.projectDir,
      timeoutMs: 30000
    });
  const uninstall = (s: CliSandbox, prefix: string) =>
    runCli(['jupyter', 'uninstall', '--prefix', prefix], {
      env: s.env,
      cwd: s.projectDir,
      timeoutMs: 30000
    });

  it("leaves pip's labextension (install.json packageManager python) to pip, and install refuses to replace it", async () => {
    const s = sandbox();
    const prefix = path.join(s.root, 'prefix');
    const pips = path.join(dataDir(prefix), 'labextensions', NAME);
    fs.cpSync(BUILT, pips, { recursive: true });
    fs.writeFileSync(
      path.join(pips, 'install.json'),
      JSON.stringify({ packageManager: 'python', packageName: NAME })
    );
    const before = tree(prefix);

    const r = await uninstall(s, prefix);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      `${pips}: installed by pip (install.json says packageManager "python"), not by this command: remove it with \`pip uninstall ${NAME}\``
    );
    expect(r.stdout).toContain('Nothing was removed.');
    expect(tree(prefix)).toEqual(before);

    const i = await install(s, prefix);
    expect(i.code).toBe(2);
    expect(i.stderr).toContain(
      `${pips} was installed by pip (the wheel of this package)`
    );
    expect(tree(prefix)).toEqual(before);
  });

  it('leaves a `project` entry it did not write, even one running project-startup', async () => {
    const s = sandbox();
    const prefix = path.join(s.root, 'prefix');
    const mainFile = path.join(configDir(prefix), 'jupyter_server_config.json');
    fs.mkdirSync(configDir(prefix), { recursive: true });
    const theirs = `${JSON.stringify({
      ServerProxy: {
        servers: {
          project: { command: ['/opt/project-startup/bin/run', '{port}'] }
        }
      }
    })}\n`;
    fs.writeFileSync(mainFile, theirs);
    const r = await uninstall(s, prefix);
    expect(r.code).toBe(0);
    expect(fs.readFileSync(mainFile, 'utf8')).toBe(theirs);

    // Installed, then the entry edited by hand: the edit is the operator's, and stays.
    fs.rmSync(mainFile);
    expect((await install(s, prefix)).code).toBe(0);
    const edited = readJson(mainFile);
    edited.ServerProxy.servers.project.timeout = 60;
    fs.writeFileSync(mainFile, JSON.stringify(edited));
    const again = await uninstall(s, prefix);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(
      `${mainFile} (ServerProxy.servers.project): not the entry the install wrote`
    );
    expect(readJson(mainFile)).toEqual(edited);
  });

  it('keeps files in its directories that it did not write or that changed since, and names them', async () => {
    const s = sandbox();
    const prefix = path.join(s.root, 'prefix');
    expect((await install(s, prefix)).code).toBe(0);
    const home = path.join(dataDir(prefix), NAME);
    const notes = path.join(home, 'notes.txt');
    fs.writeFileSync(notes, 'the operator keeps notes here\n');
    const changed = path.join(
      dataDir(prefix),
      'labextensions',
      NAME,
      'package.json'
    );
    fs.appendFileSync(changed, '\n');
    const changedText = fs.readFileSync(changed, 'utf8');

    const r = await uninstall(s, prefix);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`${notes}: not written by the install`);
    expect(r.stdout).toContain(`${changed}: changed since the install`);
    expect(r.stdout).toContain(path.join(home, 'node'));
    expect(fs.readFileSync(notes, 'utf8')).toBe(
      'the operator keeps notes here\n'
    );
    expect(fs.readFileSync(changed, 'utf8')).toBe(changedText);
    // Everything else went: the sidecar copy, the config files, the other labextension files.
    expect(fs.existsSync(path.join(home, 'node'))).toBe(false);
    expect(tree(configDir(prefix))).toEqual([]);
    expect(tree(path.join(dataDir(prefix), 'labextensions', NAME))).toEqual([
      'package.json'
    ]);
    // Run again: the same answer, nothing more removed.
    const again = await uninstall(s, prefix);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`${notes}: not written by the install`);
    expect(again.stdout).toContain(`${changed}: changed since the install`);
    expect(fs.existsSync(notes)).toBe(true);
  });

  it('writes through a symlinked jupyter_server_config.json: the link stays a link, its target is updated and restored', async () => {
    const s = sandbox();
    const prefix = path.join(s.root, 'prefix');
    const dotfiles = path.join(s.root, 'dotfiles');
    fs.mkdirSync(dotfiles);
    const target = path.join(dotfiles, 'jupyter_server_config.json');
    const original = `${JSON.stringify({ ServerApp: { ip: '127.0.0.1' } })}\n`;
    fs.writeFileSync(target, original);
    const link = path.join(configDir(prefix), 'jupyter_server_config.json');
    fs.mkdirSync(configDir(prefix), { recursive: true });
    fs.symlinkSync(target, link);

    expect((await install(s, prefix)).code).toBe(0);
    expect(fs.lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readJson(target).ServerProxy.servers.project.command[0]).toBe(
      process.execPath
    );
    expect(readJson(target).ServerApp).toEqual({ ip: '127.0.0.1' });

    expect((await uninstall(s, prefix)).code).toBe(0);
    expect(fs.lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readJson(target)).toEqual({ ServerApp: { ip: '127.0.0.1' } });
  });

  it('an install without a manifest (an earlier version): removes nothing, names what it leaves and how to remove it; install then uninstall cleans up', async () => {
    const s = sandbox();
    const prefix = path.join(s.root, 'prefix');
    fs.mkdirSync(prefix);
    expect((await install(s, prefix)).code).toBe(0);
    // What the earlier version left: the same files, its record instead of a manifest.
    const home = path.join(dataDir(prefix), NAME);
    fs.rmSync(path.join(home, 'install-manifest.json'));
    fs.writeFileSync(
      path.join(home, 'install-record.json'),
      JSON.stringify({
        version: '0.0.9',
        createdDirectories: [
          'share',
          'share/jupyter',
          'share/jupyter/labextensions',
          `share/jupyter/${NAME}`,
          'etc',
          'etc/jupyter',
          'etc/jupyter/jupyter_server_config.d'
        ].map(d => path.join(prefix, d))
      })
    );
    const before = tree(prefix);

    const r = await uninstall(s, prefix);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Nothing was removed.');
    for (const left of [
      path.join(dataDir(prefix), 'labextensions', NAME),
      home,
      path.join(configDir(prefix), 'jupyter_server_config.d', `${NAME}.json`),
      `${path.join(configDir(prefix), 'jupyter_server_config.json')} (ServerProxy.servers.project)`
    ]) {
      expect(r.stdout).toContain(
        `${left}: written by an earlier version of \`project-startup jupyter install\`, which kept no manifest`
      );
    }
    expect(r.stdout).toContain(
      'run `project-startup jupyter install` with the same scope, then uninstall again'
    );
    expect(tree(prefix)).toEqual(before);

    expect((await install(s, prefix)).code).toBe(0);
    expect((await uninstall(s, prefix)).code).toBe(0);
    // Nothing says the earlier install created jupyter_server_config.json: it stays, emptied.
    expect(tree(prefix)).toEqual([
      'etc/',
      'etc/jupyter/',
      'etc/jupyter/jupyter_server_config.json'
    ]);
    expect(
      readJson(path.join(configDir(prefix), 'jupyter_server_config.json'))
    ).toEqual({});
  });
});
