// The startup projection per platform and interface: its twelve contents, design.md's ordered
// phase rules, readiness checks, runtime probes, interface validation, and that inspection is
// read-only (every lstat field of every entry, timestamps included, stays the same).
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { resolveConfig } from '../../sidecar/src/config/config';
import { createLogger } from '../../sidecar/src/service/log';
import { startService } from '../../sidecar/src/http/server';
import { expectValid } from '../helpers/schemas';
import {
  CHECK_IDS,
  CLOSED_URL,
  HttpResult,
  NO_SCHEDULER_PATH,
  PLATFORM_EVIDENCE,
  postJson,
  promptKeyHeader,
  request,
  snapshot,
  tempRoot,
  TestService,
  TestServiceOptions,
  trackedServices
} from '../helpers/harness';

type PlatformId = 'generic' | 'hosted-notebook' | 'cluster';
type Iface = 'terminal' | 'web' | 'notebook';

const INTERFACES: Iface[] = ['terminal', 'web', 'notebook'];
const ALLOWED_VALUES = ['terminal', 'web', 'notebook'];

/** service.md's interfaces row, with design.md's ids. */
const SUPPORTED: Record<PlatformId, Iface[]> = {
  generic: ['terminal', 'web', 'notebook'],
  'hosted-notebook': ['terminal', 'notebook'],
  cluster: ['terminal']
};

/** A root that contains every temporary project: inside approved storage. */
const TMP_REAL = fs.realpathSync(os.tmpdir());
/** No scheduler client on this PATH, whatever the machine has: liveness is unknown. */

const HUB_ENV: Record<string, string> = {
  ...PLATFORM_EVIDENCE['hosted-notebook'].env
};
const LOGIN_NODE: Pick<TestServiceOptions, 'env' | 'files'> = {
  env: { ...PLATFORM_EVIDENCE.cluster.env, PATH: NO_SCHEDULER_PATH },
  files: [...PLATFORM_EVIDENCE.cluster.files]
};
const JOB_ENV: Record<string, string> = {
  SLURM_JOB_ID: '4242',
  PATH: NO_SCHEDULER_PATH
};

const start = trackedServices('all');
const extraDirs: string[] = [];

