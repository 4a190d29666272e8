// The npm package, installed as an operator would: `npm pack` of this checkout, `npm install -g
// --prefix <tmp>` of the tarball (offline, into an empty npm cache: it has no dependencies), then
// the installed `project-startup jupyter install --prefix <jupyter prefix>`. The real `jupyter
// lab` (JupyterLab 4.6.4 on jupyter_server 2.21.1, from the real stack's venv without the wheel,
// behind the real jupyter-server-proxy from ../shared/vendor/python) whose
// search paths include that prefix (JUPYTER_PATH, JUPYTER_CONFIG_PATH) then serves the panel in
// Chromium: awaiting confirmation, confirmed, ready, through the proxy entry. While it runs, the
// npm prefix is moved away, so nothing can depend on it; nothing written names the checkout.
// Last, `uninstall` leaves the Jupyter prefix empty, and a second one finds nothing.
//
// Needs `npm run build` (npm test runs it), the real stack (`bash .ci/python-env.sh`) and the apt
// step of .ci/run; missing parts fail the test with what to do.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import {
  Browser,
  checkPrerequisites,
  httpRequest,
  LabServer,
  launchBrowser,
  openLab,
  PageProblems,
  PROJECT_LABEXTENSION,
  REPO_ROOT,
  screenshot,
  serverProxyLocation,
  startLabServer,
  stopAllLabServers
} from '../e2e/helpers';

const NAME = 'jupyterlab-project-startup';
const BASE_URL = '/user/alice/';
const PANEL = '#jp-project-startup-panel';
const PYTHON = '/usr/bin/python3';
const NPM = path.join(path.dirname(process.execPath), 'npm');
const PATH_WITH_NODE = [
  path.dirname(process.execPath),
  '/usr/bin',
  '/bin'
].join(':');

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

function run(
  file: string,
  args: string[],
  env: Record<string, string>,
  cwd: string,
  timeoutMs = 120000
): Run {
  const result = spawnSync(file, args, {
    env,
    cwd,
    encoding: 'utf8',
    timeout: timeoutMs
  });
  return {
    status: result.status,
    stdout: result.stdout ?? '',
    stderr: result.stderr ?? ''
  };
}

function ok(what: string, result: Run): Run {
  if (result.status !== 0) {
    throw new Error(
      `${what} failed (status ${result.status}):\n${result.stdout}\n${result.stderr}`
    );
  }
  return result;
}

/** Every entry below `dir` (relative; directories end with /), sorted. */
function tree(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
      const full = path.join(d, entry.name);
      out.push(
        entry.isDirectory()
          ? `${path.relative(dir, full)}/`
          : path.relative(dir, full)
      );
      if (entry.isDirectory()) {
        walk(full);
      }
    }
  };
  walk(dir);
  return out.sort();
}

function du(dir: string): number {
  let total = 0;
  for (const entry of tree(dir)) {
    if (!entry.endsWith('/')) {
      total += fs.lstatSync(path.join(dir, entry)).size;
    }
  }
  return total;
}

