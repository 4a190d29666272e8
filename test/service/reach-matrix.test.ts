// The one model of routes over the whole matrix: platform × ingress (or no
// service) × transport × Jupyter address known or not × interface × client. The pure properties
// hold on every cell; a representative sample of services is started for real and the routes
// their projections name are followed.
import * as path from 'node:path';
import {
  reach,
  REACH_CLIENTS,
  ReachContext,
  readerOf,
  Transport
} from '../../sidecar/src/core/reach';
import { signInLine, urlAnswer } from '../../sidecar/src/core/sign-in';
import { adapterFor } from '../../sidecar/src/core/platforms';
import {
  INGRESS_MODES,
  INTERFACE_IDS,
  IngressMode,
  InterfaceId,
  PLATFORM_IDS
} from '../../sidecar/src/core/vocabulary';
import { killAllChildren, runCli } from '../helpers/cli';
import { request, tempRoot, trackedServices } from '../helpers/harness';

jest.setTimeout(120000);

const JUPYTER_URL = 'http://127.0.0.1:8888/user/alice/';
const SETUP_PAGE = 'http://127.0.0.1:41234/project/';

function contexts(): ReachContext[] {
  const all: ReachContext[] = [];
  for (const platform of PLATFORM_IDS) {
    for (const ingress of [...INGRESS_MODES, undefined]) {
      for (const transport of ['tcp', 'unix-socket'] as Transport[]) {
        for (const jupyterKnown of [false, true]) {
          all.push({
            platform,
            ...(ingress ? { ingress, transport } : {}),
            baseUrl: ingress === 'notebook-server-proxy' ? '/user/alice/' : '/',
            ...(jupyterKnown ? { jupyterUrl: JUPYTER_URL } : {}),
            ...(ingress === 'direct-loopback' && transport === 'tcp'
              ? { setupPageUrl: SETUP_PAGE }
              : {})
          });
        }
      }
    }
  }
  return all;
}

const cells = contexts().flatMap(ctx =>
  INTERFACE_IDS.flatMap(iface =>
    REACH_CLIENTS.map(client => ({ ctx, iface, client }))
  )
);

const name = (ctx: ReachContext) =>
  `${ctx.platform} × ${ctx.ingress ?? 'no service'} × ${ctx.transport ?? '-'} × ${ctx.jupyterUrl ? 'Jupyter known' : 'no Jupyter address'}`;

