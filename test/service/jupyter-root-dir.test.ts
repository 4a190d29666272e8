// The project behind jupyter-server-proxy, unnamed: the root directory of the Jupyter server that
// launched the sidecar, from that server's own runtime file (sidecar/src/observe/jupyter-runtime.ts,
// project-dir.ts). Real files in a temporary runtime directory; the end-to-end case (the real
// `jupyter lab` with --ServerApp.root_dir) is test/system/install/npm-root-dir.test.ts.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { jupyterRootProject } from '../../sidecar/src/config/project-dir';
import { jupyterServerRootDir } from '../../sidecar/src/observe/jupyter-runtime';
import { tempRoot } from '../helpers/harness';

let runtime: string;
const env = () => ({ JUPYTER_RUNTIME_DIR: runtime });

function writeRuntimeFile(
  pid: number,
  info: Record<string, unknown>,
  mode = 0o600
): void {
  const file = path.join(runtime, `jpserver-${pid}.json`);
  fs.writeFileSync(file, JSON.stringify(info), { mode });
  fs.chmodSync(file, mode);
}

beforeEach(() => {
  runtime = tempRoot('ps-jupyter-runtime-');
});
afterEach(() => fs.rmSync(runtime, { recursive: true, force: true }));

describe("the Jupyter server's root directory as the project", () => {
  it('behind jupyter-server-proxy: the parent server root_dir, else its notebook_dir', () => {
    writeRuntimeFile(4242, { pid: 4242, root_dir: '/srv/work' });
    expect(jupyterRootProject('notebook-server-proxy', env(), 4242)).toBe(
      '/srv/work'
    );
    writeRuntimeFile(4343, { pid: 4343, notebook_dir: '/srv/classic' });
    expect(jupyterServerRootDir(env(), 4343)).toBe('/srv/classic');
  });

  it('not for another ingress, nor without a file of that pid', () => {
    writeRuntimeFile(4242, { pid: 4242, root_dir: '/srv/work' });
    expect(jupyterRootProject('direct-loopback', env(), 4242)).toBeUndefined();
    expect(jupyterRootProject(undefined, env(), 4242)).toBeUndefined();
    expect(
      jupyterRootProject('notebook-server-proxy', env(), 4243)
    ).toBeUndefined();
  });

  it('not from a file others may change, that names another pid, or that is not an object', () => {
    writeRuntimeFile(5001, { pid: 5001, root_dir: '/srv/writable' }, 0o620);
    expect(jupyterServerRootDir(env(), 5001)).toBeUndefined();
    writeRuntimeFile(5002, { pid: 9999, root_dir: '/srv/other' });
    expect(jupyterServerRootDir(env(), 5002)).toBeUndefined();
    writeRuntimeFile(5003, { pid: 5003, root_dir: '' });
    expect(jupyterServerRootDir(env(), 5003)).toBeUndefined();
    fs.writeFileSync(path.join(runtime, 'jpserver-5004.json'), '[1]', {
      mode: 0o600
    });
    expect(jupyterServerRootDir(env(), 5004)).toBeUndefined();
  });
});
