// `project-startup jupyter install|uninstall`, run as a person would, against temporary
// Jupyter paths: what lands where, what is kept, and what is taken away again.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { BIN, REPO_ROOT, runCli, trackedSandboxes } from './helpers/cli';

const sandbox = trackedSandboxes();
const NAME = 'jupyterlab-project-startup';
const BUILT = path.join(REPO_ROOT, 'jupyterlab_project_startup', 'labextension');

// eslint-disable-next-line @typescript-eslint/no-explicit-any
function readJson(file: string): Record<string, any> {
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}

/** A stand-in Python that answers sys.prefix and whether jupyter_server_proxy imports. */
function fakePython(dir: string, prefix: string, hasProxy: boolean): string {
  const file = path.join(dir, 'fake-python');
  fs.writeFileSync(
    file,
    `#!/bin/sh\ncase "$2" in\n  *jupyter_server_proxy*) exit ${hasProxy ? 0 : 1};;\n  *) echo "${prefix}";;\nesac\n`,
    { mode: 0o755 }
  );
  return file;
}

beforeAll(() => {
  if (!fs.existsSync(path.join(BUILT, 'package.json'))) {
    throw new Error('The prebuilt labextension is missing: run `npm run build:labextension` (npm test does) first.');
  }
});

describe('project-startup jupyter install', () => {
  it('--prefix: copies the labextension and writes the proxy entry for jupyter_server 1.x and 2.x, keeping other config', async () => {
    const s = sandbox();
    const prefix = path.join(s.root, 'prefix');
    const configDir = path.join(prefix, 'etc', 'jupyter');
    fs.mkdirSync(configDir, { recursive: true });
    const existing = {
      ServerApp: { ip: '127.0.0.1' },
      ServerProxy: { servers: { other: { command: ['other-app', '{port}'] } }, host_allowlist: ['localhost'] }
    };
    fs.writeFileSync(path.join(configDir, 'jupyter_server_config.json'), JSON.stringify(existing));
    const python = fakePython(s.root, '/unused', false);

    const r = await runCli(['jupyter', 'install', '--prefix', prefix], { env: { ...s.env, PROJECT_STARTUP_PYTHON: python }, cwd: s.projectDir });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);

    const installed = path.join(prefix, 'share', 'jupyter', 'labextensions', NAME);
    expect(readJson(path.join(installed, 'package.json')).name).toBe(NAME);
    expect(readJson(path.join(installed, 'package.json')).jupyterlab._build).toBeDefined();
    expect(fs.readdirSync(path.join(installed, 'static')).some(f => /^remoteEntry\..*\.js$/.test(f))).toBe(true);

    const d = readJson(path.join(configDir, 'jupyter_server_config.d', `${NAME}.json`));
    const entry = d.ServerProxy.servers.project;
    expect(entry.command).toEqual([
      process.execPath,
      BIN,
      'serve',
      '--ingress',
      'notebook-server-proxy',
      '--unix-socket',
      '{unix_socket}',
      '--base-url',
      '{base_url}'
    ]);
    expect(entry).toMatchObject({ unix_socket: true, absolute_url: true });
    expect(entry.timeout).toBeGreaterThanOrEqual(5);

    const main = readJson(path.join(configDir, 'jupyter_server_config.json'));
    expect(main.ServerApp).toEqual(existing.ServerApp);
    expect(main.ServerProxy.host_allowlist).toEqual(['localhost']);
    expect(main.ServerProxy.servers.other).toEqual(existing.ServerProxy.servers.other);
    expect(main.ServerProxy.servers.project).toEqual(entry);

    expect(r.stdout).toContain(installed);
    expect(r.stdout).toMatch(/Install jupyter-server-proxy for .*fake-python/);
    expect(r.stdout).toMatch(/Restart the Jupyter server/);
  });

  it('--user follows JUPYTER_DATA_DIR and JUPYTER_CONFIG_DIR; a second install replaces the first', async () => {
    const s = sandbox();
    const env = { ...s.env, JUPYTER_DATA_DIR: path.join(s.root, 'data'), JUPYTER_CONFIG_DIR: path.join(s.root, 'config') };
    for (let i = 0; i < 2; i++) {
      const r = await runCli(['jupyter', 'install', '--user'], { env, cwd: s.projectDir });
      expect(r.code).toBe(0);
    }
    expect(fs.existsSync(path.join(s.root, 'data', 'labextensions', NAME, 'package.json'))).toBe(true);
    expect(readJson(path.join(s.root, 'config', 'jupyter_server_config.json')).ServerProxy.servers.project.unix_socket).toBe(true);
  });

  it('--sys-prefix asks the Python that runs Jupyter for its prefix, and says when jupyter-server-proxy is there', async () => {
    const s = sandbox();
    const prefix = path.join(s.root, 'sysprefix');
    const python = fakePython(s.root, prefix, true);
    const r = await runCli(['jupyter', 'install', '--sys-prefix'], { env: { ...s.env, PROJECT_STARTUP_PYTHON: python }, cwd: s.projectDir });
    expect(r.code).toBe(0);
    expect(fs.existsSync(path.join(prefix, 'share', 'jupyter', 'labextensions', NAME))).toBe(true);
    expect(fs.existsSync(path.join(prefix, 'etc', 'jupyter', 'jupyter_server_config.d', `${NAME}.json`))).toBe(true);
    expect(r.stdout).not.toMatch(/Install jupyter-server-proxy/);
  });

  it('refuses a config file that is not JSON, changing nothing', async () => {
    const s = sandbox();
    const prefix = path.join(s.root, 'prefix');
    fs.mkdirSync(path.join(prefix, 'etc', 'jupyter'), { recursive: true });
    fs.writeFileSync(path.join(prefix, 'etc', 'jupyter', 'jupyter_server_config.json'), '{ not json');
    const r = await runCli(['jupyter', 'install', '--prefix', prefix], { env: s.env, cwd: s.projectDir });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/jupyter_server_config\.json is not valid JSON/);
    expect(fs.existsSync(path.join(prefix, 'share'))).toBe(false);
    expect(fs.readFileSync(path.join(prefix, 'etc', 'jupyter', 'jupyter_server_config.json'), 'utf8')).toBe('{ not json');
  });

  it('never replaces a labextension of another package at the same place', async () => {
    const s = sandbox();
    const prefix = path.join(s.root, 'prefix');
    const foreign = path.join(prefix, 'share', 'jupyter', 'labextensions', NAME);
    fs.mkdirSync(foreign, { recursive: true });
    fs.writeFileSync(path.join(foreign, 'package.json'), JSON.stringify({ name: 'someone-else' }));
    const r = await runCli(['jupyter', 'install', '--prefix', prefix], { env: s.env, cwd: s.projectDir });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/not this package's labextension/);
    expect(readJson(path.join(foreign, 'package.json')).name).toBe('someone-else');
  });

  it('rejects two scopes at once and unknown actions', async () => {
    const s = sandbox();
    expect((await runCli(['jupyter', 'install', '--user', '--prefix', '/x'], { env: s.env, cwd: s.projectDir })).code).toBe(2);
    expect((await runCli(['jupyter', 'reinstall'], { env: s.env, cwd: s.projectDir })).code).toBe(2);
    expect((await runCli(['jupyter', '--help'], { env: s.env, cwd: s.projectDir })).stdout).toMatch(/--sys-prefix/);
  });
});