afterAll(() => {
  for (const dir of extraDirs.splice(0)) {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

function startup(svc: TestService, query: string): Promise<HttpResult> {
  return request(`${svc.api}startup?${query}`, { token: svc.token });
}

async function projection(svc: TestService, iface: Iface) {
  const r = await startup(svc, `interface=${iface}`);
  expect(r.status).toBe(200);
  expect(r.headers['content-type']).toMatch(/^application\/json/);
  expectValid('StartupProjection', r.json);
  return r.json;
}

/** A projection or check as the service sent it (expectValid holds it to the schema). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

function check(p: { readinessChecks: { id: string }[] }, id: string) {
  const found = p.readinessChecks.find(c => c.id === id);
  expect(found).toBeDefined();
  return found as Json;
}

function noStackTrace(text: string): void {
  expect(text).not.toMatch(/\n\s+at /);
  expect(text).not.toMatch(/\.ts:\d+/);
  expect(text).not.toMatch(/sidecar\/(src|dist)/);
}

function stripSlash(p: string): string {
  return p.length > 1 && p.endsWith('/') ? p.slice(0, -1) : p;
}

function expectedStatePath(platform: PlatformId, svc: TestService): string {
  if (platform === 'hosted-notebook') {
    const hex = createHash('sha256')
      .update(svc.projectDir)
      .digest('hex')
      .slice(0, 12);
    return path.join(
      svc.homeDir,
      '.project-startup',
      'projects',
      `${path.basename(svc.projectDir)}-${hex}`
    );
  }
  return path.join(svc.projectDir, '.project-startup');
}

/** The twelve contents of service.md's projection, and the invariants that hold in every phase. */
async function expectContents(
  svc: TestService,
  platform: PlatformId,
  iface: Iface,
  p: Json
): Promise<void> {
  for (const key of [
    'platform',
    'interface',
    'projectPath',
    'statePath',
    'interfaceSupport',
    'phase',
    'nextAction',
    'compute',
    'confirmation',
    'readinessChecks',
    'manifest'
  ]) {
    expect({ key, present: key in p }).toEqual({ key, present: true });
  }
  expect(p.platform).toBe(platform);
  expect(p.interface).toBe(iface);
  expect(p.projectPath).toBe(svc.projectDir);
  expect(stripSlash(p.statePath)).toBe(expectedStatePath(platform, svc));
  expect(p.interfaceSupport.supported).toBe(
    SUPPORTED[platform].includes(iface)
  );
  expect(p.interfaceSupport.supportedInterfaces).toEqual(SUPPORTED[platform]);

  // browserUrl: only for web on generic (direct loopback, verified by self-probe), never a token.
  if (platform === 'generic' && iface === 'web') {
    expect(p.browserUrl).toBe(svc.api);
    expect(p.browserUrl).not.toContain('token');
    if (svc.token) {
      expect(p.browserUrl).not.toContain(svc.token);
    }
    expect(new URL(p.browserUrl).hostname).toBe('127.0.0.1');
  } else {
    expect('browserUrl' in p).toBe(false);
  }
  if (svc.token) {
    expect(JSON.stringify(p)).not.toContain(svc.token);
  }

  expect(typeof p.compute).toBe('object');
  expect(typeof p.compute.satisfied).toBe('boolean');
  expect(p.confirmation.required).toBe(true);
  expect(typeof p.confirmation.confirmed).toBe('boolean');

  const ids = p.readinessChecks.map((c: { id: string }) => c.id);
  for (const id of CHECK_IDS) {
    expect(ids).toContain(id);
  }
  expect(new Set(ids).size).toBe(ids.length);
  for (const c of p.readinessChecks) {
    expect(['pass', 'warn', 'fail', 'skip']).toContain(c.status);
    expect(typeof c.required).toBe('boolean');
    expect(typeof c.observed).toBe('string');
    if (c.status === 'fail') {
      expect(typeof c.remedy).toBe('string');
    }
  }
  // The inference runtimes are warn at worst, never a blocker.
  expect(check(p, 'inference-runtimes').required).toBe(false);
  expect(check(p, 'inference-runtimes').status).not.toBe('fail');

  const caps = await request(`${svc.api}capabilities`, { token: svc.token });
  expect(p.manifest).toEqual(caps.json);
}

function expectUnsupported(platform: PlatformId, iface: Iface, p: Json): void {
  expect(p.phase).toBe('unsupported-interface');
  expect(p.nextAction.id).toBe('switch-interface');
  expect(p.nextAction.interfaces.map((i: { id: string }) => i.id)).toEqual(
    SUPPORTED[platform]
  );
  for (const i of p.nextAction.interfaces) {
    expect(i.how.length).toBeGreaterThan(0);
  }
  expect(check(p, 'interface-support').status).toBe('fail');
  expect(p.interfaceSupport.supported).toBe(false);
  expect(iface).not.toBe('terminal');
}

// ---------------------------------------------------------------------------------------------
// Platform x interface
// ---------------------------------------------------------------------------------------------

describe.each([
  {
    platform: 'generic' as PlatformId,
    options: {} as TestServiceOptions,
    confirmVia: 'web' as Iface
  },
  {
    platform: 'hosted-notebook' as PlatformId,
    options: { env: HUB_ENV },
    confirmVia: 'notebook' as Iface
  }
])('startup on $platform', ({ platform, options, confirmVia }) => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await start(options);
  });

  it.each(INTERFACES)(
    'interface %s: twelve contents; awaiting-confirmation or unsupported-interface',
    async iface => {
      const p = await projection(svc, iface);
      await expectContents(svc, platform, iface, p);
      expect(p.compute.satisfied).toBe(true);
      if (SUPPORTED[platform].includes(iface)) {
        expect(p.phase).toBe('awaiting-confirmation');
        expect(p.nextAction.id).toBe('confirm-initialization');
        expect(p.confirmation.confirmed).toBe(false);
        expect(check(p, 'interface-support').status).toBe('pass');
        expect(check(p, 'approved-storage').status).toBe('skip');
      } else {
        expectUnsupported(platform, iface, p);
      }
    }
  );

  it('goes to ready after POST initialize, for every supported interface', async () => {
    const before = await projection(svc, confirmVia);
    expect(fs.existsSync(before.statePath)).toBe(false);
    const init = await postJson(
      `${svc.api}initialize`,
      svc.token,
      before.nextAction.request.body
    );
    expect(init.status).toBe(201);
    expectValid('InitializeResponse', init.json);
    expect(init.json.phase).toBe('ready');
    expect(fs.lstatSync(before.statePath).isDirectory()).toBe(true);
    for (const iface of INTERFACES) {
      const p = await projection(svc, iface);
      await expectContents(svc, platform, iface, p);
      if (SUPPORTED[platform].includes(iface)) {
        expect(p.phase).toBe('ready');
        expect(p.nextAction.id).toBe('none');
        expect(p.confirmation.confirmed).toBe(true);
        expect(check(p, 'confirmation').status).toBe('pass');
        expect(check(p, 'state-path').status).toBe('pass');
      } else {
        expectUnsupported(platform, iface, p);
      }
    }
  });
});

