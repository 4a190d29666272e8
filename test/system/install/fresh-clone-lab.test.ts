// The README's quick start, as a new contributor runs it: a fresh `git clone` of this checkout,
// `npm ci`, then `npm run lab`, which builds, makes .venv-lab/ with the tested Jupyter stack,
// installs the clone's wheel and starts JupyterLab. Chromium opens the address it prints and sees
// the Project Startup panel (setup is incomplete in a fresh clone, so it opens by itself). A
// second run, `npm run lab -- --notebook`, reuses the environment and the installed wheel, and
// Notebook 7 shows the panel too. `npm start` in the same
// clone serves the sidecar alone with no build of its own.
//
// pip installs from the index pip is configured with; jupyter-server-proxy, which this machine's
// index lacks, comes from the vendored copy (../shared/vendor/python) through --proxy-source, then
// PROJECT_STARTUP_PROXY_SOURCE. The clone holds what is committed, not a working tree's edits.
import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { VENDORED_SERVER_PROXY } from '../../helpers/real-stack';
import { groupRuns } from '../../helpers/processes';
import { waitFor } from '../../helpers/wait';
import {
  Browser,
  CHROMIUM,
  CLOSED_URL,
  httpRequest,
  launchBrowser,
  REPO_ROOT,
  screenshot
} from '../e2e/helpers';

const NODE_DIR = path.dirname(process.execPath);
const NPM = path.join(NODE_DIR, 'npm');
const PANEL = '#jp-project-startup-panel';
const ADDRESS =
  /^\s+(http:\/\/127\.0\.0\.1:\d+\/)(lab|tree)\?token=([0-9a-f]+)$/m;

interface Command {
  child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
}

