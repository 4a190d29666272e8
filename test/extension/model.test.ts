/** @jest-environment jsdom */
// The panel's model without JupyterLab: it reads every projection the service builds for the
// notebook interface, maps failures to the not-enabled and failing views, and runs the
// initialize flow: the dialog names the paths, cancel sends nothing, accept sends exactly
// {interface: "notebook", method: "jupyterlab-dialog", confirm: {projectPath, statePath}}.
import { genericPlatform } from '../../sidecar/src/platforms/generic';
import { hostedNotebookPlatform } from '../../sidecar/src/platforms/hosted-notebook';
import { parseInitializeBody } from '../../sidecar/src/service';
import {
  canConfirmHere,
  confirmationTargets,
  ConfirmFunction,
  initializeRequest,
  recordPath,
  StartupModel
} from '../../src/model';
import { interpretStartup, invalidProjectionFields, isProblem } from '../../src/responses';
import { Failure, InitializeRequest, InitializeResponse, IStartupClient, Result, StartupProjection } from '../../src/tokens';
import { expectValid } from '../helpers/schemas';
import { HOME, initializeAnswer, PHASE_CASES, problem, PROJECT, projectionFor } from './fixtures';

type StartupAnswer = Result<StartupProjection> | Promise<Result<StartupProjection>>;

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
    return Promise.resolve(next);
  }

  initialize(body: InitializeRequest): Promise<Result<InitializeResponse>> {
    this.initializeBodies.push(body);
    const next = this.initializeAnswers.shift();
    return next ? Promise.resolve(next) : Promise.reject(new Error('unexpected POST initialize'));
  }
}

const ok = <T>(value: T, status = 200): Result<T> => ({ ok: true, status, value });
const failed = <T>(failure: Failure): Result<T> => ({ ok: false, failure });
const URL = '/user/alice/project/startup?interface=notebook';

function setup(confirmAnswer = true): { client: FakeClient; model: StartupModel; confirm: jest.Mock } {
  const client = new FakeClient();
  const confirm = jest.fn<ReturnType<ConfirmFunction>, Parameters<ConfirmFunction>>(() => Promise.resolve(confirmAnswer));
  const model = new StartupModel({ client, confirm });
  return { client, model, confirm };
}

describe('what the service sends', () => {
  test.each(Object.entries(PHASE_CASES))('%s: valid for the startup schema and read by the extension', (_name, make) => {
    const projection = make();
    expectValid('StartupProjection', projection);
    expect(invalidProjectionFields(projection)).toEqual([]);
    const result = interpretStartup({ url: URL, status: 200, statusText: 'OK', contentType: 'application/json', text: JSON.stringify(projection) });
    expect(result.ok).toBe(true);
  });

  it('the phases are the ones the cases are named after', () => {
    expect(PHASE_CASES['awaiting-confirmation']().phase).toBe('awaiting-confirmation');
    expect(PHASE_CASES.ready().phase).toBe('ready');
    expect(PHASE_CASES.blocked().phase).toBe('blocked');
    expect(PHASE_CASES['unsupported-interface']().phase).toBe('unsupported-interface');
    expect(PHASE_CASES['needs-compute']().phase).toBe('needs-compute');
  });

  it('recognizes the sidecar problem details, and nothing else', () => {
    expect(isProblem(problem('internal', 'x'))).toBe(true);
    expect(isProblem({ message: 'Not Found' })).toBe(false);
    expect(isProblem(null)).toBe(false);
  });

  it('names what a broken projection lacks', () => {
    const broken = { ...projectionFor(genericPlatform), phase: 'sleeping', readinessChecks: [{ id: 'x' }] };
    expect(invalidProjectionFields(broken)).toEqual(['phase', 'readinessChecks']);
  });
});

