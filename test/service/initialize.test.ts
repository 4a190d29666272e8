// POST {api}initialize against the rules of design.md ("POST /project/initialize", "Where things
// live", "Setup phases"): who may confirm, in which phase, idempotence, concurrency, the files it
// leaves on disk, and what it refuses. Real services on loopback, one per scenario.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  HttpResult,
  PLATFORM_EVIDENCE,
  postJson,
  promptKeyHeader,
  request,
  TestService,
  trackedServices
} from '../helpers/harness';
import { expectProblem, expectValid } from '../helpers/schemas';

/** The temporary root of every test service lies below this, so it can serve as approved storage. */
const TMP_REAL = fs.realpathSync(os.tmpdir());
/** A cluster job: a live allocation variable and the project inside approved storage. */
const CLUSTER_JOB = {
  SLURM_JOB_ID: '4242',
  PROJECT_STARTUP_APPROVED_STORAGE: TMP_REAL
};
const CLUSTER_LOGIN_NODE = {
  ...PLATFORM_EVIDENCE.cluster.env,
  PROJECT_STARTUP_APPROVED_STORAGE: TMP_REAL
};

const start = trackedServices('each');

async function projection(svc: TestService, iface: string) {
  const r = await request(`${svc.api}startup?interface=${iface}`, {
    token: svc.token
  });
  expect(r.status).toBe(200);
  expectValid('StartupProjection', r.json);
  return r.json as {
    projectPath: string;
    statePath: string;
    phase: string;
    nextAction: { id: string };
  };
}

async function confirmation(
  svc: TestService,
  iface: string,
  extra: Record<string, unknown> = {}
) {
  const p = await projection(svc, iface);
  return {
    interface: iface,
    confirm: { projectPath: p.projectPath, statePath: p.statePath },
    ...extra
  };
}

function initialize(
  svc: TestService,
  body: unknown,
  headers: Record<string, string> = {}
): Promise<HttpResult> {
  return postJson(`${svc.api}initialize`, svc.token, body, headers);
}

/** POST on a connection of its own (no pooled keep-alive socket). */
function postOnNewConnection(
  svc: TestService,
  body: unknown
): Promise<HttpResult> {
  return postJson(
    `${svc.api}initialize`,
    svc.token,
    body,
    {},
    { newConnection: true }
  );
}

function expectInitialized(r: HttpResult, status: 200 | 201): void {
  expect(r.status).toBe(status);
  expect(r.headers['content-type']).toMatch(/^application\/json/);
  expectValid('InitializeResponse', r.json);
  expectValid('InitializationRecord', r.json.record);
  expect(r.json.created).toBe(status === 201);
  expect(r.json.phase).toBe('ready');
  expect(r.json.nextAction.id).toBe('none');
}

function mode(p: string): number {
  return fs.lstatSync(p).mode & 0o777;
}

function exists(p: string): boolean {
  try {
    fs.lstatSync(p);
    return true;
  } catch {
    return false;
  }
}