describe('the model of routes on every cell', () => {
  it(`has ${cells.length} cells: 3 platforms × 4 ingresses × 2 transports × 2 × 3 interfaces × 4 clients`, () => {
    expect(cells.length).toBe(
      PLATFORM_IDS.length *
        (INGRESS_MODES.length + 1) *
        2 *
        2 *
        INTERFACE_IDS.length *
        REACH_CLIENTS.length
    );
  });

  it('names a route only for an interface the platform offers, and no route the manifest does not offer', () => {
    const violations: string[] = [];
    for (const { ctx, iface, client } of cells) {
      const adapter = adapterFor(ctx.platform);
      const r = reach(ctx, iface, client);
      const words = `${r.how} ${r.why ?? ''}`;
      const at = `${name(ctx)} × ${iface} × ${client}`;
      if (!adapter.interfaces.includes(iface) && r.route) {
        violations.push(`${at}: a route to an interface not offered`);
      }
      if (!r.route && !r.why) {
        violations.push(`${at}: neither a route nor why there is none`);
      }
      if (
        !adapter.interfaces.includes('web') &&
        /project-startup url|setup page|Create project state|\/project\//.test(
          words
        )
      ) {
        violations.push(`${at} names the setup page: ${words}`);
      }
      if (
        !adapter.interfaces.includes('notebook') &&
        /Open Project Startup|panel/.test(words)
      ) {
        violations.push(`${at} names the notebook panel: ${words}`);
      }
      if (JSON.stringify(r) !== JSON.stringify(reach(ctx, iface, client))) {
        violations.push(`${at}: two answers for one question`);
      }
    }
    expect(violations).toEqual([]);
  });

  it('the same cell gets the same route whoever asks (only the words differ)', () => {
    const disagreements: string[] = [];
    for (const ctx of contexts()) {
      for (const iface of INTERFACE_IDS) {
        const routes = new Set(
          REACH_CLIENTS.map(c => JSON.stringify(reach(ctx, iface, c).route))
        );
        if (routes.size !== 1) {
          disagreements.push(`${name(ctx)} × ${iface}: ${[...routes]}`);
        }
      }
    }
    expect(disagreements).toEqual([]);
  });

  it("`project-startup url` and serve's banner agree with the model on every service", () => {
    const disagreements: string[] = [];
    for (const ctx of contexts()) {
      if (ctx.ingress === undefined) {
        continue;
      }
      const web = reach(ctx, 'web', 'command-line');
      const tcp = ctx.transport === 'tcp';
      const info = {
        ...(tcp ? { url: SETUP_PAGE } : { socket: '/run/s.sock' }),
        ingress: ctx.ingress,
        platform: ctx.platform,
        baseUrl: ctx.baseUrl,
        tokenSource: 'generated',
        token: 't0ken'
      };
      const jupyter =
        ctx.jupyterUrl && ctx.ingress === 'notebook-server-proxy'
          ? { url: ctx.jupyterUrl, platform: ctx.platform }
          : undefined;
      const answer = urlAnswer({ info, envToken: undefined, jupyter });
      const printed = answer.ok ? answer.url.split('?')[0] : undefined;
      const named = web.route?.kind === 'url' ? web.route.url : undefined;
      // url prints exactly the page the model names, where a person can open it from here.
      const opensHere =
        named !== undefined &&
        (ctx.ingress === 'direct-loopback' ||
          (ctx.ingress === 'notebook-server-proxy' && jupyter !== undefined));
      if (opensHere ? printed !== named : printed !== undefined) {
        disagreements.push(
          `${name(ctx)}: url printed ${printed}, the model names ${named}`
        );
      }
      const banner = signInLine(
        {
          platform: ctx.platform,
          ingress: ctx.ingress,
          url: tcp ? SETUP_PAGE : undefined,
          socket: tcp ? undefined : '/run/s.sock'
        },
        'the runtime file'
      );
      if (
        ctx.ingress === 'direct-loopback' &&
        /project-startup url/.test(banner) !== (named !== undefined)
      ) {
        disagreements.push(`${name(ctx)}: banner "${banner}", model ${named}`);
      }
    }
    expect(disagreements).toEqual([]);
  });
});

describe('no advice to do what was just done', () => {
  it('`project-startup url` that has no page to print never says to run `project-startup url`', () => {
    const advice: string[] = [];
    for (const ctx of contexts()) {
      if (ctx.ingress === undefined) {
        continue;
      }
      const answer = urlAnswer({
        info: {
          ...(ctx.transport === 'tcp'
            ? { url: SETUP_PAGE }
            : { socket: '/run/s.sock' }),
          ingress: ctx.ingress,
          platform: ctx.platform,
          baseUrl: ctx.baseUrl,
          tokenSource: 'generated',
          token: 't0ken'
        },
        envToken: undefined
      });
      if (!answer.ok && /`project-startup url` and open/.test(answer.message)) {
        advice.push(`${name(ctx)}: ${answer.message}`);
      }
    }
    expect(advice).toEqual([]);
  });
});

interface Sample {
  platform: 'generic' | 'hosted-notebook' | 'cluster';
  ingress: IngressMode;
  unix: boolean;
}

const SAMPLES: Sample[] = [
  { platform: 'generic', ingress: 'direct-loopback', unix: false },
  { platform: 'generic', ingress: 'direct-loopback', unix: true },
  { platform: 'generic', ingress: 'notebook-server-proxy', unix: true },
  { platform: 'hosted-notebook', ingress: 'notebook-server-proxy', unix: true },
  { platform: 'hosted-notebook', ingress: 'direct-loopback', unix: false },
  { platform: 'cluster', ingress: 'direct-loopback', unix: false }
];

