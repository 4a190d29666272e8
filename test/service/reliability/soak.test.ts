// A bounded soak of the real `project-startup serve` process at saturation: several keep-alive
// connections, each sending the next request as soon as the last answer is read, a mix of
// capabilities (with and without If-None-Match), startup for every interface, gateway calls and
// batches, health and the API description, against a project whose state exists. Every answer
// must be the expected one (zero errors of any kind), and the process's memory must show no
// growth trend; its open descriptors return to where they were once the clients leave.
//
// Memory criterion, chosen to be robust on a loaded 2-core machine: RSS is sampled every second
// from /proc; the first quarter of the samples is warm-up (JIT, caches, heap sizing) and is not
// judged. Of the rest, the peak of the last third must stay within 1.25 x the peak of the first
// third plus 8 MiB. Peaks, not means: a garbage-collected heap saws up and down, and a leak shows
// as rising peaks, while one late GC or one early spike does not fail it. (The least-squares slope
// is logged for the record, not judged.)
//
// Bounds: PROJECT_STARTUP_SOAK_SECONDS (default 20 on CI; 60 for the manual run the issue asks
// for), PROJECT_STARTUP_SOAK_CONNECTIONS (default 8). The duration bounds the loop; nothing
// asserts a speed.
import * as http from 'node:http';
import { startServe, trackedSandboxes } from '../../helpers/cli';
import { request } from '../../helpers/harness';
import { intFromEnv, openFdsOf, rssOf, slope } from './support';
import { delay, waitFor } from '../../helpers/wait';

const SECONDS = intFromEnv('PROJECT_STARTUP_SOAK_SECONDS', 20, 5, 3600);
const CONNECTIONS = intFromEnv('PROJECT_STARTUP_SOAK_CONNECTIONS', 8, 1, 256);
const TOKEN = 'soak-test-token-0123456789abcdef0123456789ab';

const sandbox = trackedSandboxes();

interface Call {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  body?: string;
  headers?: Record<string, string>;
  expect: number;
  /** Checks the text of a successful answer. */
  check?: (text: string) => boolean;
}

function rpc(
  id: number,
  method: string,
  params?: unknown
): Record<string, unknown> {
  return {
    jsonrpc: '2.0',
    id,
    method,
    ...(params === undefined ? {} : { params })
  };
}

function mix(etag: string): Call[] {
  const json = { 'content-type': 'application/json' };
  const okRpc = (text: string) => !text.includes('"error"');
  return [
    {
      name: 'capabilities',
      method: 'GET',
      path: 'capabilities',
      expect: 200,
      check: t => t.includes('"capabilities"')
    },
    {
      name: 'capabilities 304',
      method: 'GET',
      path: 'capabilities',
      headers: { 'if-none-match': etag },
      expect: 304
    },
    {
      name: 'startup terminal',
      method: 'GET',
      path: 'startup?interface=terminal',
      expect: 200,
      check: t => t.includes('"phase":"ready"')
    },
    {
      name: 'startup web',
      method: 'GET',
      path: 'startup?interface=web',
      expect: 200,
      check: t => t.includes('"phase":"ready"')
    },
    {
      name: 'startup notebook',
      method: 'GET',
      path: 'startup?interface=notebook',
      expect: 200,
      check: t => t.includes('"phase":"ready"')
    },
    {
      name: 'gateway capabilities',
      method: 'POST',
      path: 'gateway',
      headers: json,
      body: JSON.stringify(rpc(1, 'project.capabilities')),
      expect: 200,
      check: okRpc
    },
    {
      name: 'gateway startup',
      method: 'POST',
      path: 'gateway',
      headers: json,
      body: JSON.stringify(
        rpc(2, 'project.startup', { interface: 'notebook' })
      ),
      expect: 200,
      check: okRpc
    },
    {
      name: 'gateway batch',
      method: 'POST',
      path: 'gateway',
      headers: json,
      body: JSON.stringify([
        rpc(3, 'project.capabilities'),
        rpc(4, 'project.startup', { interface: 'terminal' }),
        rpc(5, 'project.startup', { interface: 'web' })
      ]),
      expect: 200,
      check: okRpc
    },
    {
      name: 'health',
      method: 'GET',
      path: 'health',
      expect: 200,
      check: t => t.includes('"status":"pass"')
    },
    { name: 'openapi', method: 'GET', path: 'openapi.json', expect: 200 }
  ];
}