describe('generic platform: browser confirmations create the state', () => {
  it.each(['web', 'notebook'])(
    '%s confirmation: 201 with the record, then 200 with the same record and the file untouched',
    async iface => {
      const svc = await start();
      const statePath = path.join(svc.projectDir, '.project-startup');
      const body = await confirmation(svc, iface);
      expect(body.confirm).toEqual({ projectPath: svc.projectDir, statePath });

      const first = await initialize(svc, body);
      expectInitialized(first, 201);
      const record = first.json.record;
      expect(record).toMatchObject({
        kind: 'project-startup-state',
        projectPath: svc.projectDir,
        statePath,
        platform: 'generic',
        confirmation: {
          interface: iface,
          method: 'http-api',
          ingress: 'direct-loopback'
        }
      });
      expect(Number.isNaN(Date.parse(record.confirmation.confirmedAt))).toBe(
        false
      );

      const recordFile = path.join(statePath, 'initialization.json');
      const before = fs.statSync(recordFile);
      const bytes = fs.readFileSync(recordFile);

      const again = await initialize(svc, body);
      expectInitialized(again, 200);
      expect(again.json.record).toEqual(record);

      const after = fs.statSync(recordFile);
      expect({
        ino: after.ino,
        mtimeMs: after.mtimeMs,
        size: after.size
      }).toEqual({
        ino: before.ino,
        mtimeMs: before.mtimeMs,
        size: before.size
      });
      expect(fs.readFileSync(recordFile).equals(bytes)).toBe(true);

      const now = await projection(svc, iface);
      expect(now.phase).toBe('ready');
    }
  );

  it('leaves a 0700 directory holding only a 0600 JSON record, without any credential', async () => {
    const secrets = {
      JUPYTERHUB_API_TOKEN: 'jhub-token-6f1c0d2e9a8b7c6d5e4f3a2b1c0d9e8f',
      JPY_API_TOKEN: 'jpy-token-0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d',
      OPENAI_API_KEY: 'sk-vendor-key-Zx81Qw72Er63Ty54Ui45Op36',
      ANTHROPIC_API_KEY: 'sk-ant-vendor-key-Mn09Bv98Cx87Za76',
      PROJECT_STARTUP_TOKEN: 'service-token-3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b'
    };
    const svc = await start({ env: secrets });
    const statePath = path.join(svc.projectDir, '.project-startup');
    const r = await initialize(
      svc,
      await confirmation(svc, 'web', { method: 'setup-page' })
    );
    expectInitialized(r, 201);

    expect(fs.readdirSync(svc.projectDir)).toEqual(['.project-startup']);
    expect(fs.lstatSync(statePath).isDirectory()).toBe(true);
    expect(mode(statePath)).toBe(0o700);
    expect(fs.readdirSync(statePath)).toEqual(['initialization.json']);
    const recordFile = path.join(statePath, 'initialization.json');
    expect(fs.lstatSync(recordFile).isFile()).toBe(true);
    expect(mode(recordFile)).toBe(0o600);

    const bytes = fs.readFileSync(recordFile, 'utf8');
    const onDisk = JSON.parse(bytes);
    expectValid('InitializationRecord', onDisk);
    expect(onDisk).toEqual(r.json.record);
    expect(onDisk).toMatchObject({
      projectPath: svc.projectDir,
      statePath,
      platform: 'generic',
      // The body said setup-page; a Bearer call is what the service saw.
      confirmation: {
        interface: 'web',
        method: 'http-api',
        ingress: 'direct-loopback'
      }
    });
    expect(typeof onDisk.confirmation.confirmedAt).toBe('string');
    for (const value of Object.values(secrets)) {
      expect(bytes).not.toContain(value);
      expect(r.text).not.toContain(value);
    }
  });

  it('a stale confirmation (paths other than the projection shows) is 409 confirmation-stale and creates nothing', async () => {
    const svc = await start();
    const body = await confirmation(svc, 'web');
    const elsewhere = path.join(svc.root, 'other');
    const stale = [
      { ...body, confirm: { ...body.confirm, projectPath: elsewhere } },
      {
        ...body,
        confirm: {
          ...body.confirm,
          statePath: path.join(elsewhere, '.project-startup')
        }
      },
      {
        ...body,
        confirm: {
          projectPath: `${body.confirm.projectPath}/`,
          statePath: body.confirm.statePath
        }
      }
    ];
    for (const b of stale) {
      const r = await initialize(svc, b);
      expectProblem(r, 409, 'confirmation-stale');
      expect(r.json.current).toEqual(body.confirm);
    }
    expect(fs.readdirSync(svc.projectDir)).toEqual([]);
    expect(exists(elsewhere)).toBe(false);
  });

  it('a terminal confirmation is 403 confirmation-not-allowed, with or without the prompt method', async () => {
    const svc = await start();
    for (const extra of [{}, { method: 'terminal-prompt' }]) {
      const r = await initialize(
        svc,
        await confirmation(svc, 'terminal', extra)
      );
      expectProblem(r, 403, 'confirmation-not-allowed');
      expect(r.json.allowedInterfaces).toEqual(['web', 'notebook']);
    }
    expect(fs.readdirSync(svc.projectDir)).toEqual([]);
  });
});