describe('npm package: npm pack → npm install -g → project-startup jupyter install → the panel in JupyterLab → uninstall', () => {
  let root = '';
  let browser: Browser | undefined;
  let server: LabServer | undefined;

  beforeAll(() => {
    checkPrerequisites();
    for (const needed of [
      path.join(PROJECT_LABEXTENSION, 'package.json'),
      path.join(REPO_ROOT, 'sidecar', 'dist', 'bundle', 'project-startup.js'),
      path.join(REPO_ROOT, 'lib', 'index.js')
    ]) {
      if (!fs.existsSync(needed)) {
        throw new Error(
          `${needed} is missing: run \`npm run build\` (npm test does) first.`
        );
      }
    }
    root = fs.realpathSync(
      fs.mkdtempSync(path.join(os.tmpdir(), 'ps-npm-package-'))
    );
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await stopAllLabServers();
    if (root) {
      fs.rmSync(root, { recursive: true, force: true });
    }
  }, 60000);

  test('an operator installs it from the tarball, the panel reaches ready, and uninstall leaves nothing', async () => {
    const npmEnv = {
      PATH: PATH_WITH_NODE,
      HOME: path.join(root, 'home'),
      LANG: 'C.UTF-8'
    };
    fs.mkdirSync(npmEnv.HOME);

    // 1. The tarball: packed from the built checkout (--ignore-scripts: the build already ran,
    //    and must not be redone under other suites' feet).
    const packed = ok(
      'npm pack',
      run(
        NPM,
        [
          'pack',
          '--ignore-scripts',
          '--json',
          '--pack-destination',
          root,
          '--cache',
          path.join(root, 'npm-cache')
        ],
        npmEnv,
        REPO_ROOT
      )
    );
    const [pack] = JSON.parse(packed.stdout) as {
      filename: string;
      size: number;
      unpackedSize: number;
      files: { path: string }[];
    }[];
    const files = pack.files.map(f => f.path);
    for (const needed of [
      'LICENSE',
      'bin/project-startup.js',
      'jupyter-config/jupyter_server_config.d/jupyterlab-project-startup.json',
      'jupyterlab_project_startup/labextension/package.json',
      'sidecar/dist/bundle/project-startup.js',
      'sidecar/dist/bundle/project-startup.cache',
      'sidecar/dist/bundle/listen-first.js',
      'sidecar/dist/THIRD_PARTY_LICENSES.md',
      'sidecar/dist/api-docs/swagger-ui-bundle.js',
      'sidecar/schemas/startup.schema.json',
      'sidecar/static/setup.html'
    ]) {
      expect(files).toContain(needed);
    }
    expect(
      files.some(f =>
        /^jupyterlab_project_startup\/labextension\/static\/remoteEntry\..*\.js$/.test(
          f
        )
      )
    ).toBe(true);
    // The unbundled tree, tests and sources stay out.
    expect(
      files.filter(
        f =>
          /^sidecar\/dist\/[^/]+\.js$/.test(f) ||
          f.startsWith('test/') ||
          f.startsWith('sidecar/src/') ||
          f.includes('node_modules/')
      )
    ).toEqual([]);
    const manifest = JSON.parse(
      fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')
    ) as { dependencies?: Record<string, string> };
    expect(manifest.dependencies ?? {}).toEqual({});

    // 2. A global install into a fresh prefix, offline and from an empty cache: no dependency to fetch.
    const npmPrefix = path.join(root, 'npm-prefix');
    ok(
      'npm install -g',
      run(
        NPM,
        [
          'install',
          '-g',
          '--prefix',
          npmPrefix,
          '--offline',
          '--cache',
          path.join(root, 'npm-cache-install'),
          '--no-audit',
          '--no-fund',
          path.join(root, pack.filename)
        ],
        npmEnv,
        root
      )
    );
    const installedPackage = path.join(npmPrefix, 'lib', 'node_modules', NAME);
    expect(fs.existsSync(path.join(installedPackage, 'node_modules'))).toBe(
      false
    );
    expect(fs.readdirSync(path.join(npmPrefix, 'lib', 'node_modules'))).toEqual(
      [NAME]
    );
    process.stdout.write(
      `npm package: tarball ${pack.filename} ${Math.round(pack.size / 1024)} KiB (unpacked ${Math.round(pack.unpackedSize / 1024)} KiB); installed prefix ${Math.round(du(npmPrefix) / 1024)} KiB\n`
    );

    // 3. The operator's step, with the installed command, into a Jupyter prefix.
    const jupyterPrefix = path.join(root, 'jupyter-prefix');
    fs.mkdirSync(jupyterPrefix); // the operator's (empty) prefix
    // The Jupyter's Python, with the real jupyter-server-proxy the server below runs (installed,
    // or the vendored copy on PYTHONPATH): the install checks its version.
    const proxy = serverProxyLocation(PYTHON);
    const operatorEnv = {
      ...npmEnv,
      PROJECT_STARTUP_PYTHON: PYTHON,
      PYTHONDONTWRITEBYTECODE: '1',
      ...(proxy.pythonPath ? { PYTHONPATH: proxy.pythonPath } : {})
    };
    const command = path.join(npmPrefix, 'bin', 'project-startup');
    const install = ok(
      'project-startup jupyter install',
      run(
        command,
        ['jupyter', 'install', '--prefix', jupyterPrefix],
        operatorEnv,
        root,
        60000
      )
    );
    expect(install.stderr).toBe('');
    expect(install.stdout).toContain(
      `Installed the JupyterLab extension: ${path.join(jupyterPrefix, 'share', 'jupyter', 'labextensions', NAME)}`
    );
    const written = tree(jupyterPrefix);
    expect(written.length).toBeGreaterThan(10);
    // Nothing written points into the checkout or the npm prefix (V8's code cache keeps the name
    // of the script it was made from as data; the sidecar copy's own start below uses it).
    for (const file of written.filter(
      p => !p.endsWith('/') && !p.endsWith('.cache')
    )) {
      const text = fs.readFileSync(path.join(jupyterPrefix, file), 'utf8');
      expect({
        file,
        checkout: text.includes(REPO_ROOT),
        npmPrefix: text.includes(npmPrefix)
      }).toEqual({ file, checkout: false, npmPrefix: false });
    }
    const entry = JSON.parse(
      fs.readFileSync(
        path.join(
          jupyterPrefix,
          'etc',
          'jupyter',
          'jupyter_server_config.json'
        ),
        'utf8'
      )
    ).ServerProxy.servers.project;
    expect(entry.command.slice(0, 2)).toEqual([
      process.execPath,
      path.join(
        jupyterPrefix,
        'share',
        'jupyter',
        NAME,
        'node',
        'bin',
        'project-startup.js'
      )
    ]);

    // The npm package goes away while Jupyter runs: nothing may need it.
    const movedPrefix = `${npmPrefix}-moved`;
    fs.renameSync(npmPrefix, movedPrefix);

    // 4. Jupyter with that prefix on its search paths, and the panel in Chromium.
    server = await startLabServer({
      baseUrl: BASE_URL,
      label: 'npm-package-server',
      // The same real JupyterLab without the wheel: what serves the project is the npm package.
      wheel: false,
      env: {
        JUPYTER_PATH: path.join(jupyterPrefix, 'share', 'jupyter'),
        JUPYTER_CONFIG_PATH: path.join(jupyterPrefix, 'etc', 'jupyter')
      }
    });
    const s = server;
    const auth = { authorization: `token ${s.token}` };
    const capabilities = await httpRequest(`${s.base}project/capabilities`, {
      headers: auth
    });
    expect(capabilities.status).toBe(200);
    const before = await httpRequest(
      `${s.base}project/startup?interface=notebook`,
      { headers: auth }
    );
    expect(before.status).toBe(200);
    expect(before.json).toMatchObject({
      interface: 'notebook',
      phase: 'awaiting-confirmation',
      projectPath: s.dirs.project
    });
    expect(
      (await httpRequest(`${s.base}project/startup?interface=notebook`)).status
    ).not.toBe(200); // Jupyter's login first

    browser = await launchBrowser();
    const page: Page = await browser.newPage();
    await page.setViewportSize({ width: 1280, height: 1000 });
    const problems = new PageProblems(page);
    await openLab(page, s);
    const config = await page.evaluate(() =>
      JSON.parse(
        document.getElementById('jupyter-config-data')?.textContent ?? '{}'
      )
    );
    // Once, from the npm install (this JupyterLab runs without the wheel); beside it the real
    // stack's own prebuilt extensions (Notebook's lab extension, Pygments).
    expect(
      config.federated_extensions
        .map((e: { name: string }) => e.name)
        .filter((name: string) => name === NAME)
    ).toEqual([NAME]);
    const panel = page.locator(PANEL);
    // Setup is incomplete, so the panel opens by itself (the default setting).
    await panel.waitFor({ state: 'visible', timeout: 30000 });
    await panel
      .locator('.jp-ProjectStartup-phaseBadge.jp-mod-awaiting-confirmation')
      .waitFor({ state: 'visible', timeout: 20000 });
    await screenshot(page, 'npm-package-awaiting-confirmation');
    await panel.getByRole('button', { name: 'Initialize project' }).click();
    const dialog = page.locator('.jp-Dialog');
    await dialog.waitFor({ state: 'visible' });
    const initialized = page.waitForResponse(
      r => new URL(r.url()).pathname === `${BASE_URL}project/initialize`,
      { timeout: 20000 }
    );
    await dialog.locator('.jp-mod-accept').click();
    expect((await initialized).status()).toBe(201);
    await panel
      .locator('.jp-ProjectStartup-phaseBadge.jp-mod-ready')
      .waitFor({ state: 'visible', timeout: 20000 });
    await screenshot(page, 'npm-package-ready');
    const after = await httpRequest(
      `${s.base}project/startup?interface=notebook`,
      { headers: auth }
    );
    expect(after.json.phase).toBe('ready');
    expect(
      fs.existsSync(
        path.join(s.dirs.project, '.project-startup', 'initialization.json')
      )
    ).toBe(true);
    expect(problems.unexpected()).toEqual([]);
    await page.close();
    await s.stop();
    server = undefined;

    // 5. Uninstall, with the command from where the npm package now is: nothing of ours is left.
    fs.renameSync(movedPrefix, npmPrefix);
    const uninstall = ok(
      'project-startup jupyter uninstall',
      run(
        command,
        ['jupyter', 'uninstall', '--prefix', jupyterPrefix],
        npmEnv,
        root,
        60000
      )
    );
    expect(uninstall.stdout).toMatch(/^Removed:/);
    expect(tree(jupyterPrefix)).toEqual([]);
    const again = ok(
      'project-startup jupyter uninstall (again)',
      run(
        command,
        ['jupyter', 'uninstall', '--prefix', jupyterPrefix],
        npmEnv,
        root,
        60000
      )
    );
    expect(again.stdout).toMatch(
      /^Nothing of jupyterlab-project-startup is installed/
    );
    expect(again.stderr).toBe('');
  }, 300000);
});