describe('followed on real services', () => {
  const start = trackedServices('each');
  afterEach(killAllChildren);

  it.each(
    SAMPLES.map(
      s =>
        [
          `${s.platform} × ${s.ingress} × ${s.unix ? 'unix' : 'tcp'}`,
          s
        ] as const
    )
  )(
    "%s: the projections name the model's words, and each named route works",
    async (_label, sample) => {
      const socketPath = sample.unix
        ? path.join(tempRoot('ps-reach-m-'), 's.sock')
        : undefined;
      const baseUrl =
        sample.ingress === 'notebook-server-proxy' ? '/user/alice/' : '/';
      const svc = await start({
        env: {
          PROJECT_STARTUP_PLATFORM: sample.platform,
          ...(sample.platform === 'cluster'
            ? {
                SLURM_JOB_ID: '4242',
                PROJECT_STARTUP_APPROVED_STORAGE: path.dirname(
                  tempRoot('ps-reach-root-')
                )
              }
            : {})
        },
        serve: {
          ingress: sample.ingress,
          baseUrl,
          ...(socketPath ? { unixSocket: socketPath } : {})
        }
      });
      const api = socketPath ? `http://localhost${baseUrl}project/` : svc.api;
      const get = (route: string, headers: Record<string, string> = {}) =>
        request(`${api}${route}`, {
          ...(svc.token ? { token: svc.token } : {}),
          socketPath,
          headers
        });
      let followed = 0;
      for (const iface of INTERFACE_IDS) {
        const p = (await get(`startup?interface=${iface}`)).json;
        const ctx: ReachContext = {
          platform: sample.platform,
          ingress: sample.ingress,
          transport: socketPath ? 'unix-socket' : 'tcp',
          baseUrl,
          ...(p.browserUrl ? { setupPageUrl: p.browserUrl } : {})
        };
        const listed = (p.nextAction.interfaces ?? []) as {
          id: InterfaceId;
          how: string;
        }[];
        for (const way of listed) {
          // No second composition: the projection says exactly what the model says.
          expect(way.how).toBe(reach(ctx, way.id, readerOf(iface)).how);
        }
        // Followed: the routes the projection lists, and the model's route to every offered one.
        const ids = new Set([
          ...listed.map(way => way.id),
          ...adapterFor(sample.platform).interfaces
        ]);
        for (const id of ids) {
          const route = reach(ctx, id, readerOf(iface)).route;
          if (route?.kind === 'url' && route.url.startsWith(baseUrl)) {
            // A page of this service: it answers.
            const page = await request(
              `${socketPath ? 'http://localhost' : svc.origin}${route.url}`,
              {
                socketPath,
                headers: { accept: 'text/html' },
                ...(svc.token ? { token: svc.token } : {})
              }
            );
            expect(page.status).toBe(200);
            followed += 1;
          }
          if (
            route?.kind === 'command' &&
            route.command === 'project-startup status'
          ) {
            const r = await runCli(['status'], {
              env: { ...svc.env, PROJECT_STARTUP_PLATFORM: sample.platform },
              cwd: svc.projectDir
            });
            expect([0, 3]).toContain(r.code);
            expect(r.stdout).toMatch(/Project startup/);
            followed += 1;
          }
          if (
            route?.kind === 'command' &&
            route.command === 'project-startup url'
          ) {
            const r = await runCli(['url'], {
              env: svc.env,
              cwd: svc.projectDir
            });
            expect(r.code).toBe(0);
            const opened = await request(r.stdout.trim(), {
              headers: { accept: 'text/html' }
            });
            expect([200, 303]).toContain(opened.status);
            followed += 1;
          }
        }
      }
      // Not vacuous: every sample names at least one route a test can follow.
      expect(followed).toBeGreaterThan(0);
    }
  );
});