describe('hosted-notebook platform', () => {
  const hosted = { env: { ...PLATFORM_EVIDENCE['hosted-notebook'].env } };

  it.each(['terminal', 'web'])(
    'a %s confirmation is 403 confirmation-not-allowed and creates nothing',
    async iface => {
      const svc = await start(hosted);
      const r = await initialize(svc, await confirmation(svc, iface));
      expectProblem(r, 403, 'confirmation-not-allowed');
      expect(r.json.allowedInterfaces).toEqual(['notebook']);
      expect(exists(path.join(svc.homeDir, '.project-startup'))).toBe(false);
      expect(fs.readdirSync(svc.projectDir)).toEqual([]);
    }
  );

  it('a notebook confirmation is 201 with the state below $HOME, every created directory 0700', async () => {
    const jupyterToken = 'hub-api-token-a1b2c3d4e5f60718293a4b5c6d7e8f90';
    const svc = await start({
      env: {
        ...hosted.env,
        JUPYTERHUB_API_TOKEN: jupyterToken,
        JPY_API_TOKEN: jupyterToken
      },
      // Behind Jupyter's proxy, as the proxy entry runs it (a plain serve is direct loopback).
      serve: { ingress: 'notebook-server-proxy' }
    });
    const body = await confirmation(svc, 'notebook', {
      method: 'jupyterlab-dialog'
    });
    const root = path.join(svc.homeDir, '.project-startup');
    const projects = path.join(root, 'projects');
    const digest = createHash('sha256')
      .update(svc.projectDir)
      .digest('hex')
      .slice(0, 12);
    const statePath = path.join(projects, `project-${digest}`);
    expect(body.confirm).toEqual({ projectPath: svc.projectDir, statePath });

    const r = await initialize(svc, body);
    expectInitialized(r, 201);
    expect(r.json.record).toMatchObject({
      platform: 'hosted-notebook',
      projectPath: svc.projectDir,
      statePath,
      // Sent with a token (a script through the notebook server), whatever the body claims.
      confirmation: {
        interface: 'notebook',
        method: 'http-api',
        ingress: 'notebook-server-proxy'
      }
    });
    for (const dir of [root, projects, statePath]) {
      expect(fs.lstatSync(dir).isDirectory()).toBe(true);
      expect([dir, mode(dir)]).toEqual([dir, 0o700]);
    }
    expect(fs.readdirSync(root)).toEqual(['projects']);
    expect(fs.readdirSync(projects)).toEqual([`project-${digest}`]);
    expect(fs.readdirSync(statePath)).toEqual(['initialization.json']);
    const recordFile = path.join(statePath, 'initialization.json');
    expect(mode(recordFile)).toBe(0o600);
    expect(fs.readFileSync(recordFile, 'utf8')).not.toContain(jupyterToken);
    // Nothing is written into the (possibly shared) project directory.
    expect(fs.readdirSync(svc.projectDir)).toEqual([]);

    expectInitialized(await initialize(svc, body), 200);
  });
});

