// A terminal beside JupyterLab: `project-startup status`, `capabilities` and `init` typed into a
// real JupyterLab terminal (terminado; the shell is the Jupyter server's child), with the command
// on PATH as an npm global install puts it. They find the Project Startup service that
// jupyter-server-proxy runs behind this server (from Jupyter's runtime file of the terminal's own
// server), say so with the JupyterLab address, and never send the person to `project-startup
// serve`. The README's "From a terminal in JupyterLab" curl example runs there as written.
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  BIN,
  checkPrerequisites,
  jupyterInstall,
  LabServer,
  startLabServer,
  stopAllLabServers
} from './helpers';
import { DOC, readmeCodeBlocks } from '../../helpers/readme-sections';
import { runInTerminal } from '../../helpers/terminal';

describe('project-startup in a JupyterLab terminal finds the sidecar behind its Jupyter server', () => {
  let server: LabServer;

  beforeAll(async () => {
    checkPrerequisites();
    server = await startLabServer({
      baseUrl: '/user/alice/',
      label: 'terminal-server',
      terminals: true,
      prepare: dirs => {
        jupyterInstall(dirs);
        // `project-startup` on the PATH of the terminal's login shell (`sh -l`, as Jupyter starts
        // it: /etc/profile resets PATH), the way Debian's skeleton ~/.profile adds ~/.local/bin,
        // where `npm install -g --prefix ~/.local` puts it.
        const bin = path.join(dirs.home, '.local', 'bin');
        fs.mkdirSync(bin, { recursive: true });
        fs.symlinkSync(BIN, path.join(bin, 'project-startup'));
        fs.writeFileSync(
          path.join(dirs.home, '.profile'),
          'if [ -d "$HOME/.local/bin" ] ; then\n    PATH="$HOME/.local/bin:$PATH"\nfi\n'
        );
      }
    });
  }, 90000);

  afterAll(async () => {
    await server?.stop();
    await stopAllLabServers();
  }, 60000);

  const type = (commands: string[]) =>
    runInTerminal({
      base: server.base,
      authorization: `token ${server.token}`,
      commands
    });

  test('status, capabilities and init answer through Jupyter, name JupyterLab, and never say "project-startup serve"', async () => {
    // Before anyone opened the panel: the proxy has not started the sidecar yet.
    expect(server.logs()).not.toMatch(/ProjectStartup\] service started /);
    const [status, capabilities, init, statusAgain] = await type([
      'project-startup status',
      'project-startup capabilities',
      'project-startup init',
      'project-startup status'
    ]);
    expect(status.status).toBe(0);
    expect(status.output).toContain(
      `answered by the Project Startup service behind the Jupyter server (pid ${server.pid}) this terminal runs under`
    );
    expect(status.output).toMatch(
      new RegExp(`JupyterLab: http://[^/]+:${server.port}/user/alice/lab`)
    );
    expect(status.output).toMatch(
      /Gateway ingress \(optional\): Notebook-server proxy on Unix socket/
    );
    expect(status.output).toContain(
      'Open JupyterLab and run "Open Project Startup"'
    );
    expect(status.output).not.toContain('project-startup serve');

    expect(capabilities.status).toBe(0);
    expect(capabilities.output).toContain('Notebook');

    // Generic: the confirmation comes from a browser interface; init says where, JupyterLab.
    expect(init.status).not.toBe(0);
    expect(init.output).toContain('not at a terminal prompt');
    expect(init.output).toContain(
      'Open JupyterLab and run "Open Project Startup"'
    );
    expect(init.output).not.toContain('project-startup serve');
    expect(
      fs.existsSync(path.join(server.dirs.project, '.project-startup'))
    ).toBe(false);

    // Now the sidecar runs (the proxy started it on the first request): found by its runtime file.
    expect(statusAgain.status).toBe(0);
    expect(statusAgain.output).toMatch(
      /answered by the service at .*jupyter-server-proxy-[^ ]*\/socket \(pid \d+\)/
    );
    expect(statusAgain.output).toContain(
      `project-startup: This service is the one jupyter-server-proxy runs for the Jupyter server (pid ${server.pid}) this terminal runs under`
    );
    expect(statusAgain.output).toMatch(
      new RegExp(`JupyterLab: http://[^/]+:${server.port}/user/alice/lab`)
    );
    expect(statusAgain.output).not.toContain('project-startup serve');
    expect(
      server
        .logs()
        .match(
          /ProjectStartup\] service started .*"ingress":"notebook-server-proxy"/g
        ) ?? []
    ).toHaveLength(1);
  }, 200000);

  test('the README\'s "From a terminal in JupyterLab" curl example (plain Jupyter server) runs as written', async () => {
    const blocks = readmeCodeBlocks(
      'From a terminal in JupyterLab',
      'sh',
      DOC.notebooksAndTerminals
    ).filter(b => !b.startsWith('# On JupyterHub'));
    expect(blocks.length).toBeGreaterThanOrEqual(1);
    const results = await type(blocks);
    for (const result of results) {
      expect(result.status).toBe(0);
    }
    const curl = results.find(r => r.command.includes('curl')) as {
      output: string;
    };
    const projection = JSON.parse(
      curl.output.trim().split('\n').pop() as string
    );
    expect(projection).toMatchObject({
      interface: 'terminal',
      projectPath: server.dirs.project
    });
  }, 200000);
});
