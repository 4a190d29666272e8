// The Python package, installed as an operator would: this checkout's wheel, pip-installed into
// the real stack's venv (JupyterLab 4.6.4, Notebook 7.6.3, jupyter_server 2.21.1: realStack(),
// installed by test/helpers/real-stack-setup.js), away from the checkout. Its contents and
// metadata; `jupyter server extension list` and jupyterlab_server find its server extension and
// labextension; its `project-startup` command runs the bundled sidecar; a Jupyter server from
// that venv with nothing configured but jupyter-server-proxy enabled, at base_url /user/alice/,
// launches the sidecar through the proxy entry point and guards its routes with Jupyter's
// authentication. Then the bad inputs: Node missing, Node too old, jupyter-server-proxy missing,
// each answered by the diagnostics route with the problem and its fix, while the server keeps
// serving everything else; and a bad setting, which the sidecar itself answers (503
// misconfigured) and the diagnostics route reports. Last, the panel in the real `jupyter lab`.
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { interpretDiagnostics } from '../../../src/responses';
import type { Page } from 'playwright-core';
import {
  httpRequest,
  LabServer,
  logWindow,
  openLab,
  screenshot,
  startLabServer,
  stopAllLabServers
} from '../e2e/helpers';
import {
  ADMINISTRATOR_FIXES,
  administratorNotification,
  BASE_URL,
  expectFirstScreen,
  expectNodeMissingShown,
  expectStateInBothThemes,
  pageSuite,
  INITIALIZE_PATH,
  PANEL,
  STARTUP_PATH,
  waitForPhase
} from '../e2e/panel-helpers';
import { tempRoot } from '../../helpers/harness';
import { realStack, RealStack } from '../../helpers/real-stack';
import {
  checkPrerequisites,
  Jupyter,
  logged,
  PACKAGE_VERSION,
  REPO_ROOT,
  runPython,
  serverProxyPath,
  startJupyter,
  stopAllJupyters,
  wheelNames
} from './python';

const LABEXT = 'share/jupyter/labextensions/jupyterlab-project-startup';
const DIAGNOSTICS = 'api/project-startup/diagnostics';

interface Problem {
  code: string;
  title: string;
  detail: string;
  fix: string;
}

interface Diagnostics {
  version: string;
  ok: boolean;
  problems: Problem[];
  node: { path: string | null; version: string | null; required: string };
  serverProxy: { version: string | null; required: string };
  sidecar: {
    state: string;
    lastError: string | null;
    logTail: string[];
    diagnosticsFile: string;
  };
}

let root: string;
/** The real stack's venv, holding this checkout's wheel as pip installed it. */
let stack: RealStack;
let wheel: string;
let python: string;

beforeAll(() => {
  checkPrerequisites();
  root = tempRoot('ps-wheel-');
  stack = realStack();
  wheel = stack.wheel;
  python = stack.python;
}, 300000);

afterAll(async () => {
  await stopAllJupyters();
  await stopAllLabServers();
  if (root) {
    fs.rmSync(root, { recursive: true, force: true });
  }
}, 60000);

const auth = (j: Jupyter) => ({ authorization: `token ${j.token}` });

async function diagnostics(j: Jupyter): Promise<Diagnostics> {
  const url = `${j.base}${DIAGNOSTICS}`;
  const answer = await httpRequest(url, { headers: auth(j) });
  expect(answer.status).toBe(200);
  expect(answer.headers['content-type']).toMatch(/^application\/json/);
  expect(answer.text).not.toContain(j.token);
  // The panel reads this very answer as a report (src/responses.ts).
  const read = interpretDiagnostics({
    url,
    status: answer.status,
    statusText: '',
    contentType: String(answer.headers['content-type']),
    text: answer.text
  });
  expect(read).toEqual({ kind: 'report', report: answer.json });
  return answer.json as Diagnostics;
}

/** The server's output matches, once what it logged has come through the pipe (bounded). */
async function expectLogged(j: Jupyter, pattern: RegExp): Promise<void> {
  expect(await logged(j, pattern)).toMatch(pattern);
}

function problem(report: Diagnostics, code: string): Problem {
  const found = report.problems.find(p => p.code === code);
  if (!found) {
    throw new Error(`no problem ${code} in ${JSON.stringify(report.problems)}`);
  }
  for (const field of ['title', 'detail', 'fix'] as const) {
    expect(found[field].length).toBeGreaterThan(10);
  }
  return found;
}