describe('a record confirmed on another platform (decision: it needs a new confirmation here)', () => {
  it('confirmed via the web on generic, the same project under the cluster awaits a terminal confirmation, which replaces the record', async () => {
    const generic = await start();
    const first = await initialize(generic, await confirmation(generic, 'web'));
    expectInitialized(first, 201);
    const project = generic.projectDir;
    const cluster = await start({
      env: { ...CLUSTER_JOB },
      serve: { projectDir: project }
    });
    const p = (
      await request(`${cluster.api}startup?interface=terminal`, {
        token: cluster.token
      })
    ).json;
    expect(p.phase).toBe('awaiting-confirmation');
    expect(p.confirmation.confirmed).toBe(false);
    const check = p.readinessChecks.find(
      (c: { id: string }) => c.id === 'confirmation'
    );
    expect(check.status).toBe('warn');
    expect(check.observed).toMatch(
      /confirmed on the Workstation or container \(through Browser at .*\), not on the Cluster platform: it needs its own confirmation/
    );
    expect(
      p.readinessChecks.find((c: { id: string }) => c.id === 'state-path')
        .observed
    ).toMatch(/confirming here replaces it/);
    // A web confirmation (valid on generic) is not one here; the terminal prompt is.
    expectProblem(
      await initialize(cluster, {
        interface: 'web',
        confirm: { projectPath: p.projectPath, statePath: p.statePath }
      }),
      403,
      'confirmation-not-allowed'
    );
    const again = await initialize(
      cluster,
      {
        interface: 'terminal',
        confirm: { projectPath: p.projectPath, statePath: p.statePath }
      },
      promptKeyHeader(cluster)
    );
    expectInitialized(again, 201);
    expect(again.json.record).toMatchObject({
      platform: 'cluster',
      confirmation: { interface: 'terminal', method: 'terminal-prompt' }
    });
    const onDisk = JSON.parse(
      fs.readFileSync(path.join(p.statePath, 'initialization.json'), 'utf8')
    );
    expect(onDisk).toEqual(again.json.record);
    expect(fs.readdirSync(p.statePath)).toEqual(['initialization.json']);
    // And back on generic, the cluster's record is in turn not a generic confirmation.
    const back = (
      await request(`${generic.api}startup?interface=web`, {
        token: generic.token
      })
    ).json;
    expect(back.phase).toBe('awaiting-confirmation');
  });
});

describe('the method is what the service saw, never what the body says', () => {
  it('a Bearer call claiming setup-page is recorded http-api; the setup page session is recorded setup-page', async () => {
    const claimed = await start();
    const r = await initialize(
      claimed,
      await confirmation(claimed, 'web', { method: 'setup-page' })
    );
    expectInitialized(r, 201);
    expect(r.json.record.confirmation.method).toBe('http-api');

    const page = await start();
    const signIn = await request(`${page.api}?token=${page.token}`, {
      headers: { accept: 'text/html' }
    });
    const cookie = String(
      ([] as string[]).concat(signIn.headers['set-cookie'] ?? [])[0]
    ).split(';')[0];
    const p = await projection(page, 'web');
    const viaPage = await request(`${page.api}initialize`, {
      method: 'POST',
      headers: {
        cookie,
        'content-type': 'application/json',
        origin: page.origin,
        'sec-fetch-site': 'same-origin'
      },
      body: JSON.stringify({
        interface: 'web',
        confirm: { projectPath: p.projectPath, statePath: p.statePath }
      })
    });
    expectInitialized(viaPage, 201);
    expect(viaPage.json.record.confirmation).toMatchObject({
      interface: 'web',
      method: 'setup-page',
      ingress: 'direct-loopback'
    });
  });

  it.each([
    ['terminal-prompt', 'web'],
    ['telepathy', 'notebook'],
    ['', 'web']
  ])(
    'a body method %j with interface %s is ignored, as if absent: REST and the gateway both create, recorded http-api',
    async (method, iface) => {
      const rest = await start();
      const r = await initialize(
        rest,
        await confirmation(rest, iface, { method })
      );
      expectInitialized(r, 201);
      expect(r.json.record.confirmation).toMatchObject({
        interface: iface,
        method: 'http-api'
      });

      const viaGateway = await start();
      const g = await postJson(`${viaGateway.api}gateway`, viaGateway.token, {
        jsonrpc: '2.0',
        id: 1,
        method: 'project.initialize',
        params: await confirmation(viaGateway, iface, { method })
      });
      expect(g.status).toBe(200);
      expect(g.json.error).toBeUndefined();
      expect(g.json.result.created).toBe(true);
      expect(g.json.result.record.confirmation.method).toBe('http-api');
    }
  );

  it('on the cluster a wrong prompt key is an API call, refused; only the runtime file key records terminal-prompt', async () => {
    const svc = await start({ env: CLUSTER_JOB });
    const body = await confirmation(svc, 'terminal');
    expectProblem(
      await initialize(svc, body, {
        'x-project-startup-prompt-key': 'guessed'
      }),
      403,
      'confirmation-not-allowed'
    );
    expect(fs.readdirSync(svc.projectDir)).toEqual([]);
    const r = await initialize(svc, body, promptKeyHeader(svc));
    expectInitialized(r, 201);
    expect(r.json.record.confirmation.method).toBe('terminal-prompt');
  });
});

