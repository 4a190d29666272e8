/** @jest-environment jsdom */
// The panel's model without JupyterLab: it reads every projection the service builds for the
// notebook interface, maps failures to the not-enabled and failing views, and runs the
// initialize flow: the dialog names the paths, cancel sends nothing, accept sends exactly
// {interface: "notebook", confirm: {projectPath, statePath}} (no method: the service records the
// one it observed, D16).
import { genericPlatform } from '../../../sidecar/src/core/platforms/generic';
import { hostedNotebookPlatform } from '../../../sidecar/src/core/platforms/hosted-notebook';
import { parseInitializeRequest } from '../../../sidecar/src/core/requests';
import {
  backoffCap,
  canConfirmHere,
  confirmationTargets,
  ConfirmFunction,
  DEFAULT_REFRESH_INTERVAL,
  initializeRequest,
  IPanelState,
  recordPath,
  refreshIntervalSeconds,
  StartupModel
} from '../../../src/model';
import {
  interpretStartup,
  invalidProjectionFields,
  isProblem
} from '../../../src/responses';
import {
  Failure,
  InitializeRequest,
  InitializeResponse,
  IStartupClient,
  Result,
  StartupProjection
} from '../../../src/tokens';
import { expectValid } from '../../helpers/schemas';
import {
  HOME,
  initializeAnswer,
  PHASE_CASES,
  problem,
  PROJECT,
  projectionFor
} from './fixtures';

/** An answer, one still to come, or an Error: the request fails (a dropped connection). */
type StartupAnswer =
  Result<StartupProjection> | Promise<Result<StartupProjection>> | Error;

class FakeClient implements IStartupClient {
  startupAnswers: StartupAnswer[] = [];
  initializeAnswers: Result<InitializeResponse>[] = [];
  startupCalls = 0;
  initializeBodies: InitializeRequest[] = [];

  startup(): Promise<Result<StartupProjection>> {
    this.startupCalls += 1;
    const next = this.startupAnswers.shift();
    if (next === undefined) {
      return Promise.reject(new Error('unexpected GET startup'));
    }
    return next instanceof Error ? Promise.reject(next) : Promise.resolve(next);
  }

  initialize(body: InitializeRequest): Promise<Result<InitializeResponse>> {
    this.initializeBodies.push(body);
    const next = this.initializeAnswers.shift();
    return next
      ? Promise.resolve(next)
      : Promise.reject(new Error('unexpected POST initialize'));
  }
}

const ok = <T>(value: T, status = 200): Result<T> => ({
  ok: true,
  status,
  value
});
const failed = <T>(failure: Failure): Result<T> => ({ ok: false, failure });
const URL = '/user/alice/project/startup?interface=notebook';

function setup(confirmAnswer = true): {
  client: FakeClient;
  model: StartupModel;
  confirm: jest.Mock;
} {
  const client = new FakeClient();
  const confirm = jest.fn<
    ReturnType<ConfirmFunction>,
    Parameters<ConfirmFunction>
  >(() => Promise.resolve(confirmAnswer));
  const model = new StartupModel({ client, confirm });
  return { client, model, confirm };
}

describe('what the service sends', () => {
  test.each(Object.entries(PHASE_CASES))(
    '%s: valid for the startup schema and read by the extension',
    (_name, make) => {
      const projection = make();
      expectValid('StartupProjection', projection);
      expect(invalidProjectionFields(projection)).toEqual([]);
      const result = interpretStartup({
        url: URL,
        status: 200,
        statusText: 'OK',
        contentType: 'application/json',
        text: JSON.stringify(projection)
      });
      expect(result.ok).toBe(true);
    }
  );

  it('the phases are the ones the cases are named after', () => {
    expect(PHASE_CASES['awaiting-confirmation']().phase).toBe(
      'awaiting-confirmation'
    );
    expect(PHASE_CASES.ready().phase).toBe('ready');
    expect(PHASE_CASES.blocked().phase).toBe('blocked');
    expect(PHASE_CASES['unsupported-interface']().phase).toBe(
      'unsupported-interface'
    );
    expect(PHASE_CASES['needs-compute']().phase).toBe('needs-compute');
  });

  it('recognizes the sidecar problem details, and nothing else', () => {
    expect(isProblem(problem('internal', 'x'))).toBe(true);
    expect(isProblem({ message: 'Not Found' })).toBe(false);
    expect(isProblem(null)).toBe(false);
  });

  it('names what a broken projection lacks', () => {
    const broken = {
      ...projectionFor(genericPlatform),
      phase: 'sleeping',
      readinessChecks: [{ id: 'x' }]
    };
    // Each wrong field by its path, as startup.schema.json finds it: the phase is unknown, and
    // the check's required members but its id are missing (an id the panel does not know is one
    // a newer service added: it is shown by its title).
    expect(invalidProjectionFields(broken).sort()).toEqual(
      [
        'phase',
        'readinessChecks.0.title',
        'readinessChecks.0.status',
        'readinessChecks.0.required',
        'readinessChecks.0.observed'
      ].sort()
    );
  });
});

