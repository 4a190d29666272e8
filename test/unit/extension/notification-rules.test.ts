// The pure decision of src/notification-rules.ts over the states the service really produces (the
// sidecar's own projections, fixtures.ts) and every failure the client reports: which state
// opens the panel, which notifies (kind, severity, problem and fix), and that the toast text
// always fits JupyterLab's 140 characters with the fix kept.
import * as fc from 'fast-check';
import { misconfiguredProblem } from '../../../sidecar/src/http/misconfigured';
import { genericPlatform } from '../../../sidecar/src/core/platforms/generic';
import { clusterPlatform } from '../../../sidecar/src/core/platforms/cluster';
import { checkServiceToken } from '../../../sidecar/src/config/config';
import { IPanelState } from '../../../src/model';
import {
  fitMessage,
  MESSAGE_LIMIT,
  notificationFor,
  INotificationDecision,
  shorten,
  shouldOpenPanel
} from '../../../src/notification-rules';
import { Diagnostics, Failure, StartupProjection } from '../../../src/tokens';
import {
  diagnosticsReport,
  NODE_MISSING,
  PHASE_CASES,
  PLATFORM_MESSAGE,
  problem,
  projectionFor,
  recordingTrans,
  SERVER_PROXY_MISSING,
  SIDECAR_FAILED,
  trans
} from './fixtures';

const URL =
  'http://localhost:8888/user/alice/project/startup?interface=notebook';

function loaded(projection: StartupProjection): IPanelState {
  return {
    view: { kind: 'loaded', projection },
    refreshing: false,
    initializing: false
  };
}

function failed(failure: Failure): IPanelState {
  const kind = failure.kind === 'not-enabled' ? 'not-enabled' : 'failing';
  return { view: { kind, failure }, refreshing: false, initializing: false };
}

function report(
  ...problems: Parameters<typeof diagnosticsReport>[0]
): Diagnostics {
  return { kind: 'report', report: diagnosticsReport(problems) };
}

/** Awaiting a confirmation only a terminal prompt may give (a platform like the cluster's that offered notebooks). */
function confirmedInTerminal(): StartupProjection {
  const projection = projectionFor(genericPlatform);
  return {
    ...projection,
    nextAction: { ...projection.nextAction, command: 'project-startup init' },
    confirmation: {
      ...projection.confirmation,
      allowedInterfaces: ['terminal'],
      method: 'terminal-prompt',
      detail: 'Confirm at the interactive prompt of `project-startup init`.'
    }
  };
}

function expectFits(d: INotificationDecision | null): INotificationDecision {
  expect(d).not.toBeNull();
  const decision = d as INotificationDecision;
  expect(decision.message.length).toBeLessThanOrEqual(MESSAGE_LIMIT);
  const [problemLine, fixLine, ...rest] = decision.message.split('\n');
  expect(rest).toEqual([]);
  expect(problemLine.length).toBeGreaterThan(20);
  expect(fixLine.length).toBeGreaterThan(20);
  return decision;
}

describe('the panel opens by itself only where the person can act in it', () => {
  it('awaiting confirmation through this interface, with the setting on', () => {
    for (const make of [
      PHASE_CASES['awaiting-confirmation'],
      PHASE_CASES['awaiting-confirmation (hosted, parents created)']
    ]) {
      expect(shouldOpenPanel(loaded(make()), true)).toBe(true);
      expect(shouldOpenPanel(loaded(make()), false)).toBe(false);
      // ... and then nothing notifies: the panel is the notice.
      expect(notificationFor(loaded(make()), trans)).toBeNull();
    }
  });

  it('never in any other state', () => {
    const others: IPanelState[] = [
      { view: { kind: 'loading' }, refreshing: true, initializing: false },
      ...(
        [
          'ready',
          'blocked',
          'blocked (missing project directory)',
          'unsupported-interface',
          'needs-compute'
        ] as const
      ).map(name => loaded(PHASE_CASES[name]())),
      loaded(confirmedInTerminal()),
      failed({ kind: 'not-enabled', url: URL, status: 404 }),
      failed({ kind: 'network', url: URL, message: 'Failed to fetch' })
    ];
    for (const state of others) {
      expect(shouldOpenPanel(state, true)).toBe(false);
    }
  });

  it('loading and ready notify nothing', () => {
    expect(
      notificationFor(
        { view: { kind: 'loading' }, refreshing: true, initializing: false },
        trans
      )
    ).toBeNull();
    expect(notificationFor(loaded(PHASE_CASES.ready()), trans)).toBeNull();
  });
});

