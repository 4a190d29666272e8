// Hostile and undecodable project directory names at the command line:
// a name holding ANSI escape sequences, a bell and a right-to-left override is shown escaped in
// the human-readable output, whether the answer comes from a running service or is evaluated
// locally, and stays exact in --json; a name that is not valid UTF-8 stops with a clear message
// (exit 2) instead of being reported as a missing directory. Real child processes.
import * as fs from 'node:fs';
import {
  BIN,
  looksLikeStack,
  runCli,
  runProcess,
  startServe,
  trackedSandboxes
} from '../../helpers/cli';

const sandbox = trackedSandboxes();

const HOSTILE = 'proj-\u001b[31mRED\u001b]0;pwned\u0007-\u202eevil\r';
/* eslint-disable no-control-regex -- what must never reach a terminal is the point */
const RAW_CONTROLS =
  /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
/* eslint-enable no-control-regex */

describe('a project directory name with terminal escapes', () => {
  it.each([
    ['evaluated locally', false],
    ['answered by the running service', true]
  ])(
    'status, init and url, %s: shown escaped; --json exact',
    async (_how, remote) => {
      const s = sandbox(HOSTILE);
      const serve = remote
        ? await startServe([], { env: s.env, cwd: s.projectDir })
        : undefined;
      const status = await runCli(['status'], {
        env: s.env,
        cwd: s.projectDir
      });
      expect(status.code).toBe(0);
      expect(status.stdout).toContain(
        remote ? 'answered by the service' : 'read directly'
      );
      expect(status.stdout).not.toMatch(RAW_CONTROLS);
      expect(status.stderr).not.toMatch(RAW_CONTROLS);
      expect(status.stdout).toContain(
        'proj-\\x1b[31mRED\\x1b]0;pwned\\x07-\\u{202e}evil\\x0d'
      );
      const json = await runCli(['status', '--json'], {
        env: s.env,
        cwd: s.projectDir
      });
      expect(JSON.parse(json.stdout).projectPath).toBe(s.projectDir);
      const init = await runCli(['init'], { env: s.env, cwd: s.projectDir });
      expect(`${init.stdout}${init.stderr}`).not.toMatch(RAW_CONTROLS);
      if (serve) {
        const url = await runCli(['url'], { env: s.env, cwd: s.projectDir });
        expect(url.code).toBe(0);
        expect(url.stdout).not.toMatch(RAW_CONTROLS);
        await serve.stop();
      }
    }
  );
});

describe('a project directory whose name is not valid UTF-8', () => {
  /** Runs the command in (or naming) the directory `proj-\xff\xfe`, made by bytes. */
  async function inUndecodable(args: string, how: 'cwd' | 'argument') {
    const s = sandbox();
    fs.mkdirSync(
      Buffer.concat([Buffer.from(`${s.root}/proj-`), Buffer.from([0xff, 0xfe])])
    );
    const name = '"$(printf \'proj-\\377\\376\')"';
    const script =
      how === 'cwd'
        ? `cd ${name} && exec "$0" "$1" ${args}`
        : `exec "$0" "$1" ${args} --project-dir ${name}`;
    const r = await runProcess(
      '/bin/sh',
      ['-c', script, process.execPath, BIN],
      { env: s.env, cwd: s.root }
    );
    return { s, r };
  }

  it.each([
    ['status', 'cwd'],
    ['status', 'argument'],
    ['capabilities --json', 'cwd'],
    ['serve', 'cwd']
  ] as const)(
    '%s (directory given as %s): exit 2, names the bytes and the fix; nothing created',
    async (args, how) => {
      const { s, r } = await inUndecodable(args, how);
      // With --json the error is problem details on stdout; otherwise stdout stays empty.
      const json = args.endsWith('--json');
      expect({
        code: r.code,
        stdout: json ? '(problem details)' : r.stdout
      }).toEqual({ code: 2, stdout: json ? '(problem details)' : '' });
      if (json) {
        const problem = JSON.parse(r.stdout);
        // A setting the command cannot use: the same code the service answers for one (D10).
        expect(problem.code).toBe('misconfigured');
        expect(problem.detail).toContain('is not valid UTF-8');
      }
      expect(r.stderr).toContain('proj-\\xff\\xfe');
      expect(r.stderr).toContain('is not valid UTF-8');
      expect(r.stderr).toMatch(/Rename it/);
      expect(r.stderr).not.toContain('does not exist');
      expect(looksLikeStack(r.stderr)).toBe(false);
      expect(
        fs.existsSync(s.runtimeDir) ? fs.readdirSync(s.runtimeDir) : []
      ).toEqual([]);
      expect(
        fs
          .readdirSync(s.root, { encoding: 'buffer' })
          .map(n => n.toString('latin1'))
          .sort()
      ).toEqual(['bin', 'home', 'proj-\u00ff\u00fe', 'project'].sort());
    }
  );

  it('a name that merely holds U+FFFD as UTF-8 works as any other', async () => {
    const s = sandbox('proj-\ufffd-ok');
    const r = await runCli(['status', '--json'], {
      env: s.env,
      cwd: s.projectDir
    });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).projectPath).toBe(s.projectDir);
  });
});