describe('the initialize request', () => {
  it('is exactly interface notebook and the two paths shown, with no method (the service ignores one; D16)', () => {
    const projection = projectionFor(genericPlatform);
    const body = initializeRequest(projection);
    expect(body).toEqual({
      interface: 'notebook',
      confirm: {
        projectPath: PROJECT,
        statePath: `${PROJECT}/.project-startup`
      }
    });
    expect(Object.keys(body)).toEqual(['interface', 'confirm']);
    expectValid('InitializeRequest', body);
    // The sidecar's own parser takes the interface and the two paths; the method it records is
    // what it observes (a body's method is ignored).
    expect(parseInitializeRequest(body)).toEqual({
      interface: body.interface,
      confirm: body.confirm
    });
  });

  it('the dialog targets: the project, the directories to create, then the record file', () => {
    const hosted = projectionFor(hostedNotebookPlatform);
    const targets = confirmationTargets(hosted);
    expect(targets.projectPath).toBe(PROJECT);
    expect(targets.creates).toEqual([
      `${HOME}/.project-startup`,
      `${HOME}/.project-startup/projects`,
      hosted.statePath,
      `${hosted.statePath}/initialization.json`
    ]);
    expect(recordPath('/p/.project-startup/')).toBe(
      '/p/.project-startup/initialization.json'
    );
  });

  it('the record file is named even when the state directory exists already', () => {
    const projection = {
      ...projectionFor(genericPlatform),
      confirmation: {
        ...projectionFor(genericPlatform).confirmation,
        creates: []
      }
    };
    expect(confirmationTargets(projection).creates).toEqual([
      `${PROJECT}/.project-startup/initialization.json`
    ]);
  });

  it('may be confirmed here only while awaiting confirmation', () => {
    for (const [name, make] of Object.entries(PHASE_CASES)) {
      expect([name, canConfirmHere(make())]).toEqual([
        name,
        name.startsWith('awaiting-confirmation')
      ]);
    }
  });
});

