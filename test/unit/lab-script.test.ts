// `npm run lab` (scripts/lab.js): what it tells a person whose pip failed, from pip's own output.
// The outputs are pip's lines as it prints them (the first two captured on a machine whose index
// lacks jupyter-server-proxy and whose default index is unreachable).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { pipAdvice } = require('../../scripts/lab.js') as {
  pipAdvice(output: string): string;
};

const UNREACHABLE =
  "WARNING: Retrying (Retry(total=0, connect=None, read=None, redirect=None, status=None)) after connection broken by 'NewConnectionError('<pip._vendor.urllib3.connection.HTTPSConnection object at 0x7f>: Failed to establish a new connection: [Errno -2] Name or service not known')': /simple/jupyter-server-proxy/\n";

const NO_PROXY = [
  'Looking in indexes: https://pypi.org/simple, file:///opt/pypi/simple',
  'ERROR: Could not find a version that satisfies the requirement jupyter-server-proxy==4.4.0 (from versions: none)',
  'ERROR: No matching distribution found for jupyter-server-proxy==4.4.0'
].join('\n');

describe('npm run lab: pip failures come with what to do', () => {
  it('jupyter-server-proxy missing from the index: give a local copy, by flag or variable', () => {
    const advice = pipAdvice(NO_PROXY);
    expect(advice).toContain(
      'jupyter-server-proxy 4.4.0 is not on the package index'
    );
    expect(advice).toContain('npm run lab -- --proxy-source SRC');
    expect(advice).toContain('PROJECT_STARTUP_PROXY_SOURCE=SRC');
    expect(advice).not.toContain('network');
  });

  it('with an unreachable index besides, it says that too', () => {
    const advice = pipAdvice(`${UNREACHABLE}${NO_PROXY}`);
    expect(advice).toContain('--proxy-source');
    expect(advice).toContain('could not reach one of its indexes');
  });

  it('another package missing: named, with where pip looks', () => {
    const advice = pipAdvice(
      'ERROR: No matching distribution found for jupyterlab==4.6.4'
    );
    expect(advice).toMatch(/^jupyterlab==4\.6\.4 is not on the package index/);
    expect(advice).toContain('pip config list');
    expect(advice).not.toContain('--proxy-source');
  });

  it('no index reachable, a Python too old, a full disk, anything else', () => {
    expect(
      pipAdvice(`${UNREACHABLE}ERROR: Could not install packages`)
    ).toMatch(/^pip could not reach its package index/);
    expect(
      pipAdvice(
        "ERROR: Package 'jupyterlab' requires a different Python: 3.8.10 not in '>=3.9'"
      )
    ).toContain('--python');
    expect(
      pipAdvice(
        'ERROR: Could not install packages due to an OSError: [Errno 28] No space left on device'
      )
    ).toContain('disk is full');
    expect(pipAdvice('ERROR: something else')).toContain('delete .venv-lab');
  });
});
