// Symbolic-link and permission tricks on the project and state paths. design.md: a state path
// that is a symbolic link, is owned by someone else, or is readable by others is refused, never
// "fixed" silently; the project path is resolved to its real path at start. For each trick the
// projection says blocked (the state-path check fails), initialize is 409 state-unsafe, nothing
// is created or changed anywhere (the link's target included) and nothing of a target is read
// into an answer. Runs as root (as CI does) for the foreign-owner cases (chown to 65534).
// (initialize.test.ts covers a link to another directory of ours and a 0755 directory.)
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  PLATFORM_EVIDENCE,
  TestService,
  tempRoot,
  trackedServices
} from '../../helpers/harness';
import { expectValid } from '../../helpers/schemas';
import {
  bearer,
  expectProblemAnswer,
  JSON_TYPE,
  mode,
  send,
  tree
} from './support';

const start = trackedServices('each');
const OTHER_UID = 65534;
const HUB = {
  env: { ...PLATFORM_EVIDENCE['hosted-notebook'].env },
  serve: { ingress: 'direct-loopback' }
};

interface Placed {
  svc: TestService;
  iface: 'web' | 'notebook';
  projectPath: string;
  statePath: string;
}

async function place(hub = false): Promise<Placed> {
  const svc = await start(hub ? HUB : {});
  const iface = hub ? 'notebook' : 'web';
  const p = await send(svc, 'GET', `/project/startup?interface=${iface}`, [
    bearer(svc)
  ]);
  const json = JSON.parse(p.body);
  expect(json.phase).toBe('awaiting-confirmation');
  return {
    svc,
    iface,
    projectPath: json.projectPath,
    statePath: json.statePath
  };
}

async function projection(pl: Placed) {
  const r = await send(
    pl.svc,
    'GET',
    `/project/startup?interface=${pl.iface}`,
    [bearer(pl.svc)]
  );
  expect(r.status).toBe(200);
  const json = JSON.parse(r.body);
  expectValid('StartupProjection', json);
  return json;
}

function initialize(
  pl: Placed,
  confirm = { projectPath: pl.projectPath, statePath: pl.statePath }
) {
  return send(
    pl.svc,
    'POST',
    '/project/initialize',
    [bearer(pl.svc), JSON_TYPE],
    JSON.stringify({ interface: pl.iface, confirm })
  );
}

/** A fingerprint of a path and, for a directory, of what it holds (lstat: links not followed). */
function fingerprint(p: string): string {
  try {
    const s = fs.lstatSync(p);
    const kids = s.isDirectory()
      ? fs.readdirSync(p).sort().join(',')
      : s.isSymbolicLink()
        ? `-> ${fs.readlinkSync(p)}`
        : '';
    return `${s.mode.toString(8)} ${s.uid} ${s.size} ${s.mtimeMs} ${s.ino} ${kids}`;
  } catch {
    return 'absent';
  }
}

/** Refused as design.md says, with nothing changed under the sandbox or at `watched` paths. */
async function expectRefusedUntouched(
  pl: Placed,
  watched: string[] = [],
  secretsOfTargets: string[] = []
): Promise<void> {
  const before = { tree: tree(pl.svc.root), watched: watched.map(fingerprint) };
  const p = await projection(pl);
  expect(p.phase).toBe('blocked');
  const check = p.readinessChecks.find(
    (c: { id: string }) => c.id === 'state-path'
  );
  expect(check.status).toBe('fail');
  expect(p.nextAction.id).toBe('fix-check');
  const r = await initialize(pl);
  expectProblemAnswer(r, 409, 'state-unsafe');
  // The gateway refuses the same way.
  const g = await send(
    pl.svc,
    'POST',
    '/project/gateway',
    [bearer(pl.svc), JSON_TYPE],
    JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'project.initialize',
      params: {
        interface: pl.iface,
        confirm: { projectPath: pl.projectPath, statePath: pl.statePath }
      }
    })
  );
  expect(JSON.parse(g.body).error.data.code).toBe('state-unsafe');
  expect(tree(pl.svc.root)).toEqual(before.tree);
  expect(watched.map(fingerprint)).toEqual(before.watched);
  for (const secret of secretsOfTargets) {
    expect(r.body).not.toContain(secret);
    expect(JSON.stringify(p)).not.toContain(secret);
  }
}

