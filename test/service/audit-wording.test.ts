// Wording the terminal shows: whole sentences, platforms named as
// everywhere else, and no "run this in a terminal" to someone already running it there.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { request } from '../helpers/harness';
import {
  CliSandbox,
  makeSandbox,
  RunResult,
  runCli,
  startServe
} from '../helpers/cli';

function expectExit(r: RunResult, code: number): void {
  expect({ code: r.code, stderr: r.stderr }).toEqual({
    code,
    stderr: r.stderr
  });
}

const boxes: CliSandbox[] = [];
function sandbox(): CliSandbox {
  const s = makeSandbox();
  boxes.push(s);
  return s;
}
afterAll(() => boxes.forEach(s => s.remove()));

function clusterEnv(s: CliSandbox): Record<string, string> {
  return {
    ...s.env,
    SLURM_JOB_ID: '4242',
    PROJECT_STARTUP_APPROVED_STORAGE: s.root
  };
}

describe('terminal wording', () => {
  it('the project directory check is a sentence: "<dir> is an existing directory you can write to"', async () => {
    const s = sandbox();
    const r = await runCli(['status'], { env: s.env, cwd: s.projectDir });
    expectExit(r, 0);
    expect(r.stdout).toContain(
      `Project directory: ${s.projectDir} is an existing directory you can write to`
    );
  });

  it('`status --interface web` on the cluster does not tell the terminal to run `project-startup status` in a terminal', async () => {
    const s = sandbox();
    const r = await runCli(['status', '--interface', 'web'], {
      env: clusterEnv(s),
      cwd: s.projectDir
    });
    expectExit(r, 3);
    expect(r.stdout).toMatch(/does not offer the Browser interface/);
    expect(r.stdout).not.toMatch(/status` in a terminal/);
    expect(r.stdout).toContain(
      'Run `project-startup status` without `--interface`: this command line is the terminal interface.'
    );
  });

  it('a plain API call on the cluster is refused naming the Cluster platform as the other texts do', async () => {
    const s = sandbox();
    const env = clusterEnv(s);
    const server = await startServe([], { env, cwd: s.projectDir });
    try {
      const runtime = fs
        .readdirSync(s.runtimeDir)
        .filter(n => n.endsWith('.json'))
        .map(n =>
          JSON.parse(fs.readFileSync(path.join(s.runtimeDir, n), 'utf8'))
        );
      const token = runtime[0].token as string;
      const p = (
        await request(`${server.url}startup?interface=terminal`, { token })
      ).json;
      const r = await request(`${server.url}initialize`, {
        method: 'POST',
        token,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          interface: 'terminal',
          confirm: { projectPath: p.projectPath, statePath: p.statePath }
        })
      });
      expect(r.status).toBe(403);
      expect(r.json.detail).toMatch(
        /^On the Cluster platform a person confirms/
      );
    } finally {
      expect((await server.stop()).code).toBe(0);
    }
  });
});
