// Concurrent initialize from many separate clients: each client on a connection of its own
// from its own loopback source address (127.0.0.2 ... 127.0.0.65), so the per-client rate limit
// (default 30/60) is the real one and not lifted; behind the trusted proxy, one X-Forwarded-For
// per client. Every round must create one state: exactly one 201, every other answer 200 with
// the identical record, one state directory holding one record file and nothing else; reads
// racing the creation never see a half-made or unsafe state. Also across two service processes
// on one project.
//
// Bounds: PROJECT_STARTUP_CONCURRENCY_ROUNDS rounds of the main race (default 3).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runCliInTty, startServe, trackedSandboxes } from '../../helpers/cli';
import {
  request,
  tempRoot,
  TestService,
  trackedServices
} from '../../helpers/harness';
import { expectValid } from '../../helpers/schemas';
import {
  createState,
  StateInspector
} from '../../../sidecar/src/observe/state';
import { Exchange, exchange, intFromEnv, rawHttp } from './support';
import { resolveConfig } from '../../../sidecar/src/config/config';
import { StartupService } from '../../../sidecar/src/service/service';
import { initializeInProcess } from '../../../sidecar/src/cli/in-process';

const CLIENTS = 64;
const ROUNDS = intFromEnv('PROJECT_STARTUP_CONCURRENCY_ROUNDS', 3, 1, 50);

const start = trackedServices('each');
const sandbox = trackedSandboxes();
/**
 * On direct loopback every local caller shares one initialize bucket (they share the token; a
 * per-address key let 127.0.0.7, .8, ... each start afresh). This suite is about concurrency, not
 * the limit, so its direct-loopback services allow every call of a round.
 */
const SHARED_BUCKET_FITS_A_ROUND = {
  PROJECT_STARTUP_INITIALIZE_RATE_LIMIT: `${4 * CLIENTS}/60`
};

/** The loopback source address of client i (0-based). */
const clientAddress = (i: number) => `127.0.0.${i + 2}`;

interface Body {
  interface: string;
  confirm: { projectPath: string; statePath: string };
}

async function confirmation(
  svc: TestService,
  headers: Record<string, string> = { authorization: `Bearer ${svc.token}` }
): Promise<Body> {
  const r = await request(`${svc.api}startup?interface=web`, { headers });
  expect([r.status, r.status === 200 ? '' : r.text]).toEqual([200, '']);
  return {
    interface: 'web',
    confirm: { projectPath: r.json.projectPath, statePath: r.json.statePath }
  };
}

function post(
  port: number,
  route: string,
  headers: [string, string][],
  body: unknown,
  localAddress?: string
): Promise<Exchange> {
  const text = JSON.stringify(body);
  return exchange(
    { port },
    rawHttp(
      'POST',
      `/project/${route}`,
      [
        ['Host', `127.0.0.1:${port}`],
        ['Content-Type', 'application/json'],
        ['Content-Length', String(Buffer.byteLength(text))],
        ['Connection', 'close'],
        ...headers
      ],
      text
    ),
    { localAddress, timeoutMs: 20000 }
  );
}

/** Counts the connections a service accepts and the distinct client addresses they came from. */
function watchConnections(svc: TestService): {
  connections: () => number;
  addresses: () => Set<string>;
} {
  let connections = 0;
  const addresses = new Set<string>();
  svc.running.server.on('connection', socket => {
    connections += 1;
    addresses.add(String(socket.remoteAddress));
  });
  return { connections: () => connections, addresses: () => addresses };
}

/** Exactly one creation; every answer the same record; on disk one directory with one record. */
function expectOneState(
  records: { status: number; created: boolean; record: unknown }[],
  statePath: string,
  projectDir: string
): void {
  const summary = records.map(r => `${r.status}/${r.created}`);
  expect(summary.filter(s => s === '201/true')).toHaveLength(1);
  expect(summary.filter(s => s === '200/false')).toHaveLength(
    records.length - 1
  );
  const winner = records.find(r => r.created)?.record;
  for (const r of records) {
    expect(r.record).toEqual(winner);
  }
  expect(fs.readdirSync(projectDir)).toEqual(['.project-startup']);
  expect(fs.readdirSync(statePath)).toEqual(['initialization.json']);
  expect(fs.lstatSync(statePath).mode & 0o777).toBe(0o700);
  const file = path.join(statePath, 'initialization.json');
  expect(fs.lstatSync(file).mode & 0o777).toBe(0o600);
  expect(fs.lstatSync(file).nlink).toBe(1);
  const onDisk = JSON.parse(fs.readFileSync(file, 'utf8'));
  expectValid('InitializationRecord', onDisk);
  expect(onDisk).toEqual(winner);
}

