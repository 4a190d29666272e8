// The runtime directory under a restrictive umask, for a real unprivileged user (uid 65534 via
// setpriv; this needs root, where permission bits would not stop root itself). Under `umask 0277`
// mkdir's mode 0700 became 0500: the runtime directory (and its parents, ~/.local/share/...) were
// created without write permission for their owner, and every start failed with an internal
// error. Now what the service creates is 0700 whatever the umask, it starts twice in a row, and a
// directory left unwritable by an older version is refused with a message saying what to run.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  BIN,
  runProcess,
  startServe,
  trackedSandboxes
} from '../../helpers/cli';
import { CLOSED_URL } from '../../helpers/harness';

const IS_ROOT = process.getuid?.() === 0;
const NOBODY = 65534;
const AS_NOBODY_UMASK_0277 = [
  '/usr/bin/setpriv',
  `--reuid=${NOBODY}`,
  `--regid=${NOBODY}`,
  '--clear-groups',
  '/bin/bash',
  '-c',
  'umask 0277 && exec "$0" "$@"'
];

trackedSandboxes(); // ends every child a failed test leaves behind

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

/** A home and a project owned by uid 65534, in a directory that user can reach. */
function nobodysPlace(): {
  home: string;
  project: string;
  env: Record<string, string>;
} {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ps-umask-'));
  roots.push(root);
  fs.chmodSync(root, 0o755);
  const home = path.join(root, 'home');
  const project = path.join(root, 'project');
  for (const dir of [home, project]) {
    fs.mkdirSync(dir, { mode: 0o700 });
    fs.chownSync(dir, NOBODY, NOBODY);
  }
  return {
    home,
    project,
    // No PROJECT_STARTUP_RUNTIME_DIR and no XDG_RUNTIME_DIR: the runtime directory is
    // ~/.local/share/project-startup/runtime, four directories to create.
    env: {
      HOME: home,
      PATH: '/nonexistent-project-startup-test-bin',
      PROJECT_STARTUP_TOKEN: 'umask-test-token-0123456789abcdef0123456789',
      PROJECT_STARTUP_LOCAL_RUNTIME_URL: CLOSED_URL,
      PROJECT_STARTUP_SERVING_RUNTIME_URL: CLOSED_URL
    }
  };
}

const mode = (p: string) => fs.lstatSync(p).mode & 0o777;

(IS_ROOT ? describe : describe.skip)(
  'the runtime directory under umask 0277 (as uid 65534)',
  () => {
    it('is created usable (0700 with its parents), and the service starts again and again', async () => {
      const place = nobodysPlace();
      const runtimeDir = path.join(
        place.home,
        '.local',
        'share',
        'project-startup',
        'runtime'
      );
      for (let start = 1; start <= 2; start += 1) {
        const server = await startServe(['--project-dir', place.project], {
          env: place.env,
          cwd: place.project,
          wrapper: AS_NOBODY_UMASK_0277
        });
        const files = fs
          .readdirSync(runtimeDir)
          .filter(n => n.endsWith('.json'));
        expect(files).toHaveLength(1);
        expect(mode(path.join(runtimeDir, files[0]))).toBe(0o600);
        expect((await server.stop()).code).toBe(0);
      }
      for (const dir of [
        '.local',
        '.local/share',
        '.local/share/project-startup',
        '.local/share/project-startup/runtime'
      ]) {
        const p = path.join(place.home, dir);
        expect({ dir, mode: mode(p), uid: fs.lstatSync(p).uid }).toEqual({
          dir,
          mode: 0o700,
          uid: NOBODY
        });
      }
    }, 40000);

    it('one left unwritable (0500) is refused with exit 2 and the command that fixes it, not an internal error', async () => {
      const place = nobodysPlace();
      const runtimeDir = path.join(place.home, 'run');
      fs.mkdirSync(runtimeDir, { mode: 0o500 });
      fs.chownSync(runtimeDir, NOBODY, NOBODY);
      const [file, ...args] = [
        ...AS_NOBODY_UMASK_0277,
        process.execPath,
        BIN,
        'serve',
        '--project-dir',
        place.project
      ];
      const result = await runProcess(file, args, {
        env: { ...place.env, PROJECT_STARTUP_RUNTIME_DIR: runtimeDir },
        cwd: place.project,
        timeoutMs: 10000
      });
      expect({ code: result.code, timedOut: result.timedOut }).toEqual({
        code: 2,
        timedOut: false
      });
      expect(result.stderr).toContain(
        `The runtime directory ${runtimeDir} is not writable by you`
      );
      expect(result.stderr).toContain(`chmod 700 ${runtimeDir}`);
      expect(result.stderr).not.toMatch(/internal|\n\s+at /);
    }, 20000);
  }
);