describe('the state path pre-created by someone else', () => {
  it('a symbolic link to /etc: refused; nothing is written to /etc', async () => {
    const pl = await place();
    fs.symlinkSync('/etc', pl.statePath);
    const names = () =>
      fs.readdirSync('/etc').filter(n => n.includes('initialization'));
    expect(names()).toEqual([]);
    try {
      await expectRefusedUntouched(pl, ['/etc', pl.statePath]);
    } finally {
      for (const n of names()) {
        fs.rmSync(path.join('/etc', n), { force: true }); // only if a regression wrote there
      }
    }
    expect(names()).toEqual([]);
  });

  it('a dangling symbolic link: refused; its target is not created', async () => {
    const pl = await place();
    const target = path.join(pl.svc.root, 'not-there');
    fs.symlinkSync(target, pl.statePath);
    await expectRefusedUntouched(pl, [pl.statePath]);
    expect(fs.existsSync(target)).toBe(false);
  });

  it('a symbolic link to a private directory of ours holding a valid-looking record: refused, the record never read as ours', async () => {
    const pl = await place();
    const target = path.join(pl.svc.root, 'decoy');
    fs.mkdirSync(target, { mode: 0o700 });
    const decoy = {
      schemaVersion: '1.0.0',
      kind: 'project-startup-state',
      projectPath: pl.projectPath,
      statePath: pl.statePath,
      platform: 'generic',
      confirmation: {
        interface: 'web',
        method: 'http-api',
        ingress: 'direct-loopback',
        confirmedAt: '2000-01-01T00:00:00.000Z'
      },
      service: { version: '0.0.0-decoy' }
    };
    fs.writeFileSync(
      path.join(target, 'initialization.json'),
      JSON.stringify(decoy),
      { mode: 0o600 }
    );
    fs.symlinkSync(target, pl.statePath);
    await expectRefusedUntouched(
      pl,
      [target, path.join(target, 'initialization.json')],
      ['0.0.0-decoy']
    );
  });

  it.each(
    [0o755, 0o750, 0o710, 0o701, 0o707, 0o777].map(
      m => [`0${m.toString(8)}`, m] as [string, number]
    )
  )('a directory of mode %s: refused, not chmod-ed', async (_label, m) => {
    const pl = await place();
    fs.mkdirSync(pl.statePath);
    fs.chmodSync(pl.statePath, m);
    await expectRefusedUntouched(pl, [pl.statePath]);
    expect(mode(pl.statePath)).toBe(m);
  });

  it('a 0700 directory owned by another user (uid 65534): refused, not chown-ed', async () => {
    const pl = await place();
    fs.mkdirSync(pl.statePath, { mode: 0o700 });
    fs.chownSync(pl.statePath, OTHER_UID, OTHER_UID);
    await expectRefusedUntouched(pl, [pl.statePath]);
    expect(fs.lstatSync(pl.statePath).uid).toBe(OTHER_UID);
  });

  it('a regular file in its place: refused, the file untouched', async () => {
    const pl = await place();
    fs.writeFileSync(pl.statePath, 'not a directory\n', { mode: 0o600 });
    await expectRefusedUntouched(pl, [pl.statePath]);
    expect(fs.readFileSync(pl.statePath, 'utf8')).toBe('not a directory\n');
  });
});

describe('the record file pre-created by someone else', () => {
  async function withRecord(
    make: (file: string, pl: Placed) => void
  ): Promise<Placed> {
    const pl = await place();
    fs.mkdirSync(pl.statePath, { mode: 0o700 });
    fs.chmodSync(pl.statePath, 0o700);
    make(path.join(pl.statePath, 'initialization.json'), pl);
    return pl;
  }

  it('a symbolic link to /etc/hostname: refused, never read into an answer', async () => {
    const hostname = fs.readFileSync('/etc/hostname', 'utf8').trim();
    const pl = await withRecord(file => fs.symlinkSync('/etc/hostname', file));
    await expectRefusedUntouched(
      pl,
      ['/etc/hostname', path.join(pl.statePath, 'initialization.json')],
      hostname.length >= 6 ? [hostname] : []
    );
  });

  it('a dangling symbolic link: refused; its target is not created', async () => {
    let target = '';
    const pl = await withRecord((file, p) => {
      target = path.join(p.svc.root, 'record-target');
      fs.symlinkSync(target, file);
    });
    await expectRefusedUntouched(pl, [
      path.join(pl.statePath, 'initialization.json')
    ]);
    expect(fs.existsSync(target)).toBe(false);
  });

  it('a FIFO: refused without opening it (the answer comes; nothing blocks)', async () => {
    const pl = await withRecord(file =>
      execFileSync('mkfifo', ['-m', '600', file])
    );
    await expectRefusedUntouched(pl, [
      path.join(pl.statePath, 'initialization.json')
    ]);
  });

  it('a directory: refused', async () => {
    const pl = await withRecord(file => fs.mkdirSync(file, { mode: 0o700 }));
    await expectRefusedUntouched(pl, [
      path.join(pl.statePath, 'initialization.json')
    ]);
  });

  it('a 0644 file: refused, not chmod-ed', async () => {
    const pl = await withRecord(file => {
      fs.writeFileSync(file, '{}', { mode: 0o644 });
      fs.chmodSync(file, 0o644);
    });
    await expectRefusedUntouched(pl, [
      path.join(pl.statePath, 'initialization.json')
    ]);
  });

  it('a 0600 file owned by another user (uid 65534): refused', async () => {
    const pl = await withRecord(file => {
      fs.writeFileSync(file, '{}', { mode: 0o600 });
      fs.chownSync(file, OTHER_UID, OTHER_UID);
    });
    await expectRefusedUntouched(pl, [
      path.join(pl.statePath, 'initialization.json')
    ]);
  });

  it('a temporary-file name taken by a directory: a 4xx, never a 500; the directory left alone', async () => {
    const pl = await withRecord(() => undefined);
    const squatter = path.join(
      pl.statePath,
      '.initialization.json.0123456789abcdef.tmp'
    );
    fs.mkdirSync(squatter, { mode: 0o700 });
    fs.writeFileSync(path.join(squatter, 'keep'), 'x');
    const r = await initialize(pl);
    expect(r.status).toBeLessThan(500);
    if (r.status >= 400) {
      expectProblemAnswer(r, 409, 'state-unsafe');
    }
    expect(fs.readFileSync(path.join(squatter, 'keep'), 'utf8')).toBe('x');
  });
});

