// The Zero to JupyterHub recipe's single-user image, built here: docs/examples/Dockerfile as
// written, with podman (Debian 12's 4.3), from the wheel this checkout makes, then served.
//
// Stand-ins, named:
// - The base. No registry is reachable here, so quay.io/jupyter/base-notebook cannot be pulled.
//   standin-base-notebook.Containerfile makes one from the Debian 13 root of .ci/trixie-root.sh
//   (Python 3.13, Jupyter Server 2.15, Node 20), imported with `podman import`, with what the
//   Dockerfile expects of the stacks: NB_UID, and pip installing into a prefix that user owns.
// - The index. pip reaches this machine's wheel store (pip's own configuration) and a directory
//   holding jupyter-server-proxy 4.4.0 and simpervisor 1.0.0 made from the vendored sources
//   (vendored_wheels.py), each mounted read-only into the build.
// - The runtime. crun cannot start a container in this sandbox (its setrlimit is refused), so
//   each build step runs with buildah's chroot isolation, and the test serves the image by
//   mounting a container's file system (podman create, podman mount) and running Jupyter in it
//   chrooted as NB_UID, the way test/system/matrix/trixie.ts runs the Debian 13 root.
import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { freePort, tempRoot } from '../../helpers/harness';
import { waitFor } from '../../helpers/wait';
import { httpRequest, HttpAnswer } from '../e2e/helpers';
import { inTrixie, trixieRoot } from '../matrix/trixie';
import { VENDORED_SERVER_PROXY } from '../../helpers/real-stack';
import {
  ARTIFACTS,
  buildWheel,
  PACKAGE_VERSION,
  PYTHON,
  REPO_ROOT
} from './python';

const DOCKERFILE = path.join(REPO_ROOT, 'docs', 'examples', 'Dockerfile');
const STANDIN_BASE = path.join(
  __dirname,
  'standin-base-notebook.Containerfile'
);
const IMAGE = `localhost/project-startup-test-singleuser:${process.pid}`;

/** Runs podman to its end; throws with its output when it fails. */
function podman(args: string[], timeoutMs = 600000, input?: Buffer): string {
  const run = spawnSync('podman', args, {
    encoding: 'utf8',
    timeout: timeoutMs,
    input,
    maxBuffer: 64 * 1024 * 1024
  });
  if (run.error || run.status !== 0) {
    throw new Error(
      `podman ${args.join(' ')} failed (status ${run.status}, ${run.error?.message ?? `signal ${run.signal}`}):\n${run.stdout ?? ''}${run.stderr ?? ''}`
    );
  }
  return `${run.stdout}${run.stderr}`;
}

/** The package index pip uses on this machine (pip's configuration): URLs and the directories to mount for them. */
function machineIndex(): {
  index: string[];
  findLinks: string[];
  mounts: string[];
} {
  const listed = spawnSync(PYTHON, ['-m', 'pip', 'config', 'list'], {
    encoding: 'utf8',
    timeout: 30000
  }).stdout;
  const values = (key: string) =>
    listed
      .split('\n')
      .filter(line => new RegExp(`^(global|:env:)\\.${key}=`).test(line))
      .flatMap(line =>
        line
          .slice(line.indexOf('=') + 1)
          .replace(/^'|'$/g, '')
          .split(/\s+/)
      )
      .filter(v => v !== '');
  const index = [...values('index-url'), ...values('extra-index-url')].filter(
    url => url.startsWith('file://')
  );
  const findLinks = values('find-links').filter(dir => path.isAbsolute(dir));
  if (index.length === 0) {
    throw new Error(
      "pip on this machine has no local index (file:// index-url or extra-index-url in `pip config list`): the image's Jupyter packages cannot be installed without PyPI"
    );
  }
  // An index page links to its files beside the index directory (../../files/...).
  const mounts = [
    ...new Set([
      ...index.map(url => path.dirname(new URL(url).pathname)),
      ...findLinks
    ])
  ].filter(dir => fs.existsSync(dir));
  return { index, findLinks, mounts };
}

/**
 * The stand-in base, made once per Debian 13 root and per Containerfile (its tag is their
 * hash): importing the root takes about a minute.
 */