describe('StartupModel.refresh', () => {
  it('starts loading, then shows the projection', async () => {
    const { client, model } = setup();
    const projection = projectionFor(genericPlatform);
    client.startupAnswers.push(ok(projection));
    expect(model.state.view).toEqual({ kind: 'loading' });
    const seen: string[] = [];
    model.stateChanged.connect((_s, state) =>
      seen.push(`${state.view.kind}${state.refreshing ? '+refreshing' : ''}`)
    );
    const state = await model.refresh();
    expect(state.view).toEqual({ kind: 'loaded', projection });
    expect(seen).toEqual(['loading+refreshing', 'loaded']);
    expect(model.phase).toBe('awaiting-confirmation');
    expect(model.canInitialize).toBe(true);
  });

  it('not enabled (Jupyter 404) and failing (5xx, network, unexpected body) are views of their own', async () => {
    const { client, model } = setup();
    const notEnabled: Failure = { kind: 'not-enabled', url: URL, status: 404 };
    const http: Failure = {
      kind: 'http',
      url: URL,
      status: 502,
      statusText: 'Bad Gateway'
    };
    const network: Failure = {
      kind: 'network',
      url: URL,
      message: 'Failed to fetch'
    };
    const body: Failure = {
      kind: 'unexpected-body',
      url: URL,
      status: 200,
      contentType: 'text/html',
      reason: 'not-json'
    };
    client.startupAnswers.push(
      failed(notEnabled),
      failed(http),
      failed(network),
      failed(body)
    );
    expect((await model.refresh()).view).toEqual({
      kind: 'not-enabled',
      failure: notEnabled
    });
    expect((await model.refresh()).view).toEqual({
      kind: 'failing',
      failure: http
    });
    expect((await model.refresh()).view).toEqual({
      kind: 'failing',
      failure: network
    });
    expect((await model.refresh()).view).toEqual({
      kind: 'failing',
      failure: body
    });
    expect(model.canInitialize).toBe(false);
  });

  it('a client that throws still ends in the failing view', async () => {
    const { client, model } = setup();
    client.startupAnswers.push(
      Promise.reject(new Error('boom')) as unknown as StartupAnswer
    );
    const state = await model.refresh();
    expect(state.view).toMatchObject({
      kind: 'failing',
      failure: { kind: 'network', message: 'boom' }
    });
  });

  it('shares a request in flight; a person pressing Refresh asks again and the older answer is dropped', async () => {
    const { client, model } = setup();
    let resolveFirst: (r: Result<StartupProjection>) => void = () => undefined;
    client.startupAnswers.push(
      new Promise(resolve => (resolveFirst = resolve))
    );
    const ready = projectionFor(genericPlatform, { state: 'initialized' });
    client.startupAnswers.push(ok(ready));
    const first = model.refresh();
    const shared = model.ensureLoaded();
    expect(client.startupCalls).toBe(1);
    const second = model.refresh({ userInitiated: true });
    expect(client.startupCalls).toBe(2);
    await second;
    resolveFirst(ok(projectionFor(genericPlatform)));
    await first;
    await shared;
    expect(model.phase).toBe('ready');
  });

  it('ensureLoaded asks only once', async () => {
    const { client, model } = setup();
    client.startupAnswers.push(ok(projectionFor(genericPlatform)));
    await model.ensureLoaded();
    await model.ensureLoaded();
    expect(client.startupCalls).toBe(1);
  });
});

