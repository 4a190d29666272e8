// The site configuration file through the real command line: `config check` on a
// good file and on bad ones (exit code, every problem line), the file's trust (mode, owner of a
// symlink's target: files made as uid 65534, which needs root as CI runs), where it is found,
// and `serve` with a bad file: exit 2 in a terminal, `misconfigured` behind the proxy's flags.
import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import {
  BIN,
  killAllChildren,
  looksLikeStack,
  REPO_ROOT,
  runCli,
  trackedSandboxes
} from '../helpers/cli';
import { OTHER_UID } from '../helpers/listener-as-user';
import { expectValid } from '../helpers/schemas';
import { readmeCodeBlocks } from '../helpers/readme-sections';
import { waitFor } from '../helpers/wait';

const sandbox = trackedSandboxes();
afterEach(() => killAllChildren());

const EXAMPLES = path.join(REPO_ROOT, 'docs', 'examples', 'site-config');

/** A sandbox whose Jupyter config directories are its own (nothing of the machine's is read). */
function site() {
  const s = sandbox();
  const configDir = path.join(s.root, 'jupyter-config');
  fs.mkdirSync(configDir);
  const env: Record<string, string> = {
    ...s.env,
    JUPYTER_CONFIG_DIR: configDir
  };
  // The sandbox points the runtime URLs at a closed port by variable; the file's would lose.
  delete env.PROJECT_STARTUP_LOCAL_RUNTIME_URL;
  delete env.PROJECT_STARTUP_SERVING_RUNTIME_URL;
  const write = (name: string, text: string, mode = 0o600): string => {
    const file = path.join(s.root, name);
    fs.writeFileSync(file, text, { mode });
    fs.chmodSync(file, mode);
    return file;
  };
  return { ...s, env, configDir, write };
}

const BAD = `{
  "platfrom": "generic",
  "modelSources": {
    "vendor-api-a": { "label": "OpenAI\\u0007 API", "arranged": "yes" },
    "institution-ai-gateway": { "address": "https://alice:hunter2@ai.example.edu/v1" }
  },
  "storage": { "approvedRoots": ["projects"] },
  "limits": { "probeTimeoutMs": 5 }
}
`;

