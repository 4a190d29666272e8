// Which Jupyter server a terminal belongs to: the pure choice over gathered evidence, and
// Jupyter's runtime directory by jupyter_core's rules. (The real terminal: test/system/e2e/terminal.test.ts.)
import * as path from 'node:path';
import {
  chooseJupyter,
  JupyterServerInfo,
  jupyterRuntimeDir
} from '../../sidecar/src/cli/jupyter-discovery';

const server = (
  pid: number,
  rootDir: string,
  port: number
): JupyterServerInfo => ({
  url: `http://127.0.0.1:${port}/`,
  token: `token-${pid}`,
  pid,
  rootDir,
  file: `/run/jpserver-${pid}.json`
});

describe('chooseJupyter', () => {
  const a = server(100, '/home/alice', 8888);
  const b = server(200, '/home/alice/work', 8889);

  test('JupyterHub: the single-user environment wins', () => {
    expect(
      chooseJupyter(
        {
          hub: { url: 'http://127.0.0.1:5000/user/alice/', token: 'hub' },
          servers: [a],
          ancestors: [100]
        },
        '/home/alice'
      )
    ).toMatchObject({
      url: 'http://127.0.0.1:5000/user/alice/',
      token: 'hub',
      how: expect.stringContaining('JUPYTERHUB_SERVICE_URL')
    });
  });

  test('the server that is an ancestor of this process, even when another one also holds the project', () => {
    expect(
      chooseJupyter(
        { servers: [a, b], ancestors: [555, 200, 1] },
        '/home/alice/work/p'
      )
    ).toMatchObject({ url: b.url, token: b.token });
    expect(
      chooseJupyter(
        { servers: [a, b], ancestors: [555, 100] },
        '/home/alice/work/p'
      )
    ).toMatchObject({ url: a.url, token: a.token });
  });

  test('JUPYTER_SERVER_URL (what jupyter_server gives its terminals) when the ancestry is not known', () => {
    expect(
      chooseJupyter(
        { servers: [a, b], ancestors: [], serverUrl: 'http://127.0.0.1:8889' },
        '/tmp'
      )
    ).toMatchObject({ url: b.url });
  });

  test('otherwise the one server whose root holds the project; none when two do, or none does', () => {
    expect(
      chooseJupyter({ servers: [a, b], ancestors: [] }, '/home/alice/other')
    ).toMatchObject({ url: a.url });
    expect(
      chooseJupyter({ servers: [a, b], ancestors: [] }, '/home/alice/work/p')
    ).toBeUndefined();
    expect(
      chooseJupyter({ servers: [a, b], ancestors: [] }, '/srv/elsewhere')
    ).toBeUndefined();
    // A sibling whose name starts alike is not inside.
    expect(
      chooseJupyter({ servers: [b], ancestors: [] }, '/home/alice/workshop')
    ).toBeUndefined();
    expect(
      chooseJupyter({ servers: [], ancestors: [] }, '/home/alice')
    ).toBeUndefined();
  });
});

describe('jupyterRuntimeDir', () => {
  test("jupyter_core's order: JUPYTER_RUNTIME_DIR, JUPYTER_DATA_DIR/runtime, then the platform's data directory", () => {
    expect(
      jupyterRuntimeDir(
        { JUPYTER_RUNTIME_DIR: '/r', JUPYTER_DATA_DIR: '/d' },
        '/h',
        'linux'
      )
    ).toBe('/r');
    expect(jupyterRuntimeDir({ JUPYTER_DATA_DIR: '/d' }, '/h', 'linux')).toBe(
      path.join('/d', 'runtime')
    );
    expect(jupyterRuntimeDir({}, '/h', 'linux')).toBe(
      '/h/.local/share/jupyter/runtime'
    );
    expect(jupyterRuntimeDir({ XDG_DATA_HOME: '/x' }, '/h', 'linux')).toBe(
      '/x/jupyter/runtime'
    );
    expect(jupyterRuntimeDir({}, '/Users/a', 'darwin')).toBe(
      '/Users/a/Library/Jupyter/runtime'
    );
  });

  test('JUPYTER_PLATFORM_DIRS moves it where platformdirs puts the data directory, as jupyter_core does', () => {
    expect(
      jupyterRuntimeDir({ JUPYTER_PLATFORM_DIRS: '1' }, '/Users/a', 'darwin')
    ).toBe('/Users/a/Library/Application Support/jupyter/runtime');
    expect(
      jupyterRuntimeDir({ JUPYTER_PLATFORM_DIRS: 'no' }, '/Users/a', 'darwin')
    ).toBe('/Users/a/Library/Jupyter/runtime');
    expect(
      jupyterRuntimeDir(
        { JUPYTER_PLATFORM_DIRS: '1', XDG_DATA_HOME: '/x' },
        '/h',
        'linux'
      )
    ).toBe('/x/jupyter/runtime');
  });
});
