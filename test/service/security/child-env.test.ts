// Child processes get an allow-listed environment, never the provider credentials the service's
// own environment holds. The scheduler and D-Bus clients on PATH here are
// STAND-INS: shell scripts named squeue and dbus-send that write the environment they were given
// to a file (and answer like the real client would), so the test sees exactly what a real client
// would have received. The service runs for real, on loopback, and asks them on its own.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  PLATFORM_EVIDENCE,
  tempRoot,
  trackedServices
} from '../../helpers/harness';
import { bearer, send } from './support';

const start = trackedServices('each');

/** Credentials as a person's environment holds them; none may reach a child. */
const CANARIES: Record<string, string> = {
  OPENAI_API_KEY: 'sk-canary-openai-0000000000000000',
  ANTHROPIC_API_KEY: 'sk-ant-canary-1111111111111111',
  AWS_SECRET_ACCESS_KEY: 'canary-aws-secret-2222222222222222',
  HF_TOKEN: 'hf_canary_3333333333333333',
  // Not credential-looking by name: kept out by the allow-list alone.
  ACME_PROVIDER_CONFIG: 'canary-unlisted-4444444444444444',
  SLURM_ACCESS_KEY: 'canary-under-allowed-prefix-5555'
};

/** A stand-in for `name` that dumps its environment to `dump` and prints `answer`. */
function standIn(
  bin: string,
  name: string,
  dump: string,
  answer: string,
  exitCode = 0
): void {
  const script = `#!/bin/sh\n# STAND-IN for ${name} (test only): records the environment it was given.\n/usr/bin/env > '${dump}'\nprintf '%s\\n' '${answer}'\nexit ${exitCode}\n`;
  fs.writeFileSync(path.join(bin, name), script, { mode: 0o755 });
}

function dumped(dump: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of fs.readFileSync(dump, 'utf8').split('\n')) {
    const eq = line.indexOf('=');
    if (eq > 0) {
      out[line.slice(0, eq)] = line.slice(eq + 1);
    }
  }
  return out;
}

function expectNoCanary(env: Record<string, string>, raw: string): void {
  for (const [name, value] of Object.entries(CANARIES)) {
    expect(env[name]).toBeUndefined();
    expect(raw).not.toContain(value);
  }
}

let scratch: string;
beforeEach(() => {
  scratch = tempRoot('ps-childenv-');
});
afterEach(() => fs.rmSync(scratch, { recursive: true, force: true }));

it('squeue (stand-in) gets PATH, HOME, the locale and the Slurm variables, and no credential', async () => {
  const bin = path.join(scratch, 'bin');
  fs.mkdirSync(bin);
  const dump = path.join(scratch, 'squeue.env');
  // squeue -o '%T %u': the state and the owner, this very user (the service runs as it).
  standIn(bin, 'squeue', dump, `RUNNING ${os.userInfo().username}`);
  const svc = await start({
    env: {
      ...PLATFORM_EVIDENCE.cluster.env,
      SLURM_JOB_ID: '4242',
      PATH: bin,
      LANG: 'C.UTF-8',
      LC_ALL: 'C.UTF-8',
      ...CANARIES
    },
    files: PLATFORM_EVIDENCE.cluster.files
  });
  const r = await send(svc, 'GET', '/project/startup?interface=terminal', [
    bearer(svc)
  ]);
  expect(r.status).toBe(200);
  expect(JSON.parse(r.body).compute.satisfied).toBe(true); // the stand-in's answer was read
  const env = dumped(dump);
  expectNoCanary(env, fs.readFileSync(dump, 'utf8'));
  expect(env).toMatchObject({
    PATH: bin,
    HOME: svc.homeDir,
    LANG: 'C.UTF-8',
    LC_ALL: 'C.UTF-8',
    SLURM_JOB_ID: '4242',
    SLURM_CONF: '/etc/slurm/slurm.conf'
  });
  expect(
    Object.keys(env).filter(n => n.startsWith('PROJECT_STARTUP_'))
  ).toEqual([]);
});

it('dbus-send (stand-in) gets the session bus address and XDG_RUNTIME_DIR, and no credential', async () => {
  const bin = path.join(scratch, 'bin');
  fs.mkdirSync(bin);
  const dump = path.join(scratch, 'dbus-send.env');
  standIn(bin, 'dbus-send', dump, 'method return', 1);
  const bus = `unix:path=${path.join(scratch, 'bus')}`;
  const svc = await start({
    env: {
      PATH: bin,
      DBUS_SESSION_BUS_ADDRESS: bus,
      XDG_RUNTIME_DIR: scratch,
      ...CANARIES
    }
  });
  const r = await send(svc, 'GET', '/project/startup?interface=web', [
    bearer(svc)
  ]);
  expect(r.status).toBe(200);
  const env = dumped(dump);
  expectNoCanary(env, fs.readFileSync(dump, 'utf8'));
  expect(env).toMatchObject({
    PATH: bin,
    DBUS_SESSION_BUS_ADDRESS: bus,
    XDG_RUNTIME_DIR: scratch
  });
  // The credential backend still reports the names it saw (names only), from the service itself.
  expect(r.body).toContain('OPENAI_API_KEY');
  expect(r.body).not.toContain(CANARIES.OPENAI_API_KEY);
});

