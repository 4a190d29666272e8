// The notebook interface from inside a notebook, as a person's notebook runs: a real .ipynb
// executed in a kernel that the Jupyter server itself starts (the venv's ipykernel, kernelspec
// python3, the server's child with the server's environment), whose cells import this project's
// Python client (`from jupyterlab_project_startup import client`, importable as an installed
// package is) and reach the sidecar through Jupyter (base_url /user/alice/) and the real
// jupyter-server-proxy. The cells get nothing from the test: no address, no token, no variable;
// the client finds its server from Jupyter's runtime files by the kernel's parent process.
//
// Two servers share one runtime directory, so the client must tell them apart: "alice" has the
// sidecar (the operator's `project-startup jupyter install --user`), "bob" has not, and a cell
// there gets the "not enabled" problem with its fix.
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  ARTIFACTS,
  checkPrerequisites,
  httpRequest,
  jupyterInstall,
  LabServer,
  startLabServer,
  stopAllLabServers,
  VENDORED_SERVER_PROXY
} from './helpers';
import {
  displayedHtml,
  installForUser,
  KernelRun,
  printedJson,
  runInServerKernel
} from '../../helpers/kernel';
import { DOC, readmeCodeBlocks } from '../../helpers/readme-sections';

const RUN_TIMEOUT_MS = 150000;

const CELLS: string[] = [
  `import json, os
from jupyterlab_project_startup import client
connection = client.connect()
print(json.dumps({"cell": "setup", "url": connection.url, "source": connection.source,
                  "testVariables": sorted(k for k in os.environ if k.startswith(("PS_E2E", "PROJECT_STARTUP_JUPYTER")))}))`,

  `caps = client.capabilities()
interfaces = next(row for row in caps["capabilities"] if row["id"] == "interfaces")
print(json.dumps({"cell": "capabilities", "platform": caps["platform"]["id"],
                  "interfaces": [value["id"] for value in interfaces["values"]]}))`,

  `before = client.startup("notebook")
print(json.dumps({"cell": "startup-before", "projection": before}))`,

  `print(json.dumps({"cell": "display"}))
before`,

  `try:
    client.initialize(confirm=False)
    outcome = "no error"
except client.ProjectStartupError as problem:
    outcome = {"code": problem.code, "fix": problem.fix}
print(json.dumps({"cell": "initialize-unconfirmed", "outcome": outcome, "stateExists": os.path.exists(before["statePath"])}))`,

  `first = client.initialize(confirm=True)
again = client.initialize(confirm=True)
print(json.dumps({"cell": "initialize", "created": first["created"], "phase": first["phase"],
                  "confirmation": first["record"]["confirmation"], "againCreated": again["created"],
                  "sameRecord": again["record"] == first["record"]}))`,

  `after = client.startup("notebook")
print(json.dumps({"cell": "startup-after", "projection": after}))`,

  `try:
    client.startup("browser")
    outcome = "no error"
except client.ProjectStartupError as problem:
    outcome = {"code": problem.code, "status": problem.status, "title": problem.title,
               "allowedValues": problem.problem.get("allowedValues"), "text": str(problem)}
print(json.dumps({"cell": "unknown-interface", "outcome": outcome}))`
];

const NOT_ENABLED_CELLS: string[] = [
  `import json
from jupyterlab_project_startup import client
try:
    client.startup()
    outcome = "no error"
except client.ProjectStartupError as problem:
    outcome = {"code": problem.code, "status": problem.status, "title": problem.title, "detail": problem.detail,
               "fix": problem.fix, "html": problem._repr_html_()}
print(json.dumps({"cell": "not-enabled", "url": client.connect().url, "outcome": outcome}))`
];

function context(run: KernelRun): string {
  return `runner exit ${run.code}\n--- stdout ---\n${run.stdout}\n--- stderr ---\n${run.stderr.slice(-4000)}`;
}

