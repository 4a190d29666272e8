// Who must act on each readiness check, and what the site did not set up: decided once in the
// sidecar's core (readiness-checks.ts) so the panel, the terminal and the Python client's HTML
// all split the person's fixes from the administrator's the same way.
import { genericPlatform } from '../../sidecar/src/core/platforms/generic';
import { hostedNotebookPlatform } from '../../sidecar/src/core/platforms/hosted-notebook';
import {
  clusterWithNotebooks,
  PHASE_CASES,
  projectionFor
} from './extension/fixtures';

function check(result: ReturnType<typeof projectionFor>, id: string) {
  const found = result.readinessChecks.find(c => c.id === id);
  if (!found) {
    throw new Error(`no check ${id}`);
  }
  return found;
}

describe('who must act on a readiness check', () => {
  it.each(Object.entries(PHASE_CASES))(
    '%s: every remedy says who carries it out',
    (_name, make) => {
      for (const c of make().readinessChecks) {
        expect(c.remedy === undefined).toBe(c.remedyBy === undefined);
      }
    }
  );

  it('an unsafe state path and a missing project directory are the person’s to fix', () => {
    expect(
      check(projectionFor(genericPlatform, { state: 'unsafe' }), 'state-path')
    ).toMatchObject({ status: 'fail', remedyBy: 'user' });
    expect(
      check(
        projectionFor(hostedNotebookPlatform, { projectOk: false }),
        'project-path'
      )
    ).toMatchObject({ status: 'fail', remedyBy: 'user' });
  });

  it('approved storage nobody configured is the administrator’s; a project outside it is the person’s', () => {
    const none = check(
      projectionFor(clusterWithNotebooks, { approvedStorage: [] }),
      'approved-storage'
    );
    expect(none).toMatchObject({ status: 'fail', remedyBy: 'administrator' });
    expect(none.remedy).not.toMatch(/^Ask /);
    expect(
      check(
        projectionFor(clusterWithNotebooks, { approvedStorage: ['/scratch'] }),
        'approved-storage'
      )
    ).toMatchObject({ status: 'fail', remedyBy: 'user' });
  });
});

describe('what the site did not set up is no warning', () => {
  it('a runtime at its default address that does not answer is "not set up at this site"', () => {
    const runtimes = check(
      projectionFor(genericPlatform),
      'inference-runtimes'
    );
    expect(runtimes.status).toBe('pass'); // the first answers
    expect(runtimes.observed).toMatch(/not set up at this site/);
    expect(runtimes.remedy).toBeUndefined();
  });

  it('a runtime the site configured that does not answer warns, for the administrator', () => {
    const runtimes = check(
      projectionFor(genericPlatform, { brokenRuntime: true }),
      'inference-runtimes'
    );
    expect(runtimes).toMatchObject({
      status: 'warn',
      remedyBy: 'administrator'
    });
    expect(runtimes.observed).not.toMatch(/not set up at this site/);
  });

  it('credential backends nobody set up are listed as such, never as a warning', () => {
    const credentials = check(
      projectionFor(genericPlatform),
      'credential-backends'
    );
    expect(credentials.status).toBe('pass');
    expect(credentials.remedy).toBeUndefined();
  });

  it('no credential backend set up at all is skipped, not a warning', () => {
    const result = projectionFor(genericPlatform);
    const inputs = result.readinessChecks.find(
      c => c.id === 'credential-backends'
    );
    expect(inputs?.status).not.toBe('warn');
  });
});
