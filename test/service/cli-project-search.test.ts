// The command line finds its project as git finds a repository: run in a
// subdirectory of an initialized project, `status`, `init`, `capabilities` and a direct-loopback
// `serve` take the nearest directory above that holds this project's state; an explicit
// --project-dir or PROJECT_STARTUP_PROJECT_DIR still wins; without an initialized ancestor the
// working directory stays the project. Real child processes (test/helpers/cli.ts).
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  CliSandbox,
  listTree,
  runCli,
  runCliInTty,
  RunResult,
  startServe,
  trackedSandboxes
} from '../helpers/cli';
import { expectValid } from '../helpers/schemas';

const sandbox = trackedSandboxes();
const OTHER_UID = 65534;
const IS_ROOT = process.getuid?.() === 0;

function expectExit(r: RunResult, code: number): void {
  if (r.code !== code) {
    throw new Error(
      `expected exit ${code}, got ${r.code}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`
    );
  }
}

/** Inside a Slurm allocation, where the command line itself may confirm initialize. */
function clusterEnv(s: CliSandbox): Record<string, string> {
  return {
    ...s.env,
    SLURM_JOB_ID: '4242',
    PROJECT_STARTUP_APPROVED_STORAGE: s.root
  };
}

/** `dir` initialized by `init` answered yes at a terminal; returns its record. */
async function initializeAt(
  env: Record<string, string>,
  dir: string
): Promise<Record<string, unknown>> {
  const r = await runCliInTty(['init', '--json'], {
    env,
    cwd: dir,
    input: 'y\n'
  });
  expectExit(r, 0);
  const body = JSON.parse(r.stdout);
  expect(body.created).toBe(true);
  return body.record;
}

function subdirectory(s: CliSandbox, under = s.projectDir): string {
  const dir = path.join(under, 'a', 'b');
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

async function statusAt(
  env: Record<string, string>,
  cwd: string,
  args: string[] = []
): Promise<{ projectPath: string; phase: string }> {
  const r = await runCli(['status', '--json', ...args], { env, cwd });
  expect([0, 3]).toContain(r.code);
  const projection = JSON.parse(r.stdout);
  expectValid('StartupProjection', projection);
  return { projectPath: projection.projectPath, phase: projection.phase };
}

describe('in a subdirectory of an initialized project', () => {
  it('status, init and capabilities report the project root, phase ready, and create nothing below it', async () => {
    const s = sandbox();
    const env = clusterEnv(s);
    const record = await initializeAt(env, s.projectDir);
    const deep = subdirectory(s);
    const before = listTree(s.projectDir);

    expect(await statusAt(env, deep)).toEqual({
      projectPath: s.projectDir,
      phase: 'ready'
    });
    const human = await runCli(['status'], { env, cwd: deep });
    expectExit(human, 0);
    expect(human.stdout).toContain(`Project    ${s.projectDir}`);

    const init = await runCliInTty(['init', '--json'], {
      env,
      cwd: deep,
      input: 'y\n'
    });
    expectExit(init, 0);
    const body = JSON.parse(init.stdout);
    expectValid('InitializeResponse', body);
    expect(body).toMatchObject({ created: false, phase: 'ready' });
    expect(body.record).toEqual(record);

    const capabilities = await runCli(['capabilities', '--json'], {
      env,
      cwd: deep
    });
    expectExit(capabilities, 0);
    expectValid('Manifest', JSON.parse(capabilities.stdout));
    expect(listTree(s.projectDir)).toEqual(before);
  });

  it('a direct-loopback serve started there serves the project root; status there is answered by it', async () => {
    const s = sandbox();
    const env = clusterEnv(s);
    await initializeAt(env, s.projectDir);
    const deep = subdirectory(s);
    const server = await startServe([], { env, cwd: deep });
    expect(server.stdout()).toContain(`Project: ${s.projectDir}\n`);
    const status = await runCli(['status'], { env, cwd: deep });
    expectExit(status, 0);
    expect(status.stdout).toContain(`answered by the service at ${server.url}`);
    expect(status.stdout).toContain(`Project    ${s.projectDir}`);
    expectExit(await runCli(['capabilities'], { env, cwd: deep }), 0);
    expect((await server.stop()).code).toBe(0);
  });

  it('behind a proxy (notebook-server-proxy) serve takes the working directory the launch gave it', async () => {
    const s = sandbox();
    const env = clusterEnv(s);
    await initializeAt(env, s.projectDir);
    const deep = subdirectory(s);
    const server = await startServe(
      [
        '--ingress',
        'notebook-server-proxy',
        '--unix-socket',
        path.join(s.root, 'ps.sock')
      ],
      { env, cwd: deep }
    );
    expect(server.stdout()).toContain(`Project: ${deep}\n`);
    expect((await server.stop()).code).toBe(0);
  });

  it('on a hosted notebook (state under the home) the root is found the same way', async () => {
    const s = sandbox();
    const env = {
      ...s.env,
      JUPYTERHUB_API_URL: 'http://127.0.0.1:9/hub/api',
      JUPYTERHUB_USER: 'alice'
    };
    const server = await startServe([], { env, cwd: s.projectDir });
    const token = (
      JSON.parse(
        fs.readFileSync(
          path.join(
            s.runtimeDir,
            fs.readdirSync(s.runtimeDir).find(n => n.startsWith('server-'))!
          ),
          'utf8'
        )
      ) as { token: string }
    ).token;
    const headers = {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json'
    };
    const p = (await (
      await fetch(`${server.url}startup?interface=notebook`, { headers })
    ).json()) as { projectPath: string; statePath: string };
    const created = await fetch(`${server.url}initialize`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        interface: 'notebook',
        confirm: { projectPath: p.projectPath, statePath: p.statePath }
      })
    });
    expect(created.status).toBe(201);
    expect((await server.stop()).code).toBe(0);
    expect(await statusAt(env, subdirectory(s))).toEqual({
      projectPath: s.projectDir,
      phase: 'ready'
    });
  });

  it('--project-dir and PROJECT_STARTUP_PROJECT_DIR still win', async () => {
    const s = sandbox();
    const env = clusterEnv(s);
    await initializeAt(env, s.projectDir);
    const deep = subdirectory(s);
    const named = { projectPath: deep, phase: 'awaiting-confirmation' };
    expect(await statusAt(env, deep, ['--project-dir', '.'])).toEqual(named);
    expect(
      await statusAt({ ...env, PROJECT_STARTUP_PROJECT_DIR: deep }, deep)
    ).toEqual(named);
  });
});