function restAnswer(ex: Exchange): {
  status: number;
  created: boolean;
  record: unknown;
} {
  const json = JSON.parse(ex.body);
  expectValid('InitializeResponse', json);
  expect(json.phase).toBe('ready');
  return { status: ex.status, created: json.created, record: json.record };
}

describe('64 concurrent initialize calls from separate clients', () => {
  it.each(Array.from({ length: ROUNDS }, (_, i) => i + 1))(
    'direct loopback, round %i: one 201, 63 identical 200s, one state; racing reads never see a broken state',
    async () => {
      const svc = await start({ env: SHARED_BUCKET_FITS_A_ROUND });
      const port = svc.running.port as number;
      const watch = watchConnections(svc);
      const body = await confirmation(svc);
      const auth: [string, string] = ['Authorization', `Bearer ${svc.token}`];
      const reads = Array.from({ length: CLIENTS }, (_, i) =>
        exchange(
          { port },
          rawHttp('GET', '/project/startup?interface=web', [
            ['Host', `127.0.0.1:${port}`],
            auth,
            ['Connection', 'close']
          ]),
          { localAddress: clientAddress(i), timeoutMs: 20000 }
        )
      );
      const writes = Array.from({ length: CLIENTS }, (_, i) =>
        post(port, 'initialize', [auth], body, clientAddress(i))
      );
      const [written, read] = await Promise.all([
        Promise.all(writes),
        Promise.all(reads)
      ]);

      expect(watch.addresses().size).toBe(CLIENTS);
      expect(watch.connections()).toBeGreaterThanOrEqual(2 * CLIENTS);
      expect(
        written.map(w => w.status).filter(s => s !== 200 && s !== 201)
      ).toEqual([]);
      expectOneState(
        written.map(restAnswer),
        body.confirm.statePath,
        svc.projectDir
      );
      for (const r of read) {
        expect(r.status).toBe(200);
        const projection = JSON.parse(r.body);
        expect(['awaiting-confirmation', 'ready']).toContain(projection.phase);
        const check = projection.readinessChecks.find(
          (c: { id: string }) => c.id === 'state-path'
        );
        expect(check.status).not.toBe('fail');
      }
      const after = await request(`${svc.api}startup?interface=web`, {
        token: svc.token
      });
      expect(after.json.phase).toBe('ready');
    },
    60000
  );

  it('through the gateway (project.initialize), 64 clients: one created, 63 identical records', async () => {
    const svc = await start({ env: SHARED_BUCKET_FITS_A_ROUND });
    const port = svc.running.port as number;
    const body = await confirmation(svc);
    const auth: [string, string] = ['Authorization', `Bearer ${svc.token}`];
    const answers = await Promise.all(
      Array.from({ length: CLIENTS }, (_, i) =>
        post(
          port,
          'gateway',
          [auth],
          { jsonrpc: '2.0', id: i, method: 'project.initialize', params: body },
          clientAddress(i)
        )
      )
    );
    const records = answers.map((ex, i) => {
      expect(ex.status).toBe(200);
      const json = JSON.parse(ex.body);
      expectValid('GatewayResponse', json);
      expect(json.id).toBe(i);
      expect(json.error).toBeUndefined();
      return {
        status: json.result.created ? 201 : 200,
        created: json.result.created,
        record: json.result.record
      };
    });
    expectOneState(records, body.confirm.statePath, svc.projectDir);
  }, 60000);

  it('REST and gateway mixed, 32 + 32 clients: still exactly one state', async () => {
    const svc = await start({ env: SHARED_BUCKET_FITS_A_ROUND });
    const port = svc.running.port as number;
    const body = await confirmation(svc);
    const auth: [string, string] = ['Authorization', `Bearer ${svc.token}`];
    const answers = await Promise.all(
      Array.from({ length: CLIENTS }, (_, i) =>
        i % 2 === 0
          ? post(port, 'initialize', [auth], body, clientAddress(i)).then(
              restAnswer
            )
          : post(
              port,
              'gateway',
              [auth],
              {
                jsonrpc: '2.0',
                id: i,
                method: 'project.initialize',
                params: body
              },
              clientAddress(i)
            ).then(ex => {
              const json = JSON.parse(ex.body);
              expect(json.error).toBeUndefined();
              return {
                status: json.result.created ? 201 : 200,
                created: json.result.created as boolean,
                record: json.result.record as unknown
              };
            })
      )
    );
    expectOneState(answers, body.confirm.statePath, svc.projectDir);
  }, 60000);

  it('trusted proxy, 64 clients by X-Forwarded-For (default rate limit): one 201, 63 identical 200s', async () => {
    const secretDir = tempRoot('ps-secret-');
    const secretFile = path.join(secretDir, 'secret');
    const secret = 'concurrency-proxy-secret-0123456789';
    fs.writeFileSync(secretFile, secret, { mode: 0o600 });
    try {
      const svc = await start({
        env: { PROJECT_STARTUP_TRUSTED_PROXY_SECRET_FILE: secretFile },
        serve: { ingress: 'trusted-proxy' }
      });
      const port = svc.running.port as number;
      const proxy: [string, string] = [
        'X-Project-Startup-Proxy-Secret',
        secret
      ];
      const body = await confirmation(svc, {
        'x-project-startup-proxy-secret': secret
      });
      const answers = await Promise.all(
        Array.from({ length: CLIENTS }, (_, i) =>
          post(
            port,
            'initialize',
            [proxy, ['X-Forwarded-For', `192.0.2.${i + 1}`]],
            body
          )
        )
      );
      expect(
        answers.map(a => a.status).filter(s => s !== 200 && s !== 201)
      ).toEqual([]);
      expectOneState(
        answers.map(restAnswer),
        body.confirm.statePath,
        svc.projectDir
      );
      expect(
        answers.map(a => JSON.parse(a.body).record.confirmation.ingress)
      ).toEqual(Array(CLIENTS).fill('trusted-proxy'));
    } finally {
      fs.rmSync(secretDir, { recursive: true, force: true });
    }
  }, 60000);

  it('two service processes on one project, 32 clients each: exactly one state between them', async () => {
    const s = sandbox();
    const envFor = (n: number) => ({
      ...s.env,
      ...SHARED_BUCKET_FITS_A_ROUND,
      PROJECT_STARTUP_RUNTIME_DIR: path.join(s.root, `run-${n}`),
      PROJECT_STARTUP_TOKEN: `two-process-token-${n}-0123456789abcdef`
    });
    const [a, b] = await Promise.all([
      startServe([], { env: envFor(1), cwd: s.projectDir }),
      startServe([], { env: envFor(2), cwd: s.projectDir })
    ]);
    const p = await request(`${a.url}startup?interface=web`, {
      token: envFor(1).PROJECT_STARTUP_TOKEN
    });
    const body: Body = {
      interface: 'web',
      confirm: { projectPath: p.json.projectPath, statePath: p.json.statePath }
    };
    const answers = await Promise.all(
      Array.from({ length: CLIENTS }, (_, i) => {
        const server = i % 2 === 0 ? a : b;
        const token = envFor(i % 2 === 0 ? 1 : 2).PROJECT_STARTUP_TOKEN;
        return post(
          server.port,
          'initialize',
          [['Authorization', `Bearer ${token}`]],
          body,
          clientAddress(i)
        );
      })
    );
    expect(
      answers.map(x => x.status).filter(st => st !== 200 && st !== 201)
    ).toEqual([]);
    expectOneState(
      answers.map(restAnswer),
      body.confirm.statePath,
      s.projectDir
    );
    for (const server of [a, b]) {
      expect((await server.stop()).code).toBe(0);
    }
  }, 60000);
});

