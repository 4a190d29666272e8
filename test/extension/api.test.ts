/** @jest-environment jsdom */
// The api layer: URLs under {base_url}project/, the request ServerConnection.makeRequest sends
// (Jupyter's token, JSON body and headers), and how answers map to results: 200, Jupyter's own
// 404, the sidecar's problem details, 5xx, bodies that are not the service's JSON, no answer.
import { ServerConnection } from '@jupyterlab/services';
import { createClient, fetchStartup, initializeUrl, postInitialize, startupUrl } from '../../src/api';
import { genericPlatform } from '../../sidecar/src/platforms/generic';
import { fakeServer, ORIGIN } from './fake-server';
import {
  asExtensionProjection,
  FakeAnswer,
  FakeRequest,
  initializeAnswer,
  json,
  JUPYTER_404,
  problem,
  problemAnswer,
  projectionFor
} from './fixtures';

function settingsAnswering(...answers: (FakeAnswer | Error)[]): { settings: ServerConnection.ISettings; requests: FakeRequest[] } {
  const { settings, requests } = fakeServer(...answers);
  return { settings, requests };
}

describe('URLs', () => {
  it('puts the sidecar under the Jupyter server base URL (notebook-server proxy entry "project")', () => {
    const { settings } = settingsAnswering();
    expect(startupUrl(settings)).toBe(`${ORIGIN}/user/alice/project/startup?interface=notebook`);
    expect(initializeUrl(settings)).toBe(`${ORIGIN}/user/alice/project/initialize`);
  });
});

describe('fetchStartup', () => {
  it('200: the projection, asked with GET through ServerConnection (Jupyter token attached)', async () => {
    const projection = projectionFor(genericPlatform);
    const { settings, requests } = settingsAnswering(json(200, projection));
    const result = await fetchStartup(settings);
    expect(result).toEqual({ ok: true, status: 200, value: asExtensionProjection(projection) });
    expect(requests).toHaveLength(1);
    expect(requests[0].method).toBe('GET');
    expect(requests[0].url.startsWith(`${ORIGIN}/user/alice/project/startup?interface=notebook`)).toBe(true);
    expect(requests[0].headers.get('Authorization')).toBe('token jupyter-token-123');
  });

  it("404 from the Jupyter server (its HTML page): not enabled", async () => {
    const { settings } = settingsAnswering(JUPYTER_404);
    const result = await fetchStartup(settings);
    expect(result).toEqual({
      ok: false,
      failure: { kind: 'not-enabled', url: `${ORIGIN}/user/alice/project/startup?interface=notebook`, status: 404 }
    });
  });

  it('404 with the sidecar problem details: the sidecar answered, so it is failing, not missing', async () => {
    const p = problem('not-found', 'Nothing is served here; the service lives under /user/bob/project/.');
    const { settings } = settingsAnswering(problemAnswer({ ...p, status: 404 }));
    const result = await fetchStartup(settings);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.failure).toMatchObject({ kind: 'http', status: 404, problem: { code: 'not-found' } });
  });

  it('5xx with problem details: failing, with the problem kept for the panel', async () => {
    const p = problem('internal', 'The service failed to answer. Try again; if it persists, restart the service and read its log.');
    const { settings } = settingsAnswering(problemAnswer(p));
    const result = await fetchStartup(settings);
    expect(!result.ok && result.failure).toEqual({
      kind: 'http',
      url: `${ORIGIN}/user/alice/project/startup?interface=notebook`,
      status: 500,
      statusText: '',
      problem: p
    });
  });

  it('5xx without problem details (the proxy could not start the sidecar): failing, no problem', async () => {
    const { settings } = settingsAnswering({ status: 500, statusText: 'Internal Server Error', contentType: 'text/html', body: '<html>500</html>' });
    const result = await fetchStartup(settings);
    expect(!result.ok && result.failure).toMatchObject({ kind: 'http', status: 500, statusText: 'Internal Server Error' });
    expect(!result.ok && result.failure.kind === 'http' && result.failure.problem).toBeUndefined();
  });

  it('200 that is not JSON (a sign-in page): unexpected body', async () => {
    const { settings } = settingsAnswering({ status: 200, contentType: 'text/html', body: '<html>Sign in</html>' });
    const result = await fetchStartup(settings);
    expect(!result.ok && result.failure).toMatchObject({ kind: 'unexpected-body', status: 200, contentType: 'text/html', reason: 'not-json' });
  });

  it('200 JSON that is no projection: unexpected body naming the fields', async () => {
    const { settings } = settingsAnswering(json(200, { status: 'pass' }));
    const result = await fetchStartup(settings);
    expect(!result.ok && result.failure).toMatchObject({ kind: 'unexpected-body', reason: expect.stringContaining('phase') });
  });

  it('a projection of another major schema version: incompatible', async () => {
    const projection = { ...projectionFor(genericPlatform), schemaVersion: '2.0.0' };
    const { settings } = settingsAnswering(json(200, projection));
    const result = await fetchStartup(settings);
    expect(!result.ok && result.failure).toMatchObject({ kind: 'incompatible', schemaVersion: '2.0.0' });
  });

  it('no answer at all: a network failure, never a thrown error', async () => {
    const { settings } = settingsAnswering(new TypeError('Failed to fetch'));
    const result = await fetchStartup(settings);
    expect(!result.ok && result.failure).toMatchObject({ kind: 'network', message: 'Failed to fetch' });
  });
});