describe('a notification per state, with the fix', () => {
  it('not enabled: a warning that says whose step it is (the administrator), not the command', () => {
    const d = expectFits(
      notificationFor(
        failed({ kind: 'not-enabled', url: URL, status: 404 }),
        trans
      )
    );
    expect(d).toMatchObject({ kind: 'not-enabled', type: 'warning' });
    expect(d.message).toBe(
      'Project Startup is not enabled on this Jupyter server.\nYour administrator needs to enable it on this Jupyter server.'
    );
  });

  it("not enabled because jupyter-server-proxy is missing (diagnostics): the cause, and that it is the administrator's fix", () => {
    const d = expectFits(
      notificationFor(
        failed({
          kind: 'not-enabled',
          url: URL,
          status: 404,
          diagnostics: report(SERVER_PROXY_MISSING)
        }),
        trans
      )
    );
    expect(d).toMatchObject({ kind: 'not-enabled', type: 'error' });
    expect(d.problem).toBe(
      'Project Startup cannot start: jupyter-server-proxy is not installed.'
    );
    expect(d.message.split('\n')[1]).toBe(
      'Your administrator needs to fix this.'
    );
  });

  it('the service cannot start (diagnostics): its own message is the cause, shortened to fit, and the fix stays', () => {
    const d = expectFits(
      notificationFor(
        failed({
          kind: 'http',
          url: URL,
          status: 500,
          statusText: 'Internal Server Error',
          diagnostics: report(SIDECAR_FAILED)
        }),
        trans
      )
    );
    expect(d).toMatchObject({ kind: 'failing', type: 'error' });
    expect(d.problem).toBe(`Project Startup cannot start: ${PLATFORM_MESSAGE}`);
    const [problemLine, fixLine] = d.message.split('\n');
    expect(
      problemLine.startsWith(
        'Project Startup cannot start: PROJECT_STARTUP_PLATFORM must be one of'
      )
    ).toBe(true);
    expect(problemLine.endsWith('…')).toBe(true);
    expect(fixLine).toBe('Your administrator needs to fix this.');
  });

  it("Node.js missing (diagnostics): the title is the cause; installing Node is the administrator's job, not the person's", () => {
    const d = expectFits(
      notificationFor(
        failed({
          kind: 'network',
          url: URL,
          message: 'Bad Gateway',
          diagnostics: report(NODE_MISSING)
        }),
        trans
      )
    );
    expect(d.problem).toBe(
      'Project Startup cannot start: Node.js was not found.'
    );
    expect(d.fix).toBe('Your administrator needs to fix this.');
    expect(d.message).not.toMatch(/Install Node/);
  });

  it('failing without diagnostics: errors that say where the cause is', () => {
    const cases: Failure[] = [
      { kind: 'network', url: URL, message: 'Failed to fetch' },
      { kind: 'http', url: URL, status: 502, statusText: 'Bad Gateway' },
      {
        kind: 'http',
        url: URL,
        status: 500,
        statusText: 'Internal Server Error',
        diagnostics: { kind: 'unavailable', url: URL, status: 404 }
      },
      {
        kind: 'http',
        url: URL,
        status: 429,
        statusText: 'Too Many Requests',
        problem: problem(
          'rate-limited',
          'Too many requests; try again in 60 s.'
        )
      },
      {
        kind: 'unexpected-body',
        url: URL,
        status: 200,
        contentType: 'text/html',
        reason: 'a login page'
      }
    ];
    for (const failure of cases) {
      const d = expectFits(notificationFor(failed(failure), trans));
      expect(d).toMatchObject({ kind: 'failing', type: 'error' });
    }
    expect(notificationFor(failed(cases[1]), trans)?.message).toBe(
      "The Project Startup service failed (HTTP 502).\nYour administrator can find the cause in the Jupyter server's log."
    );
    expect(notificationFor(failed(cases[3]), trans)?.problem).toBe(
      'The Project Startup service failed: Too many requests; try again in 60 s.'
    );
  });

  it('503 misconfigured: the cause as the service says it, as for a sidecar-failed report', () => {
    const d = expectFits(
      notificationFor(
        failed({
          kind: 'http',
          url: URL,
          status: 503,
          statusText: 'Service Unavailable',
          problem: JSON.parse(
            JSON.stringify(
              misconfiguredProblem(
                'PROJECT_STARTUP_LOG_LEVEL must be one of error, warn, info, debug.'
              )
            )
          )
        }),
        trans
      )
    );
    expect(d).toMatchObject({ kind: 'failing', type: 'error' });
    expect(d.problem).toBe(
      'Project Startup cannot start: PROJECT_STARTUP_LOG_LEVEL must be one of error, warn, info, debug.'
    );
    expect(d.fix).toBe('Your administrator needs to fix this.');
    expect(d.message).toBe(`${d.problem}\n${d.fix}`);
  });

  it('incompatible: an error of its own kind', () => {
    const d = expectFits(
      notificationFor(
        failed({ kind: 'incompatible', url: URL, schemaVersion: '2.0.0' }),
        trans
      )
    );
    expect(d).toMatchObject({ kind: 'incompatible', type: 'error' });
    expect(d.problem).toBe(
      'The Project Startup service sends schema 2.0.0; this extension understands 1.x.'
    );
  });

  it('unsupported here: information naming the interface to use and how', () => {
    const d = expectFits(
      notificationFor(loaded(PHASE_CASES['unsupported-interface']()), trans)
    );
    expect(d).toMatchObject({ kind: 'unsupported-interface', type: 'info' });
    expect(d.message).toBe(
      'Project setup is not offered in JupyterLab on this platform.\nTerminal: Run project-startup status in a terminal.'
    );
  });

  it('blocked: a warning naming the failing check, with its remedy', () => {
    const d = expectFits(notificationFor(loaded(PHASE_CASES.blocked()), trans));
    expect(d).toMatchObject({ kind: 'blocked', type: 'warning' });
    expect(d.problem).toBe('Project setup is blocked: Private state location.');
    expect(d.message.split('\n')[1]).toMatch(
      /^Inspect \/home\/alice\/work\/alpha\/\.project-startup and move it aside/
    );
    const missing = expectFits(
      notificationFor(
        loaded(PHASE_CASES['blocked (missing project directory)']()),
        trans
      )
    );
    expect(missing.message).toBe(
      'Project setup is blocked: Project directory.\nCreate /home/alice/work/alpha or start the service in an existing project directory…'
    );
  });

  it("blocked by a check only the administrator can fix: the person is told whose fix it is, never the administrator's steps", () => {
    const projection =
      PHASE_CASES['blocked (administrator: no approved storage)']();
    const blocking = projection.readinessChecks.find(
      c => c.id === projection.nextAction.checkId
    );
    expect(blocking?.remedyBy).toBe('administrator');
    expect(blocking?.remedy).toBeTruthy();
    const d = expectFits(notificationFor(loaded(projection), trans));
    expect(d).toMatchObject({ kind: 'blocked', type: 'warning' });
    expect(d.problem).toBe(
      `Project setup is blocked: ${(blocking?.title ?? '').replace(/\.$/, '')}.`
    );
    expect(d.fix).toBe('Your administrator needs to fix this.');
    expect(d.message).not.toContain(blocking?.remedy as string);
  });

  it('needs compute: information with the command to run', () => {
    const d = expectFits(
      notificationFor(loaded(PHASE_CASES['needs-compute']()), trans)
    );
    expect(d).toMatchObject({ kind: 'needs-compute', type: 'info' });
    expect(d.message).toBe(
      'Project setup needs compute: Get a compute allocation\nRun salloc --nodes=1 --time=01:00:00, then work in that allocation.'
    );
  });

  it('awaiting a confirmation given in another interface: information once, with the command', () => {
    const d = expectFits(notificationFor(loaded(confirmedInTerminal()), trans));
    expect(d).toMatchObject({ kind: 'confirm-elsewhere', type: 'info' });
    expect(d.message).toBe(
      'Project setup waits for your confirmation in another interface.\nRun project-startup init in a terminal and confirm.'
    );
  });

  it('the words are translated: every line JupyterLab shows comes through trans.__', () => {
    const { trans: recording, outputs } = recordingTrans();
    for (const state of [
      failed({ kind: 'not-enabled', url: URL, status: 404 }),
      loaded(PHASE_CASES['needs-compute']()),
      loaded(PHASE_CASES.blocked())
    ]) {
      const d = notificationFor(state, recording) as INotificationDecision;
      expect(outputs).toContain(d.problem);
    }
  });
});

