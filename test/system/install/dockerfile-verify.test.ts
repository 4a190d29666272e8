// The Dockerfile's "verify" step must fail the image build when the
// server extension is disabled. The old README grep, `jupyter server extension list 2>&1 | grep -E
// 'jupyterlab_project_startup.*(enabled|OK)'`, matched the validation line ("... 0.1.0 OK"), which
// jupyter_server prints for a disabled extension too. The verify line of docs/examples/Dockerfile
// runs here, as written, against the real stack's `jupyter` (realStack(), the wheel as installed),
// with fresh Jupyter config and data directories: enabled, it passes; disabled in a config
// directory (as `jupyter server extension disable` writes it), it fails.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { tempRoot } from '../../helpers/harness';
import { realStack } from '../../helpers/real-stack';
import { REPO_ROOT } from './python';

const DOCKERFILE = path.join(REPO_ROOT, 'docs', 'examples', 'Dockerfile');
const OLD_README_VERIFY =
  "jupyter server extension list 2>&1 | grep -E 'jupyterlab_project_startup.*(enabled|OK)'";

/** The Dockerfile's verify step: the RUN instruction that lists the server extensions. */
function verifyCommand(): string {
  const runs = fs
    .readFileSync(DOCKERFILE, 'utf8')
    .replace(/\\\n/g, ' ')
    .split('\n')
    .filter(line => line.startsWith('RUN '))
    .map(line => line.slice('RUN '.length).trim());
  const verify = runs.filter(run =>
    run.includes('jupyter server extension list')
  );
  expect(verify).toHaveLength(1);
  return verify[0];
}

/** Runs a shell command as a Docker RUN would (/bin/sh -c), with the stack's bin on PATH. */
function runInStack(command: string, configDir: string, home: string) {
  const stack = realStack();
  return spawnSync('/bin/sh', ['-c', command], {
    encoding: 'utf8',
    timeout: 60000,
    env: {
      PATH: `${stack.bin}:/usr/bin:/bin`,
      HOME: home,
      LANG: 'C.UTF-8',
      PYTHONDONTWRITEBYTECODE: '1',
      JUPYTER_CONFIG_DIR: configDir,
      JUPYTER_DATA_DIR: path.join(home, 'data'),
      JUPYTER_PLATFORM_DIRS: '0'
    }
  });
}

describe("docs/examples/Dockerfile's verify step", () => {
  let root = '';
  beforeEach(() => {
    root = tempRoot('ps-dockerfile-');
    fs.mkdirSync(path.join(root, 'config'));
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it('passes with the wheel installed and its server extension enabled', () => {
    const result = runInStack(verifyCommand(), path.join(root, 'config'), root);
    expect({ status: result.status, stderr: result.stderr }).toEqual({
      status: 0,
      stderr: ''
    });
    expect(result.stdout).toMatch(/jupyterlab_project_startup .*enabled/);
  }, 90000);

  it('fails once the server extension is disabled, where the old grep passed', () => {
    // What `jupyter server extension disable` writes (to the config dir it chooses).
    fs.writeFileSync(
      path.join(root, 'config', 'jupyter_server_config.json'),
      JSON.stringify({
        ServerApp: {
          jpserver_extensions: { jupyterlab_project_startup: false }
        }
      })
    );
    const config = path.join(root, 'config');
    const listed = runInStack(
      'jupyter server extension list 2>&1',
      config,
      root
    );
    expect(listed.stdout).toMatch(/jupyterlab_project_startup .*disabled/);
    expect(runInStack(verifyCommand(), config, root).status).not.toBe(0);
    // The defect: the README's grep matched the validation line and passed.
    expect(runInStack(OLD_README_VERIFY, config, root).status).toBe(0);
  }, 90000);
});
