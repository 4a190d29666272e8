// The notebook interface from inside a notebook: a real .ipynb (nbformat 4) executed by a real
// kernel (Debian's ipykernel, kernelspec python3) through Debian's nbclient, whose cells call the
// sidecar through Jupyter (base_url /user/alice/) and the real jupyter-server-proxy, as a
// person's notebook would: urllib, with the Jupyter token from the kernel's environment. The
// proxy entry comes from the operator's own `project-startup jupyter install --user`.
//
// Each cell asserts in Python and prints one JSON line; this test then checks that no cell
// errored and that the printed JSON says what the Python asserted. The executed notebook is
// saved to test-artifacts/e2e/notebook-startup.executed.ipynb.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ARTIFACTS, checkPrerequisites, jupyterInstall, LabServer, PYTHON, startLabServer, stopAllLabServers } from './helpers';

const BASE_URL = '/user/alice/';
const EXECUTED = path.join(ARTIFACTS, 'notebook-startup.executed.ipynb');
/** Bound of each cell (nbclient's timeout) and of the whole run. */
const CELL_TIMEOUT_S = 60;
const RUN_TIMEOUT_MS = 150000;

/** The cells, in order; each prints exactly one JSON object naming itself. */
const CELLS: string[] = [
  `# Setup: the base URL and the Jupyter token come from the kernel's environment.
import json, os, stat, urllib.request, urllib.error
BASE = os.environ["PS_E2E_BASE"]          # http://127.0.0.1:PORT/user/alice/
PROJECT = os.environ["PS_E2E_PROJECT"]
TOKEN = os.environ["PS_E2E_JUPYTER_TOKEN"]  # never printed

def call(method, path, body=None):
    """One request through Jupyter; returns (status, content type, parsed JSON body)."""
    data = None if body is None else json.dumps(body).encode()
    headers = {"Authorization": "token " + TOKEN, "Accept": "application/json"}
    if data is not None:
        headers["Content-Type"] = "application/json"
    request = urllib.request.Request(BASE + path, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=20) as response:
            return response.status, response.headers.get("Content-Type", ""), json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, error.headers.get("Content-Type", ""), json.loads(error.read())

assert BASE.endswith("/user/alice/"), BASE
print(json.dumps({"cell": "setup", "base": BASE, "project": PROJECT}))`,

  `status, ctype, caps = call("GET", "project/capabilities")
assert status == 200, status
assert ctype.startswith("application/json"), ctype
assert caps["platform"]["id"] == "generic", caps["platform"]
interfaces = next(row for row in caps["capabilities"] if row["id"] == "interfaces")
interface_ids = [value["id"] for value in interfaces["values"]]
assert interface_ids == ["terminal", "web", "notebook"], interface_ids
assert interfaces["label"] == "Interfaces", interfaces
print(json.dumps({"cell": "capabilities", "status": status, "platform": caps["platform"]["id"],
                  "interfacesRow": {"id": interfaces["id"], "values": interface_ids},
                  "rows": [row["id"] for row in caps["capabilities"]]}))`,

  `status, ctype, startup = call("GET", "project/startup?interface=notebook")
assert status == 200, status
assert startup["interface"] == "notebook", startup["interface"]
assert startup["phase"] == "awaiting-confirmation", startup["phase"]
assert startup["nextAction"]["id"] == "confirm-initialization", startup["nextAction"]
assert startup["projectPath"] == PROJECT, startup["projectPath"]
assert startup["statePath"] == os.path.join(PROJECT, ".project-startup"), startup["statePath"]
assert "notebook" in startup["confirmation"]["allowedInterfaces"], startup["confirmation"]
assert not os.path.exists(startup["statePath"])
print(json.dumps({"cell": "startup-before", "status": status, "phase": startup["phase"],
                  "nextAction": startup["nextAction"]["id"], "projectPath": startup["projectPath"],
                  "statePath": startup["statePath"], "stateExists": os.path.exists(startup["statePath"])}))`,

  `confirmation = {"interface": "notebook",
                "confirm": {"projectPath": startup["projectPath"], "statePath": startup["statePath"]}}
status, ctype, init = call("POST", "project/initialize", confirmation)
assert status == 201, (status, init)
assert init["created"] is True, init
assert init["phase"] == "ready", init["phase"]
record = init["record"]
assert record["confirmation"]["interface"] == "notebook", record
assert record["confirmation"]["ingress"] == "notebook-server-proxy", record
state_mode = stat.S_IMODE(os.stat(startup["statePath"]).st_mode)
record_mode = stat.S_IMODE(os.stat(os.path.join(startup["statePath"], "initialization.json")).st_mode)
assert state_mode == 0o700 and record_mode == 0o600, (oct(state_mode), oct(record_mode))
# Idempotent: the same confirmation again is 200 with the same record.
again_status, _, again = call("POST", "project/initialize", confirmation)
assert again_status == 200 and again["created"] is False and again["record"] == record, (again_status, again)
print(json.dumps({"cell": "initialize", "status": status, "created": init["created"], "phase": init["phase"],
                  "confirmation": record["confirmation"], "stateMode": oct(state_mode), "recordMode": oct(record_mode),
                  "againStatus": again_status, "againCreated": again["created"]}))`,

  `status, ctype, after = call("GET", "project/startup?interface=notebook")
assert status == 200, status
assert after["phase"] == "ready", after["phase"]
assert after["nextAction"]["id"] == "none", after["nextAction"]
assert after["confirmation"]["confirmed"] is True, after["confirmation"]
print(json.dumps({"cell": "startup-after", "status": status, "phase": after["phase"],
                  "nextAction": after["nextAction"]["id"], "confirmed": after["confirmation"]["confirmed"]}))`,

  `status, ctype, problem = call("GET", "project/startup?interface=browser")
assert status == 400, status
assert ctype.startswith("application/problem+json"), ctype
assert problem["code"] == "unknown-interface", problem
assert problem["allowedValues"] == ["terminal", "web", "notebook"], problem
print(json.dumps({"cell": "unknown-interface", "status": status, "contentType": ctype.split(";")[0],
                  "code": problem["code"], "allowedValues": problem["allowedValues"]}))`,

  `status, ctype, rpc = call("POST", "project/gateway",
                         {"jsonrpc": "2.0", "id": 7, "method": "project.startup", "params": {"interface": "notebook"}})
assert status == 200, (status, rpc)
assert rpc["jsonrpc"] == "2.0" and rpc["id"] == 7 and "error" not in rpc, rpc
get_status, _, get = call("GET", "project/startup?interface=notebook")
assert get_status == 200, get_status
assert rpc["result"] == get, "the gateway's project.startup differs from GET startup"
print(json.dumps({"cell": "gateway", "status": status, "id": rpc["id"], "equalToGet": rpc["result"] == get,
                  "phase": rpc["result"]["phase"]}))`
];