describe('above the hosted-notebook state path ($HOME/.project-startup/projects/...)', () => {
  it('$HOME/.project-startup is a symbolic link: refused; the target gets nothing', async () => {
    const pl = await place(true);
    const target = path.join(pl.svc.root, 'elsewhere');
    fs.mkdirSync(target, { mode: 0o700 });
    fs.symlinkSync(target, path.join(pl.svc.homeDir, '.project-startup'));
    await expectRefusedUntouched(pl, [target]);
  });

  it('$HOME/.project-startup/projects is a symbolic link: refused; the target gets nothing', async () => {
    const pl = await place(true);
    const target = path.join(pl.svc.root, 'elsewhere');
    fs.mkdirSync(target, { mode: 0o700 });
    fs.mkdirSync(path.join(pl.svc.homeDir, '.project-startup'), {
      mode: 0o700
    });
    fs.symlinkSync(
      target,
      path.join(pl.svc.homeDir, '.project-startup', 'projects')
    );
    await expectRefusedUntouched(pl, [target]);
  });

  it('$HOME/.project-startup is owned by another user (uid 65534): refused', async () => {
    const pl = await place(true);
    const dir = path.join(pl.svc.homeDir, '.project-startup');
    fs.mkdirSync(dir, { mode: 0o700 });
    fs.chownSync(dir, OTHER_UID, OTHER_UID);
    await expectRefusedUntouched(pl, [dir]);
  });

  it('$HOME/.project-startup is a regular file: refused', async () => {
    const pl = await place(true);
    fs.writeFileSync(path.join(pl.svc.homeDir, '.project-startup'), 'x');
    await expectRefusedUntouched(pl, [
      path.join(pl.svc.homeDir, '.project-startup')
    ]);
  });

  it('$HOME no longer exists: initialize is refused with a 4xx, never a 500', async () => {
    const pl = await place(true);
    fs.rmSync(pl.svc.homeDir, { recursive: true });
    const r = await initialize(pl);
    expect(r.status).toBeLessThan(500);
    expect(fs.existsSync(pl.svc.homeDir)).toBe(false);
  });
});

describe('the project directory and links', () => {
  it('a project directory given as a link is resolved to its real path at start; the state goes there', async () => {
    const root = tempRoot('ps-link-project-');
    try {
      const real = path.join(root, 'real-project');
      fs.mkdirSync(real);
      fs.symlinkSync(real, path.join(root, 'link-project'));
      const svc = await start({
        serve: { projectDir: path.join(root, 'link-project') }
      });
      const p = JSON.parse(
        (
          await send(svc, 'GET', '/project/startup?interface=web', [
            bearer(svc)
          ])
        ).body
      );
      expect(p.projectPath).toBe(real);
      expect(p.statePath).toBe(path.join(real, '.project-startup'));
      const pl: Placed = {
        svc,
        iface: 'web',
        projectPath: p.projectPath,
        statePath: p.statePath
      };
      // Confirming the link's path (what a person may have typed) is stale, not the same thing.
      const viaLink = await initialize(pl, {
        projectPath: path.join(root, 'link-project'),
        statePath: path.join(root, 'link-project', '.project-startup')
      });
      expectProblemAnswer(viaLink, 409, 'confirmation-stale');
      const created = await initialize(pl);
      expect(created.status).toBe(201);
      expect(
        fs.lstatSync(path.join(real, '.project-startup')).isDirectory()
      ).toBe(true);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it('the project directory swapped for a link after start: nothing is created through the link', async () => {
    const pl = await place();
    const other = path.join(pl.svc.root, 'someone-elses');
    fs.mkdirSync(other);
    fs.renameSync(pl.projectPath, path.join(pl.svc.root, 'moved-aside'));
    fs.symlinkSync(other, pl.projectPath);
    const r = await initialize(pl);
    expect(fs.readdirSync(other)).toEqual([]);
    expect(r.status).toBeGreaterThanOrEqual(400);
    expect(r.status).toBeLessThan(500);
  });

  it('a project directory writable by all (0777): the state made in it is still private (0700, 0600)', async () => {
    const pl = await place();
    fs.chmodSync(pl.projectPath, 0o777);
    const r = await initialize(pl);
    expect(r.status).toBe(201);
    expect(mode(pl.statePath)).toBe(0o700);
    expect(mode(path.join(pl.statePath, 'initialization.json'))).toBe(0o600);
  });
});