/**
 * The service as `serve` runs it: logging at info and above, so no request log hangs off the
 * answers (the harness logs at debug, which logs every request when it finishes).
 */
async function startAsServe(): Promise<{
  api: string;
  token: string;
  close(): Promise<void>;
}> {
  const root = tempRoot('ps-startup-serve-');
  const projectDir = path.join(root, 'project');
  fs.mkdirSync(projectDir);
  fs.mkdirSync(path.join(root, 'home'));
  const env = {
    HOME: path.join(root, 'home'),
    PATH: NO_SCHEDULER_PATH,
    PROJECT_STARTUP_RUNTIME_DIR: path.join(root, 'run'),
    PROJECT_STARTUP_LOCAL_RUNTIME_URL: CLOSED_URL,
    PROJECT_STARTUP_SERVING_RUNTIME_URL: CLOSED_URL
  };
  const config = resolveConfig({ projectDir }, env, projectDir);
  const running = await startService({
    config,
    env,
    fileExists: () => false,
    logger: createLogger('info', () => undefined)
  });
  return {
    api: running.url ?? '',
    token: running.token ?? '',
    close: async () => {
      await running.close();
      fs.rmSync(root, { recursive: true, force: true });
    }
  };
}

describe.each([
  { log: 'no request log', open: startAsServe },
  {
    log: 'request log at debug',
    // trackedServices closes it after the file's tests.
    open: async () => {
      const s = await start();
      return { api: s.api, token: s.token, close: async () => undefined };
    }
  }
])('a poller sends back the ETag ($log)', ({ open }) => {
  let svc: { api: string; token: string; close(): Promise<void> };
  beforeAll(async () => {
    svc = await open();
  });
  afterAll(async () => {
    await svc.close();
  });

  const get = (
    iface: string,
    headers: Record<string, string> = {},
    method = 'GET'
  ) =>
    request(`${svc.api}startup?interface=${iface}`, {
      method,
      token: svc.token,
      headers
    });

  it('the same projection is a 304 with no body; a changed one is a 200 with a new tag', async () => {
    const first = await get('notebook');
    expect(first.status).toBe(200);
    const etag = first.headers.etag as string;
    // Strong, and a hash of the bytes sent.
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    expect(etag).toBe(
      `"${createHash('sha256').update(first.text).digest('base64url').slice(0, 27)}"`
    );
    // The projection names private paths: nothing stores it, revalidated or not.
    expect(first.headers['cache-control']).toBe('no-store');

    const same = await get('notebook', { 'if-none-match': etag });
    expect(same.status).toBe(304);
    expect(same.text).toBe('');
    expect(same.headers.etag).toBe(etag);
    expect(same.headers['content-type']).toBeUndefined();
    // RFC 9110's weak comparison and lists, as for the manifest.
    expect(
      (await get('notebook', { 'if-none-match': `W/${etag}` })).status
    ).toBe(304);
    expect(
      (await get('notebook', { 'if-none-match': `"something-else", ${etag}` }))
        .status
    ).toBe(304);
    expect(
      (await get('notebook', { 'if-none-match': etag }, 'HEAD')).status
    ).toBe(304);

    // Another interface is another answer: its own tag, and the notebook's does not match it.
    const web = await get('web', { 'if-none-match': etag });
    expect(web.status).toBe(200);
    expect(web.headers.etag).not.toBe(etag);
    expectValid('StartupProjection', web.json);

    // A tag that matches nothing, or garbage, is answered in full.
    for (const header of ['"not-a-startup-tag"', 'garbage', '']) {
      const full = await get('notebook', { 'if-none-match': header });
      expect(full.status).toBe(200);
      expect(full.text).toBe(first.text);
    }

    // The state changes (initialized): the old tag gets the new projection, then its tag a 304.
    const init = await postJson(
      `${svc.api}initialize`,
      svc.token,
      first.json.nextAction.request.body
    );
    expect(init.status).toBe(201);
    const changed = await get('notebook', { 'if-none-match': etag });
    expect(changed.status).toBe(200);
    expect(changed.json.phase).toBe('ready');
    expectValid('StartupProjection', changed.json);
    const next = changed.headers.etag as string;
    expect(next).not.toBe(etag);
    expect((await get('notebook', { 'if-none-match': next })).status).toBe(304);
  });

  it('a bad request stays a problem, whatever If-None-Match says', async () => {
    const r = await get('nope', { 'if-none-match': '*' });
    expect(r.status).toBe(400);
    expect(r.json.code).toBe('unknown-interface');
  });
});