/** nbclient, as the issue asks: kernel python3, bounded per cell; errors are kept in the outputs. */
const RUNNER = `
import sys, nbformat
from nbclient import NotebookClient
source, target, cwd, timeout = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
nb = nbformat.read(source, as_version=4)
client = NotebookClient(nb, kernel_name="python3", timeout=timeout, startup_timeout=60, allow_errors=True,
                        resources={"metadata": {"path": cwd}})
try:
    client.execute()
finally:
    nbformat.write(nb, target)
print("executed", len(nb.cells), "cells with", nb.metadata.get("kernelspec", {}).get("name"))
`;

function notebook(): Record<string, unknown> {
  return {
    nbformat: 4,
    nbformat_minor: 5,
    metadata: {
      kernelspec: { name: 'python3', display_name: 'Python 3 (ipykernel)', language: 'python' },
      language_info: { name: 'python' }
    },
    cells: CELLS.map((source, i) => ({
      cell_type: 'code',
      id: `startup-check-${i}`,
      metadata: {},
      execution_count: null,
      outputs: [],
      source
    }))
  };
}

interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Runs nbclient in its own process group; on timeout the group (kernel included) is killed. */
function runNotebook(source: string, target: string, cwd: string, env: Record<string, string>): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const startedAt = Date.now();
    const child = spawn(PYTHON, ['-c', RUNNER, source, target, cwd, String(CELL_TIMEOUT_S)], {
      cwd,
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe']
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const timer = setTimeout(() => {
      try {
        process.kill(-(child.pid as number), 'SIGKILL');
      } catch {
        // gone
      }
    }, RUN_TIMEOUT_MS);
    child.on('error', error => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('exit', () => {
      clearTimeout(timer);
      // Anything left of the group (a kernel nbclient did not shut down) goes too, so the
      // pipes it may hold close.
      try {
        process.kill(-(child.pid as number), 'SIGKILL');
      } catch {
        // gone
      }
    });
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr, ms: Date.now() - startedAt }));
  });
}

interface Output {
  output_type: string;
  name?: string;
  text?: string | string[];
  ename?: string;
  evalue?: string;
  traceback?: string[];
}