describe('another process creating the state between the steps of this one', () => {
  // Two processes (a sidecar and `project-startup init --local`, or two sidecars) share one
  // project. The fault-injection hook lets the other process run a whole creation at each step
  // of this one, deterministically; the outcome must still be one state and a 200 or 201 here.
  it.each([
    'parents-created',
    'directory-created',
    'record-written',
    'record-linked',
    'temporary-removed'
  ] as const)(
    'the other process completes at step %s: one record, this call answers 200 with it (never 5xx)',
    async step => {
      // Not const: onCreationStep may run before start() answers, and must then see undefined.
      let svc: TestService | undefined;
      let other: { created: boolean; record: unknown } | undefined;
      // eslint-disable-next-line prefer-const
      svc = await start({
        onCreationStep: reached => {
          if (reached === step && other === undefined && svc !== undefined) {
            const service = svc.running.service;
            const inspector = new StateInspector(
              service.placement,
              service.config.projectDir
            );
            const record = {
              schemaVersion: '1.0.0',
              kind: 'project-startup-state' as const,
              projectPath: service.config.projectDir,
              statePath: service.placement.statePath,
              platform: service.adapter.id,
              confirmation: {
                interface: 'web' as const,
                method: 'http-api' as const,
                ingress: 'command-line' as const,
                confirmedAt: '2000-01-01T00:00:00.000Z'
              },
              service: { version: service.version }
            };
            other = createState(service.placement, inspector, record);
          }
        }
      });
      const body = await confirmation(svc);
      const port = svc.running.port as number;
      const answer = await post(
        port,
        'initialize',
        [['Authorization', `Bearer ${svc.token}`]],
        body
      );
      expect(other).toBeDefined();
      expect({
        status: answer.status,
        code: answer.status >= 400 ? JSON.parse(answer.body).code : undefined
      }).toEqual({
        status: other?.created ? 200 : 201,
        code: undefined
      });
      const mine = restAnswer(answer);
      const file = JSON.parse(
        fs.readFileSync(
          path.join(body.confirm.statePath, 'initialization.json'),
          'utf8'
        )
      );
      expect(mine.record).toEqual(file);
      expect(fs.readdirSync(body.confirm.statePath)).toEqual([
        'initialization.json'
      ]);
    },
    30000
  );
});

