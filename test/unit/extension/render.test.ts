/** @jest-environment jsdom */
// The panel's React components (src/components/) rendered by React into jsdom, for every
// state: loading, not enabled, failing, each setup phase the service sends for the notebook
// interface, a failed and a successful initialize; "What this platform offers" (the whole
// manifest); the confirmation dialog's body; keyboard and ARIA semantics; and that every visible
// string is either translated or comes from the service.
import './jsdom-shims';
import { ReactWidget } from '@jupyterlab/apputils';
import { Widget } from '@lumino/widgets';
import { Time } from '@jupyterlab/coreutils';
import * as React from 'react';
import { act } from 'react';
import { clusterPlatform } from '../../../sidecar/src/core/platforms/cluster';
import { genericPlatform } from '../../../sidecar/src/core/platforms/generic';
import { hostedNotebookPlatform } from '../../../sidecar/src/core/platforms/hosted-notebook';
import { misconfiguredProblem } from '../../../sidecar/src/http/misconfigured';
import {
  IConfirmationTargets,
  confirmationTargets,
  IPanelState
} from '../../../src/model';
import { ConfirmationBody } from '../../../src/components/confirmation';
import { PanelContent } from '../../../src/components/content';
import { IPanelActions } from '../../../src/components/shared';
import { statusMessage } from '../../../src/labels';
import {
  Failure,
  ITranslationBundle,
  StartupProjection
} from '../../../src/tokens';
import {
  clusterWithNotebooks,
  diagnosticsReport,
  DIAGNOSTICS_URL,
  HOME,
  initializeAnswer,
  NODE_MISSING,
  PHASE_CASES,
  PLATFORM_MESSAGE,
  problem,
  PROJECT,
  projectionFor,
  recordingTrans,
  SERVER_PROXY_MISSING,
  SIDECAR_FAILED,
  stringLeaves,
  textNodes,
  trans
} from './fixtures';

const URL =
  'http://localhost:8888/user/alice/project/startup?interface=notebook';
const noop = {
  refresh: jest.fn(),
  initialize: jest.fn(),
  copyReport: jest.fn(),
  copyText: jest.fn()
};

function loaded(
  projection: StartupProjection,
  extra: Partial<IPanelState> = {}
): IPanelState {
  return {
    view: { kind: 'loaded', projection },
    refreshing: false,
    initializing: false,
    ...extra
  };
}

function failing(failure: Failure): IPanelState {
  return {
    view: {
      kind: failure.kind === 'not-enabled' ? 'not-enabled' : 'failing',
      failure
    },
    refreshing: false,
    initializing: false
  };
}

// React's act() flushes each render before the test reads the DOM.
(
  globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }
).IS_REACT_ACT_ENVIRONMENT = true;

let mounted: Widget | undefined;

function unmount(): void {
  const widget = mounted;
  if (widget) {
    act(() => widget.dispose());
    mounted = undefined;
  }
  document.body.replaceChildren();
}

afterEach(unmount);

/** Renders an element as the panel does: a ReactWidget (JupyterLab's React root), attached. */
function mount(element: React.ReactElement): HTMLElement {
  unmount();
  const widget = ReactWidget.create(element);
  act(() => Widget.attach(widget, document.body));
  mounted = widget;
  return widget.node;
}

function renderPanel(
  state: IPanelState,
  bundle = trans,
  actions: IPanelActions = noop
): HTMLElement {
  return mount(
    React.createElement(PanelContent, { state, trans: bundle, actions })
  );
}

/** The panel's content for a state; its live region says statusMessage(state). */
function render(
  state: IPanelState,
  actions: IPanelActions = noop
): HTMLElement {
  const root = renderPanel(state, trans, actions);
  expect(root.querySelectorAll('[role="status"]')).toHaveLength(1);
  expect(root.querySelector('[role="status"]')?.textContent).toBe(
    statusMessage(state, trans)
  );
  return root;
}

function renderConfirmationBody(
  targets: IConfirmationTargets,
  bundle = trans
): HTMLElement {
  return mount(
    React.createElement(ConfirmationBody, { targets, trans: bundle })
  );
}

const busy = (root: Element): string | null =>
  root.querySelector('[aria-busy]')?.getAttribute('aria-busy') ?? null;

const text = (node: Element): string =>
  (node.textContent ?? '').replace(/\s+/g, ' ');
/** The label / value rows of the description lists, label -> value text. */
function facts(root: Element): Record<string, string> {
  const out: Record<string, string> = {};
  for (const row of Array.from(root.querySelectorAll('dl > div'))) {
    out[text(row.querySelector('dt') as Element)] = text(
      row.querySelector('dd') as Element
    );
  }
  return out;
}
const buttons = (root: Element): HTMLButtonElement[] =>
  Array.from(root.querySelectorAll('button'));
const buttonLabels = (root: Element): string[] =>
  buttons(root).map(b => b.textContent ?? '');

