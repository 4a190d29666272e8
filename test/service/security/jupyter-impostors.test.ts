// Every client that finds its Jupyter server from Jupyter's runtime files sends that server's
// token only to a server proven to be this user's (README "How a client finds
// its Jupyter server"): the real command line (`project-startup status`, as typed in a terminal
// beside JupyterLab) and the real Python client (`client.startup()` in Debian's python3), each
// against the same fixtures (test/helpers/jupyter-impostors.ts): real listeners, a real second
// uid, real runtime files. The honest fixture is the control: there the token does arrive.
import * as path from 'node:path';
import { makeSandbox, runCli } from '../../helpers/cli';
import { runPackagePython } from '../../helpers/package-python';
import {
  PYTHON,
  startJupyter,
  stopAllJupyters
} from '../../system/install/python';
import {
  FixtureKind,
  JupyterFixture,
  makeJupyterFixture,
  stopAllFixtureProcesses
} from '../../helpers/jupyter-impostors';

const fixtures: JupyterFixture[] = [];
afterEach(() => {
  for (const fixture of fixtures.splice(0)) {
    fixture.stop();
  }
  stopAllFixtureProcesses();
});

async function fixture(kind: FixtureKind): Promise<JupyterFixture> {
  const made = await makeJupyterFixture(kind);
  fixtures.push(made);
  return made;
}

/** `project-startup status` in the fixture's project, with Jupyter's runtime directory its own. */
async function commandLine(f: JupyterFixture) {
  const s = makeSandbox();
  try {
    return await runCli(['status'], {
      env: { ...s.env, JUPYTER_RUNTIME_DIR: f.runtimeDir },
      cwd: f.projectDir,
      timeoutMs: 20000
    });
  } finally {
    s.remove();
  }
}

/** The Python client's `startup()` in the fixture's project: what it answered, or its problem. */
function pythonClient(f: JupyterFixture): {
  code: string | null;
  detail: string;
  stderr: string;
} {
  const result = runPackagePython(
    `
import json
from jupyterlab_project_startup import client
try:
    client.startup()
    print(json.dumps({"code": None, "detail": ""}))
except client.ProjectStartupError as problem:
    print(json.dumps({"code": problem.code, "detail": problem.detail}))
`,
    {
      timeoutMs: 30000,
      cwd: f.projectDir,
      env: {
        HOME: path.join(f.root, 'home'),
        JUPYTER_RUNTIME_DIR: f.runtimeDir
      }
    }
  );
  let answer: { code: string | null; detail: string } = {
    code: 'no-answer',
    detail: ''
  };
  try {
    answer = JSON.parse(result.stdout) as typeof answer;
  } catch {
    // a traceback: stderr says what
  }
  return { ...answer, stderr: result.stderr };
}

describe('a Jupyter server of ours (the control): the token arrives', () => {
  it('the command line and the Python client both send it', async () => {
    const f = await fixture('honest');
    const cli = await commandLine(f);
    expect(cli.code).toBe(0);
    expect(f.leaked()).toBe(true);
    const g = await fixture('honest');
    const py = pythonClient(g);
    expect(py.stderr).not.toContain('Traceback');
    expect(py.code).toBe('not-enabled'); // the recorder answers 404: no Project Startup there
    expect(g.leaked()).toBe(true);
  }, 60000);
});

describe('a real Jupyter server of ours (Debian jupyter_server 1.23)', () => {
  afterAll(() => stopAllJupyters(), 30000);

  it('is found by the command line and by the Python client, which both ask it with its token', async () => {
    const j = await startJupyter({
      python: PYTHON,
      label: 'discovery-real-server',
      serverProxy: false
    });
    const real = {
      root: j.dirs.root,
      runtimeDir: j.dirs.runtime,
      projectDir: j.dirs.project
    } as JupyterFixture;
    const cli = await commandLine(real);
    expect(cli.code).toBe(0);
    // It asked that server (no Project Startup there: 404), so it was found and proven.
    expect(cli.stderr).toContain(
      `The Jupyter server at ${j.base} has no Project Startup service`
    );
    const py = pythonClient(real);
    expect(py.stderr).not.toContain('Traceback');
    expect(py.code).toBe('not-enabled');
    expect(py.detail).toContain(j.base);
  }, 90000);
});

describe.each([
  [
    'otherUser',
    'another user (uid 65534) holds the pid and the port the file names',
    /belongs to another user \(uid 65534\)/
  ],
  [
    'stale',
    "a process of ours that started after the file was written holds the file's pid and port",
    /started after its runtime file was written/
  ],
  [
    'notListener',
    'the pid is a process of ours that does not listen; another holds the port',
    /does not hold the listener on port \d+/
  ]
] as const)('%s: %s', (kind, _what, why) => {
  it('the command line sends no token, says why, and reads the project itself', async () => {
    const f = await fixture(kind);
    const r = await commandLine(f);
    expect(f.leaked()).toBe(false);
    expect(f.asked()).toBe(false);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('read directly');
    expect(r.stderr).toMatch(why);
    expect(r.stderr).toContain('its token was not sent');
    expect(`${r.stdout}${r.stderr}`).not.toContain(f.token);
  }, 60000);

  it('the Python client sends no token and raises jupyter-not-found, saying why', async () => {
    const f = await fixture(kind);
    const py = pythonClient(f);
    expect(f.leaked()).toBe(false);
    expect(f.asked()).toBe(false);
    expect(py.stderr).not.toContain('Traceback');
    expect(py.code).toBe('jupyter-not-found');
    expect(py.detail).toMatch(why);
    expect(py.detail).not.toContain(f.token);
  }, 60000);
});

describe('truncated: a runtime file cut short mid-JSON', () => {
  it('the command line passes over it and reads the project itself', async () => {
    const f = await fixture('truncated');
    const r = await commandLine(f);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('read directly');
    expect(r.stderr).not.toMatch(/SyntaxError|at .*\.js:\d+/);
  }, 60000);

  it('the Python client raises a clear jupyter-not-found, never a traceback', async () => {
    const f = await fixture('truncated');
    const py = pythonClient(f);
    expect(py.stderr).not.toContain('Traceback');
    expect(py.code).toBe('jupyter-not-found');
    expect(py.detail).toContain(f.runtimeDir);
  }, 60000);
});
