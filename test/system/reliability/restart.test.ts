// The sidecar killed (SIGKILL) and restarted under the real jupyter-server-proxy while clients
// poll the startup projection through Jupyter: the proxy (simpervisor) restarts a backend that
// exited non-zero; every client recovers within a bounded number of retries; the service that
// answers is a new process (new pid, new instance id) with the same manifest, and the project
// state made before the kill is still there (phase ready).
//
// Needs the browser-test prerequisites (Debian's jupyter_server; see test/system/e2e/helpers.ts).
// Bounds: PROJECT_STARTUP_RESTART_KILLS kills in a row (default 2), 4 pollers, each retrying at
// most 300 times 50 ms apart after a kill.
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  checkPrerequisites,
  httpRequest,
  LabServer,
  sidecarServerEntry,
  startLabServer,
  stopAllLabServers
} from '../e2e/helpers';
import { expectValid } from '../../helpers/schemas';
import { delay, waitFor } from '../../helpers/wait';
import { intFromEnv } from '../../service/reliability/support';
import { seeProcess, stillRuns } from '../../helpers/processes';

const KILLS = intFromEnv('PROJECT_STARTUP_RESTART_KILLS', 2, 1, 10);
const POLLERS = 4;
const RETRIES = 300;

interface RuntimeInfo {
  pid: number;
  instanceId: string;
}

function runtimeInfo(server: LabServer): RuntimeInfo | undefined {
  const dir = server.dirs.sidecarRuntime;
  const files = fs.existsSync(dir)
    ? fs.readdirSync(dir).filter(f => /^server-[0-9a-f]{12}\.json$/.test(f))
    : [];
  if (files.length !== 1) {
    return undefined;
  }
  try {
    return JSON.parse(
      fs.readFileSync(path.join(dir, files[0]), 'utf8')
    ) as RuntimeInfo;
  } catch {
    return undefined;
  }
}

describe('the sidecar killed under the notebook-server proxy', () => {
  let server: LabServer | undefined;
  const s = () => server as LabServer;
  const auth = () => ({ authorization: `token ${s().token}` });

  beforeAll(async () => {
    checkPrerequisites();
    server = await startLabServer({
      label: 'restart-server',
      serverProxy: { project: sidecarServerEntry() }
    });
  }, 60000);

  afterAll(async () => {
    await server?.stop();
    await stopAllLabServers();
  }, 30000);

  test(`killed ${KILLS} time(s) while ${POLLERS} clients poll: restarted, every client recovers, a new process with the same manifest and state`, async () => {
    const api = `${s().base}project/`;
    const first = await httpRequest(`${api}health`, { headers: auth() });
    expect(first.status).toBe(200);
    const caps = await httpRequest(`${api}capabilities`, { headers: auth() });
    expect(caps.status).toBe(200);
    const projection = await httpRequest(`${api}startup?interface=notebook`, {
      headers: auth()
    });
    const created = await httpRequest(`${api}initialize`, {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/json' },
      body: JSON.stringify({
        interface: 'notebook',
        method: 'jupyterlab-dialog',
        confirm: {
          projectPath: projection.json.projectPath,
          statePath: projection.json.statePath
        }
      })
    });
    expect(created.status).toBe(201);

    let info = runtimeInfo(s());
    expect(info?.instanceId).toBe(first.json.instanceId);
    const seenInstances = new Set<string>([first.json.instanceId]);

    for (let kill = 1; kill <= KILLS; kill += 1) {
      const victim = seeProcess((info as RuntimeInfo).pid);
      // Pollers: each keeps asking, and after the kill retries until it gets a good answer.
      let killed = false;
      const outcomes = Array.from({ length: POLLERS }, async () => {
        const during: number[] = [];
        let afterKill = 0;
        for (let attempt = 0; attempt < RETRIES + 1000; attempt += 1) {
          // A request already in flight when the signal went may still be answered by the
          // process being killed: only an answer to a request sent after the kill proves that
          // the restarted process serves.
          const sentAfterKill = killed;
          const answer = await httpRequest(`${api}startup?interface=notebook`, {
            headers: auth(),
            timeoutMs: 5000
          }).catch(() => undefined);
          if (answer?.status === 200) {
            expectValid('StartupProjection', answer.json);
            expect(answer.json.phase).toBe('ready');
            if (sentAfterKill) {
              return { recovered: true, during, afterKill };
            }
          } else {
            during.push(answer?.status ?? 0);
          }
          if (killed) {
            afterKill += 1;
            if (afterKill > RETRIES) {
              return { recovered: false, during, afterKill };
            }
          }
          await delay(killed ? 50 : 10);
        }
        return { recovered: false, during, afterKill };
      });
      await delay(200);
      process.kill(victim.pid, 'SIGKILL');
      killed = true;
      const results = await Promise.all(outcomes);
      expect(results.map(r => r.recovered)).toEqual(Array(POLLERS).fill(true));
      for (const r of results) {
        // While the backend is gone the proxy answers with a server error, never a wrong 200.
        for (const status of r.during) {
          expect([0, 500, 502, 503, 599]).toContain(status);
        }
      }

      await waitFor(() => !stillRuns(victim), {
        what: 'the killed sidecar to be gone',
        timeoutMs: 5000
      });
      const health = await httpRequest(`${api}health`, { headers: auth() });
      expect(health.status).toBe(200);
      expect(seenInstances.has(health.json.instanceId)).toBe(false);
      seenInstances.add(health.json.instanceId);
      await waitFor(
        () => runtimeInfo(s())?.instanceId === health.json.instanceId,
        { what: "the new sidecar's runtime file", timeoutMs: 5000 }
      );
      info = runtimeInfo(s());
      // Another process than the victim (the pid alone may be the victim's, given again).
      expect(seeProcess(info?.pid)).not.toEqual(victim);
      const capsAfter = await httpRequest(`${api}capabilities`, {
        headers: auth()
      });
      expect(capsAfter.text).toBe(caps.text);
      expect(capsAfter.headers.etag).toBe(caps.headers.etag);
      const again = await httpRequest(`${api}initialize`, {
        method: 'POST',
        headers: { ...auth(), 'content-type': 'application/json' },
        body: JSON.stringify({
          interface: 'notebook',
          confirm: {
            projectPath: projection.json.projectPath,
            statePath: projection.json.statePath
          }
        })
      });
      expect(again.status).toBe(200);
      expect(again.json.record).toEqual(created.json.record);
    }
    // One start for the first launch and one per kill: the proxy restarted it each time, and
    // only then (simpervisor logs restarts at debug level; the sidecar logs each start).
    const starts =
      s()
        .logs()
        .match(/ProjectStartup\] service started /g) ?? [];
    expect(starts).toHaveLength(1 + KILLS);
    // Each end is said, with its signal and the count of restarts (the server extension).
    const ends = s()
      .logs()
      .split('\n')
      .filter(line => line.includes('the service process (pid'));
    expect(ends).toEqual(
      Array.from({ length: KILLS }, (_, i) =>
        expect.stringMatching(
          new RegExp(
            `^\\[W [^\\]]*\\] jupyterlab-project-startup: the service process \\(pid \\d+\\) was killed by SIGKILL \\(signal 9\\); jupyter-server-proxy restarts it \\(restart ${i + 1} since this Jupyter server started\\)$`
          )
        )
      )
    );
  }, 120000);
});