describe('StartupModel.initialize', () => {
  it('cancel: the dialog named the paths and no request is sent', async () => {
    const { client, model, confirm } = setup(false);
    const projection = projectionFor(genericPlatform);
    client.startupAnswers.push(ok(projection));
    await model.refresh();
    expect(await model.initialize()).toBe('cancelled');
    expect(confirm).toHaveBeenCalledWith(
      confirmationTargets(projection),
      projection
    );
    expect(confirm.mock.calls[0][0].creates).toEqual([
      `${PROJECT}/.project-startup`,
      `${PROJECT}/.project-startup/initialization.json`
    ]);
    expect(client.initializeBodies).toEqual([]);
    expect(client.startupCalls).toBe(1);
    expect(model.state.view).toEqual({ kind: 'loaded', projection });
    expect(model.state.initializeFailure).toBeUndefined();
  });

  it('accept: sends exactly the body, shows the new phase at once, then refreshes', async () => {
    const { client, model } = setup(true);
    const projection = projectionFor(genericPlatform);
    const answer = initializeAnswer(projection);
    const after = projectionFor(genericPlatform, { state: 'initialized' });
    client.startupAnswers.push(ok(projection), ok(after));
    client.initializeAnswers.push(ok(answer, 201));
    await model.refresh();
    const phases: (string | undefined)[] = [];
    model.stateChanged.connect(() => phases.push(model.phase));
    expect(await model.initialize()).toBe('initialized');
    expect(client.initializeBodies).toEqual([
      {
        interface: 'notebook',
        confirm: {
          projectPath: PROJECT,
          statePath: `${PROJECT}/.project-startup`
        }
      }
    ]);
    expect(phases).toContain('ready');
    expect(phases[phases.indexOf('ready') - 1]).toBe('awaiting-confirmation');
    expect(model.state.view).toEqual({ kind: 'loaded', projection: after });
    expect(model.state.initialized).toEqual(answer);
    expect(model.state.initializing).toBe(false);
    expect(model.canInitialize).toBe(false);
  });

  it('is unavailable outside awaiting-confirmation: no dialog, no request', async () => {
    for (const make of [
      PHASE_CASES.ready,
      PHASE_CASES.blocked,
      PHASE_CASES['unsupported-interface'],
      PHASE_CASES['needs-compute']
    ]) {
      const { client, model, confirm } = setup(true);
      client.startupAnswers.push(ok(make()));
      await model.refresh();
      expect(await model.initialize()).toBe('unavailable');
      expect(confirm).not.toHaveBeenCalled();
      expect(client.initializeBodies).toEqual([]);
    }
    const { model, confirm } = setup(true);
    expect(await model.initialize()).toBe('unavailable');
    expect(confirm).not.toHaveBeenCalled();
  });

  it('409 confirmation-stale: shows the problem, refreshes the paths, stays usable', async () => {
    const { client, model } = setup(true);
    const projection = projectionFor(genericPlatform);
    const stale = problem(
      'confirmation-stale',
      'The confirmed paths differ from the ones the service shows now. Reload the startup projection and confirm again.'
    );
    client.startupAnswers.push(ok(projection), ok(projection));
    client.initializeAnswers.push(
      failed({
        kind: 'http',
        url: '/i',
        status: 409,
        statusText: 'Conflict',
        problem: stale
      })
    );
    await model.refresh();
    expect(await model.initialize()).toBe('failed');
    expect(client.startupCalls).toBe(2);
    expect(model.state.initializeFailure).toMatchObject({
      kind: 'http',
      status: 409,
      problem: { code: 'confirmation-stale' }
    });
    expect(model.canInitialize).toBe(true);
    // A person pressing Refresh clears the notice.
    client.startupAnswers.push(ok(projection));
    await model.refresh({ userInitiated: true });
    expect(model.state.initializeFailure).toBeUndefined();
  });

  it('403 confirmation-not-allowed: shows the problem without asking again', async () => {
    const { client, model } = setup(true);
    client.startupAnswers.push(ok(projectionFor(genericPlatform)));
    const refused = problem(
      'confirmation-not-allowed',
      'On the Workstation or container initialization is confirmed through Browser or Notebook, not Terminal.'
    );
    client.initializeAnswers.push(
      failed({
        kind: 'http',
        url: '/i',
        status: 403,
        statusText: 'Forbidden',
        problem: refused
      })
    );
    await model.refresh();
    expect(await model.initialize()).toBe('failed');
    expect(client.startupCalls).toBe(1);
    expect(model.state.initializeFailure).toMatchObject({
      problem: { code: 'confirmation-not-allowed' }
    });
    expect(model.state.view.kind).toBe('loaded');
  });

  it('a network failure during initialize keeps the projection shown', async () => {
    const { client, model } = setup(true);
    const projection = projectionFor(genericPlatform);
    client.startupAnswers.push(ok(projection));
    await model.refresh();
    // No initialize answer queued: the fake client rejects, as a dropped connection would.
    expect(await model.initialize()).toBe('failed');
    expect(model.state.initializeFailure).toMatchObject({ kind: 'network' });
    expect(model.state.view).toEqual({ kind: 'loaded', projection });
  });
});