describe('the wheel', () => {
  it('holds the labextension with install.json, the config.d file, the sidecar runtime without node_modules, and the entry point', () => {
    const names = wheelNames(wheel);
    const data = `jupyterlab_project_startup-${PACKAGE_VERSION}.data/data/`;
    expect(names).toEqual(
      expect.arrayContaining([
        `${data}${LABEXT}/package.json`,
        `${data}${LABEXT}/install.json`,
        `${data}${LABEXT}/schemas/jupyterlab-project-startup/plugin.json`,
        `${data}etc/jupyter/jupyter_server_config.d/jupyterlab_project_startup.json`,
        'jupyterlab_project_startup/__init__.py',
        'jupyterlab_project_startup/handlers.py',
        'jupyterlab_project_startup/checks.py',
        'jupyterlab_project_startup/private_file.py',
        'jupyterlab_project_startup/client.py',
        'jupyterlab_project_startup/command.py',
        'jupyterlab_project_startup/launch_log.py',
        'jupyterlab_project_startup/discovery.py',
        'jupyterlab_project_startup/display.py',
        'jupyterlab_project_startup/configurable.py',
        'jupyterlab_project_startup/project_search.py',
        'jupyterlab_project_startup/node/sidecar/schemas/site-config.schema.json',
        'jupyterlab_project_startup/manifest_words.json',
        'jupyterlab_project_startup/node/package.json',
        'jupyterlab_project_startup/node/bin/project-startup.js',
        'jupyterlab_project_startup/node/sidecar/dist/bundle/project-startup.js',
        'jupyterlab_project_startup/node/sidecar/dist/api-docs/swagger-ui-bundle.js',
        'jupyterlab_project_startup/node/sidecar/dist/bundle/project-startup.cache',
        'jupyterlab_project_startup/node/sidecar/dist/bundle/listen-first.js',
        'jupyterlab_project_startup/node/sidecar/dist/THIRD_PARTY_LICENSES.md',
        'jupyterlab_project_startup/node/sidecar/static/setup.html',
        'jupyterlab_project_startup/node/sidecar/schemas/startup.schema.json',
        `jupyterlab_project_startup-${PACKAGE_VERSION}.dist-info/entry_points.txt`,
        `jupyterlab_project_startup-${PACKAGE_VERSION}.dist-info/licenses/LICENSE`
      ])
    );
    expect(
      names.some(n => n.startsWith(`${data}${LABEXT}/static/remoteEntry.`))
    ).toBe(true);
    expect(names.filter(n => n.includes('node_modules'))).toEqual([]);
    // The labextension is shared data only, not a second copy inside the package.
    expect(
      names.filter(n =>
        n.startsWith('jupyterlab_project_startup/labextension/')
      )
    ).toEqual([]);
    // Only the runtime: no unbundled sidecar, no TypeScript, no tests.
    expect(names.filter(n => /\.ts$|\/test\/|sidecar\/src\//.test(n))).toEqual(
      []
    );

    const site = fs
      .readdirSync(path.join(stack.venv, 'lib'))
      .map(v => path.join(stack.venv, 'lib', v, 'site-packages'))[0];
    const entryPoints = fs.readFileSync(
      path.join(
        site,
        `jupyterlab_project_startup-${PACKAGE_VERSION}.dist-info`,
        'entry_points.txt'
      ),
      'utf8'
    );
    expect(entryPoints).toMatch(
      /\[jupyter_serverproxy_servers\]\s*\nproject = jupyterlab_project_startup:setup_project_startup/
    );
    expect(entryPoints).toMatch(
      /\[console_scripts\]\s*\nproject-startup = jupyterlab_project_startup\.command:main/
    );
    const metadata = fs.readFileSync(
      path.join(
        site,
        `jupyterlab_project_startup-${PACKAGE_VERSION}.dist-info`,
        'METADATA'
      ),
      'utf8'
    );
    expect(metadata).toMatch(/^Requires-Python: >=3\.9$/m);
    expect(metadata).toMatch(/^Requires-Dist: jupyter-server-proxy>=4\.1$/m);
    expect(metadata).toMatch(/^Requires-Dist: jupyter-server>=2\.4$/m);
    // The licence travels with the wheel (BSD-3-Clause asks that binary redistributions carry it).
    expect(metadata).toMatch(/^License: BSD-3-Clause$/m);
    expect(metadata).toMatch(/^License-File: LICENSE$/m);
    expect(
      fs.readFileSync(
        path.join(
          site,
          `jupyterlab_project_startup-${PACKAGE_VERSION}.dist-info`,
          'licenses',
          'LICENSE'
        ),
        'utf8'
      )
    ).toBe(fs.readFileSync(path.join(REPO_ROOT, 'LICENSE'), 'utf8'));
    expect(
      JSON.parse(
        fs.readFileSync(
          path.join(site, 'jupyterlab_project_startup', 'node', 'package.json'),
          'utf8'
        )
      )
    ).toEqual({
      name: 'jupyterlab-project-startup',
      version: PACKAGE_VERSION
    });
    const installJson = JSON.parse(
      fs.readFileSync(path.join(stack.venv, LABEXT, 'install.json'), 'utf8')
    );
    expect(installJson).toMatchObject({
      packageManager: 'python',
      packageName: 'jupyterlab-project-startup'
    });
  });

  it('`jupyter server extension list` with the venv python shows the server extension enabled and OK', () => {
    const env = {
      PATH: '/usr/bin:/bin',
      HOME: path.join(root, 'home'),
      LANG: 'C.UTF-8',
      PYTHONDONTWRITEBYTECODE: '1',
      JUPYTER_CONFIG_DIR: path.join(root, 'config')
    };
    const listed = runPython(
      python,
      ['-m', 'jupyter_server.extension.serverextension', 'list'],
      env
    );
    expect(listed.status).toBe(0);
    expect(listed.output).toContain(
      `Config dir: ${path.join(stack.venv, 'etc', 'jupyter')}`
    );
    expect(listed.output).toMatch(/jupyterlab_project_startup enabled/);
    expect(listed.output).toContain(
      `jupyterlab_project_startup ${PACKAGE_VERSION} OK`
    );
  });

  it("JupyterLab's jupyterlab_server lists the labextension from the venv's share/jupyter/labextensions", () => {
    const script = [
      'import json',
      'from jupyter_core.paths import jupyter_path',
      'from jupyterlab_server.config import get_federated_extensions',
      'found = get_federated_extensions(jupyter_path("labextensions"))',
      'print(json.dumps({k: {"ext_path": v["ext_path"], "install": v.get("install"), "load": v["jupyterlab"]["_build"]["load"]} for k, v in found.items()}))'
    ].join('\n');
    const env = {
      PATH: '/usr/bin:/bin',
      HOME: path.join(root, 'home'),
      LANG: 'C.UTF-8',
      PYTHONDONTWRITEBYTECODE: '1',
      JUPYTER_DATA_DIR: path.join(root, 'data'),
      JUPYTER_PLATFORM_DIRS: '0'
    };
    const listed = runPython(python, ['-c', script], env);
    expect(listed.status).toBe(0);
    const found = JSON.parse(listed.output.trim().split('\n').pop() ?? '{}');
    expect(found['jupyterlab-project-startup']).toEqual({
      ext_path: path.join(stack.venv, LABEXT),
      install: expect.objectContaining({
        packageManager: 'python',
        packageName: 'jupyterlab-project-startup'
      }),
      load: expect.stringMatching(/^static\/remoteEntry\.[0-9a-f]+\.js$/)
    });
  });

  it("installs the notebook client where a kernel of the venv's Python imports it", () => {
    const env = {
      PATH: '/usr/bin:/bin',
      HOME: path.join(root, 'home'),
      LANG: 'C.UTF-8',
      PYTHONDONTWRITEBYTECODE: '1'
    };
    // -I: not from the checkout (the working directory), only from what is installed.
    const imported = runPython(
      python,
      [
        '-I',
        '-c',
        'from jupyterlab_project_startup import client; print(client.__file__)'
      ],
      env
    );
    expect(imported.status).toBe(0);
    const file = imported.output.trim().split('\n').pop() ?? '';
    expect(path.relative(stack.venv, file)).toMatch(
      /^lib\/python3\.\d+\/site-packages\/jupyterlab_project_startup\/client\.py$/
    );
  });

  describe('the `project-startup` command it installs', () => {
    const command = () => path.join(stack.bin, 'project-startup');
    /** A terminal's environment: PATH /usr/bin:/bin (which has node) unless `env` says otherwise. */
    const terminal = (env: Record<string, string> = {}) => {
      const home = path.join(root, 'command-home');
      fs.mkdirSync(path.join(home, 'project'), { recursive: true });
      return {
        cwd: path.join(home, 'project'),
        env: {
          PATH: '/usr/bin:/bin',
          HOME: home,
          LANG: 'C.UTF-8',
          PROJECT_STARTUP_RUNTIME_DIR: path.join(home, 'runtime'),
          ...env
        },
        encoding: 'utf8' as const,
        timeout: 30000
      };
    };

    it('runs the bundled sidecar: --version, capabilities --json, and its exit code', () => {
      const version = spawnSync(command(), ['--version'], terminal());
      expect(version.stderr).toBe('');
      expect(version.stdout.trim()).toBe(PACKAGE_VERSION);
      expect(version.status).toBe(0);

      const capabilities = spawnSync(
        command(),
        ['capabilities', '--json'],
        terminal()
      );
      expect(capabilities.status).toBe(0);
      expect(JSON.parse(capabilities.stdout)).toMatchObject({
        platform: { id: 'generic' },
        capabilities: expect.arrayContaining([
          expect.objectContaining({ id: 'gateway-ingress-modes' })
        ])
      });
      // The sidecar's own exit code comes back: init refuses a terminal confirmation here (3).
      const init = spawnSync(command(), ['init'], {
        ...terminal(),
        input: '\n'
      });
      expect(init.stderr).toMatch(/^Error \(confirmation-not-allowed\)/m);
      expect(init.status).toBe(3);
    });

    it('becomes Node itself (exec): the same process, and a signal reaches the sidecar directly', async () => {
      const socket = path.join(root, 'command-serve.sock');
      const child = spawn(
        command(),
        ['serve', '--unix-socket', socket],
        terminal()
      );
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const exited = new Promise<number | null>(resolve =>
        child.once('exit', code => resolve(code))
      );
      try {
        const deadline = Date.now() + 20000;
        while (!output.includes('Listening:') && Date.now() < deadline) {
          await new Promise(resolve => setTimeout(resolve, 50));
        }
        expect(output).toContain(`Listening: unix socket ${socket}`);
        expect(fs.realpathSync(`/proc/${child.pid}/exe`)).toBe(
          fs.realpathSync('/usr/bin/node')
        );
        child.kill('SIGTERM');
        expect(await exited).toBe(0);
        expect(output).toMatch(/"message":"stopping","signal":"SIGTERM"/);
      } finally {
        child.kill('SIGKILL');
      }
    }, 30000);

    it('without Node: one line on stderr saying what is missing and how to fix it, exit 2; PROJECT_STARTUP_NODE is honoured', () => {
      const emptyBin = path.join(root, 'command-empty-bin');
      fs.mkdirSync(emptyBin, { recursive: true });
      const missing = spawnSync(
        command(),
        ['--version'],
        terminal({ PATH: emptyBin })
      );
      expect(missing.status).toBe(2);
      expect(missing.stdout).toBe('');
      expect(missing.stderr.split('\n')).toEqual([
        'project-startup: Node.js was not found: Node.js 20 or newer is needed to run the project-startup command, and there is no `node` on PATH and no PROJECT_STARTUP_NODE. Install Node.js 20 or newer (22 or 24 recommended) and put it on PATH, or set PROJECT_STARTUP_NODE to the path of that node executable.',
        ''
      ]);
      const named = spawnSync(
        command(),
        ['--version'],
        terminal({ PATH: emptyBin, PROJECT_STARTUP_NODE: '/usr/bin/node' })
      );
      expect(named.stdout.trim()).toBe(PACKAGE_VERSION);
      expect(named.status).toBe(0);
      // The proxy entry's rule: a relative path is refused, whatever the directory holds.
      const relative = spawnSync(
        command(),
        ['--version'],
        terminal({ PROJECT_STARTUP_NODE: 'bin/node' })
      );
      expect(relative.status).toBe(2);
      expect(relative.stderr).toMatch(
        /^project-startup: Node\.js was not found: PROJECT_STARTUP_NODE is set to bin\/node, a relative path/
      );
    });
  });

  describe('a Jupyter server from the venv with only jupyter-server-proxy enabled', () => {
    let jupyter: Jupyter;
    beforeAll(async () => {
      jupyter = await startJupyter({ python, label: 'wheel-installed' });
    }, 60000);
    afterAll(() => jupyter?.stop(), 30000);

    it('logs the start-up checks: jupyter-server-proxy and Node found, where the service and its diagnostics are', async () => {
      const checks =
        /jupyterlab-project-startup [0-9.]+: jupyter-server-proxy 4\.\d+\.\d+, Node\.js \d+\.\d+\.\d+ \(\/usr\/bin\/node\); the service is at \/user\/alice\/project\/, its diagnostics at \/user\/alice\/api\/project-startup\/diagnostics/;
      await expectLogged(jupyter, checks);
      await expectLogged(
        jupyter,
        /jupyterlab_project_startup \| extension was successfully loaded/
      );
    });

    it("answers the panel's endpoints through the entry point `project`, with Jupyter's token", async () => {
      const before = await diagnostics(jupyter);
      expect(before.sidecar.state).toBe('not-started');

      const startup = await httpRequest(
        `${jupyter.base}project/startup?interface=notebook`,
        { headers: auth(jupyter) }
      );
      expect(startup.status).toBe(200);
      expect(startup.json).toMatchObject({
        interface: 'notebook',
        platform: 'generic',
        projectPath: jupyter.dirs.project
      });
      const capabilities = await httpRequest(
        `${jupyter.base}project/capabilities`,
        { headers: auth(jupyter) }
      );
      expect(capabilities.status).toBe(200);
      expect(capabilities.json).toMatchObject({ platform: { id: 'generic' } });
      const ingress = (
        capabilities.json.capabilities as { id: string; default?: string }[]
      ).find(c => c.id === 'gateway-ingress-modes');
      expect(ingress).toBeDefined();
      // Without Jupyter's credentials, Jupyter refuses before the proxy.
      const anonymous = await httpRequest(
        `${jupyter.base}project/capabilities`
      );
      expect([302, 403]).toContain(anonymous.status);

      const after = await diagnostics(jupyter);
      expect(after).toEqual({
        version: PACKAGE_VERSION,
        ok: true,
        problems: [],
        node: {
          path: '/usr/bin/node',
          version: expect.stringMatching(/^\d+\.\d+\.\d+$/),
          required: '>=20'
        },
        serverProxy: {
          version: expect.stringMatching(/^4\.\d+\.\d+/),
          required: '>=4.1'
        },
        sidecar: {
          state: 'running',
          lastError: null,
          logTail: [],
          diagnosticsFile: path.join(
            jupyter.dirs.runtime,
            `project-startup-${jupyter.pid}.json`
          ),
          // No site file here: the route says so, and where the sidecar looked (the
          // environment's own etc/jupyter among them).
          siteConfig: {
            file: null,
            looked: expect.arrayContaining([
              path.join(stack.venv, 'etc', 'jupyter', 'project-startup.json')
            ]),
            described: expect.stringMatching(/^none found \(looked in /)
          }
        }
      });
      const report = fs.statSync(after.sidecar.diagnosticsFile);
      expect(report.mode & 0o777).toBe(0o600);
    });

    it('the diagnostics route: refused without credentials, XSRF-checked for cookies even on GET, GET only', async () => {
      const url = `${jupyter.base}${DIAGNOSTICS}`;
      expect((await httpRequest(url)).status).toBe(403);
      expect(
        (
          await httpRequest(url, {
            headers: { authorization: 'token wrong-token' }
          })
        ).status
      ).toBe(403);

      // A browser session: the login cookie (from ?token=) and Jupyter's _xsrf cookie.
      const login = await httpRequest(
        `${jupyter.base}api/status?token=${jupyter.token}`
      );
      const session = (login.headers['set-cookie'] ?? [])
        .map(c => c.split(';')[0])
        .find(c => c.startsWith('username-'));
      expect(session).toBeDefined();
      const xsrfCookie = (
        (await httpRequest(`${jupyter.base}login`)).headers['set-cookie'] ?? []
      )
        .map(c => c.split(';')[0])
        .find(c => c.startsWith('_xsrf='));
      expect(xsrfCookie).toBeDefined();
      const xsrf = (xsrfCookie as string).slice('_xsrf='.length);

      // Jupyter's own API answers the cookie alone; this route does not, unless the page is
      // Jupyter's own (same-origin Referer) or sends the XSRF token as JupyterLab does.
      expect(
        (
          await httpRequest(`${jupyter.base}api/status`, {
            headers: { cookie: session as string }
          })
        ).status
      ).toBe(200);
      expect(
        (await httpRequest(url, { headers: { cookie: session as string } }))
          .status
      ).toBe(403);
      expect(
        (
          await httpRequest(url, {
            headers: {
              cookie: session as string,
              referer: 'http://evil.example/page'
            }
          })
        ).status
      ).toBe(403);
      const withXsrf = await httpRequest(url, {
        headers: { cookie: `${session}; ${xsrfCookie}`, 'x-xsrftoken': xsrf }
      });
      expect(withXsrf.status).toBe(200);
      expect((withXsrf.json as Diagnostics).ok).toBe(true);
      expect(
        (
          await httpRequest(url, {
            headers: {
              cookie: session as string,
              referer: `${jupyter.base}lab`
            }
          })
        ).status
      ).toBe(200);

      // GET only: a cookie POST without XSRF is refused first, a token POST is not allowed.
      expect(
        (
          await httpRequest(url, {
            method: 'POST',
            headers: { cookie: session as string },
            body: ''
          })
        ).status
      ).toBe(403);
      expect(
        (
          await httpRequest(url, {
            method: 'POST',
            headers: auth(jupyter),
            body: ''
          })
        ).status
      ).toBe(405);
      // No credential or environment value in any answer.
      expect(withXsrf.text).not.toContain(jupyter.token);
      expect(withXsrf.text).not.toContain(xsrf);
      expect(withXsrf.text).not.toContain(jupyter.dirs.sidecarRuntime);
    });
  });

  describe('bad input: a clear problem and fix, and the server keeps serving', () => {
    afterEach(() => stopAllJupyters(), 30000);

    async function expectStillServing(j: Jupyter): Promise<void> {
      const status = await httpRequest(`${j.base}api/status`, {
        headers: auth(j)
      });
      expect(status.status).toBe(200);
    }

    it('Node missing: PROJECT_STARTUP_NODE names nothing and PATH has no node', async () => {
      const emptyBin = path.join(root, 'empty-bin');
      fs.mkdirSync(emptyBin, { recursive: true });
      const missing = path.join(root, 'no-such-dir', 'node');
      const j = await startJupyter({
        python,
        label: 'node-missing',
        path: emptyBin,
        env: { PROJECT_STARTUP_NODE: missing }
      });
      await expectLogged(
        j,
        /jupyterlab-project-startup: Node\.js was not found\. PROJECT_STARTUP_NODE is set to .*no-such-dir\/node, which is not an executable file\. Fix: Set PROJECT_STARTUP_NODE/
      );

      const startup = await httpRequest(
        `${j.base}project/startup?interface=notebook`,
        { headers: auth(j) }
      );
      expect(startup.status).toBe(500);
      await expectStillServing(j);
      // The proxy entry's error reaches the server log as one line, without a traceback.
      await expectLogged(
        j,
        /500 GET \/user\/alice\/project\/startup.*Node\.js was not found/
      );
      expect(j.logs()).not.toMatch(/Traceback/);

      const report = await diagnostics(j);
      expect(report.ok).toBe(false);
      expect(report.node).toEqual({
        path: null,
        version: null,
        required: '>=20'
      });
      const p = problem(report, 'node-missing');
      expect(p.detail).toContain(missing);
      expect(p.fix).toContain('PROJECT_STARTUP_NODE');
      expect(report.sidecar.state).toBe('not-started');
    }, 60000);

    it('Node missing: one log entry per cause of the failed launches, not one per poll', async () => {
      const nodeBin = path.join(root, 'log-node-bin');
      fs.mkdirSync(nodeBin, { recursive: true });
      const j = await startJupyter({
        python,
        label: 'node-missing-log',
        path: nodeBin
      });
      await expectLogged(
        j,
        /jupyterlab-project-startup: Node\.js was not found\./
      );
      const linesDuring = logWindow(j, auth(j));
      const poll = async (times: number, expectInBody: string) => {
        for (let i = 0; i < times; i++) {
          const answer = await httpRequest(
            `${j.base}project/${i % 2 ? 'health' : 'startup?interface=notebook'}`,
            { headers: auth(j) }
          );
          expect(answer.status).toBe(500);
          // Every answer still carries the cause (Jupyter's error page), logged or not.
          expect(answer.text).toContain(expectInBody);
        }
      };

      const missing = await linesDuring(() => poll(6, 'Node.js was not found'));
      expect(missing).toEqual([
        expect.stringMatching(
          /^\[W [^\]]*\] 500 GET \/user\/alice\/project\/startup: Node\.js was not found: .*no `node` on the Jupyter server's PATH/
        )
      ]);

      // The cause changes (an old Node appears on PATH): logged once more, then quiet again.
      fs.writeFileSync(
        path.join(nodeBin, 'node'),
        '#!/bin/sh\necho v18.0.0\n',
        {
          mode: 0o755
        }
      );
      const tooOld = await linesDuring(() =>
        poll(4, 'Node.js 18.0.0 is too old')
      );
      expect(tooOld).toEqual([
        expect.stringMatching(
          /^\[W [^\]]*\] 500 GET \/user\/alice\/project\/startup: Node\.js 18\.0\.0 is too old: /
        )
      ]);
      expect(j.logs()).not.toMatch(/Traceback|"User-Agent"/);
    }, 60000);

    it('a setting the service refuses: its 503s through the proxy are one log line, not one dump per poll', async () => {
      const j = await startJupyter({
        python,
        label: 'misconfigured-log',
        env: { PROJECT_STARTUP_REQUEST_TIMEOUT_MS: 'soon' }
      });
      const linesDuring = logWindow(j, auth(j));
      const poll = async (times: number) => {
        for (let i = 0; i < times; i++) {
          const answer = await httpRequest(
            `${j.base}project/${i % 2 ? 'health' : 'startup?interface=notebook'}`,
            { headers: auth(j) }
          );
          expect(answer.status).toBe(503);
          // Every answer still names the setting and its fix, logged or not.
          expect(answer.json?.code).toBe('misconfigured');
          expect(answer.json?.setting).toBe(
            'PROJECT_STARTUP_REQUEST_TIMEOUT_MS'
          );
        }
      };
      // The first poll launches the sidecar: its own lines say which setting and the fix.
      const first = await linesDuring(() => poll(1));
      expect(first.join('\n')).toMatch(/PROJECT_STARTUP_REQUEST_TIMEOUT_MS/);
      expect(first).toContainEqual(
        expect.stringMatching(
          /^\[W [^\]]*\] 503 GET \/user\/alice\/project\/startup: the Project Startup service cannot serve; its log line at start names the setting and the fix/
        )
      );
      // Six more polls from the panel and the status bar: nothing more in the log.
      expect(await linesDuring(() => poll(6))).toEqual([]);
      expect(j.logs()).not.toMatch(/Traceback|"User-Agent"|\[E [^\]]*\] 503/);
    }, 60000);

    it('Node too old: a stand-in `node` on PATH that says v18.0.0', async () => {
      const oldBin = path.join(root, 'old-node-bin');
      fs.mkdirSync(oldBin, { recursive: true });
      // A STAND-IN for an old Node.js: it only answers --version.
      fs.writeFileSync(path.join(oldBin, 'node'), '#!/bin/sh\necho v18.0.0\n', {
        mode: 0o755
      });
      const j = await startJupyter({
        python,
        label: 'node-too-old',
        path: `${oldBin}:/usr/bin:/bin`
      });
      await expectLogged(
        j,
        /jupyterlab-project-startup: Node\.js 18\.0\.0 is too old\./
      );
      expect(
        (
          await httpRequest(`${j.base}project/capabilities`, {
            headers: auth(j)
          })
        ).status
      ).toBe(500);
      await expectStillServing(j);
      const report = await diagnostics(j);
      expect(report.node).toEqual({
        path: path.join(oldBin, 'node'),
        version: '18.0.0',
        required: '>=20'
      });
      const p = problem(report, 'node-too-old');
      expect(p.fix).toMatch(/Node\.js 20 or newer/);
      expect(report.problems.map(x => x.code)).toEqual(['node-too-old']);
    }, 60000);

    it('jupyter-server-proxy missing: the server extension loads without it, warns, and says so', async () => {
      const j = await startJupyter({
        python,
        label: 'server-proxy-missing',
        serverProxy: false
      });
      await expectLogged(
        j,
        /jupyterlab-project-startup: jupyter-server-proxy is not installed\..*Fix: Install it in the same environment/
      );
      // Nothing is proxied: Jupyter's own 404, and its other routes still answer.
      expect(
        (
          await httpRequest(`${j.base}project/startup?interface=notebook`, {
            headers: auth(j)
          })
        ).status
      ).toBe(404);
      await expectStillServing(j);
      const report = await diagnostics(j);
      expect(report.serverProxy).toEqual({ version: null, required: '>=4.1' });
      expect(problem(report, 'server-proxy-missing').fix).toContain(
        "pip install 'jupyter-server-proxy>=4.1'"
      );
    }, 60000);

    it('jupyter-server-proxy too old: a stand-in 3.2.2 on the path', async () => {
      const oldProxy = path.join(root, 'old-proxy');
      fs.mkdirSync(path.join(oldProxy, 'jupyter_server_proxy'), {
        recursive: true
      });
      // A STAND-IN for an old jupyter-server-proxy: only its version.
      fs.writeFileSync(
        path.join(oldProxy, 'jupyter_server_proxy', '__init__.py'),
        '__version__ = "3.2.2"\n'
      );
      const j = await startJupyter({
        python,
        label: 'server-proxy-too-old',
        serverProxy: false,
        pythonPath: [oldProxy]
      });
      await expectLogged(
        j,
        /jupyterlab-project-startup: jupyter-server-proxy 3\.2\.2 is too old\./
      );
      await expectStillServing(j);
      const report = await diagnostics(j);
      expect(report.serverProxy).toEqual({
        version: '3.2.2',
        required: '>=4.1'
      });
      expect(problem(report, 'server-proxy-too-old').fix).toContain(
        "pip install -U 'jupyter-server-proxy>=4.1'"
      );
    }, 60000);

    it('jupyter-server-proxy installed but not enabled: said so, with the command that enables it', async () => {
      const j = await startJupyter({
        python,
        label: 'server-proxy-disabled',
        serverProxy: false,
        pythonPath: serverProxyPath(python)
      });
      expect(
        (
          await httpRequest(`${j.base}project/capabilities`, {
            headers: auth(j)
          })
        ).status
      ).toBe(404);
      const report = await diagnostics(j);
      expect(report.serverProxy.version).toMatch(/^4\./);
      const p = problem(report, 'server-proxy-missing');
      expect(p.title).toBe('jupyter-server-proxy is not enabled');
      expect(p.fix).toContain(
        'jupyter server extension enable --sys-prefix jupyter_server_proxy'
      );
    }, 60000);

    it('a bad PROJECT_STARTUP_* setting: one launch, 503 misconfigured with the fix at once, and sidecar-failed with its own message', async () => {
      const j = await startJupyter({
        python,
        label: 'sidecar-failed',
        env: { PROJECT_STARTUP_PLATFORM: 'nonsense' }
      });
      const message =
        'PROJECT_STARTUP_PLATFORM must be one of generic, hosted-notebook, cluster; it is set to an unknown value. Unset it to select the platform from evidence.';
      // Launched by the proxy entry with its flags, the sidecar does not exit on a setting it
      // refuses (the proxy would relaunch it at once until its 20 s timeout, then answer a bare
      // 500): it answers the problem itself, through the proxy.
      const startup = await httpRequest(
        `${j.base}project/startup?interface=notebook`,
        { headers: auth(j), timeoutMs: 40000 }
      );
      expect(startup.status).toBe(503);
      expect(startup.headers['content-type']).toMatch(
        /^application\/problem\+json/
      );
      expect(startup.json).toMatchObject({
        code: 'misconfigured',
        detail: message,
        setting: 'PROJECT_STARTUP_PLATFORM'
      });
      expect(startup.json.fix).toMatch(
        /PROJECT_STARTUP_PLATFORM .*restart the Jupyter server/
      );
      expect(startup.text).not.toContain('nonsense');
      const health = await httpRequest(`${j.base}project/health`, {
        headers: auth(j)
      });
      expect(health.status).toBe(503);
      expect(health.json.code).toBe('misconfigured');

      // The diagnostics route says the same (the sidecar recorded it before listening).
      const failed = await diagnostics(j);
      expect(failed.sidecar.state).toBe('failed');
      expect(failed.sidecar.lastError).toBe(message);
      expect(failed.sidecar.logTail.length).toBeGreaterThan(0);
      expect(failed.sidecar.logTail.length).toBeLessThanOrEqual(20);
      expect(failed.sidecar.logTail.join('\n')).toContain(
        'PROJECT_STARTUP_PLATFORM must be one of'
      );
      const p = problem(failed, 'sidecar-failed');
      expect(p.detail).toBe(failed.sidecar.lastError);
      expect(p.fix).toContain('PROJECT_STARTUP_');
      await expectStillServing(j);
      // Launched once: the message reached the server's log once, not once per relaunch.
      await expectLogged(j, /not started: a configuration error/);
      expect(j.logs().split(message).length - 1).toBe(1);
    }, 90000);
  });
});

