// The npm route behind a Jupyter whose root directory is not its working directory
// (`--ServerApp.root_dir`, Zero to JupyterHub's hub.config.Spawner.notebook_dir). The real `jupyter
// lab` of the stack's venv without the wheel (JupyterLab 4.6.4, jupyter_server 2.21.1, the real
// jupyter-server-proxy 4.4.0), with the proxy entry `project-startup jupyter install --user`
// writes, started in one directory and serving another as its root. The sidecar the proxy
// launches takes the server's root directory as the project, as the wheel's route does; an
// operator's PROJECT_STARTUP_PROJECT_DIR still wins.
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  httpRequest,
  jupyterInstall,
  LabServer,
  startLabServer,
  stopAllLabServers
} from '../e2e/helpers';
import { realStack } from '../../helpers/real-stack';

afterEach(() => stopAllLabServers(), 30000);

/** The npm route's Jupyter, working in its home directory, serving `project` as root_dir. */
function startNpmRouteLab(
  label: string,
  env: (dirs: LabServer['dirs']) => Record<string, string> = () => ({})
): Promise<LabServer> {
  return startLabServer({
    baseUrl: '/user/alice/',
    label,
    wheel: false,
    workingDir: dirs => dirs.home,
    prepare: dirs => {
      jupyterInstall(dirs);
      return env(dirs);
    }
  });
}

async function projectPath(server: LabServer): Promise<unknown> {
  const startup = await httpRequest(
    `${server.base}project/startup?interface=notebook`,
    { headers: { authorization: `token ${server.token}` }, timeoutMs: 40000 }
  );
  expect(startup.status).toBe(200);
  return startup.json.projectPath;
}

describe('the npm route behind jupyter lab --ServerApp.root_dir', () => {
  it("takes the Jupyter server's root directory as the project, not its working directory", async () => {
    const server = await startNpmRouteLab('npm-root-dir');
    // The npm route: no wheel in this venv, the proxy entry in the user's config.
    expect(server.stack.venv).not.toBe(realStack().venv);
    expect(
      fs.readFileSync(
        path.join(server.dirs.config, 'jupyter_server_config.json'),
        'utf8'
      )
    ).toContain('"project"');
    expect(fs.readlinkSync(`/proc/${server.pid}/cwd`)).toBe(server.dirs.home);
    expect(await projectPath(server)).toBe(server.dirs.project);
  }, 120000);

  it("PROJECT_STARTUP_PROJECT_DIR in the server's environment still names the project", async () => {
    const server = await startNpmRouteLab('npm-root-dir-named', dirs => {
      const chosen = path.join(dirs.home, 'chosen');
      fs.mkdirSync(chosen);
      return { PROJECT_STARTUP_PROJECT_DIR: chosen };
    });
    expect(await projectPath(server)).toBe(
      path.join(server.dirs.home, 'chosen')
    );
  }, 120000);
});
