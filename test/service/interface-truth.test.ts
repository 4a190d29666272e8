// Properties over the whole matrix, every platform × ingress × listener × interface, against
// the real service (in this process, over real HTTP or a Unix socket):
//   1. every nextAction.request the projection offers succeeds when sent verbatim with the
//      ingress's credential, and the record says what the service saw (http-api);
//   2. no interface output names a route the manifest does not offer: the projection (next
//      action, readiness checks and their remedies, confirmation), the setup page and its
//      sign-in, serve's banner, `project-startup url`, and the problem a refused confirmation
//      answers with.
// And the interfaces that reach the project without the service's routes (the command line's
// local fallback, c.ProjectStartup passed on by Jupyter, the command line beside a trusted-proxy
// service): property 2 again, and the same platform and next action as the service's.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Manifest } from '../../sidecar/src/core/manifest';
import { readRuntimeFile } from '../../sidecar/src/files/runtime-file';
import { signInLine, urlAnswer } from '../../sidecar/src/core/sign-in';
import {
  INGRESS_MODES,
  INTERFACE_IDS,
  IngressMode,
  InterfaceId,
  PLATFORM_IDS,
  PlatformId
} from '../../sidecar/src/core/vocabulary';
import {
  HttpResult,
  request,
  startTestService,
  tempRoot,
  TestService
} from '../helpers/harness';
import { expectValid } from '../helpers/schemas';
import { connect } from '../../sidecar/src/cli/client';
import { resolveConfig } from '../../sidecar/src/config/config';

jest.setTimeout(120000);

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const PROXY_SECRET = 'trusted-proxy-secret-0123456789abcdef';
const JUPYTER_TOKEN = 'jupyter-token-0123456789abcdef';

interface Case {
  platform: PlatformId;
  /** cluster: inside an allocation (liveness unknown, no squeue here), on a login node, or in
   * an allocation outside the approved storage (blocked). */
  where: 'allocation' | 'login-node' | 'outside-storage' | 'host';
  ingress: IngressMode;
  listener: 'tcp' | 'unix';
}

function cases(): Case[] {
  const all: Case[] = [];
  for (const platform of PLATFORM_IDS) {
    for (const where of platform === 'cluster'
      ? (['allocation', 'login-node', 'outside-storage'] as const)
      : (['host'] as const)) {
      for (const ingress of INGRESS_MODES) {
        for (const listener of ['tcp', 'unix'] as const) {
          all.push({ platform, where, ingress, listener });
        }
      }
    }
  }
  return all;
}

interface Started {
  svc: TestService;
  /** http://host/{base}project/ (any host on a Unix socket) */
  api: string;
  socketPath?: string;
  /** What a client of this ingress sends to be let in. */
  credential: Record<string, string>;
  close(): Promise<void>;
}

async function start(c: Case): Promise<Started> {
  const own = tempRoot('ps-truth-');
  const secretFile = path.join(own, 'proxy-secret');
  fs.writeFileSync(secretFile, PROXY_SECRET, { mode: 0o600 });
  const socketPath =
    c.listener === 'unix' ? path.join(own, 's.sock') : undefined;
  const env: Record<string, string> = {
    PROJECT_STARTUP_PLATFORM: c.platform,
    PROJECT_STARTUP_TRUSTED_PROXY_SECRET_FILE: secretFile,
    PROJECT_STARTUP_TOKEN: 'direct-loopback-token-0123456789abcdef'
  };
  if (c.platform === 'cluster') {
    env.PROJECT_STARTUP_APPROVED_STORAGE =
      c.where === 'outside-storage'
        ? '/nonexistent-approved-storage'
        : fs.realpathSync(os.tmpdir());
    if (c.where !== 'login-node') {
      env.SLURM_JOB_ID = '4242';
    } else {
      env.SLURM_CONF = '/etc/slurm/slurm.conf';
    }
  }
  const svc = await startTestService({
    env,
    serve: {
      ingress: c.ingress,
      ...(socketPath ? { unixSocket: socketPath } : {})
    }
  });
  const credential: Record<string, string> =
    c.ingress === 'direct-loopback'
      ? { authorization: `Bearer ${svc.token}` }
      : c.ingress === 'notebook-server-proxy'
        ? { authorization: `token ${JUPYTER_TOKEN}` } // what a script sends through Jupyter
        : { 'x-project-startup-proxy-secret': PROXY_SECRET };
  return {
    svc,
    api: socketPath ? 'http://localhost/project/' : svc.api,
    socketPath,
    credential,
    close: async () => {
      await svc.close();
      fs.rmSync(own, { recursive: true, force: true });
    }
  };
}