describe('StartupModel polling (fake timers; Poll from @lumino/polling)', () => {
  const SECOND = 1000;
  const blocked = (): StartupProjection => PHASE_CASES.blocked();
  const http502: Failure = {
    kind: 'http',
    url: URL,
    status: 502,
    statusText: 'Bad Gateway'
  };
  const garbage: Failure = {
    kind: 'unexpected-body',
    url: URL,
    status: 200,
    contentType: 'text/html',
    reason: 'not-json'
  };

  let random: jest.SpyInstance;
  beforeEach(() => {
    jest.useFakeTimers();
    // Poll randomizes the backoff between the interval and three times the last pause; the
    // tests take the longest pause so the schedule is exact.
    random = jest.spyOn(Math, 'random').mockReturnValue(0.999999);
  });
  afterEach(() => {
    random.mockRestore();
    jest.useRealTimers();
    setVisibility('visible');
  });

  function setVisibility(state: 'visible' | 'hidden'): void {
    Object.defineProperty(document, 'visibilityState', {
      value: state,
      configurable: true
    });
    document.dispatchEvent(new Event('visibilitychange'));
  }

  /** A model polling every `seconds`, its first answer loaded; the emissions after that. */
  async function polling(seconds: number, first: Result<StartupProjection>) {
    const { client, model } = setup();
    model.setRefreshInterval(seconds);
    client.startupAnswers.push(first);
    const loaded = model.ensureLoaded();
    model.startPolling();
    await loaded;
    await jest.advanceTimersByTimeAsync(0);
    // The first poll comes one interval after the start-up answer.
    expect(client.startupCalls).toBe(1);
    const emitted: IPanelState[] = [];
    model.stateChanged.connect((_s, state) => emitted.push(state));
    return { client, model, emitted };
  }

  it('asks again every interval; an unchanged answer emits nothing (no re-render, no live-region change)', async () => {
    const projection = projectionFor(genericPlatform);
    const { client, model, emitted } = await polling(2, ok(projection));
    client.startupAnswers.push(
      ok(projectionFor(genericPlatform)),
      ok(projectionFor(genericPlatform))
    );
    await jest.advanceTimersByTimeAsync(2 * SECOND - 1);
    expect(client.startupCalls).toBe(1);
    await jest.advanceTimersByTimeAsync(1);
    expect(client.startupCalls).toBe(2);
    await jest.advanceTimersByTimeAsync(2 * SECOND);
    expect(client.startupCalls).toBe(3);
    expect(emitted).toEqual([]);
    expect(model.state.view).toEqual({ kind: 'loaded', projection });
    model.dispose();
  });

  it('a changed answer is shown without a click: the state made unsafe on disk blocks setup', async () => {
    const { client, model, emitted } = await polling(
      2,
      ok(projectionFor(genericPlatform, { state: 'initialized' }))
    );
    client.startupAnswers.push(ok(blocked()));
    await jest.advanceTimersByTimeAsync(2 * SECOND);
    expect(model.phase).toBe('blocked');
    // One emission: the new answer, never a "refreshing" flash before it.
    expect(emitted.map(s => s.view.kind)).toEqual(['loaded']);
    expect(emitted[0].refreshing).toBe(false);
    model.dispose();
  });

  it('a failure after a loaded answer replaces it, backs off, and the next answer is shown again', async () => {
    const { client, model, emitted } = await polling(
      2,
      ok(projectionFor(genericPlatform, { state: 'initialized' }))
    );
    client.startupAnswers.push(failed(http502));
    await jest.advanceTimersByTimeAsync(2 * SECOND);
    expect(client.startupCalls).toBe(2);
    // Never the old phase as current: the failure is what is shown.
    expect(model.state.view).toEqual({ kind: 'failing', failure: http502 });
    expect(model.projection).toBeUndefined();
    expect(model.poll?.state.phase).toBe('rejected');

    // Backoff: 2 s, then up to 3x the last pause (6 s), then 18 s, capped at ten intervals.
    client.startupAnswers.push(
      failed(http502),
      failed(http502),
      failed(http502)
    );
    await jest.advanceTimersByTimeAsync(6 * SECOND - 1);
    expect(client.startupCalls).toBe(2);
    await jest.advanceTimersByTimeAsync(1);
    expect(client.startupCalls).toBe(3);
    await jest.advanceTimersByTimeAsync(18 * SECOND);
    expect(client.startupCalls).toBe(4);
    expect(backoffCap(2 * SECOND)).toBe(20 * SECOND);
    await jest.advanceTimersByTimeAsync(20 * SECOND - 1);
    expect(client.startupCalls).toBe(4);
    await jest.advanceTimersByTimeAsync(1);
    expect(client.startupCalls).toBe(5);
    // An unchanged failure emits nothing more.
    expect(emitted.map(s => s.view.kind)).toEqual(['failing']);

    // Recovery: the service answers, it is shown, and the poll is back to its interval.
    const ready = projectionFor(genericPlatform, { state: 'initialized' });
    client.startupAnswers.push(ok(ready), ok(ready));
    await jest.advanceTimersByTimeAsync(20 * SECOND);
    expect(client.startupCalls).toBe(6);
    expect(model.state.view).toEqual({ kind: 'loaded', projection: ready });
    expect(model.poll?.state.phase).toBe('reconnected');
    await jest.advanceTimersByTimeAsync(2 * SECOND);
    expect(client.startupCalls).toBe(7);
    expect(emitted.map(s => s.view.kind)).toEqual(['failing', 'loaded']);
    model.dispose();
  });

  it('a garbage answer (HTML where JSON belongs) shows the unexpected-answer state; the next poll recovers', async () => {
    random.mockReturnValue(0); // the shortest backoff: one interval
    const projection = projectionFor(genericPlatform);
    const { client, model } = await polling(1, ok(projection));
    client.startupAnswers.push(failed(garbage), ok(projection));
    await jest.advanceTimersByTimeAsync(SECOND);
    expect(model.state.view).toEqual({ kind: 'failing', failure: garbage });
    await jest.advanceTimersByTimeAsync(SECOND);
    expect(model.state.view).toEqual({ kind: 'loaded', projection });
    model.dispose();
  });

  it('a dropped connection (the client rejects) is the failing view, then the sidecar restarted answers', async () => {
    random.mockReturnValue(0);
    const projection = projectionFor(genericPlatform, { state: 'initialized' });
    const { client, model } = await polling(1, ok(projection));
    client.startupAnswers.push(
      new TypeError('Failed to fetch'),
      // jupyter-server-proxy answers 500 while it launches the sidecar again
      failed({
        kind: 'http',
        url: URL,
        status: 500,
        statusText: 'Internal Server Error'
      }),
      ok(projection)
    );
    await jest.advanceTimersByTimeAsync(SECOND);
    expect(model.state.view).toMatchObject({
      kind: 'failing',
      failure: { kind: 'network', message: 'Failed to fetch' }
    });
    await jest.advanceTimersByTimeAsync(SECOND);
    expect(model.state.view).toMatchObject({
      kind: 'failing',
      failure: { kind: 'http', status: 500 }
    });
    await jest.advanceTimersByTimeAsync(SECOND);
    expect(model.state.view).toEqual({ kind: 'loaded', projection });
    model.dispose();
  });

  it('Refresh during the backoff shows the answer and puts the poll back on its interval', async () => {
    const { client, model } = await polling(
      2,
      ok(projectionFor(genericPlatform))
    );
    client.startupAnswers.push(failed(http502));
    await jest.advanceTimersByTimeAsync(2 * SECOND);
    expect(model.poll?.state.phase).toBe('rejected');
    client.startupAnswers.push(
      ok(projectionFor(genericPlatform)),
      ok(projectionFor(genericPlatform))
    );
    await model.refresh({ userInitiated: true });
    expect(model.state.view.kind).toBe('loaded');
    await jest.advanceTimersByTimeAsync(2 * SECOND);
    expect(client.startupCalls).toBe(4);
    model.dispose();
  });

  it('stands by while the page is hidden, and asks at once when it is visible again', async () => {
    const { client, model } = await polling(
      2,
      ok(projectionFor(genericPlatform))
    );
    setVisibility('hidden');
    await jest.advanceTimersByTimeAsync(60 * SECOND);
    expect(client.startupCalls).toBe(1);
    expect(model.poll?.state.phase).toBe('standby');
    client.startupAnswers.push(ok(blocked()), ok(blocked()));
    setVisibility('visible');
    await jest.advanceTimersByTimeAsync(0);
    expect(client.startupCalls).toBe(2);
    expect(model.phase).toBe('blocked');
    await jest.advanceTimersByTimeAsync(2 * SECOND);
    expect(client.startupCalls).toBe(3);
    model.dispose();
  });

  it('a poll shares a request in flight, and asks nothing while initialize is in flight', async () => {
    const projection = projectionFor(genericPlatform);
    const { client, model } = await polling(1, ok(projection));
    // A refresh in flight when the tick comes: the tick waits for it, no second request.
    let answer: (r: Result<StartupProjection>) => void = () => undefined;
    client.startupAnswers.push(new Promise(resolve => (answer = resolve)));
    const inFlight = model.refresh();
    await jest.advanceTimersByTimeAsync(SECOND);
    expect(client.startupCalls).toBe(2);
    answer(ok(projection));
    await inFlight;

    // Initialize: the dialog and the POST take longer than several intervals.
    let accept: (yes: boolean) => void = () => undefined;
    const confirmed = new Promise<boolean>(resolve => (accept = resolve));
    const slow = new StartupModel({ client, confirm: () => confirmed });
    client.startupAnswers.push(ok(projection));
    await slow.refresh();
    model.dispose();
    slow.setRefreshInterval(1);
    slow.startPolling();
    await jest.advanceTimersByTimeAsync(0);
    const before = client.startupCalls;
    let post: (r: Result<InitializeResponse>) => void = () => undefined;
    client.initialize = body => {
      client.initializeBodies.push(body);
      return new Promise(resolve => (post = resolve));
    };
    const done = slow.initialize();
    accept(true);
    await jest.advanceTimersByTimeAsync(5 * SECOND);
    expect(slow.state.initializing).toBe(true);
    expect(client.startupCalls).toBe(before);
    // The POST answers; initialize refreshes, and the phase it answered is not clobbered.
    const after = projectionFor(genericPlatform, { state: 'initialized' });
    client.startupAnswers.push(ok(after), ok(after));
    post(ok(initializeAnswer(projection), 201));
    expect(await done).toBe('initialized');
    expect(slow.phase).toBe('ready');
    await jest.advanceTimersByTimeAsync(SECOND);
    expect(slow.phase).toBe('ready');
    expect(client.startupCalls).toBe(before + 2);
    slow.dispose();
  });

  it('follows the setting: a new interval at once, 0 stops polling, nonsense means the default', async () => {
    const { client, model } = await polling(
      5,
      ok(projectionFor(genericPlatform))
    );
    const same = () =>
      client.startupAnswers.push(ok(projectionFor(genericPlatform)));
    model.setRefreshInterval(1);
    same();
    await jest.advanceTimersByTimeAsync(SECOND);
    expect(client.startupCalls).toBe(2);
    model.setRefreshInterval(0);
    await jest.advanceTimersByTimeAsync(3600 * SECOND);
    expect(client.startupCalls).toBe(2);
    expect(model.poll?.state.phase).toBe('stopped');
    // Refresh still asks when polling is off.
    same();
    await model.refresh({ userInitiated: true });
    expect(client.startupCalls).toBe(3);
    model.setRefreshInterval(3);
    same();
    await jest.advanceTimersByTimeAsync(3 * SECOND);
    expect(client.startupCalls).toBe(4);
    for (const nonsense of [-1, 3601, 2.5, '10', null, undefined, Number.NaN]) {
      expect(refreshIntervalSeconds(nonsense)).toBe(DEFAULT_REFRESH_INTERVAL);
    }
    expect(refreshIntervalSeconds(0)).toBe(0);
    expect(refreshIntervalSeconds(3600)).toBe(3600);
    model.setRefreshInterval(-5);
    expect(model.refreshInterval).toBe(DEFAULT_REFRESH_INTERVAL);
    model.dispose();
  });

  it('with refreshInterval 0 from the start, nothing is polled', async () => {
    const { client, model } = setup();
    model.setRefreshInterval(0);
    client.startupAnswers.push(ok(projectionFor(genericPlatform)));
    await model.ensureLoaded();
    model.startPolling();
    await jest.advanceTimersByTimeAsync(3600 * SECOND);
    expect(client.startupCalls).toBe(1);
    model.dispose();
  });

  it('dispose stops the poll', async () => {
    const { client, model } = await polling(
      1,
      ok(projectionFor(genericPlatform))
    );
    model.dispose();
    await jest.advanceTimersByTimeAsync(10 * SECOND);
    expect(client.startupCalls).toBe(1);
    expect(model.poll?.isDisposed).toBe(true);
  });

  it('the backoff cap: ten intervals, at most five minutes, never below one interval', () => {
    expect(backoffCap(10 * SECOND)).toBe(100 * SECOND);
    expect(backoffCap(60 * SECOND)).toBe(300 * SECOND);
    expect(backoffCap(3600 * SECOND)).toBe(3600 * SECOND);
  });
});
