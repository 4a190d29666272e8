// The sidecar's log lines: JSON on its own, and inside a Jupyter server (launched by
// jupyter-server-proxy, where its stderr is the server's log) lines that read as Jupyter's.
import { createLogger, jupyterLine } from '../../sidecar/src/service/log';

describe("the sidecar's log lines", () => {
  it("inside Jupyter: Jupyter's level letter, local time to the millisecond, its own name, the fields as JSON", () => {
    const at = new Date(2026, 10, 29, 2, 7, 4, 5);
    expect(
      jupyterLine(
        'warn',
        'conflicting platform evidence',
        {
          platform: 'generic'
        },
        at
      )
    ).toBe(
      '[W 2026-11-29 02:07:04.005 ProjectStartup] conflicting platform evidence {"platform":"generic"}\n'
    );
    expect(jupyterLine('info', 'one\nline', undefined, at)).toBe(
      '[I 2026-11-29 02:07:04.005 ProjectStartup] one line\n'
    );
    expect(jupyterLine('error', 'x', {}, at)).toMatch(
      /^\[E .* ProjectStartup\] x\n$/
    );
    expect(jupyterLine('debug', 'x', {}, at)).toMatch(/^\[D /);
  });

  it('the format is chosen by the caller; the level still filters', () => {
    const json: string[] = [];
    const jupyter: string[] = [];
    createLogger('info', l => json.push(l)).info('service started', { a: 1 });
    const logger = createLogger('info', l => jupyter.push(l), 'jupyter');
    logger.info('service started', { a: 1 });
    logger.debug('request', { path: '/x' });
    expect(JSON.parse(json[0])).toMatchObject({
      level: 'info',
      message: 'service started',
      a: 1
    });
    expect(jupyter).toEqual([
      expect.stringMatching(
        /^\[I \d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} ProjectStartup\] service started \{"a":1\}\n$/
      )
    ]);
  });
});
