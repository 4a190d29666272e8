// A notebook cell inside alice's single-user server under a real JupyterHub (./hub.ts), on each
// stack: hub-notebook.test.ts on Debian 12's JupyterHub 3, hub5-notebook.test.ts on Debian 13's
// JupyterHub 5 (where the kernel is the single-user server's venv's Python 3.13, with the wheel). The
// kernel is started by the single-user server (through the hub's public proxy, as JupyterLab
// starts one) and inherits only the single-user server's environment. Its cells import this
// project's client, which finds the server from JUPYTERHUB_SERVICE_URL and authenticates with
// JUPYTERHUB_API_TOKEN — the token measured here to be the one the single-user server accepts
// from a kernel — and gets the projection through Jupyter and the real jupyter-server-proxy.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { BIN, httpRequest } from '../e2e/helpers';
import {
  installForUser,
  KernelRun,
  printedJson,
  runInServerKernel
} from '../../helpers/kernel';
import { DOC, readmeCodeBlocks } from '../../helpers/readme-sections';
import { runInTerminal } from '../../helpers/terminal';
import { Hub, HUB_ARTIFACTS, HubStack, startHub, stopAllHubs } from './hub';

const CELLS = [
  // Measured, not assumed: which of the kernel's hub variables the single-user server accepts.
  `import json, os, urllib.request, urllib.error
def status_with(name):
    request = urllib.request.Request(os.environ["JUPYTERHUB_SERVICE_URL"] + "api/status",
                                     headers={"Authorization": "token " + os.environ.get(name, "")})
    try:
        with urllib.request.urlopen(request, timeout=20) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code
print(json.dumps({"cell": "tokens", "serviceUrlSet": "JUPYTERHUB_SERVICE_URL" in os.environ,
                  "accepted": {name: status_with(name) for name in ("JUPYTERHUB_API_TOKEN", "JPY_API_TOKEN", "NO_SUCH_TOKEN")}}))`,

  `from jupyterlab_project_startup import client
connection = client.connect()
print(json.dumps({"cell": "setup", "url": connection.url, "source": connection.source}))`,

  `projection = client.startup("notebook")
print(json.dumps({"cell": "startup", "projection": projection}))`,

  `result = client.initialize(confirm=True)
print(json.dumps({"cell": "initialize", "created": result["created"], "phase": result["phase"],
                  "confirmation": result["record"]["confirmation"]}))`
];

function context(run: KernelRun): string {
  return `runner exit ${run.code}\n--- stdout ---\n${run.stdout}\n--- stderr ---\n${run.stderr.slice(-4000)}`;
}