describe('project-startup config check', () => {
  test.each(['generic', 'hosted-notebook', 'cluster'])(
    'the %s example: exit 0, each value with its origin, the manifest that would result',
    async platform => {
      const s = site();
      const file = path.join(EXAMPLES, `${platform}.json`);
      const r = await runCli(['config', 'check', '--config', file], {
        env: { ...s.env, PROJECT_STARTUP_PROBE_TIMEOUT_MS: '3000' },
        cwd: s.projectDir
      });
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      const lines = r.stdout.split('\n');
      expect(lines[0]).toBe(`Site configuration: ${file} (flag:--config)`);
      expect(lines).toContainEqual(
        expect.stringMatching(
          new RegExp(`^  file:${file}:3 +platform=${platform}$`)
        )
      );
      // The variable wins over the file, and says so.
      expect(lines).toContainEqual(
        expect.stringMatching(
          /^ {2}env:PROJECT_STARTUP_PROBE_TIMEOUT_MS +limits\.probeTimeoutMs=3000$/
        )
      );
      expect(lines).toContainEqual(
        expect.stringMatching(/^ {2}default +PROJECT_STARTUP_TOKEN=unset/)
      );
      expect(r.stdout).toMatch(
        /Manifest that would result:\n {2}Capabilities of the /
      );
      expect(r.stdout).toContain('selected by operator-setting');
    }
  );

  test('--json: the same report as data; the token only as set, never its value', async () => {
    const s = site();
    const file = path.join(EXAMPLES, 'cluster.json');
    const token = 'a-secret-token-0123456789abcdef';
    const r = await runCli(['config', 'check', '--json', '--config', file], {
      env: { ...s.env, PROJECT_STARTUP_TOKEN: token },
      cwd: s.projectDir
    });
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain(token);
    const report = JSON.parse(r.stdout);
    expect(report.file).toBe(file);
    expect(report.foundBy).toBe('flag:--config');
    expect(report.problems).toEqual([]);
    expect(report.settings).toContainEqual({
      key: 'PROJECT_STARTUP_TOKEN',
      variable: 'PROJECT_STARTUP_TOKEN',
      value: 'set',
      origin: { source: 'env', name: 'PROJECT_STARTUP_TOKEN' }
    });
    expect(report.settings).toContainEqual({
      key: 'modelSources.institution-ai-gateway.label',
      variable: '',
      value: 'Acme Research Computing AI Gateway',
      origin: { source: 'file', path: file, line: expect.any(Number) }
    });
    expectValid('Manifest', report.manifest);
    expect(report.manifest.platform.id).toBe('cluster');
  });

  test('a bad file: exit 2 and every problem, each with file, line, key and fix; no value echoed', async () => {
    const s = site();
    const file = s.write('site.json', BAD);
    const r = await runCli(['config', 'check', '--config', file], {
      env: s.env,
      cwd: s.projectDir
    });
    expect(r.code).toBe(2);
    expect(r.stdout).not.toContain('hunter2');
    const problems = r.stdout.split('\n').filter(l => l.startsWith('  '));
    expect(problems).toEqual([
      `  ${file}:2: platfrom is not a known key at the top level. Fix: Did you mean "platform"? Rename it, or remove it.`,
      expect.stringMatching(
        new RegExp(
          `^  ${file}:4: modelSources\\.vendor-api-a\\.label holds a control character .*Fix: `
        )
      ),
      expect.stringMatching(
        new RegExp(
          `^  ${file}:4: modelSources\\.vendor-api-a\\.arranged is a string; it must be true or false\\. Fix: `
        )
      ),
      expect.stringMatching(
        new RegExp(
          `^  ${file}:5: modelSources\\.institution-ai-gateway\\.address holds credentials .*Fix: Remove the credentials`
        )
      ),
      expect.stringMatching(
        new RegExp(
          `^  ${file}:7: storage\\.approvedRoots\\.0 is not an absolute path\\. Fix: `
        )
      ),
      expect.stringMatching(
        new RegExp(
          `^  ${file}:8: limits\\.probeTimeoutMs is 5, outside 50 to 30000\\. Fix: `
        )
      )
    ]);
    expect(r.stdout).toContain('6 problems:');
    expect(r.stdout).not.toContain('Effective configuration');
  });

  test('malformed JSON: exit 2, the line and column', async () => {
    const s = site();
    const file = s.write('site.json', '{\n  "platform": "generic",\n}\n');
    const r = await runCli(['config', 'check', '--config', file], {
      env: s.env,
      cwd: s.projectDir
    });
    expect(r.code).toBe(2);
    expect(r.stdout).toContain(`  ${file}:3:1: not valid JSON`);
    // Line and column only: the text around the fault may be a secret.
    fs.writeFileSync(file, '{\n  "x": sk-live-AB0123456789\n}\n');
    const quoted = await runCli(['config', 'check', '--config', file], {
      env: s.env,
      cwd: s.projectDir
    });
    expect(quoted.code).toBe(2);
    expect(quoted.stdout).toMatch(
      new RegExp(`\n  ${file}:\\d+:\\d+: not valid JSON\\. Fix: `)
    );
    expect(`${quoted.stdout}${quoted.stderr}`).not.toMatch(/sk-|AB01/);
  });

  test('a source the platform lacks is refused, naming the rule', async () => {
    const s = site();
    const file = s.write(
      'site.json',
      JSON.stringify(
        {
          platform: 'cluster',
          modelSources: { 'vendor-api-a': { label: 'OpenAI API' } }
        },
        null,
        2
      )
    );
    const r = await runCli(['config', 'check', '--config', file], {
      env: s.env,
      cwd: s.projectDir
    });
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(
      /:4: modelSources\.vendor-api-a: the Cluster platform \(cluster\) has no vendor-api-a source; each platform has a fixed set of model sources/
    );
  });

  test('a file readable by others that holds a secret is refused; made private, only the unknown key is', async () => {
    const s = site();
    const text =
      '{\n  "policy": {},\n  "apiToken": "sk-0123456789abcdefghij"\n}\n';
    const file = s.write('site.json', text, 0o644);
    const run = () =>
      runCli(['config', 'check', '--config', file], {
        env: s.env,
        cwd: s.projectDir
      });
    const open = await run();
    expect(open.code).toBe(2);
    expect(open.stdout).not.toContain('sk-0123456789');
    expect(open.stdout).toContain(
      `  ${file}: apiToken: the file is readable by others (mode 0644) and apiToken looks like a secret`
    );
    fs.chmodSync(file, 0o600);
    const closed = await run();
    expect(closed.code).toBe(2);
    expect(closed.stdout).not.toContain('readable by others');
    expect(closed.stdout).toContain('apiToken is not a known key');
  });

  test("a symbolic link to another user's file is refused; to one's own, it is read", async () => {
    const s = site();
    const theirs = s.write(
      'theirs.json',
      '{"policy": {"lowRiskAutomation": "denied"}}',
      0o644
    );
    fs.chownSync(theirs, OTHER_UID, OTHER_UID);
    const mine = s.write(
      'mine.json',
      '{"policy": {"lowRiskAutomation": "denied"}}',
      0o644
    );
    const linkToTheirs = path.join(s.configDir, 'project-startup.json');
    fs.symlinkSync(theirs, linkToTheirs);
    // Found by the search (the user's config directory), as an operator would place it.
    const refused = await runCli(['config', 'check'], {
      env: s.env,
      cwd: s.projectDir
    });
    expect(refused.code).toBe(2);
    expect(refused.stdout).toContain(
      `  ${linkToTheirs}: not read: the file is owned by uid ${OTHER_UID}, not by root (the user the service runs as): that user could change what it says`
    );
    expect(refused.stdout).toContain(`Fix: Run \`chown root ${theirs}\``);
    fs.unlinkSync(linkToTheirs);
    fs.symlinkSync(mine, linkToTheirs);
    const read = await runCli(['config', 'check'], {
      env: s.env,
      cwd: s.projectDir
    });
    expect(read.code).toBe(0);
    expect(read.stdout).toContain(
      `Site configuration: ${linkToTheirs} (the user Jupyter config directory)`
    );
    expect(read.stdout).toMatch(
      new RegExp(`file:${linkToTheirs}:1 +policy\\.lowRiskAutomation=denied`)
    );
  });

  test("another user's 0666 file in a directory on JUPYTER_CONFIG_PATH is not read: exit 2, its owner and the chown; none of its values", async () => {
    const s = site();
    // The other user (uid 65534, a real second user) owns a directory on the path and writes
    // the file into it themselves.
    fs.chmodSync(s.root, 0o755);
    const theirDir = path.join(s.root, 'their-config');
    fs.mkdirSync(theirDir, { mode: 0o755 });
    fs.chownSync(theirDir, OTHER_UID, OTHER_UID);
    const theirFile = path.join(theirDir, 'project-startup.json');
    const written = spawnSync(
      '/usr/bin/setpriv',
      [
        '--reuid',
        String(OTHER_UID),
        '--regid',
        String(OTHER_UID),
        '--clear-groups',
        '/usr/bin/python3',
        '-c',
        'import os,sys; fd=os.open(sys.argv[1], os.O_WRONLY|os.O_CREAT|os.O_EXCL, 0o666); os.fchmod(fd, 0o666); os.write(fd, sys.argv[2].encode())',
        theirFile,
        JSON.stringify({
          platform: 'generic',
          modelSources: {
            'institution-ai-gateway': {
              label: 'Approved by IT',
              address: 'https://evil.example/',
              arranged: true
            }
          },
          sessions: { idleSeconds: 604800, maxSeconds: 604800 }
        })
      ],
      { encoding: 'utf8', env: { PATH: '/usr/bin:/bin' }, timeout: 10000 }
    );
    expect(written.stderr).toBe('');
    expect(fs.statSync(theirFile).uid).toBe(OTHER_UID);
    const r = await runCli(['config', 'check'], {
      env: { ...s.env, JUPYTER_CONFIG_PATH: theirDir },
      cwd: s.projectDir
    });
    expect(r.code).toBe(2);
    expect(r.stdout).toContain(
      `  ${theirFile}: not read: the directory ${theirDir} above it is owned by uid ${OTHER_UID}, not by root`
    );
    expect(r.stdout).toContain(`Fix: Run \`chown root ${theirDir}\``);
    expect(r.stdout).not.toMatch(/Approved by IT|evil\.example|604800/);
    // Made root's directory, the file is still theirs, and writable by all.
    fs.chownSync(theirDir, 0, 0);
    const file = await runCli(['config', 'check'], {
      env: { ...s.env, JUPYTER_CONFIG_PATH: theirDir },
      cwd: s.projectDir
    });
    expect(file.code).toBe(2);
    expect(file.stdout).toContain(
      `  ${theirFile}: not read: the file is owned by uid ${OTHER_UID}`
    );
    fs.chownSync(theirFile, 0, 0);
    const mode = await runCli(['config', 'check'], {
      env: { ...s.env, JUPYTER_CONFIG_PATH: theirDir },
      cwd: s.projectDir
    });
    expect(mode.code).toBe(2);
    expect(mode.stdout).toContain(
      `  ${theirFile}: not read: the file can be written by group and others (mode 0666): another user could change or replace it`
    );
    expect(mode.stdout).toContain(`Fix: Run \`chmod go-w ${theirFile}\``);
  });

  test('a directory others can write is refused unless it is sticky; a ConfigMap-style mount of root links is read', async () => {
    const s = site();
    const text = '{"limits": {"probeTimeoutMs": 600}}';
    const open = path.join(s.root, 'open');
    fs.mkdirSync(open);
    fs.chmodSync(open, 0o777);
    fs.writeFileSync(path.join(open, 'project-startup.json'), text);
    const run = (dir: string) =>
      runCli(['config', 'check'], {
        env: { ...s.env, JUPYTER_CONFIG_PATH: dir },
        cwd: s.projectDir
      });
    const refused = await run(open);
    expect(refused.code).toBe(2);
    expect(refused.stdout).toContain(
      `not read: the directory ${open} above it can be written by group and others (mode 0777)`
    );
    fs.chmodSync(open, 0o1777);
    expect((await run(open)).code).toBe(0);
    // As Kubernetes mounts a ConfigMap: the name is a link through ..data to a timestamped
    // directory, all root's.
    const mount = path.join(s.root, 'configmap');
    const stamped = path.join(mount, '..2026_11_28_12_00_00.000000001');
    fs.mkdirSync(stamped, { recursive: true });
    fs.writeFileSync(path.join(stamped, 'project-startup.json'), text);
    fs.symlinkSync(path.basename(stamped), path.join(mount, '..data'));
    fs.symlinkSync(
      '..data/project-startup.json',
      path.join(mount, 'project-startup.json')
    );
    const read = await run(mount);
    expect(read.code).toBe(0);
    expect(read.stdout).toMatch(
      /configmap\/project-startup\.json:1 +limits\.probeTimeoutMs=600/
    );
  });

  test('found as Jupyter finds config: the user directory before $JUPYTER_CONFIG_PATH; none found says where it looked', async () => {
    const s = site();
    const envDir = path.join(s.root, 'env-config');
    fs.mkdirSync(envDir);
    fs.writeFileSync(
      path.join(envDir, 'project-startup.json'),
      '{"limits": {"probeTimeoutMs": 600}}'
    );
    const env = { ...s.env, JUPYTER_CONFIG_PATH: envDir };
    const fromEnv = await runCli(['config', 'check'], {
      env,
      cwd: s.projectDir
    });
    expect(fromEnv.code).toBe(0);
    expect(fromEnv.stdout.split('\n')[0]).toMatch(
      /env-config\/project-startup\.json \(the environment Jupyter config directory\)$/
    );
    expect(fromEnv.stdout).toMatch(
      /env-config\/project-startup\.json:1 +limits\.probeTimeoutMs=600/
    );
    fs.writeFileSync(
      path.join(s.configDir, 'project-startup.json'),
      '{"limits": {"probeTimeoutMs": 700}}'
    );
    const fromUser = await runCli(['config', 'check'], {
      env,
      cwd: s.projectDir
    });
    expect(fromUser.stdout).toMatch(
      /jupyter-config\/project-startup\.json:1 +limits\.probeTimeoutMs=700/
    );
    const none = await runCli(['config', 'check'], {
      env: {
        ...env,
        JUPYTER_CONFIG_PATH: '',
        JUPYTER_CONFIG_DIR: path.join(s.root, 'empty')
      },
      cwd: s.projectDir
    });
    expect(none.code).toBe(0);
    expect(none.stdout).toMatch(
      /^Site configuration: none found \(looked in .*empty\/project-startup\.json \(user\), \/usr\/local\/etc\/jupyter\/project-startup\.json \(system\)/
    );
  });
});

describe('settings the selected platform does not use', () => {
  it('storage.approvedRoots on the hosted notebook platform: accepted, and config check warns that it has no effect', async () => {
    const s = site();
    const file = s.write(
      'site.json',
      `{
  "platform": "hosted-notebook",
  "storage": { "approvedRoots": ["/projects"] }
}
`
    );
    const r = await runCli(['config', 'check', '--config', file], {
      env: s.env,
      cwd: s.projectDir
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('1 warning (accepted, without effect):');
    expect(r.stdout).toContain(
      `  storage.approvedRoots (file:${file}:3): the Hosted notebook platform does not use it`
    );
    const json = await runCli(['config', 'check', '--json', '--config', file], {
      env: s.env,
      cwd: s.projectDir
    });
    expect(JSON.parse(json.stdout).warnings).toEqual([
      expect.objectContaining({
        key: 'storage.approvedRoots',
        variable: 'PROJECT_STARTUP_APPROVED_STORAGE'
      })
    ]);
    // Where the platform uses it, no warning.
    const cluster = s.write(
      'cluster.json',
      '{ "platform": "cluster", "storage": { "approvedRoots": ["/projects"] } }\n'
    );
    const used = await runCli(
      ['config', 'check', '--json', '--config', cluster],
      {
        env: s.env,
        cwd: s.projectDir
      }
    );
    expect(JSON.parse(used.stdout).warnings).toEqual([]);
  });
});

describe('inside a Jupyter server: c.ProjectStartup as the server passes it on', () => {
  // What the server extension puts in the server's environment, which its terminals inherit
  // (configurable.py jupyter_settings_value): the variables it applies, each with its trait.
  function jupyterSettings(file: string): string {
    return JSON.stringify({
      PROJECT_STARTUP_CONFIG: {
        trait: 'c.ProjectStartup.config_file',
        value: file
      },
      PROJECT_STARTUP_PLATFORM: {
        trait: 'c.ProjectStartup.platform',
        value: 'hosted-notebook'
      }
    });
  }

  it('config check and status --local see the hosted platform and the site file, and say where each came from', async () => {
    const s = site();
    const file = s.write(
      'site.json',
      JSON.stringify({
        modelSources: { 'service-managed': { label: 'Campus inference' } }
      })
    );
    const io = {
      env: {
        ...s.env,
        JUPYTERHUB_API_URL: 'http://127.0.0.1:9/hub/api',
        JUPYTERHUB_USER: 'alice',
        PROJECT_STARTUP_JUPYTER_SETTINGS: jupyterSettings(file)
      },
      cwd: s.projectDir
    };
    const check = await runCli(['config', 'check'], io);
    expect(check.code).toBe(0);
    const lines = check.stdout.split('\n');
    expect(lines[0]).toBe(
      `Site configuration: ${file} (jupyter:c.ProjectStartup.config_file)`
    );
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^ {2}jupyter:c\.ProjectStartup\.platform +platform=hosted-notebook$/
      )
    );
    expect(check.stdout).toContain('Campus inference');
    const status = await runCli(['status', '--local', '--json'], io);
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout).platform).toBe('hosted-notebook');
    // A variable set in the terminal itself still wins, and is named as such.
    const own = await runCli(['config', 'check', '--json'], {
      ...io,
      env: { ...io.env, PROJECT_STARTUP_PLATFORM: 'generic' }
    });
    const report = JSON.parse(own.stdout);
    expect(
      report.settings.find(
        (v: { variable: string }) => v.variable === 'PROJECT_STARTUP_PLATFORM'
      )
    ).toMatchObject({
      value: 'generic',
      origin: { source: 'env', name: 'PROJECT_STARTUP_PLATFORM' }
    });
  });
});