function get(
  s: Started,
  route: string,
  headers: Record<string, string> = {}
): Promise<HttpResult> {
  return request(`${s.api}${route}`, {
    headers: { ...s.credential, ...headers },
    socketPath: s.socketPath
  });
}

/** A request as the projection gives it: method, path and body verbatim, plus the credential. */
function send(
  s: Started,
  r: { method: string; path: string; body: unknown }
): Promise<HttpResult> {
  const origin = s.socketPath ? 'http://localhost' : new URL(s.api).origin;
  return request(`${origin}${r.path}`, {
    method: r.method,
    headers: { ...s.credential, 'content-type': 'application/json' },
    body: JSON.stringify(r.body),
    socketPath: s.socketPath
  });
}

/** Every string in a value, with where it sits; the manifest itself is the reference, not output. */
function strings(value: unknown, at = ''): { at: string; text: string }[] {
  if (typeof value === 'string') {
    return [{ at, text: value }];
  }
  if (Array.isArray(value)) {
    return value.flatMap((v, i) => strings(v, `${at}/${i}`));
  }
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([k, v]) =>
      k === 'manifest' ? [] : strings(v, `${at}/${k}`)
    );
  }
  return [];
}

function valueIds(manifest: Manifest, capability: string): string[] {
  return (
    manifest.capabilities.find(c => c.id === capability)?.values ?? []
  ).map(v => v.id);
}

/** What each route looks like in words, and whether the manifest offers it. */
function unofferedRoutes(
  manifest: Manifest
): { route: string; pattern: RegExp }[] {
  const interfaces = valueIds(manifest, 'interfaces');
  const browser = valueIds(manifest, 'browser-route')[0];
  const runtimes = valueIds(manifest, 'inference-runtimes');
  const backends = valueIds(manifest, 'credential-backends');
  const out: { route: string; pattern: RegExp }[] = [];
  if (browser === 'unavailable' || !interfaces.includes('web')) {
    out.push({
      route: 'browser route',
      pattern:
        /project-startup url|setup page|browser address|\?token=|Create project state|https?:\/\/[^ ]*\/project\//
    });
  }
  if (!interfaces.includes('notebook')) {
    out.push({
      route: 'notebook interface',
      pattern: /Open Project Startup|Project Startup panel|Initialize project/
    });
  }
  if (!runtimes.includes('local-lightweight')) {
    out.push({
      route: 'local lightweight runtime',
      pattern: /PROJECT_STARTUP_LOCAL_RUNTIME_URL|Local lightweight runtime/
    });
  }
  if (!backends.includes('system-keyring')) {
    out.push({ route: 'system keyring', pattern: /System keyring/ });
  }
  if (!backends.includes('managed-identity')) {
    out.push({
      route: 'managed identity',
      pattern: /Managed identity|MANAGED_IDENTITY/
    });
  }
  return out;
}

function expectOnlyOffered(
  manifest: Manifest,
  outputs: { at: string; text: string }[],
  label: string
): void {
  const ingressModes = valueIds(manifest, 'gateway-ingress-modes');
  const violations: string[] = [];
  for (const { route, pattern } of unofferedRoutes(manifest)) {
    for (const o of outputs) {
      if (pattern.test(o.text)) {
        violations.push(`${o.at} names the ${route}: ${o.text}`);
      }
    }
  }
  for (const o of outputs) {
    for (const match of o.text.matchAll(/--ingress ([a-z-]+)/g)) {
      if (!ingressModes.includes(match[1])) {
        violations.push(
          `${o.at} suggests ingress ${match[1]}, which the platform does not offer: ${o.text}`
        );
      }
    }
  }
  expect({ label, violations }).toEqual({ label, violations: [] });
}

const label = (c: Case, iface?: InterfaceId) =>
  `${c.platform}${c.where === 'host' ? '' : ` (${c.where})`} × ${c.ingress} × ${c.listener}${iface ? ` × ${iface}` : ''}`;

