// The Node that a jupyter-server-proxy entry runs. Both writers of that entry,
// `project-startup jupyter install` (npm) and the wheel's entry point `_sidecar_command` (pip),
// go through the same fixtures: a bare name in a world-writable working directory where another
// user (uid 65534) planted a `node`, a relative path, an empty PATH entry (the current directory)
// and paths with braces. The written command is rendered by the real jupyter-server-proxy's own
// template code (../shared/vendor/python) and launched from that directory, as the proxy would:
// it must name the absolute `node` on PATH, never run the planted file, and give back every
// literal path.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  REPO_ROOT,
  runCli,
  runProcess,
  trackedSandboxes,
  CliSandbox
} from '../../helpers/cli';

const sandbox = trackedSandboxes();
const PYTHON = '/usr/bin/python3';
const VENDOR = path.resolve(REPO_ROOT, '..', 'shared', 'vendor', 'python');
const OTHER_UID = 65534;
const VERSION = (
  JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
    version: string;
  }
).version;

/**
 * Renders a proxy command with jupyter-server-proxy's own code (NamedLocalProxyHandler's
 * _render_template / _realize_rendered_template, the code that runs at each launch): argv[1] is
 * a JSON config file (the npm writer's entry), or "wheel" for the entry point's callable.
 */
const RENDER = `
import json, sys
from jupyter_server_proxy.handlers import NamedLocalProxyHandler as Proxy
class Launch:
    process_args = {"port": 0, "unix_socket": "/run/x/socket", "base_url": "/user/a/"}
    _render_template = Proxy._render_template
    _realize_rendered_template = Proxy._realize_rendered_template
try:
    if sys.argv[1] == "wheel":
        import jupyterlab_project_startup as wheel
        command = wheel.setup_project_startup()["command"]
    else:
        with open(sys.argv[1]) as f:
            command = json.load(f)["ServerProxy"]["servers"]["project"]["command"]
    print(json.dumps({"command": Launch()._realize_rendered_template(command)}))
except Exception as error:
    print(json.dumps({"error": "%s: %s" % (error.__class__.__name__, error)}))
`;

interface World {
  s: CliSandbox;
  /** World-writable and sticky, like /tmp: the directory the writers and the launch run in. */
  shared: string;
  /** The file that exists only if the planted `node` ran. */
  marker: string;
  /** The real Node, as PATH has it. */
  pathNode: string;
}

/** A sandbox whose PATH holds the real node, and a /tmp-like directory where uid 65534 planted `node`. */
function world(): World {
  const s = sandbox();
  fs.chmodSync(s.root, 0o755); // let uid 65534 reach the shared directory
  const pathNode = path.join(s.bin, 'node');
  fs.symlinkSync(process.execPath, pathNode);
  const shared = path.join(s.root, 'shared');
  fs.mkdirSync(shared);
  fs.chmodSync(shared, 0o1777);
  const marker = path.join(shared, 'planted-node-ran');
  const plant = `printf '#!/bin/sh\\ntouch ${marker}\\necho v99.0.0\\n' > node && chmod 755 node`;
  const asOther =
    process.getuid?.() === 0
      ? [
          `--reuid=${OTHER_UID}`,
          `--regid=${OTHER_UID}`,
          '--clear-groups',
          '/bin/sh'
        ]
      : undefined;
  execFileSync(
    asOther ? '/usr/bin/setpriv' : '/bin/sh',
    [...(asOther ?? []), '-c', plant],
    { cwd: shared, timeout: 10000 }
  );
  if (process.getuid?.() === 0) {
    expect(fs.statSync(path.join(shared, 'node')).uid).toBe(OTHER_UID);
  }
  return { s, shared, marker, pathNode };
}