describe('`serve` with a bad site configuration file', () => {
  test('in a terminal: exits 2 with the same message, nothing started', async () => {
    const s = site();
    const file = s.write('site.json', BAD);
    const r = await runCli(['serve', '--config', file], {
      env: s.env,
      cwd: s.projectDir
    });
    expect(r.code).toBe(2);
    expect(r.timedOut).toBe(false);
    expect(r.stderr).toMatch(
      /^project-startup: The site configuration is refused \(6 problems\):\n/
    );
    expect(r.stderr).toContain(`${file}:2: platfrom is not a known key`);
    expect(r.stderr).not.toContain('hunter2');
    expect(looksLikeStack(r.stderr)).toBe(false);
    expect(r.stdout).not.toMatch(/Listening:/);
  });

  test("behind the proxy's flags: stays up and answers misconfigured with the file, line, key and fix", async () => {
    const s = site();
    const file = s.write(
      'site.json',
      '{\n  "sessions": { "idleSecond": 60 }\n}\n'
    );
    const socket = path.join(s.root, 'project.sock');
    const child: ChildProcess = spawn(
      process.execPath,
      [
        BIN,
        'serve',
        '--ingress',
        'notebook-server-proxy',
        '--unix-socket',
        socket
      ],
      {
        cwd: s.projectDir,
        env: { ...s.env, PROJECT_STARTUP_CONFIG: file },
        stdio: ['ignore', 'pipe', 'pipe']
      }
    );
    let stderr = '';
    child.stderr?.setEncoding('utf8').on('data', c => (stderr += c));
    const exited = new Promise<number | null>(resolve =>
      child.once('exit', code => resolve(code))
    );
    try {
      await waitFor(
        () =>
          /not started: a configuration error/.test(stderr) ||
          child.exitCode !== null,
        { what: 'the misconfigured listener', timeoutMs: 20000 }
      );
      expect(child.exitCode).toBeNull();
      const answer = await getOverSocket(socket, '/project/health');
      expect(answer.status).toBe(503);
      const problem = JSON.parse(answer.text);
      expectValid('Problem', problem);
      expect(problem).toMatchObject({
        code: 'misconfigured',
        setting: 'sessions.idleSecond',
        file,
        line: 2
      });
      expect(problem.detail).toBe(
        `The site configuration is refused: ${file}:2: sessions.idleSecond is not a known key in sessions. Fix: Did you mean "idleSeconds"? Rename it, or remove it.`
      );
      expect(problem.fix).toMatch(
        /^Did you mean "idleSeconds"\? .*restart the Jupyter server/
      );
      expect(stderr).toContain(problem.detail);
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  }, 40000);
});

function getOverSocket(
  socketPath: string,
  urlPath: string
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      { socketPath, path: urlPath, timeout: 10000 },
      response => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, text })
        );
      }
    );
    request.on('timeout', () => request.destroy(new Error('timed out')));
    request.on('error', reject);
    request.end();
  });
}