/** Service text as the panel shows it: `quoted` commands become code elements, without the backticks. */
function unquoted(serviceText: string): string {
  return serviceText.replace(/`([^`]*)`/g, '$1');
}

describe('loading', () => {
  it('says it is checking and is busy (Refresh is in the toolbar: panel.test.ts)', () => {
    const state: IPanelState = {
      view: { kind: 'loading' },
      refreshing: false,
      initializing: false
    };
    const root = render(state);
    expect(text(root)).toContain('Checking the project setup…');
    expect(busy(root)).toBe('true');
    expect(buttonLabels(root)).toEqual([]);
    expect(statusMessage(state, trans)).toBe('Checking the project setup…');
  });
});

describe('not enabled', () => {
  const state = failing({ kind: 'not-enabled', url: URL, status: 404 });

  it('says how an operator enables the service', () => {
    const root = render(state);
    const t = text(root);
    expect(t).toContain('The Project Startup service is not enabled');
    expect(t).toContain(URL);
    expect(t).toContain('HTTP 404');
    expect(t).toContain('Install jupyter-server-proxy');
    expect(root.querySelector('code')?.textContent).toBe(
      'project-startup jupyter install --sys-prefix'
    );
    expect(t).toContain(
      'Run project-startup jupyter install --sys-prefix in that environment.'
    );
    expect(t).toContain('Restart the Jupyter server.');
    expect(t).toContain('Your administrator needs to enable Project Startup');
    expect(t).toContain('operator guide in the README');
    expect(root.querySelectorAll('ol > li')).toHaveLength(3);
    // The operator's steps are behind a disclosure; the person copies the details.
    expect(root.querySelector('details ol')).not.toBeNull();
    expect(buttonLabels(root)).toEqual(['Copy details for your administrator']);
    expect(root.querySelector('[data-who]')?.getAttribute('data-who')).toBe(
      'administrator'
    );
    expect(statusMessage(state, trans)).toBe(
      'The Project Startup service is not enabled on this Jupyter server.'
    );
  });
});

describe('failing', () => {
  it('5xx with problem details: shows detail and code, suggests Refresh and the server log', () => {
    const p = problem(
      'internal',
      'The service failed to answer. Try again; if it persists, restart the service and read its log.'
    );
    const state = failing({
      kind: 'http',
      url: URL,
      status: 500,
      statusText: 'Internal Server Error',
      problem: p
    });
    const root = render(state);
    const t = text(root);
    expect(t).toContain('Project Startup cannot start');
    expect(t).toContain('Internal error (HTTP 500).');
    expect(t).toContain(unquoted(p.detail));
    expect(t).toContain('Problem code: internal');
    expect(t).toContain('Only your administrator can fix this');
    expect(statusMessage(state, trans)).toBe(
      'The Project Startup service is failing.'
    );
  });

  it('503 misconfigured (a bad setting behind the proxy): the setting, what is wrong and the fix, at once', () => {
    const p = JSON.parse(
      JSON.stringify(
        misconfiguredProblem(
          'PROJECT_STARTUP_REQUEST_TIMEOUT_MS must be a whole number from 1000 to 300000.'
        )
      )
    );
    const state = failing({
      kind: 'http',
      url: URL,
      status: 503,
      statusText: 'Service Unavailable',
      problem: p
    });
    const root = render(state);
    const t = text(root);
    expect(t).toContain(
      'The service cannot run with its configuration (HTTP 503).'
    );
    expect(t).toContain(
      'PROJECT_STARTUP_REQUEST_TIMEOUT_MS must be a whole number from 1000 to 300000.'
    );
    expect(t).toContain(
      "For your administrator: Correct or unset PROJECT_STARTUP_REQUEST_TIMEOUT_MS in the Jupyter server's environment"
    );
    expect(t).toContain('then restart the Jupyter server.');
    expect(t).toContain('Problem code: misconfigured');
    // Its own fix, not the generic "Press Refresh" that would not help.
    expect(t).not.toContain('Press Refresh');
  });

  it('5xx without problem details: the status and URL', () => {
    const root = render(
      failing({
        kind: 'http',
        url: URL,
        status: 502,
        statusText: 'Bad Gateway'
      })
    );
    expect(text(root)).toContain(
      `The request to ${URL} failed with HTTP 502 Bad Gateway.`
    );
    expect(text(root)).toContain('Jupyter server log');
  });

  it('network error: no answer, try again', () => {
    const root = render(
      failing({ kind: 'network', url: URL, message: 'Failed to fetch' })
    );
    expect(text(root)).toContain(
      `JupyterLab got no answer from ${URL} (Failed to fetch).`
    );
    expect(text(root)).toContain('Try again in a moment');
    expect(buttonLabels(root)).toEqual([
      'Check again',
      'Copy details for your administrator'
    ]);
  });

  it('unexpected body: says a sign-in or proxy page may have answered', () => {
    const root = render(
      failing({
        kind: 'unexpected-body',
        url: URL,
        status: 200,
        contentType: 'text/html',
        reason: 'not-json'
      })
    );
    expect(text(root)).toContain(
      '(HTTP 200, text/html) is not what the service sends'
    );
  });

  it('incompatible schema: install matching versions', () => {
    const root = render(
      failing({ kind: 'incompatible', url: URL, schemaVersion: '2.0.0' })
    );
    expect(text(root)).toContain(
      'version 2.0.0 of the startup projection; this extension understands version 1.x'
    );
    expect(text(root)).toContain('Only your administrator can fix this');
  });
});

describe('failing, with the diagnostics of the server extension', () => {
  const proxy500 = {
    kind: 'http' as const,
    url: URL,
    status: 500,
    statusText: 'Internal Server Error'
  };

  it('Node missing: the problem, its detail and fix instead of a bare HTTP 500', () => {
    const report = diagnosticsReport(
      [NODE_MISSING],
      {},
      { path: null, version: null, required: '>=20' }
    );
    const state = failing({
      ...proxy500,
      diagnostics: { kind: 'report', report }
    });
    const root = render(state);
    const t = text(root);
    expect(t).toContain('Why the service cannot start');
    const item = root.querySelector(
      '[data-problem-code="node-missing"]'
    ) as HTMLElement;
    expect(item).not.toBeNull();
    expect(text(item)).toContain('Node.js was not found');
    expect(text(item)).toContain(unquoted(NODE_MISSING.detail));
    expect(text(item)).toContain(`For your administrator: ${NODE_MISSING.fix}`);
    expect(root.querySelector('pre')).toBeNull();
    expect(t).toContain(
      "The service's log is in the Jupyter server's log: the output (stderr) of jupyter server, jupyter lab or jupyter notebook."
    );
    expect(statusMessage(state, trans)).toBe(
      'The Project Startup service cannot start: Node.js was not found.'
    );
  });

  it('a setting that stops the sidecar: its own message and its last log lines', () => {
    const logTail = [
      '{"level":"info","message":"starting"}',
      `project-startup: ${PLATFORM_MESSAGE}`
    ];
    const report = diagnosticsReport([SIDECAR_FAILED], {
      state: 'failed',
      lastError: PLATFORM_MESSAGE,
      logTail
    });
    const root = render(
      failing({ ...proxy500, diagnostics: { kind: 'report', report } })
    );
    const item = root.querySelector(
      '[data-problem-code="sidecar-failed"]'
    ) as HTMLElement;
    expect(text(item)).toContain('The Project Startup service could not start');
    expect(text(item)).toContain(PLATFORM_MESSAGE);
    expect(text(root)).toContain("The service's last log lines:");
    // Log lines are shown as text, never as markup.
    expect(root.querySelector('pre')?.textContent).toBe(logTail.join('\n'));
  });

  it('several problems: each one listed', () => {
    const report = diagnosticsReport([SERVER_PROXY_MISSING, NODE_MISSING]);
    const root = render(
      failing({
        kind: 'network',
        url: URL,
        message: 'Failed to fetch',
        diagnostics: { kind: 'report', report }
      })
    );
    expect(
      Array.from(root.querySelectorAll('[data-problem-code]')).map(n =>
        n.getAttribute('data-problem-code')
      )
    ).toEqual(['server-proxy-missing', 'node-missing']);
    expect(text(root)).toContain(
      `JupyterLab got no answer from ${URL} (Failed to fetch).`
    );
  });

  it('no diagnostics route (npm-only install): says they are unavailable and where the log is', () => {
    const root = render(
      failing({
        ...proxy500,
        diagnostics: { kind: 'unavailable', url: DIAGNOSTICS_URL, status: 404 }
      })
    );
    const t = text(root);
    expect(t).toContain(
      `The request to ${URL} failed with HTTP 500 Internal Server Error.`
    );
    expect(t).toContain(
      `Diagnostics are unavailable: ${DIAGNOSTICS_URL} answered HTTP 404, so the server extension of jupyterlab-project-startup is not installed on this Jupyter server (as with an npm-only install).`
    );
    expect(t).toContain(
      'the output (stderr) of jupyter server, jupyter lab or jupyter notebook'
    );
    expect(
      Array.from(root.querySelectorAll('code')).map(c => c.textContent)
    ).toEqual(['jupyter server', 'jupyter lab', 'jupyter notebook']);
  });

  it('diagnostics that failed too, and a report with no problem: said plainly', () => {
    const failed = render(
      failing({
        ...proxy500,
        diagnostics: {
          kind: 'failed',
          url: DIAGNOSTICS_URL,
          reason: 'HTTP 403'
        }
      })
    );
    expect(text(failed)).toContain(
      `The diagnostics could not be read either (${DIAGNOSTICS_URL}: HTTP 403).`
    );
    const fine = render(
      failing({
        ...proxy500,
        diagnostics: {
          kind: 'report',
          report: diagnosticsReport([], { state: 'running' })
        }
      })
    );
    expect(text(fine)).toContain(
      'The server extension found nothing wrong: Node.js 20.20.2, jupyter-server-proxy 4.4.0, service running.'
    );
  });

  it('not enabled, with the report: jupyter-server-proxy is missing, and how to install it', () => {
    const report = diagnosticsReport([SERVER_PROXY_MISSING]);
    const root = render(
      failing({
        kind: 'not-enabled',
        url: URL,
        status: 404,
        diagnostics: { kind: 'report', report }
      })
    );
    const item = root.querySelector(
      '[data-problem-code="server-proxy-missing"]'
    ) as HTMLElement;
    expect(text(item)).toContain("pip install 'jupyter-server-proxy>=4.1'");
    expect(text(root)).toContain('The Project Startup service is not enabled');
  });

  it('a failed initialize behind a 500: the alert carries the diagnostics', () => {
    const projection = projectionFor(genericPlatform);
    const report = diagnosticsReport([SIDECAR_FAILED], {
      state: 'failed',
      lastError: PLATFORM_MESSAGE
    });
    const root = render(
      loaded(projection, {
        initializeFailure: {
          ...proxy500,
          diagnostics: { kind: 'report', report }
        }
      })
    );
    const alert = root.querySelector('[role="alert"]') as HTMLElement;
    expect(text(alert)).toContain('Initialization failed');
    expect(text(alert)).toContain(PLATFORM_MESSAGE);
  });

  it('every visible string is translated or comes from the diagnostics report', () => {
    const { trans: recording, outputs } = recordingTrans();
    const report = diagnosticsReport([SIDECAR_FAILED, NODE_MISSING], {
      state: 'failed',
      lastError: PLATFORM_MESSAGE,
      logTail: ['line one', 'line two']
    });
    const root = renderPanel(
      failing({ ...proxy500, diagnostics: { kind: 'report', report } }),
      recording
    );
    const fromService = stringLeaves(report);
    fromService.add(report.sidecar.logTail.join('\n'));
    // Sentences with code inside are translated whole, then split around the code elements.
    const pieces = new Set(
      outputs.flatMap(o => o.split('\u0001').map(piece => piece.trim()))
    );
    const commands = ['jupyter server', 'jupyter lab', 'jupyter notebook'];
    const untranslated = textNodes(root).filter(
      t => !pieces.has(t) && !fromService.has(t) && !commands.includes(t)
    );
    expect(untranslated).toEqual([]);
  });
});

describe('phases', () => {
  /** The first screen: the state in words, the one button and who must act. */
  function hero(root: Element): {
    heading: string;
    who: string | null;
    buttons: string[];
  } {
    const section = root.querySelector('.jp-ProjectStartup-state') as Element;
    return {
      heading: text(section.querySelector('h3') as Element),
      who:
        section.querySelector('[data-who]')?.getAttribute('data-who') ?? null,
      buttons: buttonLabels(section)
    };
  }

  it('awaiting confirmation: the state in words, Initialize project, the person acts; the rest in closed disclosures', () => {
    const projection = projectionFor(genericPlatform);
    const root = render(loaded(projection));
    const t = text(root);
    expect(hero(root)).toEqual({
      heading: 'Set up this project',
      who: 'user',
      buttons: ['Initialize project']
    });
    expect(t).toContain('You can use this notebook.');
    expect(buttonLabels(root)).toEqual(['Initialize project']);
    // Everything else one click away, each heading once, all closed at first.
    const disclosures = Array.from(root.querySelectorAll('details'));
    expect(
      disclosures.map(d => text(d.querySelector('summary') as Element))
    ).toEqual([
      'Readiness checks',
      'This project',
      'What this platform offers'
    ]);
    expect(disclosures.every(d => !d.open)).toBe(true);
    const headings = Array.from(
      root.querySelectorAll('h2, h3, h4, caption')
    ).map(text);
    expect(new Set(headings).size).toBe(headings.length);
    // No spec vocabulary on the first screen.
    const first = text(
      root.querySelector('.jp-ProjectStartup-state') as Element
    );
    expect(first).not.toMatch(
      /ingress|boundary|evidence|Notebook is supported/i
    );
    expect(facts(root)).toMatchObject({
      Platform: 'Workstation or container',
      'Project folder': PROJECT,
      'Private setup folder': `${PROJECT}/.project-startup`
    });
    expect(statusMessage(loaded(projection), trans)).toBe(
      'Setup phase: Awaiting confirmation.'
    );
  });

  it('unsupported interface: which interfaces work and how to reach them; nothing to press', () => {
    const projection = projectionFor(clusterPlatform);
    const root = render(loaded(projection));
    expect(hero(root)).toEqual({
      heading: 'Set this project up in another way',
      who: 'user',
      buttons: []
    });
    expect(buttonLabels(root)).not.toContain('Initialize project');
    const items = Array.from(
      root.querySelectorAll('.jp-ProjectStartup-interfaces li')
    ).map(text);
    expect(items).toEqual([
      'in a terminal: Run project-startup status in a terminal.'
    ]);
    // The command the service quotes in backticks is shown as code, not with literal backticks.
    expect(
      Array.from(
        root.querySelectorAll('.jp-ProjectStartup-interfaces li code')
      ).map(text)
    ).toEqual(['project-startup status']);
  });

  it("ready: set up, when in the reader's locale (JupyterLab's Time helpers); no button", () => {
    const projection = projectionFor(genericPlatform, { state: 'initialized' });
    const root = render(loaded(projection));
    expect(hero(root)).toEqual({
      heading: 'Your project is set up',
      who: null,
      buttons: []
    });
    const time = root.querySelector('.jp-ProjectStartup-state time') as Element;
    expect(time.getAttribute('dateTime')).toBe('2025-05-01T09:30:00.000Z');
    expect(time.textContent).toBe(Time.formatHuman('2025-05-01T09:30:00.000Z'));
    expect(time.getAttribute('title')).toBe(
      Time.format('2025-05-01T09:30:00.000Z')
    );
    const first = text(
      root.querySelector('.jp-ProjectStartup-state') as Element
    );
    expect(first).not.toContain('2025-05-01T09:30:00.000Z');
    expect(first).toContain(
      `Set up in JupyterLab or a notebook (${Time.formatHuman('2025-05-01T09:30:00.000Z')}).`
    );
    expect(buttonLabels(root)).toEqual([]);
  });

  it("blocked by the person's own fix: the check, its fix, Check again; highlighted in the table", () => {
    const projection = projectionFor(genericPlatform, { state: 'unsafe' });
    const actions = { ...noop, refresh: jest.fn() };
    const root = render(loaded(projection), actions);
    expect(hero(root)).toEqual({
      heading: 'Setup is blocked',
      who: 'user',
      buttons: ['Check again']
    });
    const t = text(root.querySelector('.jp-ProjectStartup-state') as Element);
    expect(t).toContain('Private state location');
    expect(t).toContain('To fix it:');
    expect(t).toContain('move it aside');
    const row = root.querySelector('tr[data-check-id="state-path"]');
    expect(row?.classList.contains('jp-mod-highlight')).toBe(true);
    act(() => buttons(root)[0].click());
    expect(actions.refresh).toHaveBeenCalledTimes(1);
  });

  it('blocked by an administrator\'s fix: never the person\'s task; "Your administrator needs to …" and the report to copy', () => {
    const projection =
      PHASE_CASES['blocked (administrator: no approved storage)']();
    const actions = { ...noop, copyReport: jest.fn() };
    const root = render(loaded(projection), actions);
    expect(hero(root)).toEqual({
      heading: 'Setup is blocked',
      who: 'administrator',
      buttons: ['Copy details for your administrator']
    });
    const t = text(root.querySelector('.jp-ProjectStartup-state') as Element);
    expect(t).toContain(
      'Your administrator needs to fix “Approved project storage”'
    );
    // The administrator's remedy (a setting) is not shown as the person's task.
    expect(t).not.toContain('PROJECT_STARTUP_APPROVED_STORAGE');
    expect(t).not.toContain('To fix it:');
    act(() => buttons(root)[0].click());
    expect(actions.copyReport).toHaveBeenCalledTimes(1);
  });

  it('a warning only the administrator can fix: one line, "Your administrator needs to fix this.", and the report', () => {
    const projection = projectionFor(genericPlatform, { brokenRuntime: true });
    const root = render(loaded(projection));
    const item = root.querySelector(
      '.jp-ProjectStartup-problems [data-check-id="inference-runtimes"]'
    ) as Element;
    expect(item.getAttribute('data-who')).toBe('administrator');
    expect(text(item)).toContain('Your administrator needs to fix this.');
    expect(text(item)).not.toContain('PROJECT_STARTUP_');
    expect(buttonLabels(root)).toContain('Copy details for your administrator');
  });

  it('what the site did not set up is no problem: an ordinary laptop shows none', () => {
    const root = render(loaded(projectionFor(genericPlatform)));
    expect(root.querySelector('.jp-ProjectStartup-problems')).toBeNull();
  });

  it('needs compute: the scheduler command, Copy command, the person acts', () => {
    const projection = projectionFor(clusterWithNotebooks);
    const actions = { ...noop, copyText: jest.fn() };
    const root = render(loaded(projection), actions);
    expect(hero(root)).toEqual({
      heading: 'This project needs compute',
      who: 'user',
      buttons: ['Copy command']
    });
    const codes = Array.from(
      root.querySelectorAll('.jp-ProjectStartup-state code')
    ).map(c => c.textContent);
    expect(codes).toContain('salloc --nodes=1 --time=01:00:00');
    act(() => buttons(root)[0].click());
    expect(actions.copyText).toHaveBeenCalledWith(
      'salloc --nodes=1 --time=01:00:00'
    );
  });

  test.each(Object.entries(PHASE_CASES))(
    '%s: every readiness check in a table with status, title, observed and remedy',
    (_n, make) => {
      const projection = make();
      const root = render(loaded(projection));
      const table = root.querySelector(
        'details[data-disclosure="checks"] table'
      ) as HTMLTableElement;
      expect(
        Array.from(table.querySelectorAll('thead th')).map(th => [
          th.textContent,
          th.getAttribute('scope')
        ])
      ).toEqual([
        ['Status', 'col'],
        ['Check', 'col'],
        ['Observed', 'col'],
        ['Remedy', 'col']
      ]);
      const rows = Array.from(table.querySelectorAll('tbody tr'));
      expect(rows.map(r => r.getAttribute('data-check-id'))).toEqual(
        projection.readinessChecks.map(c => c.id)
      );
      rows.forEach((row, i) => {
        const check = projection.readinessChecks[i];
        const label = {
          pass: 'Pass',
          warn: 'Warning',
          fail: 'Fail',
          skip: 'Skipped'
        }[check.status];
        expect(row.children[0].textContent).toBe(label);
        expect(row.children[1].tagName).toBe('TH');
        expect(row.children[1].getAttribute('scope')).toBe('row');
        expect(row.children[1].textContent).toContain(check.title);
        expect(row.children[2].textContent).toBe(unquoted(check.observed));
        expect(row.children[3].textContent).toBe(
          check.remedy
            ? `${check.remedyBy === 'administrator' ? 'For your administrator: ' : ''}${unquoted(check.remedy)}`
            : '—'
        );
      });
    }
  );

  test.each(Object.entries(PHASE_CASES))(
    '%s: this project (folders, compute, what setup creates) is in its disclosure',
    (_n, make) => {
      const projection = make();
      const root = render(loaded(projection));
      const details = root.querySelector(
        'details[data-disclosure="project"]'
      ) as Element;
      expect(text(details)).toContain(projection.compute.label);
      expect(text(details)).toContain(unquoted(projection.compute.detail));
      for (const p of projection.confirmation.creates) {
        expect(text(details)).toContain(p);
      }
    }
  );

  test.each(Object.entries(PHASE_CASES))(
    '%s: every visible string is translated or comes from the service',
    (_n, make) => {
      const projection = make();
      const { trans: recording, outputs } = recordingTrans();
      const state = loaded(projection);
      const root = renderPanel(state, recording);
      const fromService = stringLeaves(projection);
      // Times are JupyterLab's (Time.formatHuman, in the reader's locale).
      const times = new Set(
        Array.from(root.querySelectorAll('time')).map(t => t.textContent)
      );
      const foreign = textNodes(root).filter(
        t =>
          !fromService.has(t) &&
          !times.has(t) &&
          !outputs.some(o => o.includes(t)) &&
          !/^[\s:—,().]*$/.test(t)
      );
      expect(foreign).toEqual([]);
      expect(outputs).toContain(statusMessage(state, recording));
    }
  );
});

describe('initialize feedback', () => {
  const projection = projectionFor(genericPlatform);

  it('while initializing: the button is disabled and the status says so', () => {
    const state = loaded(projection, { initializing: true });
    const root = render(state);
    const init = buttons(root).find(
      b => b.textContent === 'Initialize project'
    ) as HTMLButtonElement;
    expect(init.disabled).toBe(true);
    expect(busy(root)).toBe('true');
    expect(statusMessage(state, trans)).toBe('Initializing the project…');
  });

  it('a failed initialize (409 stale): an alert with the problem; the panel stays usable', () => {
    const p = problem(
      'confirmation-stale',
      'The confirmed paths differ from the ones the service shows now. Reload the startup projection and confirm again.',
      {
        current: {
          projectPath: PROJECT,
          statePath: `${PROJECT}/.project-startup`
        }
      }
    );
    const state = loaded(projection, {
      initializeFailure: {
        kind: 'http',
        url: URL,
        status: 409,
        statusText: 'Conflict',
        problem: p
      }
    });
    const root = render(state);
    const alert = root.querySelector('[role="alert"]') as Element;
    expect(text(alert)).toContain('Initialization failed');
    expect(text(alert)).toContain(unquoted(p.detail));
    expect(text(alert)).toContain('Problem code: confirmation-stale');
    expect(text(alert)).toContain('check them and initialize again');
    const init = buttons(root).find(
      b => b.textContent === 'Initialize project'
    ) as HTMLButtonElement;
    expect(init.disabled).toBe(false);
    expect(statusMessage(state, trans)).toBe(
      'Initialization failed. Setup phase: Awaiting confirmation.'
    );
  });

  it('a failed initialize (403 not allowed, wrong phase with its next action)', () => {
    const p = problem(
      'wrong-phase',
      'Initialization needs phase awaiting-confirmation; the project is in phase blocked.',
      {
        phase: 'blocked',
        nextAction: {
          id: 'fix-check',
          title: 'Fix: Project directory',
          detail: 'Create it.',
          checkId: 'project-path'
        }
      }
    );
    const root = render(
      loaded(projection, {
        initializeFailure: {
          kind: 'http',
          url: URL,
          status: 409,
          statusText: '',
          problem: p
        }
      })
    );
    const alert = root.querySelector('[role="alert"]') as Element;
    expect(text(alert)).toContain(
      'Next action from the service: Fix: Project directory'
    );
    expect(text(alert)).toContain('follow the next action below');
    const refused = problem('confirmation-not-allowed', 'Not from here.');
    const root2 = render(
      loaded(projection, {
        initializeFailure: {
          kind: 'http',
          url: URL,
          status: 403,
          statusText: '',
          problem: refused
        }
      })
    );
    expect(text(root2.querySelector('[role="alert"]') as Element)).toContain(
      'another interface'
    );
  });

  it('a failed initialize because the service is gone: how to enable it', () => {
    const root = render(
      loaded(projection, {
        initializeFailure: { kind: 'not-enabled', url: URL, status: 404 }
      })
    );
    const alert = root.querySelector('[role="alert"]') as Element;
    expect(text(alert)).toContain(
      'project-startup jupyter install --sys-prefix'
    );
  });

  it('after initialize: the success notice and the new phase', () => {
    const ready = projectionFor(genericPlatform, { state: 'initialized' });
    const state = loaded(ready, { initialized: initializeAnswer(projection) });
    const root = render(state);
    expect(text(root)).toContain(
      `Project initialized: ${PROJECT}/.project-startup was created.`
    );
    expect(statusMessage(state, trans)).toBe(
      'Project initialized. Setup phase: Ready.'
    );
  });
});

describe('keyboard and ARIA', () => {
  test.each(Object.entries(PHASE_CASES))(
    '%s: real buttons, labelled sections, a heading to land on',
    (_n, make) => {
      const root = render(loaded(make()));
      for (const b of buttons(root)) {
        expect(b.getAttribute('type')).toBe('button');
        expect(b.tabIndex).toBe(0);
      }
      for (const s of Array.from(
        root.querySelectorAll('section[aria-labelledby]')
      )) {
        const heading = document.getElementById(
          s.getAttribute('aria-labelledby') as string
        );
        expect(heading?.tagName).toBe('H3');
      }
      expect(root.querySelector('h2')?.getAttribute('tabindex')).toBe('-1');
      // The phase's action is @jupyterlab/ui-components' Button (Refresh, the toolbar's, comes first: panel.test.ts).
      for (const b of buttons(root)) {
        expect(b.classList.contains('jp-Button')).toBe(true);
      }
    }
  );

  it('the Initialize project button calls its action', () => {
    const actions = {
      refresh: jest.fn(),
      initialize: jest.fn(),
      copyReport: jest.fn(),
      copyText: jest.fn()
    };
    const root = render(loaded(projectionFor(genericPlatform)), actions);
    act(() => buttons(root).forEach(b => b.click()));
    expect(actions.refresh).not.toHaveBeenCalled();
    expect(actions.initialize).toHaveBeenCalledTimes(1);
  });

  it('a disabled button does nothing', () => {
    const actions = {
      refresh: jest.fn(),
      initialize: jest.fn(),
      copyReport: jest.fn(),
      copyText: jest.fn()
    };
    const root = render(
      loaded(projectionFor(genericPlatform), { initializing: true }),
      actions
    );
    (
      buttons(root).find(
        b => b.textContent === 'Initialize project'
      ) as HTMLButtonElement
    ).click();
    expect(actions.initialize).not.toHaveBeenCalled();
  });
});

describe('what this platform offers: the whole manifest', () => {
  const manifestOf = (projection: StartupProjection) =>
    projection.manifest as NonNullable<StartupProjection['manifest']>;
  const offers = (root: Element): Element =>
    root.querySelector('.jp-ProjectStartup-offers') as Element;

  test.each(Object.entries(PHASE_CASES))(
    '%s: every capability row with its values, in a table with headers',
    (_n, make) => {
      const projection = make();
      const manifest = manifestOf(projection);
      const root = render(loaded(projection));
      const section = offers(root);
      expect(
        section.closest('details')?.querySelector('summary')?.textContent
      ).toBe('What this platform offers');
      const table = section.querySelector(
        'table.jp-ProjectStartup-capabilities'
      ) as HTMLTableElement;
      expect(table.querySelector('caption')?.textContent).toBe(
        `Capabilities of the ${manifest.platform.label}`
      );
      expect(
        Array.from(table.querySelectorAll('thead th')).map(th => [
          th.textContent,
          th.getAttribute('scope')
        ])
      ).toEqual([
        ['Capability', 'col'],
        ['Offered', 'col']
      ]);
      const rows = Array.from(table.querySelectorAll('tbody tr'));
      // The model sources and the boundary have their own tables: each named once.
      const listed = manifest.capabilities.filter(
        c => c.id !== 'model-sources' && c.id !== 'model-credential-boundary'
      );
      expect(rows.map(r => r.getAttribute('data-capability-id'))).toEqual([
        'low-risk-automation-policy',
        ...listed.map(c => c.id)
      ]);
      expect(text(rows[0])).toBe(
        `Low-risk automation${manifest.policy.lowRiskAutomation === 'permitted' ? 'Permitted by platform policy' : 'Not permitted by platform policy'}`
      );
      listed.forEach((capability, i) => {
        const row = rows[i + 1];
        expect(row.children[0].tagName).toBe('TH');
        expect(row.children[0].getAttribute('scope')).toBe('row');
        expect(row.children[0].textContent).toBe(capability.label);
        const fallback =
          'default' in capability ? capability.default : undefined;
        expect(
          Array.from(row.querySelectorAll('td li')).map(li => li.textContent)
        ).toEqual(
          capability.values.map(v =>
            v.id === fallback ? `${v.label} (default)` : v.label
          )
        );
      });
    }
  );

  test.each(Object.entries(PHASE_CASES))(
    "%s: each model source, secret-backed or not, with its approval modes by the service's labels",
    (_n, make) => {
      const projection = make();
      const sources = manifestOf(projection).capabilities.find(
        c => c.id === 'model-sources'
      );
      if (sources?.id !== 'model-sources') {
        throw new Error('the manifest has no model sources');
      }
      const root = render(loaded(projection));
      const table = offers(root).querySelector(
        'table.jp-ProjectStartup-modelSources'
      ) as HTMLTableElement;
      expect(table.querySelector('caption')?.textContent).toBe(sources.label);
      expect(
        Array.from(table.querySelectorAll('thead th')).map(th => [
          th.textContent,
          th.getAttribute('scope')
        ])
      ).toEqual([
        ['Model source', 'col'],
        ['Secret-backed', 'col'],
        ['Approval modes', 'col']
      ]);
      const rows = Array.from(table.querySelectorAll('tbody tr'));
      expect(rows.map(r => r.getAttribute('data-source-id'))).toEqual(
        sources.values.map(v => v.id)
      );
      sources.values.forEach((source, i) => {
        const cells = rows[i].children;
        expect([
          cells[0].tagName,
          cells[0].getAttribute('scope'),
          cells[0].textContent
        ]).toEqual(['TH', 'row', source.label]);
        expect(cells[1].textContent).toBe(source.secretBacked ? 'Yes' : 'No');
        // The same words the service, the setup page and the command line use.
        expect(cells[2].textContent).toBe(
          (source.approvalModeLabels ?? []).join(', ')
        );
      });
    }
  );

  it('the generic platform permits Low-Risk Automation for service-managed inference only; the cluster denies it', () => {
    const approval = (root: Element, id: string): string =>
      text(
        root.querySelector(
          `.jp-ProjectStartup-modelSources tr[data-source-id="${id}"] td:last-child`
        ) as Element
      );
    const generic = render(loaded(projectionFor(genericPlatform)));
    expect(approval(generic, 'service-managed')).toBe(
      'Review Every Action, Low-Risk Automation'
    );
    expect(approval(generic, 'vendor-api-a')).toBe('Review Every Action');
    expect(
      text(
        generic.querySelector('tr[data-source-id="vendor-api-a"] td') as Element
      )
    ).toBe('Yes');
    expect(
      text(
        generic.querySelector(
          'tr[data-source-id="service-managed"] td'
        ) as Element
      )
    ).toBe('No');
    const cluster = render(loaded(projectionFor(clusterPlatform)));
    expect(approval(cluster, 'service-managed')).toBe('Review Every Action');
    expect(
      text(
        cluster.querySelector(
          'tr[data-capability-id="low-risk-automation-policy"] td'
        ) as Element
      )
    ).toBe('Not permitted by platform policy');
  });

  test.each(Object.entries(PHASE_CASES))(
    '%s: both sentences of the credential boundary',
    (_n, make) => {
      const projection = make();
      const boundary = manifestOf(projection).capabilities.find(
        c => c.id === 'model-credential-boundary'
      );
      if (boundary?.id !== 'model-credential-boundary') {
        throw new Error('the manifest has no credential boundary');
      }
      const root = render(loaded(projection));
      const view = offers(root).querySelector(
        '.jp-ProjectStartup-boundary'
      ) as Element;
      expect(view.querySelector('h4')?.textContent).toBe(boundary.label);
      const [value] = boundary.values;
      expect(
        view.querySelector('.jp-ProjectStartup-boundaryExcludes')?.textContent
      ).toBe(value.excludes);
      expect(
        view.querySelector('.jp-ProjectStartup-boundaryDoesNotIsolate')
          ?.textContent
      ).toBe(value.doesNotIsolate);
      expect(value.excludes).toBe(
        'Provider credentials are kept out of supported tools and out of every persisted or interface state.'
      );
      expect(value.doesNotIsolate).toBe(
        'It does not isolate an in-process agent tool from the model client.'
      );
    }
  );

  it("translated through the bundle: headers, yes/no and the approval modes in the person's language", () => {
    const french: ITranslationBundle = {
      __: (msgid: string, ...args: (string | number)[]) =>
        `fr:${msgid.replace(/%(\d+)/g, (_m, n: string) => String(args[Number(n) - 1]))}`
    };
    const root = renderPanel(loaded(projectionFor(genericPlatform)), french);
    const sources = root.querySelector(
      '.jp-ProjectStartup-modelSources'
    ) as Element;
    expect(
      Array.from(sources.querySelectorAll('thead th')).map(th => th.textContent)
    ).toEqual(['fr:Model source', 'fr:Secret-backed', 'fr:Approval modes']);
    expect(
      text(
        sources.querySelector('tr[data-source-id="service-managed"]') as Element
      )
    ).toBe(
      'Service-managedfr:Nofr:Review Every Action, fr:Low-Risk Automation'
    );
    expect(
      text(
        root.querySelector('details[data-disclosure="offers"] h3') as Element
      )
    ).toBe('fr:What this platform offers');
  });

  it('a mode a newer service adds: shown by the label it sends', () => {
    const projection = projectionFor(genericPlatform);
    const manifest = JSON.parse(JSON.stringify(projection.manifest));
    const sources = manifest.capabilities.find(
      (c: { id: string }) => c.id === 'model-sources'
    );
    sources.values[0].approvalModes.push('ask-the-oracle');
    sources.values[0].approvalModeLabels.push('Ask The Oracle');
    const root = render(loaded({ ...projection, manifest }));
    expect(
      text(
        root.querySelector(
          `tr[data-source-id="${sources.values[0].id}"] td:last-child`
        ) as Element
      )
    ).toMatch(/, Ask The Oracle$/);
  });

  it('without a manifest (an older answer): no section, the rest as before', () => {
    const projection = projectionFor(genericPlatform);
    const root = render(
      loaded({
        ...projection,
        manifest: undefined
      } as unknown as StartupProjection)
    );
    expect(offers(root)).toBeNull();
    expect(facts(root)['Platform']).toBe('generic');
  });
});

describe('the confirmation dialog body', () => {
  it('names the project and every path that will be created, the record file last', () => {
    const projection = projectionFor(hostedNotebookPlatform);
    const body = renderConfirmationBody(confirmationTargets(projection), trans);
    const t = text(body);
    expect(t).toContain('Initialize the project in this directory?');
    expect(t).toContain(PROJECT);
    const listed = Array.from(body.querySelectorAll('li code')).map(
      c => c.textContent
    );
    expect(listed).toEqual([
      `${HOME}/.project-startup`,
      `${HOME}/.project-startup/projects`,
      projection.statePath,
      `${projection.statePath}/initialization.json`
    ]);
    expect(t).toContain('Nothing is created if you cancel.');
  });

  it('every visible string is translated or a path', () => {
    const projection = projectionFor(genericPlatform);
    const targets = confirmationTargets(projection);
    const { trans: recording, outputs } = recordingTrans();
    const body = renderConfirmationBody(targets, recording);
    const paths = new Set([targets.projectPath, ...targets.creates]);
    expect(
      textNodes(body).filter(t => !paths.has(t) && !outputs.includes(t))
    ).toEqual([]);
  });
});