describe('startup on cluster', () => {
  it('a login node (no allocation) inside approved storage needs compute: request-allocation with salloc', async () => {
    const svc = await start({
      ...LOGIN_NODE,
      env: { ...LOGIN_NODE.env, PROJECT_STARTUP_APPROVED_STORAGE: TMP_REAL }
    });
    const p = await projection(svc, 'terminal');
    await expectContents(svc, 'cluster', 'terminal', p);
    expect(p.phase).toBe('needs-compute');
    expect(p.nextAction.id).toBe('request-allocation');
    expect(p.nextAction.command).toMatch(/^salloc\b/);
    expect(p.compute.satisfied).toBe(false);
    expect(check(p, 'approved-storage').status).toBe('pass');
    for (const iface of ['web', 'notebook'] as Iface[]) {
      const q = await projection(svc, iface);
      await expectContents(svc, 'cluster', iface, q);
      expectUnsupported('cluster', iface, q);
    }
  });

  it('a login node with no approved storage is blocked first (blocked precedes needs-compute)', async () => {
    const svc = await start(LOGIN_NODE);
    const p = await projection(svc, 'terminal');
    await expectContents(svc, 'cluster', 'terminal', p);
    expect(p.phase).toBe('blocked');
    expect(p.nextAction.id).toBe('fix-check');
    expect(p.nextAction.checkId).toBe('approved-storage');
  });

  it.each([
    ['no approved storage configured', undefined],
    ['the project outside the approved storage', 'elsewhere']
  ])(
    'an allocation with %s is blocked on approved-storage with a remedy',
    async (_name, which) => {
      let env = { ...JOB_ENV };
      if (which === 'elsewhere') {
        const other = tempRoot('ps-approved-');
        extraDirs.push(other);
        env = { ...env, PROJECT_STARTUP_APPROVED_STORAGE: other };
      }
      const svc = await start({ env });
      const p = await projection(svc, 'terminal');
      await expectContents(svc, 'cluster', 'terminal', p);
      expect(p.phase).toBe('blocked');
      expect(p.nextAction.id).toBe('fix-check');
      expect(p.nextAction.checkId).toBe('approved-storage');
      const c = check(p, 'approved-storage');
      expect(c.status).toBe('fail');
      expect(c.required).toBe(true);
      expect(c.remedy.length).toBeGreaterThan(0);
      expect(p.nextAction.detail).toContain(c.remedy);
      // An unsupported interface is reported before anything else.
      expectUnsupported('cluster', 'web', await projection(svc, 'web'));
    }
  );

  it('an allocation (liveness unknown: no squeue) inside approved storage awaits confirmation, then is ready', async () => {
    const svc = await start({
      env: { ...JOB_ENV, PROJECT_STARTUP_APPROVED_STORAGE: TMP_REAL }
    });
    const p = await projection(svc, 'terminal');
    await expectContents(svc, 'cluster', 'terminal', p);
    expect(p.phase).toBe('awaiting-confirmation');
    expect(p.nextAction.id).toBe('confirm-initialization');
    expect(p.compute.satisfied).toBe(true);
    expect(p.compute.allocation.live).toBeNull();
    expect(check(p, 'approved-storage').status).toBe('pass');
    expect(p.confirmation.allowedInterfaces).toEqual(['terminal']);

    // No API call confirms on the cluster: the projection offers no request, only the command.
    expect(p.nextAction.request).toBeUndefined();
    expect(p.nextAction.command).toBe('project-startup init');
    const body = {
      interface: 'terminal',
      confirm: { projectPath: p.projectPath, statePath: p.statePath }
    };
    const init = await postJson(
      `${svc.api}initialize`,
      svc.token,
      body,
      promptKeyHeader(svc)
    );
    expect(init.status).toBe(201);
    expectValid('InitializeResponse', init.json);
    const after = await projection(svc, 'terminal');
    expect(after.phase).toBe('ready');
    expect(after.nextAction.id).toBe('none');
  });
});