describe('notebook cells reach the sidecar through their own Jupyter server, with nothing but what a kernel has', () => {
  let bob: LabServer;
  let alice: LabServer;

  beforeAll(async () => {
    checkPrerequisites();
    // bob: no sidecar set up. alice: the operator's install; alice's runtime directory IS bob's.
    bob = await startLabServer({
      baseUrl: '/user/bob/',
      label: 'notebook-not-enabled',
      // JupyterLab as pip installs it, without the wheel: its entry point and server extension
      // would otherwise be there.
      wheel: false,
      prepare: dirs => {
        const site = path.join(dirs.root, 'site');
        installForUser(dirs.home, site);
        // A venv reads no user site-packages: the client comes from PYTHONPATH, beside the proxy.
        return { PYTHONPATH: `${VENDORED_SERVER_PROXY}:${site}` };
      }
    });
    alice = await startLabServer({
      baseUrl: '/user/alice/',
      label: 'notebook-server',
      prepare: dirs => {
        jupyterInstall(dirs);
        installForUser(dirs.home, path.join(dirs.root, 'site'));
        fs.rmSync(dirs.runtime, { recursive: true });
        fs.symlinkSync(bob.dirs.runtime, dirs.runtime);
      }
    });
    expect(
      fs
        .readdirSync(bob.dirs.runtime)
        .filter(f => /^jpserver-\d+\.json$/.test(f))
        .sort()
    ).toEqual(
      [`jpserver-${alice.pid}.json`, `jpserver-${bob.pid}.json`].sort()
    );
  }, 90000);

  afterAll(async () => {
    await alice?.stop();
    await bob?.stop();
    await stopAllLabServers();
  }, 60000);

  const run = (server: LabServer, name: string, cells: string[]) =>
    runInServerKernel({
      base: server.base,
      authorization: `token ${server.token}`,
      runtimeDir: server.dirs.runtime,
      source: path.join(server.dirs.project, `${name}.ipynb`),
      target: path.join(ARTIFACTS, `${name}.executed.ipynb`),
      cells,
      timeoutMs: RUN_TIMEOUT_MS
    });

  test('the client finds its own server, reads capabilities and the projection, and initializes like any API call', async () => {
    const result = await run(alice, 'notebook-startup', CELLS);
    if (result.code !== 0) {
      throw new Error(context(result));
    }
    const { printed, errors } = printedJson(result);
    expect(errors).toEqual([]);
    const byCell = Object.fromEntries(printed.map(p => [p.cell, p]));
    expect(printed.map(p => p.cell)).toEqual([
      'setup',
      'capabilities',
      'startup-before',
      'display',
      'initialize-unconfirmed',
      'initialize',
      'startup-after',
      'unknown-interface'
    ]);
    // Found from the runtime files, by the kernel's parent: alice's server, not bob's.
    expect(byCell.setup).toEqual({
      cell: 'setup',
      url: `http://127.0.0.1:${alice.port}/user/alice/`.replace(
        '127.0.0.1',
        new URL(String(byCell.setup.url)).hostname
      ),
      source: 'the runtime file of the Jupyter server that started this kernel',
      testVariables: []
    });
    expect(new URL(String(byCell.setup.url)).port).toBe(String(alice.port));
    expect(byCell.capabilities).toEqual({
      cell: 'capabilities',
      platform: 'generic',
      interfaces: ['terminal', 'web', 'notebook']
    });

    const before = byCell['startup-before'].projection as Record<
      string,
      unknown
    > & { nextAction: { id: string } };
    expect(before).toMatchObject({
      interface: 'notebook',
      phase: 'awaiting-confirmation',
      projectPath: alice.dirs.project
    });
    expect(before.nextAction.id).toBe('confirm-initialization');
    // The display is HTML naming the phase and the project, escaped.
    const html = displayedHtml(result.cells[3]);
    expect(html).toContain('Project Startup: awaiting-confirmation');
    expect(html).toContain(alice.dirs.project);

    expect(byCell['initialize-unconfirmed']).toEqual({
      cell: 'initialize-unconfirmed',
      outcome: {
        code: 'confirmation-missing',
        fix: expect.stringContaining('client.initialize(confirm=True)')
      },
      stateExists: false
    });
    expect(byCell.initialize).toMatchObject({
      created: true,
      phase: 'ready',
      confirmation: {
        interface: 'notebook',
        method: 'http-api',
        ingress: 'notebook-server-proxy'
      },
      againCreated: false,
      sameRecord: true
    });
    // The same answer the panel gets: its request (GET {base}project/startup?interface=notebook through Jupyter).
    const panel = await httpRequest(
      `${alice.base}project/startup?interface=notebook`,
      { headers: { authorization: `token ${alice.token}` } }
    );
    expect(panel.status).toBe(200);
    expect(byCell['startup-after'].projection).toEqual(panel.json);
    expect(panel.json.phase).toBe('ready');

    expect(byCell['unknown-interface'].outcome).toMatchObject({
      code: 'unknown-interface',
      status: 400,
      allowedValues: ['terminal', 'web', 'notebook']
    });
    const record = JSON.parse(
      fs.readFileSync(
        path.join(
          alice.dirs.project,
          '.project-startup',
          'initialization.json'
        ),
        'utf8'
      )
    );
    expect(record.confirmation).toMatchObject({
      interface: 'notebook',
      method: 'http-api',
      ingress: 'notebook-server-proxy'
    });
    expect(
      fs.readFileSync(
        path.join(ARTIFACTS, 'notebook-startup.executed.ipynb'),
        'utf8'
      )
    ).not.toContain(alice.token);
    expect(alice.logs()).not.toContain(alice.token);
    expect(
      alice
        .logs()
        .match(
          /ProjectStartup\] service started .*"ingress":"notebook-server-proxy"/g
        ) ?? []
    ).toHaveLength(1);
  }, 200000);

  test('a cell on a server without the sidecar gets the "not enabled" problem with its fix', async () => {
    const result = await run(bob, 'notebook-not-enabled', NOT_ENABLED_CELLS);
    if (result.code !== 0) {
      throw new Error(context(result));
    }
    const { printed, errors } = printedJson(result);
    expect(errors).toEqual([]);
    expect(new URL(String(printed[0].url)).port).toBe(String(bob.port));
    expect(printed[0].outcome).toMatchObject({
      code: 'not-enabled',
      status: 404,
      title: 'Project Startup is not enabled on this Jupyter server',
      fix: expect.stringContaining('pip install jupyterlab-project-startup')
    });
    expect(
      String((printed[0].outcome as Record<string, string>).html)
    ).toContain('<strong>Project Startup is not enabled');
  }, 200000);

  test('where a cell may not confirm, initialize raises, saying why and where to confirm; nothing is created', async () => {
    // The operator chose the cluster platform: it takes the confirmation at a terminal prompt only.
    const carol = await startLabServer({
      baseUrl: '/user/carol/',
      label: 'notebook-cluster',
      env: { PROJECT_STARTUP_PLATFORM: 'cluster' },
      prepare: dirs => {
        jupyterInstall(dirs);
        installForUser(dirs.home, path.join(dirs.root, 'site'));
      }
    });
    try {
      const result = await run(carol, 'notebook-cluster', [
        `import json, os
from jupyterlab_project_startup import client
projection = client.startup("notebook")
try:
    client.initialize(confirm=True)
    outcome = "no error"
except client.ProjectStartupError as problem:
    outcome = {"code": problem.code, "title": problem.title, "detail": problem.detail, "fix": problem.fix, "text": str(problem)}
print(json.dumps({"cell": "refused", "platform": projection["platform"], "phase": projection["phase"],
                  "outcome": outcome, "stateExists": os.path.exists(projection["statePath"])}))`
      ]);
      if (result.code !== 0) {
        throw new Error(context(result));
      }
      const { printed, errors } = printedJson(result);
      expect(errors).toEqual([]);
      const refused = printed[0] as {
        platform: string;
        outcome: Record<string, string>;
        stateExists: boolean;
      };
      expect(refused.platform).toBe('cluster');
      expect(refused.stateExists).toBe(false);
      // Why (the service's next action) and where to go on, in the exception.
      expect(refused.outcome).toMatchObject({
        code: 'interface-not-offered',
        title: 'This platform does not offer the notebook interface',
        detail: expect.stringContaining(
          'The Cluster platform does not offer the Notebook interface'
        ),
        fix: expect.stringContaining(
          'Terminal: Run `project-startup status` in a terminal.'
        )
      });
      expect(
        fs.existsSync(path.join(carol.dirs.project, '.project-startup'))
      ).toBe(false);
    } finally {
      await carol.stop();
    }
  }, 200000);

  test('the README\'s "From a notebook" examples run as written in a cell', async () => {
    // All but the JupyterHub example (test/system/hub/hub-notebook.test.ts runs that one).
    const blocks = readmeCodeBlocks(
      'From a notebook',
      'python',
      DOC.notebooksAndTerminals
    ).filter(b => !b.startsWith('# On JupyterHub'));
    expect(blocks.length).toBeGreaterThanOrEqual(4);
    const result = await run(alice, 'notebook-readme', blocks);
    if (result.code !== 0) {
      throw new Error(context(result));
    }
    const { errors } = printedJson(result);
    expect(errors).toEqual([]);
    // Each block showed something: the client's displays, the raw example's printed phase.
    expect(result.cells.every(c => c.outputs.length > 0)).toBe(true);
    const text = result.cells.map(c => JSON.stringify(c.outputs)).join('\n');
    expect(text).toContain('Project Startup: ');
    expect(text).toMatch(/(ready|awaiting-confirmation) - /);
    expect(text).not.toContain(alice.token);
  }, 200000);
});