describe('cluster platform', () => {
  it('inside an allocation and approved storage, a terminal-prompt confirmation is 201', async () => {
    const svc = await start({ env: CLUSTER_JOB });
    const body = await confirmation(svc, 'terminal', {
      method: 'terminal-prompt'
    });
    // The body's method is never believed: without the command line's prompt key it is refused.
    expectProblem(await initialize(svc, body), 403, 'confirmation-not-allowed');
    const r = await initialize(svc, body, promptKeyHeader(svc));
    expectInitialized(r, 201);
    expect(r.json.record).toMatchObject({
      platform: 'cluster',
      statePath: path.join(svc.projectDir, '.project-startup'),
      confirmation: {
        interface: 'terminal',
        method: 'terminal-prompt',
        ingress: 'direct-loopback'
      }
    });
    expect(mode(path.join(svc.projectDir, '.project-startup'))).toBe(0o700);
    expectInitialized(await initialize(svc, body, promptKeyHeader(svc)), 200);
  });

  it('a terminal confirmation without the prompt method is 403, and a web one is 403', async () => {
    const svc = await start({ env: CLUSTER_JOB });
    const plain = await initialize(svc, await confirmation(svc, 'terminal'));
    expectProblem(plain, 403, 'confirmation-not-allowed');
    const api = await initialize(
      svc,
      await confirmation(svc, 'terminal', { method: 'http-api' })
    );
    // The body's method is ignored: a plain API call, which does not confirm on the cluster.
    expectProblem(api, 403, 'confirmation-not-allowed');
    const web = await initialize(svc, await confirmation(svc, 'web'));
    expectProblem(web, 403, 'confirmation-not-allowed');
    expect(web.json.allowedInterfaces).toEqual(['terminal']);
    expect(fs.readdirSync(svc.projectDir)).toEqual([]);
  });

  it('on a login node (scheduler configured, no allocation) it is 409 wrong-phase with phase needs-compute', async () => {
    const svc = await start({
      env: CLUSTER_LOGIN_NODE,
      files: PLATFORM_EVIDENCE.cluster.files
    });
    const body = await confirmation(svc, 'terminal', {
      method: 'terminal-prompt'
    });
    const r = await initialize(svc, body, promptKeyHeader(svc));
    expectProblem(r, 409, 'wrong-phase');
    expect(r.json.phase).toBe('needs-compute');
    expect(r.json.nextAction).toMatchObject({ id: 'request-allocation' });
    expect(r.json.nextAction.command).toContain('salloc');
    expect(fs.readdirSync(svc.projectDir)).toEqual([]);
  });

  it('outside approved storage it is 409 wrong-phase with phase blocked', async () => {
    const svc = await start({
      env: {
        ...CLUSTER_JOB,
        PROJECT_STARTUP_APPROVED_STORAGE: '/nonexistent-approved-storage'
      }
    });
    const r = await initialize(
      svc,
      await confirmation(svc, 'terminal', { method: 'terminal-prompt' }),
      promptKeyHeader(svc)
    );
    expectProblem(r, 409, 'wrong-phase');
    expect(r.json.phase).toBe('blocked');
    expect(r.json.nextAction).toMatchObject({
      id: 'fix-check',
      checkId: 'approved-storage'
    });
    expect(fs.readdirSync(svc.projectDir)).toEqual([]);
  });
});