describe('a notebook run by a real kernel (ipykernel, nbclient) talks to the sidecar through Jupyter', () => {
  let server: LabServer | undefined;

  beforeAll(() => {
    checkPrerequisites();
  });

  afterAll(async () => {
    await server?.stop();
    await stopAllLabServers();
  }, 60000);

  test('capabilities, startup, initialize, ready, unknown interface and the gateway, from notebook cells', async () => {
    server = await startLabServer({ baseUrl: BASE_URL, label: 'notebook-server', prepare: dirs => void jupyterInstall(dirs) });
    const s = server;
    // The notebook lives in the project, as a person's would; the kernel runs there.
    const source = path.join(s.dirs.project, 'startup-check.ipynb');
    fs.writeFileSync(source, JSON.stringify(notebook(), null, 1));
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    fs.rmSync(EXECUTED, { force: true });

    const run = await runNotebook(source, EXECUTED, s.dirs.project, {
      PATH: '/usr/bin:/bin',
      HOME: s.dirs.home,
      LANG: 'C.UTF-8',
      PYTHONDONTWRITEBYTECODE: '1',
      PYDEVD_DISABLE_FILE_VALIDATION: '1',
      JUPYTER_PLATFORM_DIRS: '0',
      JUPYTER_CONFIG_DIR: s.dirs.config,
      JUPYTER_DATA_DIR: s.dirs.data,
      JUPYTER_RUNTIME_DIR: s.dirs.runtime,
      // What the kernel reads (the notebook never prints the token).
      PS_E2E_BASE: s.base,
      PS_E2E_PROJECT: s.dirs.project,
      PS_E2E_JUPYTER_TOKEN: s.token
    });
    const context = `nbclient exit ${run.code} (signal ${run.signal}) after ${run.ms} ms\n--- stdout ---\n${run.stdout}\n--- stderr ---\n${run.stderr.slice(-4000)}`;
    if (run.code !== 0 || !fs.existsSync(EXECUTED)) {
      throw new Error(context);
    }
    expect(run.stdout).toContain(`executed ${CELLS.length} cells with python3`);

    const executed = JSON.parse(fs.readFileSync(EXECUTED, 'utf8')) as {
      nbformat: number;
      metadata: { language_info?: { name: string } };
      cells: { cell_type: string; execution_count: number | null; outputs: Output[] }[];
    };
    expect(executed.nbformat).toBe(4);
    expect(executed.metadata.language_info?.name).toBe('python');
    expect(fs.readFileSync(EXECUTED, 'utf8')).not.toContain(s.token);

    // No cell errored; each ran once, in order, and printed one JSON line.
    const errors = executed.cells.flatMap((cell, i) =>
      cell.outputs.filter(o => o.output_type === 'error').map(o => `cell ${i}: ${o.ename}: ${o.evalue}`)
    );
    expect(errors).toEqual([]);
    expect(executed.cells.map(c => c.execution_count)).toEqual(CELLS.map((_, i) => i + 1));
    const printed = executed.cells.map((cell, i) => {
      const streams = cell.outputs.filter(o => o.output_type === 'stream');
      expect(streams.map(o => o.name)).toEqual(['stdout']);
      const text = ([] as string[]).concat(streams[0].text ?? []).join('');
      try {
        return JSON.parse(text);
      } catch {
        throw new Error(`cell ${i} printed no JSON: ${text}`);
      }
    });
    const byCell = Object.fromEntries(printed.map(p => [p.cell, p]));
    expect(printed.map(p => p.cell)).toEqual([
      'setup',
      'capabilities',
      'startup-before',
      'initialize',
      'startup-after',
      'unknown-interface',
      'gateway'
    ]);

    const statePath = path.join(s.dirs.project, '.project-startup');
    expect(byCell.setup).toEqual({ cell: 'setup', base: s.base, project: s.dirs.project });
    expect(byCell.capabilities).toEqual({
      cell: 'capabilities',
      status: 200,
      platform: 'generic',
      interfacesRow: { id: 'interfaces', values: ['terminal', 'web', 'notebook'] },
      rows: [
        'interfaces',
        'browser-route',
        'gateway-ingress-modes',
        'inference-runtimes',
        'compute-model',
        'durable-storage',
        'credential-backends',
        'model-credential-boundary',
        'model-sources',
        'built-in-connections'
      ]
    });
    expect(byCell['startup-before']).toEqual({
      cell: 'startup-before',
      status: 200,
      phase: 'awaiting-confirmation',
      nextAction: 'confirm-initialization',
      projectPath: s.dirs.project,
      statePath,
      stateExists: false
    });
    expect(byCell.initialize).toMatchObject({
      cell: 'initialize',
      status: 201,
      created: true,
      phase: 'ready',
      confirmation: { interface: 'notebook', method: 'http-api', ingress: 'notebook-server-proxy' },
      stateMode: '0o700',
      recordMode: '0o600',
      againStatus: 200,
      againCreated: false
    });
    expect(byCell['startup-after']).toEqual({ cell: 'startup-after', status: 200, phase: 'ready', nextAction: 'none', confirmed: true });
    expect(byCell['unknown-interface']).toEqual({
      cell: 'unknown-interface',
      status: 400,
      contentType: 'application/problem+json',
      code: 'unknown-interface',
      allowedValues: ['terminal', 'web', 'notebook']
    });
    expect(byCell.gateway).toEqual({ cell: 'gateway', status: 200, id: 7, equalToGet: true, phase: 'ready' });

    // What the cells saw is on disk: the record of the notebook's confirmation.
    const record = JSON.parse(fs.readFileSync(path.join(statePath, 'initialization.json'), 'utf8'));
    expect(record.confirmation).toMatchObject({ interface: 'notebook', method: 'http-api', ingress: 'notebook-server-proxy' });
    expect(fs.statSync(statePath).mode & 0o777).toBe(0o700);
    // The sidecar was launched by the real proxy from the installed entry, once.
    expect(s.logs()).toMatch(/jupyter_server_proxy \| extension was successfully loaded/);
    expect(s.logs().match(/"message":"service started".*"ingress":"notebook-server-proxy"/g) ?? []).toHaveLength(1);
    expect(s.logs()).not.toContain(s.token);
    expect(run.ms).toBeLessThan(RUN_TIMEOUT_MS);
  }, 200000);
});