describe('8 concurrent `init --local` on the cluster: each through its own in-process initialize route', () => {
  function clusterSandbox() {
    const s = sandbox();
    const tmp = path.join(s.root, 'tmp');
    fs.mkdirSync(tmp, { mode: 0o700 });
    const env: Record<string, string> = {
      ...s.env,
      SLURM_JOB_ID: '4242',
      PROJECT_STARTUP_APPROVED_STORAGE: s.root,
      TMPDIR: tmp
    };
    return { s, tmp, env };
  }

  it('8 processes answering yes at their prompts: one creates, every other finds it; one state, no socket directory left', async () => {
    const { s, tmp, env } = clusterSandbox();
    const runs = await Promise.all(
      Array.from({ length: 8 }, () =>
        runCliInTty(['init', '--json'], {
          env,
          cwd: s.projectDir,
          input: 'y\n',
          timeoutMs: 60000
        })
      )
    );
    expect(runs.map(r => r.code)).toEqual(Array(8).fill(0));
    const answers = runs.map(r => JSON.parse(r.stdout));
    expect(answers.filter(a => a.created === true)).toHaveLength(1);
    const statePath = path.join(s.projectDir, '.project-startup');
    expectOneState(
      answers.map(a => ({
        status: a.created ? 201 : 200,
        created: a.created,
        record: a.record
      })),
      statePath,
      s.projectDir
    );
    expect(answers[0].record.confirmation).toMatchObject({
      interface: 'terminal',
      method: 'terminal-prompt',
      ingress: 'command-line'
    });
    expect(fs.readdirSync(tmp)).toEqual([]);
  }, 90000);

  it('8 separate services (as 8 processes hold) posting at once: one 201, seven 200 with the same record', async () => {
    const { s, tmp, env } = clusterSandbox();
    // os.tmpdir() is not this test's environment under jest: the directory is passed.
    const services = Array.from(
      { length: 8 },
      () =>
        new StartupService({
          config: resolveConfig({ projectDir: s.projectDir }, env),
          env
        })
    );
    const projections = await Promise.all(
      services.map(service => service.startup('terminal'))
    );
    expect(projections.map(p => p.phase)).toEqual(
      Array(8).fill('awaiting-confirmation')
    );
    const answers = await Promise.all(
      services.map((service, i) =>
        initializeInProcess(
          service,
          {
            interface: 'terminal',
            confirm: {
              projectPath: projections[i].projectPath,
              statePath: projections[i].statePath
            }
          },
          true,
          tmp
        )
      )
    );
    expectOneState(
      answers.map(a => ({
        status: a.status,
        created: a.body.created,
        record: a.body.record
      })),
      projections[0].statePath,
      s.projectDir
    );
    expect(fs.readdirSync(tmp)).toEqual([]);
  }, 60000);
});