function send(
  agent: http.Agent,
  base: URL,
  call: Call
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        agent,
        host: base.hostname,
        port: base.port,
        method: call.method,
        path: `${base.pathname}${call.path}`,
        headers: {
          authorization: `Bearer ${TOKEN}`,
          ...call.headers,
          ...(call.body
            ? { 'content-length': String(Buffer.byteLength(call.body)) }
            : {})
        },
        timeout: 15000
      },
      res => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            text: Buffer.concat(chunks).toString('utf8')
          })
        );
        res.on('error', reject);
      }
    );
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
    req.end(call.body);
  });
}

describe(`soak: ${SECONDS} s at saturation over ${CONNECTIONS} connections`, () => {
  it(
    'zero errors, no memory growth trend, descriptors released',
    async () => {
      const s = sandbox();
      const server = await startServe([], {
        env: {
          ...s.env,
          PROJECT_STARTUP_TOKEN: TOKEN,
          PROJECT_STARTUP_LOG_LEVEL: 'warn'
        },
        cwd: s.projectDir
      });
      const pid = server.child.pid as number;
      const base = new URL(server.url);
      const p = await request(`${server.url}startup?interface=web`, {
        token: TOKEN
      });
      const init = await request(`${server.url}initialize`, {
        method: 'POST',
        token: TOKEN,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(p.json.nextAction.request.body)
      });
      expect(init.status).toBe(201);
      const etag = String(
        (await request(`${server.url}capabilities`, { token: TOKEN })).headers
          .etag
      );
      const calls = mix(etag);
      const fdsBefore = openFdsOf(pid) as number;

      const agent = new http.Agent({
        keepAlive: true,
        maxSockets: CONNECTIONS
      });
      const errors: string[] = [];
      const counts = new Map<string, number>();
      const samples: [number, number][] = [];
      const started = Date.now();
      const deadline = started + SECONDS * 1000;
      const sampler = setInterval(() => {
        const rss = rssOf(pid);
        if (rss !== undefined) {
          samples.push([(Date.now() - started) / 1000, rss]);
        }
      }, 1000);

      const worker = async (w: number) => {
        let i = w;
        // Bounded by the deadline and, as a backstop, by a count no machine reaches in time.
        for (
          let n = 0;
          n < 5_000_000 && Date.now() < deadline && errors.length < 20;
          n += 1, i += 1
        ) {
          const call = calls[i % calls.length];
          try {
            const r = await send(agent, base, call);
            if (
              r.status !== call.expect ||
              (call.check && !call.check(r.text))
            ) {
              errors.push(`${call.name}: ${r.status} ${r.text.slice(0, 160)}`);
            }
            counts.set(call.name, (counts.get(call.name) ?? 0) + 1);
          } catch (error) {
            errors.push(`${call.name}: ${(error as Error).message}`);
          }
        }
      };
      await Promise.all(
        Array.from({ length: CONNECTIONS }, (_, w) => worker(w))
      );
      clearInterval(sampler);
      agent.destroy();

      const total = [...counts.values()].reduce((a, b) => a + b, 0);
      const warm = Math.max(2, Math.floor(samples.length / 4));
      const judged = samples.slice(warm);
      const third = Math.max(1, Math.floor(judged.length / 3));
      const firstPeak = Math.max(...judged.slice(0, third).map(([, r]) => r));
      const lastPeak = Math.max(...judged.slice(-third).map(([, r]) => r));
      const mib = (b: number) => `${(b / 1048576).toFixed(1)} MiB`;
      console.log(
        `soak: ${total} requests in ${SECONDS} s over ${CONNECTIONS} connections, ${errors.length} errors; ` +
          `RSS first-third peak ${mib(firstPeak)}, last-third peak ${mib(lastPeak)}, slope ${(slope(judged) / 1024).toFixed(1)} KiB/s; ` +
          `samples ${samples.map(([, r]) => Math.round(r / 1048576)).join(' ')} MiB`
      );

      expect(errors).toEqual([]);
      expect(server.child.exitCode).toBeNull();
      for (const call of calls) {
        expect([call.name, (counts.get(call.name) ?? 0) > 0]).toEqual([
          call.name,
          true
        ]);
      }
      expect(samples.length).toBeGreaterThanOrEqual(Math.min(SECONDS - 2, 8));
      expect(lastPeak).toBeLessThanOrEqual(firstPeak * 1.25 + 8 * 1048576);

      // The clients are gone: the service's descriptors go back (bounded wait for the closes).
      await waitFor(() => (openFdsOf(pid) ?? Infinity) <= fdsBefore + 2, {
        what: "the service's descriptors to go back once the clients are gone",
        timeoutMs: 5000
      });
      await delay(10);
      const health = await request(`${server.url}health`, {});
      expect(health.status).toBe(200);
      expect(server.stderr()).not.toMatch(/"level":"error"/);
      expect((await server.stop()).code).toBe(0);
    },
    (SECONDS + 60) * 1000
  );
});