describe('browserUrl only where it can be verified', () => {
  it('is absent on hosted-notebook even with direct-loopback ingress, and on cluster', async () => {
    const hosted = await start({
      env: HUB_ENV,
      serve: { ingress: 'direct-loopback' }
    });
    const cluster = await start({
      env: { ...JOB_ENV, PROJECT_STARTUP_APPROVED_STORAGE: TMP_REAL }
    });
    for (const svc of [hosted, cluster]) {
      for (const iface of INTERFACES) {
        const p = await projection(svc, iface);
        expect({ iface, has: 'browserUrl' in p }).toEqual({
          iface,
          has: false
        });
      }
    }
  });
});

describe('hosted-notebook state path', () => {
  it('is $HOME/.project-startup/projects/<name>-<12 hex of sha256(project path)>', async () => {
    const svc = await start({ env: HUB_ENV, projectName: 'analysis-42' });
    const p = await projection(svc, 'notebook');
    const hex = createHash('sha256')
      .update(svc.projectDir)
      .digest('hex')
      .slice(0, 12);
    expect(stripSlash(p.statePath)).toBe(
      `${svc.homeDir}/.project-startup/projects/analysis-42-${hex}`
    );
    expect(p.projectPath).toBe(path.join(svc.root, 'analysis-42'));
  });
});

// ---------------------------------------------------------------------------------------------
// Blocked by the project and state paths
// ---------------------------------------------------------------------------------------------

describe('blocked by paths', () => {
  it('a project directory that does not exist blocks on project-path with a remedy', async () => {
    const svc = await start({ createProject: false });
    for (const iface of INTERFACES) {
      const p = await projection(svc, iface);
      await expectContents(svc, 'generic', iface, p);
      expect(p.phase).toBe('blocked');
      expect(p.nextAction.id).toBe('fix-check');
      expect(p.nextAction.checkId).toBe('project-path');
      const c = check(p, 'project-path');
      expect(c.status).toBe('fail');
      expect(c.remedy.length).toBeGreaterThan(0);
    }
    expect(fs.existsSync(svc.projectDir)).toBe(false);
  });

  it('the project directory swapped for a symbolic link blocks on project-path; a real directory made again there does not', async () => {
    const svc = await start();
    const first = await projection(svc, 'notebook');
    expect(check(first, 'project-path').status).toBe('pass');
    const moved = path.join(svc.root, 'moved-project');
    fs.renameSync(svc.projectDir, moved);
    fs.symlinkSync(moved, svc.projectDir);
    const linked = await projection(svc, 'notebook');
    expect(linked.phase).toBe('blocked');
    expect(check(linked, 'project-path')).toMatchObject({
      status: 'fail',
      observed: expect.stringContaining('a symbolic link took its place')
    });
    fs.unlinkSync(svc.projectDir);
    fs.mkdirSync(svc.projectDir);
    const again = await projection(svc, 'notebook');
    expect(check(again, 'project-path').status).toBe('pass');
    expect(again.phase).toBe(first.phase);
  });

  it.each([
    ['a symbolic link', 'symlink'],
    ['a directory of mode 0755', 'open-dir']
  ])(
    'a state path that is %s blocks on state-path and nothing is changed',
    async (_name, kind) => {
      const svc = await start();
      const statePath = path.join(svc.projectDir, '.project-startup');
      if (kind === 'symlink') {
        const target = path.join(svc.root, 'elsewhere');
        fs.mkdirSync(target, { mode: 0o700 });
        fs.symlinkSync(target, statePath);
      } else {
        fs.mkdirSync(statePath);
        fs.chmodSync(statePath, 0o755);
      }
      const before = settledSnapshot(svc.root);
      for (const iface of INTERFACES) {
        const p = await projection(svc, iface);
        await expectContents(svc, 'generic', iface, p);
        expect(p.phase).toBe('blocked');
        expect(p.nextAction.id).toBe('fix-check');
        expect(p.nextAction.checkId).toBe('state-path');
        const c = check(p, 'state-path');
        expect(c.status).toBe('fail');
        expect(c.required).toBe(true);
        expect(c.remedy.length).toBeGreaterThan(0);
      }
      // Initialize refuses too, and never "fixes" the path.
      const init = await postJson(`${svc.api}initialize`, svc.token, {
        interface: 'web',
        confirm: { projectPath: svc.projectDir, statePath }
      });
      expect(init.status).toBe(409);
      expect(init.headers['content-type']).toMatch(
        /^application\/problem\+json/
      );
      expectValid('Problem', init.json);
      expect(['state-unsafe', 'wrong-phase']).toContain(init.json.code);
      noStackTrace(init.text);
      expect(snapshot(svc.root)).toEqual(before);
      expect(fs.lstatSync(statePath).isSymbolicLink()).toBe(kind === 'symlink');
      if (kind === 'open-dir') {
        expect(fs.lstatSync(statePath).mode & 0o777).toBe(0o755);
      }
    }
  );

  describe('on hosted-notebook, a symbolic link at $HOME/.project-startup', () => {
    let svc: TestService;
    let target: string;
    let link: string;
    beforeAll(async () => {
      svc = await start({ env: HUB_ENV });
      target = path.join(svc.root, 'elsewhere');
      link = path.join(svc.homeDir, '.project-startup');
      fs.mkdirSync(target, { mode: 0o700 });
      fs.symlinkSync(target, link);
    });

    it('blocks on state-path, and GET startup changes nothing (the link is not followed)', async () => {
      const before = settledSnapshot(svc.root);
      for (const iface of INTERFACES) {
        const p = await projection(svc, iface);
        await expectContents(svc, 'hosted-notebook', iface, p);
        if (iface !== 'web') {
          expect(p.phase).toBe('blocked');
          expect(p.nextAction.id).toBe('fix-check');
          expect(p.nextAction.checkId).toBe('state-path');
          expect(check(p, 'state-path').status).toBe('fail');
        }
      }
      expect(snapshot(svc.root)).toEqual(before);
    });

    it('initialize refuses with 409 and creates nothing through the link', async () => {
      const p = await projection(svc, 'notebook');
      const init = await postJson(`${svc.api}initialize`, svc.token, {
        interface: 'notebook',
        confirm: { projectPath: p.projectPath, statePath: p.statePath }
      });
      expect(init.status).toBe(409);
      expectValid('Problem', init.json);
      noStackTrace(init.text);
      expect(fs.lstatSync(link).isSymbolicLink()).toBe(true);
      expect(fs.readdirSync(target)).toEqual([]);
      expect(fs.readdirSync(svc.homeDir)).toEqual(['.project-startup']);
    });
  });
});