// SLURM_JWT, the credential a Slurm client presents to slurmctld at sites
// with auth/jwt, passed the one allow-list every child shared. Now each client has its own:
// squeue keeps it (it cannot ask such a controller without it), no other child gets it.
describe('SLURM_JWT reaches the Slurm client only', () => {
  const JWT = 'eyJhbGciOiJIUzI1NiJ9.canary-slurm-jwt.6666666666666666';
  const OTHER_SCHEDULERS = [
    ['pbs', 'qstat', '4242.pbs01', 'PBS_SERVER', 'pbs01'],
    ['lsf', 'bjobs', '4242', 'LSF_ENVDIR', '/etc/lsf'],
    ['flux', 'flux', 'fD7j8aT', 'FLUX_URI', 'local:///run/flux/local']
  ] as const;

  it('squeue gets it; qstat, bjobs and flux (stand-ins asked about claimed jobs) get their own variables and not it', async () => {
    const bin = path.join(scratch, 'bin');
    fs.mkdirSync(bin);
    const me = os.userInfo().username;
    standIn(bin, 'squeue', path.join(scratch, 'squeue.env'), `RUNNING ${me}`);
    const answers: Record<string, string> = {
      qstat: `    Job_Owner = ${me}@login01\n    job_state = R`,
      bjobs: `RUN ${me}`,
      flux: `RUN ${me}`
    };
    for (const [, client] of OTHER_SCHEDULERS) {
      standIn(
        bin,
        client,
        path.join(scratch, `${client}.env`),
        answers[client]
      );
    }
    const svc = await start({
      env: {
        ...PLATFORM_EVIDENCE.cluster.env,
        SLURM_JOB_ID: '4242',
        SLURM_JWT: JWT,
        PATH: bin,
        ...Object.fromEntries(
          OTHER_SCHEDULERS.map(([, , , name, value]) => [name, value])
        ),
        ...CANARIES
      },
      files: PLATFORM_EVIDENCE.cluster.files
    });
    const own = await send(svc, 'GET', '/project/startup?interface=terminal', [
      bearer(svc)
    ]);
    expect(JSON.parse(own.body).compute.satisfied).toBe(true);
    expect(dumped(path.join(scratch, 'squeue.env'))).toMatchObject({
      SLURM_JWT: JWT,
      SLURM_JOB_ID: '4242'
    });
    for (const [scheduler, client, jobId, name, value] of OTHER_SCHEDULERS) {
      const r = await send(
        svc,
        'GET',
        `/project/startup?interface=terminal&allocation=${encodeURIComponent(`${scheduler}:${jobId}`)}`,
        [bearer(svc)]
      );
      expect(JSON.parse(r.body).compute.allocation).toMatchObject({
        scheduler,
        live: true
      });
      const dump = path.join(scratch, `${client}.env`);
      const env = dumped(dump);
      expect(env[name]).toBe(value);
      expect(Object.keys(env).filter(n => n.startsWith('SLURM_'))).toEqual([]);
      expect(fs.readFileSync(dump, 'utf8')).not.toContain(JWT);
      expectNoCanary(env, fs.readFileSync(dump, 'utf8'));
    }
  });

  it('dbus-send does not get it', async () => {
    const bin = path.join(scratch, 'bin');
    fs.mkdirSync(bin);
    const dump = path.join(scratch, 'dbus-send.env');
    standIn(bin, 'dbus-send', dump, 'method return', 1);
    const svc = await start({
      env: {
        PATH: bin,
        DBUS_SESSION_BUS_ADDRESS: `unix:path=${path.join(scratch, 'bus')}`,
        SLURM_JWT: JWT,
        SLURM_CONF_CANARY: 'x'
      }
    });
    const r = await send(svc, 'GET', '/project/startup?interface=web', [
      bearer(svc)
    ]);
    expect(r.status).toBe(200);
    const env = dumped(dump);
    expect(env.DBUS_SESSION_BUS_ADDRESS).toBeDefined();
    expect(Object.keys(env).filter(n => n.startsWith('SLURM_'))).toEqual([]);
    expect(fs.readFileSync(dump, 'utf8')).not.toContain(JWT);
  });
});