async function render(
  w: World,
  what: string,
  env: Record<string, string>,
  pythonPath: string[] = [REPO_ROOT]
): Promise<{ command?: string[]; error?: string }> {
  const r = await runProcess(PYTHON, ['-c', RENDER, what], {
    cwd: w.shared,
    env: {
      HOME: w.s.home,
      ...env,
      PYTHONPATH: [...pythonPath, VENDOR].join(path.delimiter),
      PYTHONDONTWRITEBYTECODE: '1'
    },
    timeoutMs: 30000
  });
  expect(r.stderr).not.toMatch(/Traceback/);
  return JSON.parse(r.stdout) as { command?: string[]; error?: string };
}

/** `project-startup jupyter install --prefix <prefix>`, run in the shared directory. */
function npmInstall(w: World, prefix: string, env: Record<string, string>) {
  return runCli(
    ['jupyter', 'install', '--prefix', prefix, '--skip-proxy-check'],
    { env: { ...w.s.env, ...env }, cwd: w.shared, timeoutMs: 30000 }
  );
}

function configD(prefix: string): string {
  return path.join(
    prefix,
    'etc',
    'jupyter',
    'jupyter_server_config.d',
    'jupyterlab-project-startup.json'
  );
}

/** Launches the rendered node from the shared directory, as the proxy would (its cwd is the server's). */
async function launchNode(w: World, command: string[]): Promise<string> {
  const r = await runProcess(command[0], ['--version'], {
    cwd: w.shared,
    env: { PATH: w.s.bin },
    timeoutMs: 15000
  });
  return r.stdout.trim();
}

beforeAll(() => {
  if (!fs.existsSync(path.join(VENDOR, 'jupyter_server_proxy'))) {
    throw new Error(
      `The vendored jupyter-server-proxy is missing at ${VENDOR} (see ../shared/vendor/README.md).`
    );
  }
  if (!fs.existsSync(path.join(REPO_ROOT, 'sidecar', 'dist', 'bundle'))) {
    throw new Error('The sidecar is not built: run `npm run build` first.');
  }
});