describe("the real `jupyter lab` in Chromium, with the extension from the wheel's data files", () => {
  let server: LabServer | undefined;
  const { newPage, expectOnlyProblems } = pageSuite({
    server: () => server,
    forgetServer: () => (server = undefined),
    checkBuilt: false // the extension is the wheel's, and the suite checks its own prerequisites
  });

  /** The real `jupyter lab` of the stack's venv: labextensions from Jupyter's search path (the
   * venv's share/jupyter), the server extensions its etc/jupyter enables, the real proxy. Nothing
   * copied. */
  async function openInstalledLab(
    label: string,
    env: Record<string, string> = {},
    runtimeUrls?: boolean
  ): Promise<Page> {
    server = await startLabServer({
      baseUrl: BASE_URL,
      label,
      env,
      runtimeUrls
    });
    expect(
      fs.readdirSync(path.join(server.dirs.data, 'labextensions'))
    ).toEqual([]);
    const page = await newPage();
    await openLab(page, server);
    const config = await page.evaluate(() =>
      JSON.parse(
        document.getElementById('jupyter-config-data')?.textContent ?? '{}'
      )
    );
    expect(config.baseUrl).toBe(BASE_URL);
    const federated = (
      config.federated_extensions as { name: string; extension: string }[]
    ).find(e => e.name === 'jupyterlab-project-startup');
    // The stack's venv (where pip put the wheel's data files), not a copy in the data dir.
    expect(federated).toBeDefined();
    expect(server.stack?.venv).toBe(stack.venv);
    expect(server.logs()).toContain(
      'jupyterlab_project_startup | extension was successfully loaded'
    );
    return page;
  }

  it('the panel opens by itself, initializes through the dialog and reaches ready', async () => {
    // Nobody configured a model runtime here, as on an ordinary machine.
    const p = await openInstalledLab('wheel-lab-ready', {}, false);
    const s = server as LabServer;
    // openWhileIncomplete (default): the panel opens at start while setup is incomplete.
    const panel = p.locator(PANEL);
    await waitForPhase(p, 'awaiting-confirmation');
    await expectFirstScreen(p, {
      heading: 'Set up this project',
      who: 'user',
      action: 'Initialize project'
    });
    await screenshot(p, 'wheel-panel-awaiting-confirmation');
    await panel.getByRole('button', { name: 'Initialize project' }).click();
    const dialog = p.locator('.jp-Dialog');
    await dialog.waitFor({ state: 'visible' });
    const statePath = path.join(s.dirs.project, '.project-startup');
    await expect(
      dialog.locator('.jp-ProjectStartup-dialogPath').textContent()
    ).resolves.toBe(s.dirs.project);
    const initialized = p.waitForResponse(
      r => new URL(r.url()).pathname === INITIALIZE_PATH,
      { timeout: 20000 }
    );
    await dialog.locator('.jp-mod-accept').click();
    expect((await initialized).status()).toBe(201);
    await waitForPhase(p, 'ready', 20000);
    await expect(
      panel.locator('.jp-ProjectStartup-success').textContent()
    ).resolves.toBe(`Project initialized: ${statePath} was created.`);
    expect(
      fs.statSync(path.join(statePath, 'initialization.json')).mode & 0o777
    ).toBe(0o600);
    await expectStateInBothThemes(p, 'wheel-panel-ready', {
      heading: 'Your project is set up',
      who: null,
      action: null
    });
    expectOnlyProblems();
  }, 120000);

  it('Node missing: the panel shows the real cause and fix from the diagnostics route, not a bare HTTP 500', async () => {
    const p = await openInstalledLab('wheel-lab-node-missing', {
      PROJECT_STARTUP_NODE: '/nonexistent/bin/node'
    });
    await expectNodeMissingShown(
      p,
      '/nonexistent/bin/node',
      'wheel-notification-node-missing'
    );
    // The state, the one thing to do and who acts, without scrolling at 1400 x 850, in both
    // themes; axe with the disclosures closed and open.
    await expectStateInBothThemes(
      p,
      'wheel-panel-node-missing',
      ADMINISTRATOR_FIXES
    );
    // The one expected failure: the proxy's 500 for the startup projection (and its console line).
    expectOnlyProblems(
      pr =>
        pr.path === STARTUP_PATH &&
        pr.status === 500 &&
        (pr.kind === 'http' || pr.kind === 'console-error')
    );
  }, 120000);

  it('a bad PROJECT_STARTUP_* setting: the service itself says which, what is wrong and the fix, at once and from one launch', async () => {
    const message =
      'PROJECT_STARTUP_REQUEST_TIMEOUT_MS must be a whole number from 1000 to 300000.';
    const p = await openInstalledLab('wheel-lab-misconfigured', {
      PROJECT_STARTUP_REQUEST_TIMEOUT_MS: 'abc'
    });
    // No 20 s wait for the proxy's timeout: the sidecar answers 503 misconfigured, and the
    // notification names the setting; the panel gives the whole fix.
    const { toast } = await administratorNotification(
      p,
      'Project Startup cannot start: PROJECT_STARTUP_REQUEST_TIMEOUT_MS must be a whole number'
    );
    await toast.getByRole('button', { name: 'Open Project Startup' }).click();
    const detail = p.locator(`${PANEL} .jp-ProjectStartup-problemDetail`);
    await detail.waitFor({ state: 'visible', timeout: 30000 });
    await expect(detail.textContent()).resolves.toBe(message);
    const text = (await p.locator(PANEL).textContent()) ?? '';
    expect(text).toContain(
      "For your administrator: Correct or unset PROJECT_STARTUP_REQUEST_TIMEOUT_MS in the Jupyter server's environment"
    );
    expect(text).toContain('Problem code: misconfigured');
    expect(text).not.toContain('abc');
    await screenshot(p, 'wheel-panel-misconfigured');
    // Every request of the page (panel, status bar) reached the same sidecar: launched once
    // (checked once its last start-up line has come through the server's pipe; bounded wait).
    const s = server as LabServer;
    for (
      let i = 0;
      i < 200 && !/not started: a configuration error/.test(s.logs());
      i++
    ) {
      await p.waitForTimeout(50);
    }
    expect(s.logs()).toMatch(/not started: a configuration error/);
    expect(s.logs().split(message).length - 1).toBe(1);
    // The expected failures: the service's 503 for its routes (and their console lines).
    expectOnlyProblems(
      pr =>
        pr.path.startsWith(`${BASE_URL}project/`) &&
        pr.status === 503 &&
        (pr.kind === 'http' || pr.kind === 'console-error')
    );
  }, 120000);
});
