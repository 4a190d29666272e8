// Commands in the Debian 13 (trixie) root of .ci/trixie-root.sh: JupyterHub 5.2, jupyter_server
// 2.15, Python 3.13 and Node 20 from Debian's packages (docs/compatibility.md's matrix).
//
// Each command runs in a mount namespace of its own (`unshare --mount`): /proc, /dev and /sys and
// the shared directories are bind-mounted into the root there, then `chroot`. The mounts belong to
// that namespace and go with its last process, so nothing stays mounted in the root when a test
// fails, jest is killed, or two test files use the root at once. A shared directory appears at
// the same path inside as outside, so a test reads and writes its files with the paths the
// processes inside use. The root shares the network: Chromium outside reaches a server inside on
// 127.0.0.1.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

const REPO_ROOT = path.resolve(__dirname, '..', '..', '..');
export const TRIXIE_ROOT_SCRIPT = path.join(REPO_ROOT, '.ci', 'trixie-root.sh');

/** The root's path; makes it first if needed (about 5 minutes, once per machine). */
export function trixieRoot(): string {
  const made = spawnSync('bash', [TRIXIE_ROOT_SCRIPT], {
    encoding: 'utf8',
    timeout: 20 * 60 * 1000
  });
  if (made.status !== 0) {
    throw new Error(
      `The Debian 13 root is not available: \`bash .ci/trixie-root.sh\` failed (status ${made.status}, signal ${made.signal}):\n${made.stderr}`
    );
  }
  return made.stdout.trim().split('\n').pop() as string;
}

// $1 the root, then the shared directories, then "--", then the command.
const ENTER = `set -eu
root=$1; shift
/bin/mount --bind /proc "$root/proc"
/bin/mount --rbind /dev "$root/dev"
/bin/mount --bind /sys "$root/sys"
while [ "$1" != "--" ]; do
  mkdir -p "$root$1"
  /bin/mount --bind "$1" "$root$1"
  shift
done
shift
exec /usr/sbin/chroot "$root" "$@"`;

/** `command` and `args` for spawn: `argv` run inside `root`, with `shared` directories visible at their own paths. */
export function inTrixie(
  root: string,
  argv: string[],
  shared: string[] = []
): { command: string; args: string[] } {
  for (const dir of shared) {
    if (!path.isAbsolute(dir) || !fs.statSync(dir).isDirectory()) {
      throw new Error(
        `cannot share ${dir} with the root: not an absolute directory path`
      );
    }
  }
  return {
    command: 'unshare',
    args: [
      '--mount',
      '--propagation',
      'private',
      '--',
      '/bin/sh',
      '-c',
      ENTER,
      'enter-trixie',
      root,
      ...shared,
      '--',
      ...argv
    ]
  };
}

/** Removes the (empty) mount points `shared` left in the root; the mounts themselves went with their namespace. */
export function forgetShared(root: string, shared: string[]): void {
  for (const dir of shared) {
    try {
      fs.rmdirSync(path.join(root, dir));
    } catch {
      // not empty or already gone: a mount point is never removed with its content
    }
  }
}

/** Runs `argv` inside the root to its end; throws with its output when it fails. */
export function runInTrixie(
  root: string,
  argv: string[],
  options: {
    shared?: string[];
    env?: Record<string, string>;
    timeoutMs?: number;
  } = {}
): string {
  const { command, args } = inTrixie(root, argv, options.shared);
  const run = spawnSync(command, args, {
    encoding: 'utf8',
    timeout: options.timeoutMs ?? 120000,
    env: {
      PATH: '/usr/bin:/bin:/usr/sbin:/sbin',
      LANG: 'C.UTF-8',
      HOME: '/root',
      PYTHONDONTWRITEBYTECODE: '1',
      ...options.env
    }
  });
  if (run.status !== 0) {
    throw new Error(
      `in the Debian 13 root, \`${argv.join(' ')}\` failed (status ${run.status}, signal ${run.signal}):\n${run.stdout}${run.stderr}`
    );
  }
  return run.stdout;
}

export interface TrixieVenv {
  root: string;
  /** The venv's path (the same inside the root; outside it is under `root`). */
  venv: string;
  python: string;
  bin: string;
  /** What pip said when it installed the wheel (empty when the venv was already there). */
  installOutput: string;
  versions: {
    python: string;
    jupyter_server: string;
    jupyterhub: string;
    node: string;
  };
}