describe('the Node a proxy entry runs is an absolute path on PATH, never a file in the working directory', () => {
  it('npm: PROJECT_STARTUP_NODE=node in a world-writable directory writes the PATH node; the planted ./node never runs', async () => {
    const w = world();
    const prefix = path.join(w.s.root, 'prefix');
    const r = await npmInstall(w, prefix, { PROJECT_STARTUP_NODE: 'node' });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const rendered = await render(w, configD(prefix), {});
    expect(rendered.command?.[0]).toBe(w.pathNode);
    expect(await launchNode(w, rendered.command ?? [])).toBe(process.version);
    expect(fs.existsSync(w.marker)).toBe(false);
  });

  it('wheel: PROJECT_STARTUP_NODE=node launched in a world-writable directory runs the PATH node; the planted ./node never runs', async () => {
    const w = world();
    const rendered = await render(w, 'wheel', {
      PATH: w.s.bin,
      PROJECT_STARTUP_NODE: 'node'
    });
    expect(rendered.command?.[0]).toBe(w.pathNode);
    expect(await launchNode(w, rendered.command ?? [])).toBe(process.version);
    expect(fs.existsSync(w.marker)).toBe(false);
  });

  it('npm: a relative PROJECT_STARTUP_NODE (./node) is refused with the fix, without running it, writing nothing', async () => {
    const w = world();
    const prefix = path.join(w.s.root, 'prefix');
    const r = await npmInstall(w, prefix, { PROJECT_STARTUP_NODE: './node' });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      "PROJECT_STARTUP_NODE=./node is a relative path; the proxy entry would run whatever is at that path below the Jupyter server's working directory. Set it to an absolute path"
    );
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(fs.existsSync(prefix)).toBe(false);
    expect(fs.existsSync(w.marker)).toBe(false);
  });

  it('wheel: a relative PROJECT_STARTUP_NODE (./node) is refused with the fix (no launch, no traceback), without running it', async () => {
    const w = world();
    const rendered = await render(w, 'wheel', {
      PATH: w.s.bin,
      PROJECT_STARTUP_NODE: './node'
    });
    expect(rendered.command).toBeUndefined();
    expect(rendered.error).toContain(
      'PROJECT_STARTUP_NODE is set to ./node, a relative path'
    );
    expect(rendered.error).toContain(
      'Set PROJECT_STARTUP_NODE to the absolute path of Node.js 20 or newer'
    );
    expect(fs.existsSync(w.marker)).toBe(false);
  });

  it('npm and wheel: an empty PATH entry (the current directory) is not searched', async () => {
    const w = world();
    const searchPath = `${path.delimiter}${w.s.bin}`;
    const prefix = path.join(w.s.root, 'prefix');
    const r = await npmInstall(w, prefix, {
      PATH: searchPath,
      PROJECT_STARTUP_NODE: 'node'
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect((await render(w, configD(prefix), {})).command?.[0]).toBe(
      w.pathNode
    );
    // The wheel's default lookup (no PROJECT_STARTUP_NODE) and the named one.
    const lookups: Record<string, string>[] = [
      {},
      { PROJECT_STARTUP_NODE: 'node' }
    ];
    for (const named of lookups) {
      const rendered = await render(w, 'wheel', { PATH: searchPath, ...named });
      expect(rendered.command?.[0]).toBe(w.pathNode);
    }
    expect(fs.existsSync(w.marker)).toBe(false);
  });

  it('npm and wheel: paths with braces come back literally from the proxy, and the entry launches', async () => {
    const w = world();
    const braced = path.join(w.s.root, 'node{0}{port}');
    fs.mkdirSync(braced);
    const bracedNode = path.join(braced, 'node');
    fs.symlinkSync(process.execPath, bracedNode);

    const prefix = path.join(w.s.root, 'prefix{base_url}}');
    const r = await npmInstall(w, prefix, { PROJECT_STARTUP_NODE: bracedNode });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const npm = await render(w, configD(prefix), {});
    const bin = path.join(
      prefix,
      'share',
      'jupyter',
      'jupyterlab-project-startup',
      'node',
      'bin',
      'project-startup.js'
    );
    expect(npm.error).toBeUndefined();
    expect(npm.command?.slice(0, 2)).toEqual([bracedNode, bin]);
    expect(npm.command?.slice(-4)).toEqual([
      '--unix-socket',
      '/run/x/socket',
      '--base-url',
      '/user/a/'
    ]);
    const launched = await runProcess(
      npm.command?.[0] ?? '',
      [npm.command?.[1] ?? '', '--version'],
      { cwd: w.shared, env: { PATH: w.s.bin }, timeoutMs: 15000 }
    );
    expect(launched.stdout.trim()).toBe(VERSION);

    // The wheel, installed under a directory with braces too.
    const site = path.join(w.s.root, 'site{x}');
    fs.mkdirSync(path.join(site, 'jupyterlab_project_startup'), {
      recursive: true
    });
    for (const file of fs
      .readdirSync(path.join(REPO_ROOT, 'jupyterlab_project_startup'))
      .filter(f => f.endsWith('.py'))) {
      fs.copyFileSync(
        path.join(REPO_ROOT, 'jupyterlab_project_startup', file),
        path.join(site, 'jupyterlab_project_startup', file)
      );
    }
    const wheel = await render(
      w,
      'wheel',
      { PATH: w.s.bin, PROJECT_STARTUP_NODE: bracedNode },
      [site]
    );
    expect(wheel.error).toBeUndefined();
    expect(wheel.command?.slice(0, 2)).toEqual([
      bracedNode,
      path.join(
        site,
        'jupyterlab_project_startup',
        'node',
        'bin',
        'project-startup.js'
      )
    ]);
    expect(await launchNode(w, wheel.command ?? [])).toBe(process.version);
    expect(fs.existsSync(w.marker)).toBe(false);
  });
});