describe('the initialize request', () => {
  it('is exactly interface notebook, method jupyterlab-dialog and the two paths shown', () => {
    const projection = projectionFor(genericPlatform);
    const body = initializeRequest(projection);
    expect(body).toEqual({
      interface: 'notebook',
      method: 'jupyterlab-dialog',
      confirm: { projectPath: PROJECT, statePath: `${PROJECT}/.project-startup` }
    });
    expect(Object.keys(body)).toEqual(['interface', 'method', 'confirm']);
    expectValid('InitializeRequest', body);
    // The sidecar's own parser takes it as a JupyterLab dialog confirmation.
    expect(parseInitializeBody(body)).toEqual(body);
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
    expect(recordPath('/p/.project-startup/')).toBe('/p/.project-startup/initialization.json');
  });

  it('the record file is named even when the state directory exists already', () => {
    const projection = { ...projectionFor(genericPlatform), confirmation: { ...projectionFor(genericPlatform).confirmation, creates: [] } };
    expect(confirmationTargets(projection).creates).toEqual([`${PROJECT}/.project-startup/initialization.json`]);
  });

  it('may be confirmed here only while awaiting confirmation', () => {
    for (const [name, make] of Object.entries(PHASE_CASES)) {
      expect([name, canConfirmHere(make())]).toEqual([name, name.startsWith('awaiting-confirmation')]);
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
    model.stateChanged.connect((_s, state) => seen.push(`${state.view.kind}${state.refreshing ? '+refreshing' : ''}`));
    const state = await model.refresh();
    expect(state.view).toEqual({ kind: 'loaded', projection });
    expect(seen).toEqual(['loading+refreshing', 'loaded']);
    expect(model.phase).toBe('awaiting-confirmation');
    expect(model.canInitialize).toBe(true);
  });

  it('not enabled (Jupyter 404) and failing (5xx, network, unexpected body) are views of their own', async () => {
    const { client, model } = setup();
    const notEnabled: Failure = { kind: 'not-enabled', url: URL, status: 404 };
    const http: Failure = { kind: 'http', url: URL, status: 502, statusText: 'Bad Gateway' };
    const network: Failure = { kind: 'network', url: URL, message: 'Failed to fetch' };
    const body: Failure = { kind: 'unexpected-body', url: URL, status: 200, contentType: 'text/html', reason: 'not-json' };
    client.startupAnswers.push(failed(notEnabled), failed(http), failed(network), failed(body));
    expect((await model.refresh()).view).toEqual({ kind: 'not-enabled', failure: notEnabled });
    expect((await model.refresh()).view).toEqual({ kind: 'failing', failure: http });
    expect((await model.refresh()).view).toEqual({ kind: 'failing', failure: network });
    expect((await model.refresh()).view).toEqual({ kind: 'failing', failure: body });
    expect(model.canInitialize).toBe(false);
  });

  it('a client that throws still ends in the failing view', async () => {
    const { client, model } = setup();
    client.startupAnswers.push(Promise.reject(new Error('boom')) as unknown as StartupAnswer);
    const state = await model.refresh();
    expect(state.view).toMatchObject({ kind: 'failing', failure: { kind: 'network', message: 'boom' } });
  });

  it('shares a request in flight; a person pressing Refresh asks again and the older answer is dropped', async () => {
    const { client, model } = setup();
    let resolveFirst: (r: Result<StartupProjection>) => void = () => undefined;
    client.startupAnswers.push(new Promise(resolve => (resolveFirst = resolve)));
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
    expect(confirm).toHaveBeenCalledWith(confirmationTargets(projection), projection);
    expect(confirm.mock.calls[0][0].creates).toEqual([`${PROJECT}/.project-startup`, `${PROJECT}/.project-startup/initialization.json`]);
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
      { interface: 'notebook', method: 'jupyterlab-dialog', confirm: { projectPath: PROJECT, statePath: `${PROJECT}/.project-startup` } }
    ]);
    expect(phases).toContain('ready');
    expect(phases[phases.indexOf('ready') - 1]).toBe('awaiting-confirmation');
    expect(model.state.view).toEqual({ kind: 'loaded', projection: after });
    expect(model.state.initialized).toEqual(answer);
    expect(model.state.initializing).toBe(false);
    expect(model.canInitialize).toBe(false);
  });

  it('is unavailable outside awaiting-confirmation: no dialog, no request', async () => {
    for (const make of [PHASE_CASES.ready, PHASE_CASES.blocked, PHASE_CASES['unsupported-interface'], PHASE_CASES['needs-compute']]) {
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
    const stale = problem('confirmation-stale', 'The confirmed paths differ from the ones the service shows now. Reload the startup projection and confirm again.');
    client.startupAnswers.push(ok(projection), ok(projection));
    client.initializeAnswers.push(failed({ kind: 'http', url: '/i', status: 409, statusText: 'Conflict', problem: stale }));
    await model.refresh();
    expect(await model.initialize()).toBe('failed');
    expect(client.startupCalls).toBe(2);
    expect(model.state.initializeFailure).toMatchObject({ kind: 'http', status: 409, problem: { code: 'confirmation-stale' } });
    expect(model.canInitialize).toBe(true);
    // A person pressing Refresh clears the notice.
    client.startupAnswers.push(ok(projection));
    await model.refresh({ userInitiated: true });
    expect(model.state.initializeFailure).toBeUndefined();
  });

  it('403 confirmation-not-allowed: shows the problem without asking again', async () => {
    const { client, model } = setup(true);
    client.startupAnswers.push(ok(projectionFor(genericPlatform)));
    const refused = problem('confirmation-not-allowed', 'On the Workstation or container initialization is confirmed through Browser or Notebook, not Terminal.');
    client.initializeAnswers.push(failed({ kind: 'http', url: '/i', status: 403, statusText: 'Forbidden', problem: refused }));
    await model.refresh();
    expect(await model.initialize()).toBe('failed');
    expect(client.startupCalls).toBe(1);
    expect(model.state.initializeFailure).toMatchObject({ problem: { code: 'confirmation-not-allowed' } });
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