function standinBase(
  root: string,
  pipIndex: ReturnType<typeof machineIndex>,
  findLinks: string
): string {
  const key = createHash('sha256')
    .update(fs.readFileSync(path.join(root, '.project-startup-stamp')))
    .update(fs.readFileSync(STANDIN_BASE))
    .update(JSON.stringify(pipIndex))
    .digest('hex')
    .slice(0, 12);
  const base = `localhost/project-startup-standin-base:${key}`;
  const rootImage = `localhost/project-startup-trixie-root:${key}`;
  if (spawnSync('podman', ['image', 'exists', base]).status === 0) {
    return base;
  }
  // The root as a file system image: without what a running root holds (the venv cache of the
  // matrix tests, apt's lists, mount points' contents).
  const tar = spawnSync(
    'tar',
    [
      '-C',
      root,
      ...[
        'proc',
        'sys',
        'dev',
        'tmp',
        'var/tmp',
        'var/cache',
        'var/lib/apt/lists'
      ].map(dir => `--exclude=./${dir}/*`),
      '-c',
      '.'
    ],
    { maxBuffer: 2 * 1024 * 1024 * 1024, timeout: 300000 }
  );
  if (tar.status !== 0) {
    throw new Error(`tar of ${root} failed: ${tar.stderr.toString()}`);
  }
  podman(['import', '-q', '-', rootImage], 600000, tar.stdout);
  podman([
    'build',
    '-q',
    '--isolation=chroot',
    '--network=host',
    '--build-arg',
    `ROOT_IMAGE=${rootImage}`,
    '--build-arg',
    `PIP_INDEX_URL=${pipIndex.index[0]}`,
    '--build-arg',
    `PIP_EXTRA_INDEX_URL=${pipIndex.index.slice(1).join(' ')}`,
    '--build-arg',
    `PIP_FIND_LINKS=${[findLinks, ...pipIndex.findLinks].join(' ')}`,
    '-f',
    STANDIN_BASE,
    '-t',
    base,
    path.dirname(STANDIN_BASE)
  ]);
  return base;
}