/**
 * The subset of YAML the docs' Helm values use: block mappings by indentation, one-line flow
 * mappings (`{ a: b, c: d }`), comments, and plain scalars (true, false, numbers, strings).
 * Anything else throws, so an example that outgrows it fails here rather than reading wrong.
 */
function helmValues(text: string): Record<string, unknown> {
  const scalar = (raw: string): unknown => {
    const value = raw.trim();
    if (value.startsWith('{')) {
      if (!value.endsWith('}')) {
        throw new Error(`unsupported YAML value: ${value}`);
      }
      return Object.fromEntries(
        value
          .slice(1, -1)
          .split(',')
          .filter(pair => pair.trim() !== '')
          .map(pair => {
            const at = pair.indexOf(':');
            return [pair.slice(0, at).trim(), scalar(pair.slice(at + 1))];
          })
      );
    }
    if (/^[[|>&*!'"]/.test(value)) {
      throw new Error(`unsupported YAML value: ${value}`);
    }
    if (value === 'true' || value === 'false') {
      return value === 'true';
    }
    return /^-?\d+$/.test(value) ? Number(value) : value;
  };
  const root: Record<string, unknown> = {};
  const stack: { indent: number; node: Record<string, unknown> }[] = [
    { indent: -1, node: root }
  ];
  for (const raw of text.split('\n')) {
    const line = raw.replace(/(^|\s)#.*$/, '');
    if (line.trim() === '') {
      continue;
    }
    const indent = line.length - line.trimStart().length;
    const entry = /^([\w-]+):(.*)$/.exec(line.trim());
    if (!entry) {
      throw new Error(`unsupported YAML line: ${raw}`);
    }
    while (stack[stack.length - 1].indent >= indent) {
      stack.pop();
    }
    const parent = stack[stack.length - 1].node;
    if (entry[2].trim() === '') {
      const child: Record<string, unknown> = {};
      parent[entry[1]] = child;
      stack.push({ indent, node: child });
    } else {
      parent[entry[1]] = scalar(entry[2]);
    }
  }
  return root;
}

describe("the docs' Zero to JupyterHub example", () => {
  test('its site file passes the real config check, and the manifest shows each source as the file says', async () => {
    const [values] = readmeCodeBlocks(
      'Zero to JupyterHub: one mounted file',
      'yaml',
      path.join(REPO_ROOT, 'docs', 'site-configuration.md')
    );
    const mounted = (
      (helmValues(values).singleuser as Record<string, unknown>)
        .extraFiles as Record<string, { mountPath: string; data: unknown }>
    )['project-startup'];
    expect(mounted.mountPath).toBe('/etc/jupyter/project-startup.json');
    const data = mounted.data as {
      platform: string;
      modelSources: Record<string, { label?: string; arranged: boolean }>;
    };
    const s = site();
    // As Z2JH writes `data` for a .json mountPath: JSON, in a file only root can change.
    const file = s.write('project-startup.json', JSON.stringify(data, null, 2));
    const r = await runCli(['config', 'check', '--config', file], {
      env: s.env,
      cwd: s.projectDir
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      `Capabilities of the Hosted notebook platform (${data.platform})`
    );
    const listed = r.stdout.slice(r.stdout.indexOf('    Model sources\n'));
    for (const [id, source] of Object.entries(data.modelSources)) {
      expect(r.stdout).toMatch(
        new RegExp(
          `file:${file}:\\d+ +modelSources\\.${id}\\.arranged=${source.arranged}\\n`
        )
      );
      if (source.label !== undefined) {
        // Under its label: arranged ones with their route, the others saying they are not.
        const heading = listed.indexOf(`      ${source.label}`);
        expect(heading).toBeGreaterThan(0);
        const next = listed.slice(heading).split('\n')[1];
        if (source.arranged) {
          expect(next).not.toContain('not arranged');
        } else {
          expect(next).toBe('        not arranged at this site');
        }
      }
    }
    // What the example arranges, and only that, is arranged.
    const arranged = Object.values(data.modelSources).filter(s => s.arranged);
    expect(arranged.length).toBeGreaterThan(0);
    expect(listed.match(/not arranged at this site/g)).toHaveLength(
      Object.keys(data.modelSources).length - arranged.length
    );
  });
});