describe('project-startup jupyter uninstall', () => {
  it('removes exactly what install wrote and keeps everything else', async () => {
    const s = sandbox();
    const prefix = path.join(s.root, 'prefix');
    const configDir = path.join(prefix, 'etc', 'jupyter');
    fs.mkdirSync(configDir, { recursive: true });
    const existing = { ServerApp: { ip: '127.0.0.1' }, ServerProxy: { servers: { other: { command: ['other-app'] } } } };
    fs.writeFileSync(path.join(configDir, 'jupyter_server_config.json'), JSON.stringify(existing));
    const otherExtension = path.join(prefix, 'share', 'jupyter', 'labextensions', 'other-ext');
    fs.mkdirSync(otherExtension, { recursive: true });

    expect((await runCli(['jupyter', 'install', '--prefix', prefix], { env: s.env, cwd: s.projectDir })).code).toBe(0);
    const r = await runCli(['jupyter', 'uninstall', '--prefix', prefix], { env: s.env, cwd: s.projectDir });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Removed:/);
    expect(fs.existsSync(path.join(prefix, 'share', 'jupyter', 'labextensions', NAME))).toBe(false);
    expect(fs.existsSync(otherExtension)).toBe(true);
    expect(fs.existsSync(path.join(configDir, 'jupyter_server_config.d', `${NAME}.json`))).toBe(false);
    expect(readJson(path.join(configDir, 'jupyter_server_config.json'))).toEqual(existing);

    const again = await runCli(['jupyter', 'uninstall', '--prefix', prefix], { env: s.env, cwd: s.projectDir });
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/Nothing of jupyterlab-project-startup is installed/);
  });

  it('deletes the 1.x config file when only our entry was in it', async () => {
    const s = sandbox();
    const prefix = path.join(s.root, 'prefix');
    expect((await runCli(['jupyter', 'install', '--prefix', prefix], { env: s.env, cwd: s.projectDir })).code).toBe(0);
    expect((await runCli(['jupyter', 'uninstall', '--prefix', prefix], { env: s.env, cwd: s.projectDir })).code).toBe(0);
    expect(fs.existsSync(path.join(prefix, 'etc', 'jupyter', 'jupyter_server_config.json'))).toBe(false);
  });
});