/** Where trixieVenv keeps its venvs inside the root, one per wheel. */
const VENV_CACHE = '/var/cache/project-startup';
/** A venv not used for this long is removed by trixieVenv (pruneStaleVenvs). */
export const VENV_KEPT_MS = 2 * 24 * 60 * 60 * 1000;

/**
 * Removes the venvs in `cacheDir` last used more than `keptMs` ago, `keep` aside, and returns
 * their names: each wheel makes one (about 16 MiB), so checkouts leave a trail of them. Last use
 * is the mtime of a venv's `last-used` file (of its directory, for one made before that file).
 * A run using a venv at the same time touched it when it began, so it is never that old.
 */
export function pruneStaleVenvs(
  cacheDir: string,
  keep: string,
  keptMs = VENV_KEPT_MS,
  now = Date.now()
): string[] {
  let names: string[];
  try {
    names = fs.readdirSync(cacheDir);
  } catch {
    return [];
  }
  return names.filter(name => {
    const dir = path.join(cacheDir, name);
    const used =
      fs.statSync(path.join(dir, 'last-used'), { throwIfNoEntry: false }) ??
      fs.statSync(dir, { throwIfNoEntry: false });
    if (name === keep || used === undefined || now - used.mtimeMs <= keptMs) {
      return false;
    }
    fs.rmSync(dir, { recursive: true, force: true });
    return true;
  });
}

/** Part of the venv cache's key: a change of what trixieVenv does makes a new venv. */
const VENV_RECIPE =
  'venv --system-site-packages; pip install wheel; ipykernel install --sys-prefix';

/**
 * A venv inside the root over Debian 13's Jupyter (--system-site-packages) with `wheel` (this
 * checkout's, built outside) pip-installed as an operator installs it: copied in, no index, no
 * dependencies (Debian's packages and the vendored proxy provide them). Kept per wheel content,
 * made under a lock, so test files running at once share one. Its kernelspec is the venv's Python
 * (`ipykernel install --sys-prefix`, as a hub image's environment has), so notebooks import the wheel.
 */
export function trixieVenv(root: string, wheel: string): TrixieVenv {
  const digest = createHash('sha256')
    .update(VENV_RECIPE)
    .update(fs.readFileSync(wheel))
    .digest('hex')
    .slice(0, 16);
  const home = `${VENV_CACHE}/${digest}`;
  const venv = `${home}/venv`;
  fs.mkdirSync(path.join(root, home), { recursive: true });
  fs.writeFileSync(path.join(root, home, 'last-used'), '');
  pruneStaleVenvs(path.join(root, VENV_CACHE), digest);
  const inside = `${home}/${path.basename(wheel)}`;
  fs.copyFileSync(wheel, path.join(root, inside));
  let installOutput = '';
  if (!fs.existsSync(path.join(root, venv, '.complete'))) {
    installOutput = runInTrixie(root, [
      'flock',
      `${home}/lock`,
      'sh',
      '-c',
      `set -e; [ -f ${venv}/.complete ] && exit 0; rm -rf ${venv}
python3 -m venv --system-site-packages ${venv}
${venv}/bin/python -m pip install --no-index --no-deps --retries 0 --disable-pip-version-check ${inside} 2>&1
${venv}/bin/python -m ipykernel install --sys-prefix 2>&1
touch ${venv}/.complete`
    ]);
  }
  const probe = runInTrixie(root, [
    `${venv}/bin/python`,
    '-c',
    'import json, platform, jupyter_server, jupyterhub, subprocess; print(json.dumps({"python": platform.python_version(), "jupyter_server": jupyter_server.__version__, "jupyterhub": jupyterhub.__version__, "node": subprocess.run(["node", "--version"], capture_output=True, text=True).stdout.strip().lstrip("v")}))'
  ]);
  return {
    root,
    venv,
    python: `${venv}/bin/python`,
    bin: `${venv}/bin`,
    installOutput,
    versions: JSON.parse(
      probe.trim().split('\n').pop() as string
    ) as TrixieVenv['versions']
  };
}