/** Starts `npm args` in its own process group, its output kept (and in a log file). */
function startNpm(
  args: string[],
  cwd: string,
  env: Record<string, string>,
  log: string
): Command {
  const child = spawn(NPM, args, {
    cwd,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe']
  });
  let text = '';
  const collect = (chunk: Buffer) => {
    text += chunk.toString('utf8');
    fs.appendFileSync(log, chunk);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<number | null>(resolve =>
    child.once('exit', code => resolve(code))
  );
  return { child, output: () => text, exited };
}

/** Stops a command's whole process group (npm, node, Jupyter, the sidecar), bounded. */
async function stop(command: Command): Promise<void> {
  const group = -(command.child.pid as number);
  try {
    process.kill(group, 'SIGTERM');
  } catch {
    return;
  }
  let timer: NodeJS.Timeout | undefined;
  const done = await Promise.race([
    command.exited.then(() => true),
    new Promise<boolean>(resolve => {
      timer = setTimeout(() => resolve(false), 30000);
    })
  ]);
  clearTimeout(timer);
  // npm may end before Jupyter or the sidecar does: what is left of the group is killed.
  if (!done || groupRuns(-group)) {
    try {
      process.kill(group, 'SIGKILL');
    } catch {
      // gone between the two
    }
  }
  // Jupyter and the sidecar go with the group: nothing of it is left.
  await waitFor(() => !groupRuns(-group), {
    what: 'the process group of npm run lab to end',
    timeoutMs: 30000,
    intervalMs: 200
  });
}

/** Waits (bounded) until `npm run lab` prints its address, or fails with its output. */
async function address(
  command: Command,
  timeoutMs: number
): Promise<{ url: string; page: string; token: string }> {
  let exitCode: number | null | undefined;
  void command.exited.then(code => (exitCode = code));
  const match = await waitFor(
    () => {
      if (exitCode !== undefined) {
        throw new Error(
          `npm run lab exited (${exitCode}) before printing an address:\n${command.output().slice(-4000)}`
        );
      }
      return ADDRESS.exec(command.output()) ?? undefined;
    },
    { what: 'the address npm run lab prints', timeoutMs, intervalMs: 500 }
  ).catch(error => {
    throw new Error(`${String(error)}\n${command.output().slice(-4000)}`);
  });
  return { url: match[1], page: match[2], token: match[3] };
}

describe('a fresh clone: npm ci, npm run lab, the panel in Chromium', () => {
  let tmp = '';
  let clone = '';
  let env: Record<string, string> = {};
  let logs = '';
  let lab: Command | undefined;
  let browser: Browser | undefined;

  beforeAll(() => {
    for (const needed of [
      CHROMIUM,
      path.join(VENDORED_SERVER_PROXY, 'jupyter_server_proxy')
    ]) {
      if (!fs.existsSync(needed)) {
        throw new Error(
          `${needed} is missing: run the apt step of .ci/run and clone the repository with ../shared beside it.`
        );
      }
    }
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ps-fresh-clone-'));
    clone = path.join(tmp, 'jupyterlab-project-startup');
    logs = path.join(REPO_ROOT, 'test-artifacts', 'fresh-clone-lab');
    fs.rmSync(logs, { recursive: true, force: true });
    fs.mkdirSync(logs, { recursive: true });
    const runtime = path.join(tmp, 'runtime');
    fs.mkdirSync(runtime, { mode: 0o700 });
    env = {
      // The user's HOME keeps npm's and pip's caches; the rest is the test's own.
      HOME: process.env.HOME ?? os.homedir(),
      PATH: `${NODE_DIR}:/usr/bin:/bin`,
      LANG: 'C.UTF-8',
      ...(process.env.CI ? { CI: process.env.CI } : {}),
      // An unreachable default index (a local store serving) fails at once, not after retries.
      PIP_RETRIES: '0',
      TMPDIR: tmp,
      JUPYTER_RUNTIME_DIR: runtime,
      XDG_RUNTIME_DIR: runtime,
      PROJECT_STARTUP_LOCAL_RUNTIME_URL: CLOSED_URL,
      PROJECT_STARTUP_SERVING_RUNTIME_URL: CLOSED_URL
    };
  });

  afterAll(async () => {
    await browser?.close();
    if (lab) {
      await stop(lab);
    }
    if (tmp) {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  }, 120000);

  test('clone, npm ci, npm start, npm run lab: JupyterLab shows the panel; a second run, for Notebook 7, reuses .venv-lab', async () => {
    const cloned = spawnSync(
      'git',
      ['clone', '--quiet', '--no-hardlinks', REPO_ROOT, clone],
      { env, encoding: 'utf8', timeout: 120000 }
    );
    expect(cloned.stderr).toBe('');
    expect(cloned.status).toBe(0);

    const ci = spawnSync(
      NPM,
      ['ci', '--prefer-offline', '--no-audit', '--no-fund'],
      { cwd: clone, env, encoding: 'utf8', timeout: 900000 }
    );
    fs.writeFileSync(
      path.join(logs, 'npm-ci.log'),
      `${ci.stdout}\n${ci.stderr}`
    );
    if (ci.status !== 0) {
      throw new Error(
        `npm ci failed (${ci.status}):\n${ci.stderr.slice(-4000)}`
      );
    }

    // `npm start`: the service alone, from what `npm ci` built.
    const start = startNpm(
      ['start', '--silent'],
      clone,
      env,
      path.join(logs, 'npm-start.log')
    );
    try {
      const listening = await waitFor(
        () =>
          /^Listening: (http:\/\/127\.0\.0\.1:\d+\/project\/)$/m.exec(
            start.output()
          ) ?? undefined,
        {
          what: 'npm start to print its address',
          timeoutMs: 60000,
          intervalMs: 200
        }
      );
      expect((await httpRequest(`${listening[1]}health`)).status).toBe(200);
    } finally {
      await stop(start);
    }

    // First run: builds, makes .venv-lab, installs the wheel, starts JupyterLab.
    lab = startNpm(
      [
        'run',
        'lab',
        '--',
        '--no-browser',
        '--proxy-source',
        VENDORED_SERVER_PROXY
      ],
      clone,
      env,
      path.join(logs, 'lab-first.log')
    );
    const first = await address(lab, 1500000);
    expect(first.page).toBe('lab');
    const firstOutput = lab.output();
    expect(firstOutput).toContain('lab: making the environment .venv-lab');
    expect(firstOutput).toContain("lab: building this checkout's wheel");
    expect(firstOutput).not.toMatch(/^lab: reusing/m);
    // Git ignores the environment and everything the run built.
    const status = spawnSync('git', ['status', '--porcelain'], {
      cwd: clone,
      env,
      encoding: 'utf8'
    });
    expect(status.stdout).toBe('');

    browser = await launchBrowser();
    const page: Page = await browser.newPage();
    await page.goto(`${first.url}lab?token=${first.token}`, {
      waitUntil: 'domcontentloaded',
      timeout: 120000
    });
    const panel = page.locator(PANEL);
    // Setup is incomplete in a fresh clone, so the panel opens by itself.
    await panel.waitFor({ state: 'visible', timeout: 120000 });
    await panel
      .locator('.jp-ProjectStartup-phaseBadge.jp-mod-awaiting-confirmation')
      .waitFor({ state: 'visible', timeout: 60000 });
    await screenshot(page, 'fresh-clone-lab');
    await page.close();
    await stop(lab);
    lab = undefined;
    // Jupyter went with it.
    expect(
      (await httpRequest(`${first.url}api`).catch(() => ({ status: 0 }))).status
    ).toBe(0);

    const venvConfig = fs.statSync(path.join(clone, '.venv-lab', 'pyvenv.cfg'));
    // Second run, for Notebook 7: nothing changed, so nothing is built or installed.
    lab = startNpm(
      ['run', 'lab', '--', '--notebook', '--no-browser'],
      clone,
      { ...env, PROJECT_STARTUP_PROXY_SOURCE: VENDORED_SERVER_PROXY },
      path.join(logs, 'lab-second.log')
    );
    const second = await address(lab, 300000);
    expect(second.page).toBe('tree');
    const secondOutput = lab.output();
    expect(secondOutput).toMatch(/^lab: reusing the environment \.venv-lab /m);
    expect(secondOutput).toContain(
      "lab: this checkout's wheel is installed and up to date"
    );
    expect(secondOutput).toContain(
      'lab: the sidecar, lib/ and the labextension are up to date'
    );
    expect(secondOutput).not.toMatch(
      /^lab: (making|building|installing|copying)/m
    );
    expect(
      fs.statSync(path.join(clone, '.venv-lab', 'pyvenv.cfg')).mtimeMs
    ).toBe(venvConfig.mtimeMs);
    const notebook: Page = await browser.newPage();
    await notebook.goto(`${second.url}tree?token=${second.token}`, {
      waitUntil: 'domcontentloaded',
      timeout: 120000
    });
    await notebook
      .locator(PANEL)
      .locator('.jp-ProjectStartup-phaseBadge.jp-mod-awaiting-confirmation')
      .waitFor({ state: 'visible', timeout: 120000 });
    await screenshot(notebook, 'fresh-clone-notebook');
    await notebook.close();
    await stop(lab);
    lab = undefined;
  }, 2700000);
});