describe('where nothing above is taken', () => {
  it('an uninitialized tree: the working directory is the project', async () => {
    const s = sandbox();
    const deep = subdirectory(s);
    expect((await statusAt(clusterEnv(s), deep)).projectPath).toBe(deep);
  });

  it('a state directory that is only begun (no record) is not a project', async () => {
    const s = sandbox();
    fs.mkdirSync(path.join(s.projectDir, '.project-startup'), { mode: 0o700 });
    const deep = subdirectory(s);
    expect((await statusAt(clusterEnv(s), deep)).projectPath).toBe(deep);
  });

  it('never above the home directory’s parent: a project there is not taken', async () => {
    const s = sandbox();
    const env = clusterEnv(s);
    // The sandbox root is the home's parent (root/home); initialize it by name.
    const r = await runCliInTty(['init', '--json', '--project-dir', s.root], {
      env,
      cwd: s.root,
      input: 'y\n'
    });
    expectExit(r, 0);
    const deep = subdirectory(s);
    expect((await statusAt(env, deep)).projectPath).toBe(deep);
    expect((await statusAt(env, s.root)).projectPath).toBe(s.root);
  });

  (IS_ROOT ? it : it.skip)(
    'a state record planted by another user (uid 65534), or a state directory that is a symbolic link, is not taken',
    async () => {
      const s = sandbox();
      const env = clusterEnv(s);
      // A real project elsewhere, its record naming it; then moved under the trees below.
      const donor = path.join(s.root, 'donor');
      fs.mkdirSync(donor);
      await initializeAt(env, donor);
      const donorState = path.join(donor, '.project-startup');
      const recordText = fs
        .readFileSync(path.join(donorState, 'initialization.json'), 'utf8')
        .replaceAll(donor, s.projectDir);

      // Planted: this project's record, in a private state directory owned by uid 65534.
      const planted = path.join(s.projectDir, '.project-startup');
      fs.mkdirSync(planted, { mode: 0o700 });
      fs.writeFileSync(path.join(planted, 'initialization.json'), recordText, {
        mode: 0o600
      });
      fs.chownSync(
        path.join(planted, 'initialization.json'),
        OTHER_UID,
        OTHER_UID
      );
      fs.chownSync(planted, OTHER_UID, OTHER_UID);
      const deep = subdirectory(s);
      expect((await statusAt(env, deep)).projectPath).toBe(deep);

      // A link: the state directory is a symbolic link to a private directory of ours whose
      // record names this project.
      fs.rmSync(planted, { recursive: true });
      const elsewhere = path.join(s.root, 'elsewhere');
      fs.mkdirSync(elsewhere, { mode: 0o700 });
      fs.writeFileSync(
        path.join(elsewhere, 'initialization.json'),
        recordText,
        {
          mode: 0o600
        }
      );
      fs.symlinkSync(elsewhere, planted);
      expect((await statusAt(env, deep)).projectPath).toBe(deep);
      expect(fs.readdirSync(deep)).toEqual([]);
    }
  );
});
