// The docs tell the truth: the quick starts (the README's and docs/contributing.md's) name what
// works; `npx project-startup serve` and `npm start` start the service and say where it is; the
// test command (docs/testing.md) is the one CI runs; and every curl example of docs/http-api.md
// works against a running service.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { buildOpenApi } from '../../sidecar/src/http/openapi';
import {
  killAllChildren,
  makeSandbox,
  REPO_ROOT,
  runProcess,
  startServe
} from '../helpers/cli';
import { request } from '../helpers/harness';
import { DOC } from '../helpers/readme-sections';

const HTTP_API = fs.readFileSync(DOC.httpApi, 'utf8');

/** The fenced ```sh blocks of the section of `file` that starts with `heading`. */
function shellBlocks(heading: string, file: string): string[] {
  const doc = fs.readFileSync(file, 'utf8');
  const start = doc.indexOf(`\n${heading}\n`);
  expect(start).toBeGreaterThan(-1);
  const rest = doc.slice(start + heading.length + 2);
  const section = rest.slice(
    0,
    rest.search(/\n## /) === -1 ? undefined : rest.search(/\n## /)
  );
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map(m => m[1].trim());
}

/** Shell commands of a block: comments dropped, continuation lines joined. */
function commands(block: string): string[] {
  return block
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .map(line => line.trim())
    .filter(line => line !== '' && !line.startsWith('#'));
}

/**
 * Runs `command args` in the checkout as a person would after `npm ci`; expects it to serve on
 * loopback, print the address (the setup page) and the way to sign in, and answer health there.
 */
async function expectServesAndPrintsAddress(
  command: string,
  args: string[]
): Promise<void> {
  const sandbox = makeSandbox();
  const child = spawn(command, args, {
    cwd: REPO_ROOT,
    env: {
      ...sandbox.env,
      PATH: `${path.dirname(process.execPath)}:/usr/bin:/bin`,
      npm_config_offline: 'true'
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true
  });
  try {
    let out = '';
    child.stdout
      ?.setEncoding('utf8')
      .on('data', (chunk: string) => (out += chunk));
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no Listening line: ${out}`)),
        30000
      );
      child.stdout?.on('data', () => {
        const match =
          /^Listening: (http:\/\/127\.0\.0\.1:\d+\/project\/)$/m.exec(out);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]);
        }
      });
      child.once('exit', code =>
        reject(new Error(`${command} exited ${code}: ${out}`))
      );
    });
    const health = await request(`${url}health`);
    expect(health.status).toBe(200);
    expect(health.json.status).toBe('pass');
    expect(out).toMatch(/^Project: /m);
    expect(out).toMatch(/project-startup url/);
  } finally {
    process.kill(-(child.pid as number), 'SIGTERM');
    sandbox.remove();
  }
}

afterEach(() => killAllChildren());

describe('the docs', () => {
  it('names one test command, .ci/run, which CI runs and which runs what npm test runs, lane by lane', () => {
    expect(shellBlocks('## Tests', DOC.testing)).toEqual(['bash .ci/run']);
    const pkg = JSON.parse(
      fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')
    ) as { scripts: Record<string, string> };
    expect(pkg.scripts.test).toBe('npm run test:prepare && jest');
    // .ci/run runs what `npm test` runs, lane by lane: the builds and checks, then each lane.
    const ci = fs.readFileSync(path.join(REPO_ROOT, '.ci', 'run'), 'utf8');
    expect(ci).toMatch(/\bnpm run test:prepare\b/);
    for (const lane of ['unit', 'service', 'system']) {
      expect(ci).toMatch(new RegExp(`npx jest --selectProjects ${lane}\\b`));
    }
  });

  it('quick start: `npx project-startup serve` runs the service and prints where to reach it', async () => {
    const [quickStart] = shellBlocks('## Quick start', DOC.contributing);
    expect(quickStart).toBe('npm ci && npx project-startup serve');
    // The second half of the one-liner, in the checkout as the quick start says (npm ci already ran).
    await expectServesAndPrintsAddress('npx', ['project-startup', 'serve']);
  }, 40000);

  it('the README opens with the quick start: npm ci, npm run lab, bash .ci/run, each with what it needs', () => {
    const readme = fs.readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
    const headings = [...readme.matchAll(/^## (.+)$/gm)].map(m => m[1]);
    expect(headings[0]).toBe('Quick start');
    expect(headings).toContain('Install');
    const [block] = shellBlocks(
      '## Quick start',
      path.join(REPO_ROOT, 'README.md')
    );
    expect(block).toBe('npm ci\nnpm run lab\nbash .ci/run');
    const section = readme.slice(
      readme.indexOf('## Quick start'),
      readme.indexOf(`## ${headings[1]}`)
    );
    const flat = section.replace(/\s+/g, ' ');
    for (const needed of [
      'Node.js 20 or newer',
      'Python 3.9 or newer',
      "root and Debian's apt",
      'Slurm, JupyterHub, Chromium and podman',
      '`npm run test:unit`',
      '`npm run lab -- --notebook`',
      '--proxy-source',
      'PROJECT_STARTUP_PROXY_SOURCE',
      '`npm start`'
    ]) {
      expect(flat).toContain(needed);
    }
    // What the README says the CI script installs, it installs.
    const ciRun = fs.readFileSync(path.join(REPO_ROOT, '.ci', 'run'), 'utf8');
    for (const aptPackage of [
      'slurmctld',
      'jupyterhub',
      'chromium',
      'podman'
    ]) {
      expect(ciRun).toMatch(
        new RegExp(`APT_PACKAGES=\\([^)]*\\b${aptPackage}\\b`)
      );
    }
    const scripts = (
      JSON.parse(
        fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')
      ) as { scripts: Record<string, string> }
    ).scripts;
    expect(scripts['test:unit']).toMatch(/--selectProjects unit\b/);
  });

  it("`npm start` runs the service alone on loopback and prints its setup page's address, with no build of its own", async () => {
    const scripts = (
      JSON.parse(
        fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')
      ) as { scripts: Record<string, string> }
    ).scripts;
    // No prestart: what `npm ci` built (prepare) is all it runs.
    expect(scripts.prestart).toBeUndefined();
    await expectServesAndPrintsAddress('npm', ['start', '--silent']);
  }, 40000);

  it('documents every route of the OpenAPI document', () => {
    const routes = Object.keys(
      (buildOpenApi('/', '0') as { paths: Record<string, unknown> }).paths
    ).map(p => p.replace('/project/', ''));
    for (const route of routes) {
      expect(HTTP_API).toContain(`| \`${route}`);
    }
  });

  it('every curl example works against the service started as docs/http-api.md shows', async () => {
    const sandbox = makeSandbox();
    try {
      const [setup, examples] = shellBlocks('## Endpoints', DOC.httpApi);
      const setupCommands = commands(setup);
      expect(setupCommands[0]).toMatch(
        /^export PROJECT_STARTUP_TOKEN=\$\(node -p /
      );
      expect(setupCommands[1]).toBe('npx project-startup serve --port 8765 &');
      // Same token recipe, a free port instead of 8765 so tests never collide.
      const token = (
        await runProcess(
          'bash',
          [
            '--norc',
            '--noprofile',
            '-c',
            `${setupCommands[0]}; printf %s "$PROJECT_STARTUP_TOKEN"`
          ],
          {
            env: { PATH: `${path.dirname(process.execPath)}:/usr/bin:/bin` },
            cwd: sandbox.root
          }
        )
      ).stdout;
      expect(token).toMatch(/^[0-9a-f]{64}$/);
      const serve = await startServe(['--port', '0'], {
        env: { ...sandbox.env, PROJECT_STARTUP_TOKEN: token },
        cwd: sandbox.projectDir
      });
      const steps = commands(examples).map(c =>
        c.replace(/\/home\/you\/project/g, sandbox.projectDir)
      );
      expect(
        steps.filter(c => c.startsWith('curl')).length
      ).toBeGreaterThanOrEqual(8);
      const script = [
        'set -euo pipefail',
        `TOKEN=${token}`,
        `URL=${serve.url}`,
        ...steps.map(c => `${c}\necho; echo @@@`)
      ].join('\n');
      const run = await runProcess(
        'bash',
        ['--norc', '--noprofile', '-c', script],
        {
          env: { PATH: `${path.dirname(process.execPath)}:/usr/bin:/bin` },
          cwd: sandbox.projectDir,
          timeoutMs: 20000
        }
      );
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      const outputs = run.stdout.split('@@@\n').map(o => o.trim());
      steps.forEach((step, i) => {
        const output = outputs[i];
        if (step.startsWith('ETAG=')) {
          expect(output).toBe('');
        } else if (step.includes('If-None-Match')) {
          expect(output).toBe('304');
        } else {
          // JSON, and neither a problem (numeric status >= 400) nor a JSON-RPC error.
          const body = JSON.parse(output) as
            Record<string, unknown> | Record<string, unknown>[];
          for (const item of Array.isArray(body) ? body : [body]) {
            expect(item).not.toHaveProperty('error');
            expect(typeof item.status === 'number' && item.status >= 400).toBe(
              false
            );
          }
        }
      });
      // The initialize example really created the state.
      expect(
        fs.statSync(path.join(sandbox.projectDir, '.project-startup')).mode &
          0o777
      ).toBe(0o700);
      await serve.stop();
    } finally {
      sandbox.remove();
    }
  }, 40000);
});