describe('the whole matrix: platform × ingress × listener × interface', () => {
  const all = cases();

  it(`covers ${all.length} services × ${INTERFACE_IDS.length} interfaces`, () => {
    expect(all.length).toBe(
      PLATFORM_IDS.length * INGRESS_MODES.length * 2 +
        2 * INGRESS_MODES.length * 2
    );
  });

  it.each(all.map(c => [label(c), c] as const))(
    '%s: every offered request succeeds verbatim; no output names an unoffered route',
    async (_name, c) => {
      const offeredRequests: string[] = [];
      for (const iface of INTERFACE_IDS) {
        // A fresh service per interface: a request that succeeds changes the state.
        const s = await start(c);
        try {
          const caps = await get(s, 'capabilities');
          expect(caps.status).toBe(200);
          const manifest = caps.json as Manifest;
          const startup = await get(s, `startup?interface=${iface}`);
          expect(startup.status).toBe(200);
          const p = startup.json as Json;
          expectValid('StartupProjection', p);

          // Property 2 on every output of this service.
          const info = readRuntimeFile(
            path.join(
              s.svc.runtimeDir,
              fs
                .readdirSync(s.svc.runtimeDir)
                .find(n => n.endsWith('.json')) as string
            )
          );
          const url = urlAnswer({
            info,
            envToken: s.svc.env.PROJECT_STARTUP_TOKEN
          });
          const banner = signInLine(
            {
              platform: c.platform,
              ingress: c.ingress,
              url: s.socketPath ? undefined : s.api,
              socket: s.socketPath
            },
            'PROJECT_STARTUP_TOKEN'
          );
          const page = await get(s, '', { accept: 'text/html' });
          const outputs = [
            ...strings(p, `startup(${iface})`),
            { at: 'serve banner', text: banner },
            { at: 'project-startup url', text: url.ok ? url.url : url.message }
          ];
          if (valueIds(manifest, 'browser-route')[0] === 'unavailable') {
            // No page, no sign-in cookie, no address.
            expect(page.status).toBe(404);
            expect(page.headers['set-cookie']).toBeUndefined();
            const signIn = await request(
              `${s.api}?token=${encodeURIComponent(s.svc.token)}`,
              { headers: { accept: 'text/html' }, socketPath: s.socketPath }
            );
            // Direct loopback: no browser sign-in here (401, sign-in.ts addressTokenRule); behind
            // a proxy the token is the proxy's, and there is no page (404).
            expect(signIn.status).toBe(
              c.ingress === 'direct-loopback' ? 401 : 404
            );
            expect(signIn.headers['set-cookie']).toBeUndefined();
            expect(url.ok).toBe(false);
            expect(p.browserUrl).toBeUndefined();
            outputs.push({
              at: 'setup page (refused)',
              text: page.json?.detail ?? ''
            });
          }

          // Property 1: the request offered works as given, and is recorded as what it was.
          const r = p.nextAction.request;
          if (r !== undefined && /\brequest\b/i.test(p.nextAction.detail)) {
            // Words that send a person to the request carry it: the human status and the
            // Python client's HTML show the detail, not the request field.
            expect(p.nextAction.detail).toContain(`${r.method} ${r.path}`);
            expect(p.nextAction.detail).toContain(JSON.stringify(r.body));
          }
          if (r !== undefined) {
            offeredRequests.push(iface);
            const sent = await send(s, r);
            expect({
              case: label(c, iface),
              status: sent.status,
              body: sent.json
            }).toMatchObject({ case: label(c, iface), status: 201 });
            expect(sent.json.record.confirmation).toMatchObject({
              interface: iface,
              method: 'http-api',
              ingress: c.ingress
            });
            expect(sent.json.phase).toBe('ready');
            // What every interface says once the project is set up obeys the same rule.
            for (const after of INTERFACE_IDS) {
              const now = await get(s, `startup?interface=${after}`);
              expect(now.status).toBe(200);
              outputs.push(
                ...strings(now.json, `startup(${after}) after initialize`)
              );
            }
          } else if (p.phase === 'awaiting-confirmation') {
            // Where no request is offered, a plain API call with the same body is indeed refused:
            // the projection kept nothing back that would have worked.
            const body = {
              interface: iface,
              confirm: { projectPath: p.projectPath, statePath: p.statePath }
            };
            const refused = await send(s, {
              method: 'POST',
              path: new URL(`${s.api}initialize`).pathname,
              body
            });
            expect({ case: label(c, iface), status: refused.status }).toEqual({
              case: label(c, iface),
              status: 403
            });
            outputs.push({
              at: 'refused initialize',
              text: refused.json.detail
            });
          }
          expectOnlyOffered(manifest, outputs, label(c, iface));
        } finally {
          await s.close();
        }
      }
      // Where an API call may confirm on an offered ingress, the projection does offer it.
      const offered =
        c.ingress !== 'notebook-server-proxy' || c.platform !== 'cluster';
      const expected =
        c.platform === 'cluster' || !offered
          ? []
          : c.platform === 'generic'
            ? ['web', 'notebook']
            : ['notebook'];
      expect({ case: label(c), offeredRequests }).toEqual({
        case: label(c),
        offeredRequests: expected
      });
    }
  );
});