describe('request validation', () => {
  let svc: TestService;
  let good: {
    interface: string;
    confirm: { projectPath: string; statePath: string };
  };
  beforeEach(async () => {
    svc = await start();
    good = await confirmation(svc, 'web');
  });
  afterEach(() => {
    expect(fs.readdirSync(svc.projectDir)).toEqual([]);
  });

  it.each([
    'browser',
    'Web',
    'jupyterlab',
    'terminal ',
    42,
    true,
    ['web'],
    { id: 'web' }
  ])(
    'interface %j is 400 unknown-interface listing the allowed values',
    async value => {
      const r = await initialize(svc, { ...good, interface: value });
      expectProblem(r, 400, 'unknown-interface');
      expect(r.json.detail).toEqual(expect.stringContaining('terminal'));
      expect(r.json.detail).toEqual(expect.stringContaining('notebook'));
      expect(r.json.allowedValues).toEqual(['terminal', 'web', 'notebook']);
    }
  );

  it.each([
    ['absent', undefined],
    ['empty', ''],
    ['null', null]
  ])('a %s interface is 400 missing-interface', async (_label, value) => {
    const body: Record<string, unknown> = { confirm: good.confirm };
    if (value !== undefined) {
      body.interface = value;
    }
    const r = await initialize(svc, body);
    expectProblem(r, 400, 'missing-interface');
  });

  it.each([
    [
      'an unknown top-level member',
      (g: typeof good) => ({ ...g, force: true }),
      ['/force']
    ],
    [
      'an unknown confirm member',
      (g: typeof good) => ({ ...g, confirm: { ...g.confirm, mode: '0777' } }),
      ['/confirm/mode']
    ],
    [
      'a member name needing escapes',
      (g: typeof good) => ({ ...g, 'a/b~c': 1 }),
      ['/a~1b~0c']
    ],
    [
      'confirm missing',
      (g: typeof good) => ({ interface: g.interface }),
      ['/confirm']
    ],
    [
      'confirm as a string',
      (g: typeof good) => ({ ...g, confirm: 'yes' }),
      ['/confirm']
    ],
    [
      'confirm as an array',
      (g: typeof good) => ({ ...g, confirm: [g.confirm.projectPath] }),
      ['/confirm']
    ],
    [
      'confirm as null',
      (g: typeof good) => ({ ...g, confirm: null }),
      ['/confirm']
    ],
    [
      'paths of wrong types',
      (g: typeof good) => ({
        ...g,
        confirm: { projectPath: 1, statePath: null }
      }),
      ['/confirm/projectPath', '/confirm/statePath']
    ],
    [
      'a path missing',
      (g: typeof good) => ({
        ...g,
        confirm: { projectPath: g.confirm.projectPath }
      }),
      ['/confirm/statePath']
    ],
    [
      'a method of a wrong type',
      (g: typeof good) => ({ ...g, method: 7 }),
      ['/method']
    ],
    [
      'several problems at once',
      (g: typeof good) => ({
        ...g,
        extra: 1,
        confirm: {
          projectPath: g.confirm.projectPath,
          statePath: 3,
          other: 'x'
        }
      }),
      ['/extra', '/confirm/statePath', '/confirm/other']
    ]
  ])(
    '%s is 422 validation-failed with JSON pointers',
    async (_label, make, pointers) => {
      const r = await initialize(svc, make(good));
      expectProblem(r, 422, 'validation-failed');
      expect(Array.isArray(r.json.errors)).toBe(true);
      for (const e of r.json.errors) {
        expect(typeof e.pointer).toBe('string');
        expect(e.pointer === '' || e.pointer.startsWith('/')).toBe(true);
        expect(typeof e.detail).toBe('string');
      }
      expect(
        [...r.json.errors.map((e: { pointer: string }) => e.pointer)].sort()
      ).toEqual([...pointers].sort());
    }
  );

  it.each([
    ['an array', []],
    ['a string', 'web'],
    ['a number', 1],
    ['null', null]
  ])(
    'a body that is %s is 422 validation-failed at the root pointer',
    async (_label, body) => {
      const r = await initialize(svc, body);
      expectProblem(r, 422, 'validation-failed');
      expect(r.json.errors).toEqual([expect.objectContaining({ pointer: '' })]);
    }
  );
});

