// The Python client's pure parts, run by Debian's Python: where it looks for its Jupyter server
// (find_server over a given environment), what it refuses without a confirmation, and that its
// notebook display escapes everything that comes from the service. (The client against real
// servers: test/system/e2e/notebook.test.ts and test/system/hub/hub-notebook.test.ts.)
import { runPackagePython } from '../../helpers/package-python';

function python(code: string): Record<string, unknown> {
  const result = runPackagePython(code, {
    timeoutMs: 30000,
    env: { JUPYTER_RUNTIME_DIR: '/nonexistent/runtime' }
  });
  if (result.status !== 0) {
    throw new Error(`python failed (${result.status}): ${result.stderr}`);
  }
  return JSON.parse(result.stdout) as Record<string, unknown>;
}

test('find_server: the override, then the JupyterHub environment, else a problem naming the fix', () => {
  const out = python(`
import json
from jupyterlab_project_startup import client
override = client.find_server({"PROJECT_STARTUP_JUPYTER_URL": "http://127.0.0.1:1/x", "PROJECT_STARTUP_JUPYTER_TOKEN": "t",
                               "JUPYTERHUB_SERVICE_URL": "http://127.0.0.1:2/user/a/", "JUPYTERHUB_API_TOKEN": "h"})
hub = client.find_server({"JUPYTERHUB_SERVICE_URL": "http://127.0.0.1:2/user/a/", "JUPYTERHUB_API_TOKEN": "h"})
try:
    client.find_server({})
    missing = None
except client.ProjectStartupError as problem:
    missing = {"code": problem.code, "fix": problem.fix}
print(json.dumps({"override": [override.url, override.token, override.source], "hub": [hub.url, hub.token, hub.source], "missing": missing}))
`);
  expect(out.override).toEqual([
    'http://127.0.0.1:1/x/',
    't',
    '$PROJECT_STARTUP_JUPYTER_URL'
  ]);
  expect(out.hub).toEqual([
    'http://127.0.0.1:2/user/a/',
    'h',
    '$JUPYTERHUB_SERVICE_URL and $JUPYTERHUB_API_TOKEN'
  ]);
  expect(out.missing).toEqual({
    code: 'jupyter-not-found',
    fix: expect.stringContaining('client.connect(url=')
  });
});

test("initialize without a confirmation is refused before any request; the display escapes the service's text", () => {
  const out = python(`
import json
from jupyterlab_project_startup import client
client.connect(url="http://127.0.0.1:9/", token="t")   # port 9 refuses: any request would fail differently
try:
    client.initialize(confirm="yes")
    refused = None
except client.ProjectStartupError as problem:
    refused = problem.code
hostile = "<img src=x onerror=alert(1)>"
projection = client.Result({"phase": hostile, "projectPath": hostile, "statePath": "/p/.project-startup", "platform": "generic",
                            "interface": "notebook", "nextAction": {"title": hostile, "detail": hostile, "command": hostile},
                            "readinessChecks": [{"title": hostile, "status": "pass", "observed": hostile, "remedy": hostile}]})
capabilities = client.Result({"platform": {"id": "generic", "label": hostile}, "capabilities": [{"id": "x", "label": hostile, "values": [{"id": "v", "label": hostile}]}]})
problem = client.ProjectStartupError(hostile, hostile, hostile, hostile)
try:
    client.startup()
    unreachable = None
except client.ProjectStartupError as error:
    unreachable = error.code
print(json.dumps({"refused": refused, "unreachable": unreachable,
                  "html": [projection._repr_html_(), capabilities._repr_html_(), problem._repr_html_()]}))
`);
  expect(out.refused).toBe('confirmation-missing');
  expect(out.unreachable).toBe('jupyter-unreachable');
  for (const html of out.html as string[]) {
    expect(html).not.toContain('<img');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
  }
});
