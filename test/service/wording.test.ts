// Wording, each against the real service: what a person
// reads must name the actual problem and a step that can be followed.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { postJson, request, trackedServices } from '../helpers/harness';
import { expectProblem } from '../helpers/schemas';

const start = trackedServices('each');

describe('wording', () => {
  it('an initialize body of {} and a gateway project.startup without params: "the interface is missing", not a query parameter', async () => {
    const svc = await start();
    const r = await postJson(`${svc.api}initialize`, svc.token, {});
    expectProblem(r, 400, 'missing-interface');
    expect(r.json.title).not.toMatch(/query parameter/);
    const g = await postJson(`${svc.api}gateway`, svc.token, {
      jsonrpc: '2.0',
      id: 1,
      method: 'project.startup'
    });
    expect(g.json.error.data.code).toBe('missing-interface');
    expect(g.json.error.data.title).not.toMatch(/query parameter/);
  });

  it('on a Unix socket the web next action says how to reach the setup page (serve on TCP, then url)', async () => {
    const socketDir = fs.realpathSync(
      fs.mkdtempSync(path.join(os.tmpdir(), 'ps-word-'))
    );
    const socketPath = path.join(socketDir, 's.sock');
    try {
      const svc = await start({ serve: { unixSocket: socketPath } });
      const p = await request(
        'http://localhost/project/startup?interface=web',
        { token: svc.token, socketPath }
      );
      expect(p.json.phase).toBe('awaiting-confirmation');
      expect(p.json.browserUrl).toBeUndefined();
      expect(p.json.nextAction.detail).toMatch(
        /Run `project-startup serve` \(loopback TCP, the default\), then `project-startup url`/
      );
      expect(p.json.nextAction.detail).toMatch(
        /Then press "Create project state" on that page/
      );
    } finally {
      fs.rmSync(socketDir, { recursive: true, force: true });
    }
  });

  it('the cluster runtime remedy names only the serving runtime it offers', async () => {
    const svc = await start({
      env: { PROJECT_STARTUP_PLATFORM: 'cluster', SLURM_JOB_ID: '1' }
    });
    const p = await request(`${svc.api}startup?interface=terminal`, {
      token: svc.token
    });
    const check = p.json.readinessChecks.find(
      (c: { id: string }) => c.id === 'inference-runtimes'
    );
    expect(check.status).toBe('warn');
    expect(check.remedy).toContain('PROJECT_STARTUP_SERVING_RUNTIME_URL');
    expect(check.remedy).not.toContain('PROJECT_STARTUP_LOCAL_RUNTIME_URL');
  });

  it('a state directory readable by others: the remedy offers chmod 700 for a state the person trusts', async () => {
    const svc = await start();
    const statePath = path.join(svc.projectDir, '.project-startup');
    fs.mkdirSync(statePath, { mode: 0o755 });
    fs.chmodSync(statePath, 0o755);
    const p = await request(`${svc.api}startup?interface=web`, {
      token: svc.token
    });
    expect(p.json.phase).toBe('blocked');
    const check = p.json.readinessChecks.find(
      (c: { id: string }) => c.id === 'state-path'
    );
    expect(check.status).toBe('fail');
    expect(check.remedy).toContain(`\`chmod 700 ${statePath}\``);
    expect(check.remedy).toMatch(/trust/);
  });

  it('openapi.json states the decisions: the terminal allocation, the observed method and http-api per platform, a record from another platform', async () => {
    const svc = await start();
    const doc = (await request(`${svc.api}openapi.json`)).json;
    const startup = doc.paths['/project/startup'].get;
    const allocation = startup.parameters.find(
      (x: { name: string }) => x.name === 'allocation'
    );
    expect(allocation.description).toMatch(/verified with the scheduler/);
    expect(allocation.description).toMatch(
      /never judges the caller by its own environment/
    );
    expect(allocation.description).toMatch(
      /a job of another user is never live compute/
    );
    expect(allocation.description).toMatch(/429 rate-limited with Retry-After/);
    const initialize = doc.paths['/project/initialize'].post;
    expect(initialize.description).toMatch(
      /method is what the service observed, never what the body says/
    );
    expect(initialize.description).toMatch(
      /http-api call may confirm web and notebook on the workstation or container platform and notebook on the hosted notebook platform/
    );
    expect(initialize.description).toMatch(
      /on the cluster platform it is refused/
    );
    expect(initialize.description).toMatch(
      /record confirmed on another platform does not count here/
    );
    expect(
      initialize.parameters.map((x: { name: string }) => x.name)
    ).toContain('x-project-startup-prompt-key');
  });
});