describe('postInitialize', () => {
  const before = projectionFor(genericPlatform);
  const body = {
    interface: 'notebook' as const,
    method: 'jupyterlab-dialog' as const,
    confirm: { projectPath: before.projectPath, statePath: before.statePath }
  };

  it('POSTs exactly the body as application/json, with the Jupyter token; 201 is the record', async () => {
    const answer = initializeAnswer(before);
    const { settings, requests } = settingsAnswering(json(201, answer));
    const result = await postInitialize(body, settings);
    expect(result).toEqual({ ok: true, status: 201, value: answer });
    expect(requests).toHaveLength(1);
    const request = requests[0];
    expect(request.method).toBe('POST');
    expect(request.url.startsWith(`${ORIGIN}/user/alice/project/initialize`)).toBe(true);
    expect(request.headers.get('Content-Type')).toBe('application/json');
    expect(request.headers.get('Authorization')).toBe('token jupyter-token-123');
    expect(JSON.parse(request.body ?? '')).toEqual(body);
  });

  it('200: already initialized', async () => {
    const answer = initializeAnswer(before, false);
    const { settings } = settingsAnswering(json(200, answer));
    expect(await postInitialize(body, settings)).toEqual({ ok: true, status: 200, value: answer });
  });

  it.each([
    ['confirmation-stale', 409],
    ['wrong-phase', 409],
    ['confirmation-not-allowed', 403],
    ['cross-origin', 403],
    ['rate-limited', 429],
    ['validation-failed', 422]
  ] as const)('%s (%i): the problem details', async (code, status) => {
    const p = problem(code, `detail of ${code}`);
    expect(p.status).toBe(status);
    const { settings } = settingsAnswering(problemAnswer(p));
    const result = await postInitialize(body, settings);
    expect(!result.ok && result.failure).toMatchObject({ kind: 'http', status, problem: { code, detail: `detail of ${code}` } });
  });

  it("Jupyter's 404: not enabled (the sidecar went away)", async () => {
    const { settings } = settingsAnswering(JUPYTER_404);
    const result = await postInitialize(body, settings);
    expect(!result.ok && result.failure.kind).toBe('not-enabled');
  });

  it('a success answer that is not the initialize body: unexpected body', async () => {
    const { settings } = settingsAnswering({ status: 201, contentType: 'text/plain', body: 'created' });
    const result = await postInitialize(body, settings);
    expect(!result.ok && result.failure).toMatchObject({ kind: 'unexpected-body', reason: 'not-json' });
  });
});

describe('createClient', () => {
  it('binds both calls to one set of settings', async () => {
    const projection = projectionFor(genericPlatform);
    const { settings, requests } = settingsAnswering(json(200, projection), json(201, initializeAnswer(projection)));
    const client = createClient(settings);
    expect((await client.startup()).ok).toBe(true);
    expect(
      (await client.initialize({ interface: 'notebook', method: 'jupyterlab-dialog', confirm: { projectPath: 'a', statePath: 'b' } })).ok
    ).toBe(true);
    expect(requests.map(r => r.method)).toEqual(['GET', 'POST']);
  });
});