describe('fitting JupyterLab’s 140 characters', () => {
  it('keeps short texts whole, on two lines', () => {
    expect(fitMessage('A problem.', 'A fix.')).toBe('A problem.\nA fix.');
  });

  it('shortens at a word boundary with an ellipsis', () => {
    expect(shorten('one two three four', 12)).toBe('one two…');
    expect(shorten('short', 12)).toBe('short');
  });

  it('never exceeds the limit, never drops the fix, keeps a problem line (property)', () => {
    const words = fc
      .array(fc.stringMatching(/^[A-Za-z0-9/._-]{1,30}$/), {
        minLength: 1,
        maxLength: 40
      })
      .map(w => w.join(' '));
    fc.assert(
      fc.property(words, words, (problemText, fixText) => {
        const message = fitMessage(problemText, fixText);
        const [p, f] = message.split('\n');
        // A fix that leaves the problem 60 characters is kept whole.
        const fixKept =
          fixText.length > MESSAGE_LIMIT - 1 - 60 || f === fixText;
        return (
          message.length <= MESSAGE_LIMIT &&
          p.length > 0 &&
          f.length > 0 &&
          fixKept
        );
      }),
      { numRuns: 300 }
    );
  });
});

/** The message a real service text gives: what `text` would say if it threw, else itself. */
function thrownMessage(act: () => unknown): string {
  try {
    act();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected it to refuse');
}

/** The commands (backtick spans) of a service text. */
function commandsOf(text: string): string[] {
  return [...text.matchAll(/`([^`]+)`/g)].map(m => m[1]);
}

/** A shortened line is a prefix of the plain text cut before a space or punctuation, with "…". */
function expectCutAtWordBoundary(line: string, text: string): void {
  const shown = text.replace(/`/g, '');
  if (line === shown) {
    return;
  }
  expect(line.endsWith('…')).toBe(true);
  const kept = line.slice(0, -1);
  expect(shown.startsWith(kept)).toBe(true);
  expect(shown[kept.length]).toMatch(/[\s,;:.(]/);
  // No command is shown in part: each is whole in the line, or not begun.
  for (const command of commandsOf(text)) {
    const start = shown.indexOf(command);
    expect(start + command.length <= kept.length || start >= kept.length).toBe(
      true
    );
  }
}

describe('shortening real service texts longer than the limit', () => {
  const tokenProblem = thrownMessage(() => checkServiceToken('short'));
  const loginNode = clusterPlatform.assessCompute(undefined).detail;
  const cases: [string, string, string][] = [
    [
      'jupyter-server-proxy missing (its command is cut before, not inside)',
      'Project Startup cannot start: jupyter-server-proxy is not installed.',
      SERVER_PROXY_MISSING.fix
    ],
    [
      'Node.js missing (a long fix without commands)',
      'Project Startup cannot start: Node.js was not found.',
      NODE_MISSING.fix
    ],
    [
      'a refused token (its generator command in backticks)',
      'Project Startup cannot start: the service token was refused.',
      tokenProblem
    ],
    [
      'a cluster login node (the salloc command)',
      'Project setup is blocked: Compute allocation.',
      `${loginNode} Until then nothing here can be set up for this project on a shared login node.`
    ]
  ];

  it('the problem takes the room a fix cut before its command leaves: both readable', () => {
    expect(
      fitMessage(
        'Project Startup cannot start: jupyter-server-proxy is not installed.',
        SERVER_PROXY_MISSING.fix
      )
    ).toBe(
      'Project Startup cannot start: jupyter-server-proxy is not installed.\nInstall it in the same environment as the Jupyter server…'
    );
  });

  it('the texts are real and longer than the limit', () => {
    for (const [, problemText, fixText] of cases) {
      expect(problemText.length + 1 + fixText.length).toBeGreaterThan(
        MESSAGE_LIMIT
      );
    }
    expect(commandsOf(tokenProblem)[0]).toMatch(/^node -p /);
    expect(commandsOf(loginNode)[0]).toMatch(/^salloc /);
  });

  it.each(cases)(
    '%s: cut at a word boundary, never inside a command',
    (_, problemText, fixText) => {
      const message = fitMessage(problemText, fixText);
      expect(message.length).toBeLessThanOrEqual(MESSAGE_LIMIT);
      const [problemLine, fixLine] = message.split('\n');
      expect(problemLine).toBe(problemText);
      expectCutAtWordBoundary(fixLine, fixText);
      // The start of the fix stays readable: at least its first few words.
      expect(fixLine.split(' ').length).toBeGreaterThanOrEqual(5);
    }
  );

  it('a command that fits whole is kept, shown without its backticks', () => {
    expect(
      shorten(
        'Run `salloc --nodes=1 --time=01:00:00` now, then work there.',
        45
      )
    ).toBe('Run salloc --nodes=1 --time=01:00:00 now…');
    expect(shorten('Run `salloc --nodes=1 --time=01:00:00` now.', 30)).toBe(
      'Run…'
    );
  });

  it('a first word longer than the room is the one place a word is cut', () => {
    expect(shorten('/very/long/path/without/spaces and more', 10)).toBe(
      '/very/lon…'
    );
  });
});