/** The notebook and terminal checks, on one stack (a test file calls this once). */
export function hubNotebookSuite(stack: HubStack): void {
  describe(`a notebook cell in the hub's single-user server reaches the sidecar with what the kernel has (${stack})`, () => {
    let hub: Hub;

    beforeAll(
      async () => {
        hub = await startHub({ label: `hub-notebook-${stack}`, stack });
        const bin = path.join(hub.dirs.home, '.local', 'bin');
        fs.mkdirSync(bin, { recursive: true });
        if (hub.stackInfo.install === 'command') {
          // The package, importable for alice's Pythons as `pip install --user` would make it.
          installForUser(hub.dirs.home, path.join(hub.dirs.root, 'site'));
          // `project-startup` on the PATH of alice's terminals (a login shell reads ~/.profile), where
          // `npm install -g --prefix ~/.local` puts it.
          fs.symlinkSync(BIN, path.join(bin, 'project-startup'));
        } else {
          // The kernel is the venv's Python, which has the wheel; its console script goes where
          // `pip install --user` puts one (a login shell's PATH drops the venv's bin directory).
          fs.symlinkSync(
            path.join(hub.stackInfo.python, '..', 'project-startup'),
            path.join(bin, 'project-startup')
          );
        }
        fs.writeFileSync(
          path.join(hub.dirs.home, '.profile'),
          'if [ -d "$HOME/.local/bin" ] ; then\n    PATH="$HOME/.local/bin:$PATH"\nfi\n'
        );
      },
      20 * 60 * 1000
    );

    afterAll(async () => {
      await hub?.stop();
      await stopAllHubs();
    }, 60000);

    const run = (name: string, cells: string[]) =>
      runInServerKernel({
        base: `${hub.publicUrl}${hub.userBase}`,
        authorization: `token ${hub.userToken}`,
        runtimeDir: path.join(hub.dirs.jupyterData, 'runtime'),
        source: path.join(hub.dirs.home, `${name}.ipynb`),
        target: path.join(HUB_ARTIFACTS, `${name}-${stack}.executed.ipynb`),
        cells
      });

    test("in a terminal of the single-user server, project-startup status and init go through the hub's server to its sidecar", async () => {
      // First: nobody has used the sidecar yet, so the proxy starts it for the command line.
      const [status, init, again] = await runInTerminal({
        base: `${hub.publicUrl}${hub.userBase}`,
        authorization: `token ${hub.userToken}`,
        commands: [
          'project-startup status',
          'project-startup init',
          'project-startup status'
        ]
      });
      expect(status.status).toBe(0);
      expect(status.output).toContain(
        'answered by the Project Startup service behind the JupyterHub single-user server ($JUPYTERHUB_SERVICE_URL, with $JUPYTERHUB_API_TOKEN)'
      );
      expect(status.output).toMatch(
        /JupyterLab: http:\/\/127\.0\.0\.1:\d+\/user\/alice\/lab/
      );
      expect(status.output).toContain('Hosted notebook');
      expect(status.output).not.toContain('project-startup serve');
      // The hosted notebook takes the confirmation in the notebook interface: init says where.
      expect(init.status).not.toBe(0);
      expect(init.output).toContain(
        'Open JupyterLab and run "Open Project Startup"'
      );
      expect(init.output).not.toContain('project-startup serve');
      expect(again.status).toBe(0);
      expect(again.output).toMatch(
        /answered by the service at .*\/socket \(pid \d+\)/
      );
      expect(again.output).toContain(
        'This service is the one jupyter-server-proxy runs for the JupyterHub single-user server'
      );
      for (const result of [status, init, again]) {
        expect(result.output).not.toContain(hub.userToken);
      }
    }, 200000);

    test("JUPYTERHUB_API_TOKEN is accepted; the client gets the panel's projection and initializes", async () => {
      const result = await run('hub-notebook', CELLS);
      if (result.code !== 0) {
        throw new Error(context(result));
      }
      const { printed, errors } = printedJson(result);
      expect(errors).toEqual([]);
      const byCell = Object.fromEntries(printed.map(p => [p.cell, p]));
      expect(byCell.tokens).toEqual({
        cell: 'tokens',
        serviceUrlSet: true,
        accepted: {
          JUPYTERHUB_API_TOKEN: 200,
          JPY_API_TOKEN: 200,
          NO_SUCH_TOKEN: 403
        }
      });
      expect(byCell.setup).toMatchObject({
        source: '$JUPYTERHUB_SERVICE_URL and $JUPYTERHUB_API_TOKEN'
      });
      expect(new URL(String(byCell.setup.url)).pathname).toBe(hub.userBase);

      const projection = byCell.startup.projection as Record<string, unknown>;
      expect(projection).toMatchObject({
        platform: 'hosted-notebook',
        interface: 'notebook',
        phase: 'awaiting-confirmation'
      });
      // What the panel gets for the same request, through the hub's public proxy.
      const panel = await httpRequest(
        `${hub.publicUrl}${hub.userBase}project/startup?interface=notebook`,
        {
          headers: { authorization: `token ${hub.userToken}` }
        }
      );
      // The panel asks after the cell initialized: compare the parts that initialize does not change.
      expect(panel.status).toBe(200);
      expect(projection.projectPath).toBe(panel.json.projectPath);
      expect(projection.statePath).toBe(panel.json.statePath);
      expect(projection.platform).toBe(panel.json.platform);

      expect(byCell.initialize).toMatchObject({
        created: true,
        phase: 'ready',
        confirmation: {
          interface: 'notebook',
          method: 'http-api',
          ingress: 'notebook-server-proxy'
        }
      });
      expect(panel.json.phase).toBe('ready');
      const executed = fs.readFileSync(
        path.join(HUB_ARTIFACTS, `hub-notebook-${stack}.executed.ipynb`),
        'utf8'
      );
      expect(executed).not.toContain(hub.userToken);
    }, 200000);

    test("the README's JupyterHub notebook example runs as written in a cell", async () => {
      const blocks = readmeCodeBlocks(
        'From a notebook',
        'python',
        DOC.notebooksAndTerminals
      ).filter(b => b.startsWith('# On JupyterHub'));
      expect(blocks).toHaveLength(1);
      const result = await run('hub-notebook-readme', blocks);
      if (result.code !== 0) {
        throw new Error(context(result));
      }
      const { errors } = printedJson(result);
      expect(errors).toEqual([]);
      expect(JSON.stringify(result.cells[0].outputs)).toMatch(
        /(ready|awaiting-confirmation) - /
      );
    }, 200000);

    test("the README's JupyterHub curl example runs as written in a terminal of the single-user server", async () => {
      const blocks = readmeCodeBlocks(
        'From a terminal in JupyterLab',
        'sh',
        DOC.notebooksAndTerminals
      ).filter(b => b.startsWith('# On JupyterHub'));
      expect(blocks).toHaveLength(1);
      const [result] = await runInTerminal({
        base: `${hub.publicUrl}${hub.userBase}`,
        authorization: `token ${hub.userToken}`,
        commands: blocks
      });
      expect(result.status).toBe(0);
      const projection = JSON.parse(
        result.output.trim().split('\n').pop() as string
      );
      expect(projection).toMatchObject({
        platform: 'hosted-notebook',
        interface: 'terminal'
      });
      expect(result.output).not.toContain(hub.userToken);
    }, 200000);
  });
}
