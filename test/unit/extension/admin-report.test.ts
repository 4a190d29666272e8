/** @jest-environment jsdom */
// The report behind "Copy details for your administrator": what an operator acts on (the
// problem's code, the setting, file and line, the versions) and no value of a credential, even
// where one slipped into a text the report quotes.
import './jsdom-shims';
import { genericPlatform } from '../../../sidecar/src/core/platforms/generic';
import { misconfiguredProblem } from '../../../sidecar/src/http/misconfigured';
import { administratorReport, redactSecrets } from '../../../src/admin-report';
import type { IPanelState } from '../../../src/model';
import type { StartupProjection } from '../../../src/tokens';
import { PHASE_CASES, projectionFor } from './fixtures';

const SECRET = 'sk-live-4f9a1c2e7b3d5a60';
const PASSWORD = 'hunter2-correct-horse';
const TOKEN = '0d2c9e7f1a3b5d4c6e8f';

function loaded(projection: StartupProjection): IPanelState {
  return {
    view: { kind: 'loaded', projection },
    refreshing: false,
    initializing: false
  };
}

const NOW = new Date('2026-11-28T16:00:00.000Z');
const VERSIONS = { application: '4.6.4', applicationName: 'JupyterLab' };

describe('the report for the administrator', () => {
  it('blocked by approved storage nobody configured: the check, the setting, the fix, the versions', () => {
    const report = administratorReport(
      loaded(PHASE_CASES['blocked (administrator: no approved storage)']()),
      VERSIONS,
      NOW
    );
    expect(report).toContain('Project Startup: details for the administrator');
    expect(report).toContain('Reported: 2026-11-28T16:00:00.000Z');
    expect(report).toContain(
      'Versions: JupyterLab 4.6.4; startup schema 1.2.0'
    );
    expect(report).toContain('phase: blocked');
    expect(report).toContain(
      '- check approved-storage: Approved project storage (fail, required)'
    );
    expect(report).toContain('setting: PROJECT_STARTUP_APPROVED_STORAGE');
    expect(report).toMatch(/fix: Set PROJECT_STARTUP_APPROVED_STORAGE/);
    // Only what the administrator must act on: not the person's own items.
    expect(report).not.toContain('check confirmation');
  });

  it('a refused site file: the problem code, the setting, file:line, each problem on its own line', () => {
    const problem = JSON.parse(
      JSON.stringify(
        misconfiguredProblem(
          'The site configuration is refused (2 problems):\n/etc/project-startup/site.json:4: modelSources: unknown key\n/etc/project-startup/site.json:9: endpoints.localRuntimeUrl: not a URL',
          [
            {
              file: '/etc/project-startup/site.json',
              line: 4,
              key: 'modelSources',
              message: 'unknown key',
              fix: 'Remove it.'
            }
          ]
        )
      )
    );
    const report = administratorReport(
      {
        view: {
          kind: 'failing',
          failure: {
            kind: 'http',
            url: 'http://localhost:8888/project/startup',
            status: 503,
            statusText: 'Service Unavailable',
            problem
          }
        },
        refreshing: false,
        initializing: false
      },
      VERSIONS,
      NOW
    );
    expect(report).toContain('- problem misconfigured: HTTP 503');
    expect(report).toContain('file: /etc/project-startup/site.json:4');
    expect(report).toContain('setting: modelSources');
    expect(report).toContain(
      '  /etc/project-startup/site.json:4: modelSources: unknown key\n'
    );
    expect(report).toContain(
      '  /etc/project-startup/site.json:9: endpoints.localRuntimeUrl: not a URL\n'
    );
    expect(report).toContain('fix: Remove it.');
  });

  it('carries no credential value, even one a quoted text held', () => {
    const base = projectionFor(genericPlatform, { brokenRuntime: true });
    const tainted: StartupProjection = {
      ...base,
      readinessChecks: base.readinessChecks.map(c =>
        c.id === 'inference-runtimes'
          ? {
              ...c,
              observed: `not reachable at https://svc:${PASSWORD}@models.example/v1?token=${TOKEN}&x=1; api_key=${SECRET}; Authorization: Bearer ${SECRET}`
            }
          : c
      )
    };
    const report = administratorReport(loaded(tainted), VERSIONS, NOW);
    expect(report).toContain('check inference-runtimes');
    expect(report).toContain('https://[redacted]@models.example/v1');
    for (const value of [SECRET, PASSWORD, TOKEN]) {
      expect(report).not.toContain(value);
    }
  });

  it.each(Object.entries(PHASE_CASES))(
    '%s: a credential the service observed by name never appears by value',
    (_n, make) => {
      const report = administratorReport(loaded(make()), VERSIONS, NOW);
      expect(report).not.toMatch(/sk-|Bearer [A-Za-z0-9]/);
    }
  );

  it('redactSecrets leaves ordinary text alone', () => {
    const text =
      'Set PROJECT_STARTUP_APPROVED_STORAGE to the approved roots; see http://127.0.0.1:11434/';
    expect(redactSecrets(text)).toBe(text);
  });
});