describe('docs/examples/Dockerfile builds the single-user image from this checkout (podman, a stand-in base)', () => {
  let work = '';
  let build = '';
  let built = false;
  let container = '';
  let jupyter: ChildProcess | undefined;
  let log = '';

  beforeAll(() => {
    const version = spawnSync('podman', ['--version'], { encoding: 'utf8' });
    if (version.status !== 0) {
      throw new Error(
        'podman is missing: apt-get install -y podman (.ci/run installs it)'
      );
    }
    work = tempRoot('ps-image-');
    const context = path.join(work, 'context');
    const wheels = path.join(work, 'wheels');
    fs.mkdirSync(path.join(context, 'dist'), { recursive: true });
    // The build context the recipe names: the checkout's dist/ with the wheel in it.
    buildWheel(path.join(context, 'dist'));
    const made = spawnSync(
      PYTHON,
      [
        path.join(__dirname, 'vendored_wheels.py'),
        VENDORED_SERVER_PROXY,
        wheels
      ],
      {
        encoding: 'utf8',
        timeout: 60000,
        env: { PATH: '/usr/bin:/bin', PYTHONDONTWRITEBYTECODE: '1' }
      }
    );
    if (made.status !== 0) {
      throw new Error(`vendored_wheels.py failed: ${made.stderr}`);
    }
    const pipIndex = machineIndex();
    const base = standinBase(trixieRoot(), pipIndex, '/wheels');
    const run = spawnSync(
      'podman',
      [
        'build',
        '--isolation=chroot',
        '--network=host',
        '--volume',
        `${wheels}:/wheels:ro`,
        ...pipIndex.mounts.flatMap(dir => ['--volume', `${dir}:${dir}:ro`]),
        '--build-arg',
        `BASE=${base}`,
        '-f',
        DOCKERFILE,
        '-t',
        IMAGE,
        context
      ],
      { encoding: 'utf8', timeout: 600000, maxBuffer: 64 * 1024 * 1024 }
    );
    build = `${run.stdout}${run.stderr}`;
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    fs.writeFileSync(path.join(ARTIFACTS, 'container-image-build.log'), build);
    built = run.status === 0;
  }, 1200000);

  afterAll(async () => {
    if (jupyter?.pid !== undefined && jupyter.exitCode === null) {
      const exited = new Promise(resolve => jupyter?.once('exit', resolve));
      try {
        process.kill(-jupyter.pid, 'SIGTERM');
      } catch {
        // gone
      }
      // Bounded, without a timer that outlives the run.
      await Promise.race([
        exited,
        new Promise(resolve => setTimeout(resolve, 10000).unref())
      ]);
      try {
        process.kill(-jupyter.pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
    if (log !== '') {
      fs.writeFileSync(path.join(ARTIFACTS, 'container-image-server.log'), log);
    }
    if (container !== '') {
      spawnSync('podman', ['umount', container]);
      spawnSync('podman', ['rm', '-f', container]);
    }
    spawnSync('podman', ['rmi', '-f', IMAGE]);
    if (work !== '') {
      fs.rmSync(work, { recursive: true, force: true });
    }
  }, 60000);

  test('the build installs the wheel with pip and its verify step passes; nothing is fetched', () => {
    expect({ built, tail: built ? '' : build.slice(-4000) }).toEqual({
      built: true,
      tail: ''
    });
    expect(build).toMatch(
      new RegExp(
        `Successfully installed .*jupyterlab-project-startup-${PACKAGE_VERSION.replace(/\./g, '\\.')}`
      )
    );
    expect(build).toMatch(
      /Successfully installed .*jupyter-server-proxy-4\.4\.0/
    );
    // The verify step printed the enabled extension (and passed: the build succeeded).
    expect(build).toMatch(/^\s+jupyterlab_project_startup .*enabled/m);
    // The base has Node 20: the Node step installs nothing.
    expect(build).not.toMatch(/^Get:\d+ |Setting up nodejs/m);
  });

  test('a Jupyter server started from the image as NB_UID serves Project Startup at {base_url}project/', async () => {
    expect(built).toBe(true);
    container = podman(['create', IMAGE, '/bin/true'])
      .trim()
      .split('\n')
      .pop() as string;
    const rootfs = podman(['mount', container])
      .trim()
      .split('\n')
      .pop() as string;
    const port = await freePort();
    const token = randomBytes(24).toString('hex');
    // As the chart starts it: the image's user, its home as the working directory and root_dir.
    const { command, args } = inTrixie(rootfs, [
      '/bin/sh',
      '-c',
      'cd /home/jovyan && exec setpriv --reuid 1000 --regid 100 --clear-groups "$@"',
      'as-nb-uid',
      '/usr/bin/env',
      '-i',
      'HOME=/home/jovyan',
      'PATH=/usr/local/bin:/usr/bin:/bin',
      'LANG=C.UTF-8',
      'jupyter',
      'server',
      '--ServerApp.ip=127.0.0.1',
      `--ServerApp.port=${port}`,
      '--ServerApp.port_retries=0',
      '--ServerApp.open_browser=False',
      `--IdentityProvider.token=${token}`
    ]);
    jupyter = spawn(command, args, {
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: '/usr/bin:/bin:/usr/sbin:/sbin' }
    });
    const append = (chunk: Buffer) => {
      log += chunk.toString('utf8');
    };
    jupyter.stdout?.on('data', append);
    jupyter.stderr?.on('data', append);
    const get = (rest: string): Promise<HttpAnswer | false> =>
      httpRequest(`http://127.0.0.1:${port}/${rest}`, {
        headers: { authorization: `token ${token}` },
        timeoutMs: 20000
      }).catch(() => false as const);

    // The first request launches the sidecar through jupyter-server-proxy.
    const startup = await waitFor(
      async () => {
        if (jupyter?.exitCode !== null) {
          throw new Error(
            `the image's Jupyter server exited:\n${log.slice(-4000)}`
          );
        }
        const answer = await get('project/startup?interface=notebook');
        return answer !== false && answer.status === 200 && answer;
      },
      {
        what: "the image's Project Startup answer at /project/startup",
        timeoutMs: 90000,
        intervalMs: 500
      }
    );
    expect(startup.json).toMatchObject({
      platform: 'generic',
      interface: 'notebook',
      projectPath: '/home/jovyan',
      phase: 'awaiting-confirmation'
    });
    const diagnostics = await get('api/project-startup/diagnostics');
    expect(diagnostics && diagnostics.status).toBe(200);
    expect(diagnostics && diagnostics.json).toMatchObject({
      version: PACKAGE_VERSION,
      ok: true,
      problems: [],
      node: { path: '/usr/bin/node' },
      serverProxy: { version: '4.4.0' }
    });
    expect(log).toMatch(
      /jupyterlab-project-startup \S+: jupyter-server-proxy 4\.4\.0, Node\.js 20\./
    );
  }, 180000);
});