// The interfaces that reach the project without going through the service's HTTP routes: the
// command line's local fallback (no service runs), the same with the platform given by Jupyter's
// own configuration (c.ProjectStartup, as the server passes it on to its terminals), and the
// command line beside a service behind a trusted proxy (it reads the project itself). Each obeys
// property 2 on every interface, and says what the service itself would: the platform the
// service would select, and beside the trusted proxy the service's own next action, whose
// request, where one is offered, succeeds verbatim through the proxy.
type Without = 'local fallback' | 'c.ProjectStartup' | 'beside a trusted proxy';
const WITHOUT: readonly Without[] = [
  'local fallback',
  'c.ProjectStartup',
  'beside a trusted proxy'
];

function withoutCases(): { c: Case; via: Without }[] {
  return cases()
    .filter(c => c.listener === 'tcp' && c.ingress === 'trusted-proxy')
    .flatMap(c => WITHOUT.map(via => ({ c, via })));
}

describe('the interfaces that reach the project without the service', () => {
  const all = withoutCases();

  it(`covers ${all.length} cases: every platform and place × ${WITHOUT.length} ways`, () => {
    expect(all.length).toBe((PLATFORM_IDS.length + 2) * WITHOUT.length);
  });

  it.each(all.map(({ c, via }) => [`${label(c)} (${via})`, c, via] as const))(
    "%s: no output names an unoffered route; the platform and next action are the service's",
    async (_name, c, via) => {
      // The service that stands for "what the service would say": behind the trusted proxy.
      const s = await start(c);
      try {
        const env: Record<string, string> = { ...s.svc.env };
        if (via !== 'beside a trusted proxy') {
          // No service runs for this project here: an empty runtime directory of its own.
          env.PROJECT_STARTUP_RUNTIME_DIR = path.join(s.svc.root, 'run-none');
        }
        if (via === 'c.ProjectStartup') {
          delete env.PROJECT_STARTUP_PLATFORM;
          env.PROJECT_STARTUP_JUPYTER_SETTINGS = JSON.stringify({
            PROJECT_STARTUP_PLATFORM: {
              trait: 'c.ProjectStartup.platform',
              value: c.platform
            }
          });
        }
        const config = resolveConfig({}, env, s.svc.projectDir);
        const { client } = await connect(config, env, false);
        expect(client.source).toMatch(/^read directly/);
        const manifest = await client.capabilities();
        expect(manifest.platform.id).toBe(c.platform);
        const outputs: { at: string; text: string }[] = [];
        for (const iface of INTERFACE_IDS) {
          const p = (await client.startup(iface)) as Json;
          expectValid('StartupProjection', p);
          expect(p.platform).toBe(c.platform);
          outputs.push(...strings(p, `${via} startup(${iface})`));
          const own = (await get(s, `startup?interface=${iface}`)).json;
          if (via === 'beside a trusted proxy') {
            // The same service, the same words.
            expect({ iface, next: p.nextAction }).toEqual({
              iface,
              next: own.nextAction
            });
          } else {
            // Nothing runs, so nothing is offered to send.
            expect(p.nextAction.request).toBeUndefined();
          }
        }
        expectOnlyOffered(manifest, outputs, `${label(c)} (${via})`);
        if (via === 'beside a trusted proxy') {
          let sentOne = false;
          for (const iface of INTERFACE_IDS) {
            const r = ((await client.startup(iface)) as Json).nextAction
              .request;
            if (r !== undefined) {
              const sent = await send(s, r);
              expect({ iface, status: sent.status }).toEqual({
                iface,
                status: 201
              });
              sentOne = true;
              break; // the project is set up now
            }
          }
          // Where an API call may confirm (not on the cluster), the fallback offers it too.
          expect(sentOne).toBe(c.platform !== 'cluster');
        }
      } finally {
        await s.close();
      }
    }
  );
});