describe('concurrency', () => {
  it('20 concurrent calls on separate connections: one 201, nineteen 200, one state with one record', async () => {
    const svc = await start();
    const body = await confirmation(svc, 'web');
    let connections = 0;
    svc.running.server.on('connection', () => {
      connections += 1;
    });
    const results = await Promise.all(
      Array.from({ length: 20 }, () => postOnNewConnection(svc, body))
    );
    expect(connections).toBeGreaterThanOrEqual(20);
    const statuses = results.map(r => r.status).sort();
    expect(statuses.filter(s => s === 201)).toHaveLength(1);
    expect(statuses.filter(s => s === 200)).toHaveLength(19);
    const created = results.find(r => r.status === 201) as HttpResult;
    for (const r of results) {
      expectInitialized(r, r.status as 200 | 201);
      expect(r.json.record).toEqual(created.json.record);
    }
    expect(fs.readdirSync(svc.projectDir)).toEqual(['.project-startup']);
    const statePath = path.join(svc.projectDir, '.project-startup');
    expect(fs.readdirSync(statePath)).toEqual(['initialization.json']);
    expect(
      JSON.parse(
        fs.readFileSync(path.join(statePath, 'initialization.json'), 'utf8')
      )
    ).toEqual(created.json.record);
  });
});

describe('unsafe state paths are refused, never fixed', () => {
  it('a state path that is a symbolic link to another directory is 409 state-unsafe; link and target untouched', async () => {
    const svc = await start();
    const body = await confirmation(svc, 'web');
    const target = path.join(svc.root, 'link-target');
    fs.mkdirSync(target, { mode: 0o700 });
    fs.chmodSync(target, 0o700);
    const statePath = body.confirm.statePath;
    fs.symlinkSync(target, statePath);
    const linkBefore = fs.lstatSync(statePath);

    const r = await initialize(svc, body);
    expectProblem(r, 409, 'state-unsafe');
    expect(r.text).not.toContain('    at ');

    expect(fs.readdirSync(target)).toEqual([]);
    const linkAfter = fs.lstatSync(statePath);
    expect(linkAfter.isSymbolicLink()).toBe(true);
    expect(fs.readlinkSync(statePath)).toBe(target);
    expect({ ino: linkAfter.ino, mtimeMs: linkAfter.mtimeMs }).toEqual({
      ino: linkBefore.ino,
      mtimeMs: linkBefore.mtimeMs
    });
    expect(mode(target)).toBe(0o700);
  });

  it('a state directory readable by others (0755) is 409 state-unsafe and is not chmod-ed', async () => {
    const svc = await start();
    const body = await confirmation(svc, 'web');
    const statePath = body.confirm.statePath;
    fs.mkdirSync(statePath);
    fs.chmodSync(statePath, 0o755);

    const r = await initialize(svc, body);
    expectProblem(r, 409, 'state-unsafe');
    expect(mode(statePath)).toBe(0o755);
    expect(fs.readdirSync(statePath)).toEqual([]);
  });

  it('a stray temporary file from an interrupted call is removed and initialize succeeds', async () => {
    const svc = await start();
    const body = await confirmation(svc, 'web');
    const statePath = body.confirm.statePath;
    fs.mkdirSync(statePath, { mode: 0o700 });
    fs.chmodSync(statePath, 0o700);
    const stray = path.join(
      statePath,
      '.initialization.json.0123456789abcdef.tmp'
    );
    fs.writeFileSync(stray, '{"kind": "project-startup-state", "truncat', {
      mode: 0o600
    });

    const r = await initialize(svc, body);
    expectInitialized(r, 201);
    expect(fs.readdirSync(statePath)).toEqual(['initialization.json']);
    expect(mode(statePath)).toBe(0o700);
  });
});

describe('rate limit', () => {
  it('with PROJECT_STARTUP_INITIALIZE_RATE_LIMIT=3/60 the 4th call is 429 rate-limited with Retry-After', async () => {
    const svc = await start({
      env: { PROJECT_STARTUP_INITIALIZE_RATE_LIMIT: '3/60' }
    });
    const body = await confirmation(svc, 'web');
    expectInitialized(await initialize(svc, body), 201);
    expectInitialized(await initialize(svc, body), 200);
    expectInitialized(await initialize(svc, body), 200);
    const limited = await initialize(svc, body);
    expectProblem(limited, 429, 'rate-limited');
    const retryAfter = Number(limited.headers['retry-after']);
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
  });
});