// ---------------------------------------------------------------------------------------------
// Inference runtime probes
// ---------------------------------------------------------------------------------------------

describe('inference runtime probes', () => {
  let fake: http.Server;
  let fakeUrl: string;
  const seen: string[] = [];

  beforeAll(async () => {
    fake = http.createServer((req, res) => {
      seen.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"version":"0.0.0"}');
    });
    await new Promise<void>(resolve => fake.listen(0, '127.0.0.1', resolve));
    fakeUrl = `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    fake.closeAllConnections();
    await new Promise<void>(resolve => fake.close(() => resolve()));
  });

  it('pass when the runtimes answer (generic probes both)', async () => {
    const svc = await start({
      env: {
        PROJECT_STARTUP_LOCAL_RUNTIME_URL: `${fakeUrl}/generic-local`,
        PROJECT_STARTUP_SERVING_RUNTIME_URL: `${fakeUrl}/generic-serving`
      }
    });
    const p = await projection(svc, 'terminal');
    const c = check(p, 'inference-runtimes');
    expect(c.status).toBe('pass');
    expect(c.required).toBe(false);
    expect(c.observed).toContain(`${fakeUrl}/generic-local`);
    expect(c.observed).toContain(`${fakeUrl}/generic-serving`);
    expect(seen).toContain('/generic-local');
    expect(seen).toContain('/generic-serving');
    expect(p.phase).toBe('awaiting-confirmation');
  });

  it('the local runtime is reported reachable when only it answers; the closed one warns without blocking', async () => {
    const svc = await start({
      env: {
        PROJECT_STARTUP_LOCAL_RUNTIME_URL: `${fakeUrl}/only-local`,
        PROJECT_STARTUP_SERVING_RUNTIME_URL: CLOSED_URL
      }
    });
    const p = await projection(svc, 'web');
    const c = check(p, 'inference-runtimes');
    expect(c.status).toBe('warn');
    expect(c.required).toBe(false);
    const localPart = c.observed
      .split(';')
      .find((s: string) => s.includes('/only-local'));
    expect(localPart).toBeDefined();
    expect(localPart).not.toMatch(/not reachable|no answer/);
    expect(seen).toContain('/only-local');
    expect(p.phase).toBe('awaiting-confirmation');
  });

  it('closed ports give warn, never blocking, on every platform', async () => {
    const svcs: [PlatformId, TestService][] = [
      ['generic', await start()],
      ['hosted-notebook', await start({ env: HUB_ENV })],
      [
        'cluster',
        await start({
          env: { ...JOB_ENV, PROJECT_STARTUP_APPROVED_STORAGE: TMP_REAL }
        })
      ]
    ];
    for (const [platform, svc] of svcs) {
      const p = await projection(svc, 'terminal');
      const c = check(p, 'inference-runtimes');
      expect({ platform, status: c.status, required: c.required }).toEqual({
        platform,
        status: 'warn',
        required: false
      });
      expect({ platform, phase: p.phase }).toEqual({
        platform,
        phase: 'awaiting-confirmation'
      });
    }
  });

  it('on cluster only the high-throughput serving runtime is probed', async () => {
    const svc = await start({
      env: {
        ...JOB_ENV,
        PROJECT_STARTUP_APPROVED_STORAGE: TMP_REAL,
        PROJECT_STARTUP_LOCAL_RUNTIME_URL: `${fakeUrl}/cluster-local`,
        PROJECT_STARTUP_SERVING_RUNTIME_URL: `${fakeUrl}/cluster-serving`
      }
    });
    for (const iface of INTERFACES) {
      await projection(svc, iface);
    }
    const p = await projection(svc, 'terminal');
    const c = check(p, 'inference-runtimes');
    expect(c.status).toBe('pass');
    expect(c.observed).toContain('/cluster-serving');
    expect(c.observed).not.toContain('/cluster-local');
    expect(seen).toContain('/cluster-serving');
    expect(seen).not.toContain('/cluster-local');
  });
});

// ---------------------------------------------------------------------------------------------
// The interface parameter
// ---------------------------------------------------------------------------------------------

describe('the interface parameter', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await start();
  });

  it.each([
    ['no interface parameter', ''],
    ['an empty interface parameter', 'interface=']
  ])('%s is 400 missing-interface', async (_name, query) => {
    const r = await startup(svc, query);
    expect(r.status).toBe(400);
    expect(r.headers['content-type']).toMatch(/^application\/problem\+json/);
    expectValid('Problem', r.json);
    expect(r.json.code).toBe('missing-interface');
    expect(r.json.status).toBe(400);
    noStackTrace(r.text);
  });

  it.each([
    ['interface=browser'],
    ['interface=WEB'],
    ['interface=Terminal'],
    ['interface=web%20'],
    ['interface=web&interface=web'],
    ['interface=web&interface=notebook']
  ])('%s is 400 unknown-interface listing the allowed values', async query => {
    const r = await startup(svc, query);
    expect(r.status).toBe(400);
    expect(r.headers['content-type']).toMatch(/^application\/problem\+json/);
    expectValid('Problem', r.json);
    expect(r.json.code).toBe('unknown-interface');
    expect(r.json.allowedValues).toEqual(ALLOWED_VALUES);
    noStackTrace(r.text);
  });

  // design.md "Names": anything but the three ids "is a 400 whose detail lists the allowed values".
  it.each([
    ['interface=browser'],
    ['interface=WEB'],
    ['interface=web&interface=web'],
    ['interface=web&interface=notebook']
  ])('the detail of the 400 for %s lists the allowed values', async query => {
    const r = await startup(svc, query);
    expect(r.status).toBe(400);
    expectValid('Problem', r.json);
    for (const v of ALLOWED_VALUES) {
      expect({
        detail: r.json.detail,
        lists: r.json.detail.includes(v)
      }).toEqual({ detail: r.json.detail, lists: true });
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Read-only inspection
// ---------------------------------------------------------------------------------------------

/**
 * A snapshot once the walker's own directory reads have settled: two equal snapshots in a row
 * with every directory's atime past its mtime and ctime (so relatime will not move it again).
 * Bounded in count; each round waits a few milliseconds so the coarse file-system clock moves.
 */
function settledSnapshot(root: string): Record<string, string> {
  let previous = snapshot(root);
  for (let round = 0; round < 200; round++) {
    const deadline = Date.now() + 5;
    while (Date.now() < deadline) {
      // busy-wait a tick of the file-system clock (bounded: 5 ms a round, 200 rounds at most)
    }
    const current = snapshot(root);
    const settled = Object.keys(current).every(p => {
      const s = fs.lstatSync(p);
      return (
        !s.isDirectory() || (s.atimeMs > s.mtimeMs && s.atimeMs > s.ctimeMs)
      );
    });
    if (settled && JSON.stringify(current) === JSON.stringify(previous)) {
      return current;
    }
    previous = current;
  }
  throw new Error(`the snapshot of ${root} did not settle`);
}

describe('inspection is read-only', () => {
  let services: {
    platform: PlatformId;
    svc: TestService;
    confirm: Iface;
    method?: string;
  }[];

  beforeAll(async () => {
    services = [
      { platform: 'generic', svc: await start(), confirm: 'web' },
      {
        platform: 'hosted-notebook',
        svc: await start({ env: HUB_ENV }),
        confirm: 'notebook'
      },
      {
        platform: 'cluster',
        svc: await start({
          env: { ...JOB_ENV, PROJECT_STARTUP_APPROVED_STORAGE: TMP_REAL }
        }),
        confirm: 'terminal',
        method: 'terminal-prompt'
      }
    ];
  });

  async function manyReads(rounds: number): Promise<number> {
    let count = 0;
    for (let round = 0; round < rounds; round++) {
      for (const { svc } of services) {
        const results = await Promise.all([
          ...INTERFACES.map(iface => startup(svc, `interface=${iface}`)),
          request(`${svc.api}capabilities`, { token: svc.token }),
          postJson(`${svc.api}gateway`, svc.token, {
            jsonrpc: '2.0',
            id: round,
            method: 'project.startup',
            params: { interface: 'terminal' }
          })
        ]);
        for (const r of results.slice(0, INTERFACES.length)) {
          expect(r.status).toBe(200);
          count++;
        }
        expect(results[INTERFACES.length].status).toBe(200);
        expect(results[INTERFACES.length + 1].status).toBe(200);
      }
    }
    return count;
  }

  it('GET startup (>= 50 requests across platforms and interfaces) and capabilities change nothing', async () => {
    const before = services.map(({ svc }) => settledSnapshot(svc.root));
    const count = await manyReads(6);
    expect(count).toBeGreaterThanOrEqual(50);
    services.forEach(({ svc }, i) => {
      expect(snapshot(svc.root)).toEqual(before[i]);
    });
    // hosted-notebook state would live under HOME: nothing appeared there.
    const hosted = services.find(s => s.platform === 'hosted-notebook') as {
      svc: TestService;
    };
    expect(fs.readdirSync(hosted.svc.homeDir)).toEqual([]);
    for (const { svc } of services) {
      expect(fs.existsSync(path.join(svc.projectDir, '.project-startup'))).toBe(
        false
      );
    }
  });

  it('after initialize, GETs change nothing and leave the record file atime alone', async () => {
    const records: string[] = [];
    for (const { svc, confirm, method } of services) {
      const p = (await startup(svc, `interface=${confirm}`)).json;
      expectValid('StartupProjection', p);
      expect(p.phase).toBe('awaiting-confirmation');
      const body = {
        interface: confirm,
        confirm: { projectPath: p.projectPath, statePath: p.statePath }
      };
      const init = await postJson(
        `${svc.api}initialize`,
        svc.token,
        body,
        method ? promptKeyHeader(svc) : {}
      );
      expect(init.status).toBe(201);
      expectValid('InitializeResponse', init.json);
      records.push(path.join(p.statePath, 'initialization.json'));
    }
    const before = services.map(({ svc }) => settledSnapshot(svc.root));
    const atimes = records.map(r => fs.lstatSync(r).atimeMs);
    const count = await manyReads(6);
    expect(count).toBeGreaterThanOrEqual(50);
    services.forEach(({ svc }, i) => {
      expect(snapshot(svc.root)).toEqual(before[i]);
    });
    records.forEach((r, i) => {
      expect(fs.lstatSync(r).atimeMs).toBe(atimes[i]);
    });
    for (const { svc, confirm } of services) {
      const p = (await startup(svc, `interface=${confirm}`)).json;
      expectValid('StartupProjection', p);
      expect(p.phase).toBe('ready');
    }
  });
});
