/** @jest-environment jsdom */
// The api layer: URLs under {base_url}project/, the request ServerConnection.makeRequest sends
// (Jupyter's token, JSON body and headers), and how answers map to results: 200, Jupyter's own
// 404, the sidecar's problem details, 5xx, bodies that are not the service's JSON, no answer.
import { ServerConnection } from '@jupyterlab/services';
import {
  createClient,
  diagnosticsUrl,
  fetchDiagnostics,
  fetchStartup,
  initializeUrl,
  postInitialize,
  startupUrl
} from '../../../src/api';
import { genericPlatform } from '../../../sidecar/src/core/platforms/generic';
import { fakeServer, ORIGIN } from './fake-server';
import {
  asExtensionProjection,
  diagnosticsReport,
  DIAGNOSTICS_URL,
  FakeAnswer,
  FakeRequest,
  initializeAnswer,
  json,
  JUPYTER_404,
  NODE_MISSING,
  PLATFORM_MESSAGE,
  problem,
  problemAnswer,
  projectionFor,
  SERVER_PROXY_MISSING,
  SIDECAR_FAILED
} from './fixtures';

function settingsAnswering(...answers: (FakeAnswer | Error)[]): {
  settings: ServerConnection.ISettings;
  requests: FakeRequest[];
} {
  const { settings, requests } = fakeServer(...answers);
  return { settings, requests };
}

describe('URLs', () => {
  it('puts the sidecar under the Jupyter server base URL (notebook-server proxy entry "project")', () => {
    const { settings } = settingsAnswering();
    expect(startupUrl(settings)).toBe(
      `${ORIGIN}/user/alice/project/startup?interface=notebook`
    );
    expect(initializeUrl(settings)).toBe(
      `${ORIGIN}/user/alice/project/initialize`
    );
    // The diagnostics route is the Jupyter server's own, not behind the proxy.
    expect(diagnosticsUrl(settings)).toBe(DIAGNOSTICS_URL);
  });
});

describe('fetchStartup', () => {
  it('200: the projection, asked with GET through ServerConnection (Jupyter token attached)', async () => {
    const projection = projectionFor(genericPlatform);
    const { settings, requests } = settingsAnswering(json(200, projection));
    const result = await fetchStartup(settings);
    expect(result).toEqual({
      ok: true,
      status: 200,
      value: asExtensionProjection(projection)
    });
    expect(requests).toHaveLength(1);
    expect(requests[0].method).toBe('GET');
    expect(
      requests[0].url.startsWith(
        `${ORIGIN}/user/alice/project/startup?interface=notebook`
      )
    ).toBe(true);
    expect(requests[0].headers.get('Authorization')).toBe(
      'token jupyter-token-123'
    );
  });

  it('404 from the Jupyter server (its HTML page): not enabled; no diagnostics route either (npm-only install)', async () => {
    const { settings, requests } = settingsAnswering(JUPYTER_404, JUPYTER_404);
    const result = await fetchStartup(settings);
    expect(result).toEqual({
      ok: false,
      failure: {
        kind: 'not-enabled',
        url: `${ORIGIN}/user/alice/project/startup?interface=notebook`,
        status: 404,
        diagnostics: { kind: 'unavailable', url: DIAGNOSTICS_URL, status: 404 }
      }
    });
    expect(requests.map(r => r.url.split('?')[0])).toEqual([
      `${ORIGIN}/user/alice/project/startup`,
      DIAGNOSTICS_URL
    ]);
  });

  it('404 from the Jupyter server with the server extension there: its report says jupyter-server-proxy is missing', async () => {
    const report = diagnosticsReport([SERVER_PROXY_MISSING]);
    const { settings } = settingsAnswering(JUPYTER_404, json(200, report));
    const result = await fetchStartup(settings);
    expect(!result.ok && result.failure).toMatchObject({
      kind: 'not-enabled',
      diagnostics: { kind: 'report', report }
    });
  });

  it('404 with the sidecar problem details: the sidecar answered, so it is failing, not missing', async () => {
    const p = problem(
      'not-found',
      'Nothing is served here; the service lives under /user/bob/project/.'
    );
    const { settings } = settingsAnswering(
      problemAnswer({ ...p, status: 404 })
    );
    const result = await fetchStartup(settings);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.failure).toMatchObject({
      kind: 'http',
      status: 404,
      problem: { code: 'not-found' }
    });
  });

  it('5xx with problem details: failing, with the problem kept for the panel (the sidecar answered: no diagnostics)', async () => {
    const p = problem(
      'internal',
      'The service failed to answer. Try again; if it persists, restart the service and read its log.'
    );
    const { settings, requests } = settingsAnswering(problemAnswer(p));
    const result = await fetchStartup(settings);
    expect(!result.ok && result.failure).toEqual({
      kind: 'http',
      url: `${ORIGIN}/user/alice/project/startup?interface=notebook`,
      status: 500,
      statusText: '',
      problem: p
    });
    expect(requests).toHaveLength(1);
  });

  it('5xx without problem details (the proxy could not start the sidecar): failing, with the diagnostics report', async () => {
    const report = diagnosticsReport(
      [NODE_MISSING],
      {},
      { path: null, version: null, required: '>=20' }
    );
    const { settings, requests } = settingsAnswering(
      {
        status: 500,
        statusText: 'Internal Server Error',
        contentType: 'text/html',
        body: '<html>500</html>'
      },
      json(200, report)
    );
    const result = await fetchStartup(settings);
    expect(!result.ok && result.failure).toMatchObject({
      kind: 'http',
      status: 500,
      statusText: 'Internal Server Error'
    });
    expect(
      !result.ok && result.failure.kind === 'http' && result.failure.problem
    ).toBeUndefined();
    expect(
      !result.ok && result.failure.kind === 'http' && result.failure.diagnostics
    ).toEqual({ kind: 'report', report });
    // Asked like every other call: GET through ServerConnection, with Jupyter's token.
    expect(requests).toHaveLength(2);
    expect(requests[1].method).toBe('GET');
    expect(requests[1].url.split('?')[0]).toBe(DIAGNOSTICS_URL);
    expect(requests[1].headers.get('Authorization')).toBe(
      'token jupyter-token-123'
    );
  });

  it.each([502, 503, 504])(
    '%i from the proxy: the diagnostics are asked too',
    async status => {
      const report = diagnosticsReport([SIDECAR_FAILED], {
        state: 'failed',
        lastError: PLATFORM_MESSAGE,
        logTail: [`project-startup: ${PLATFORM_MESSAGE}`]
      });
      const { settings } = settingsAnswering(
        { status, contentType: 'text/html', body: '' },
        json(200, report)
      );
      const result = await fetchStartup(settings);
      expect(!result.ok && result.failure).toMatchObject({
        kind: 'http',
        status,
        diagnostics: { kind: 'report', report }
      });
    }
  );

  it('200 that is not JSON (a sign-in page): unexpected body', async () => {
    const { settings } = settingsAnswering({
      status: 200,
      contentType: 'text/html',
      body: '<html>Sign in</html>'
    });
    const result = await fetchStartup(settings);
    expect(!result.ok && result.failure).toMatchObject({
      kind: 'unexpected-body',
      status: 200,
      contentType: 'text/html',
      reason: 'not-json'
    });
  });

  it('200 JSON that is no projection: unexpected body naming the fields', async () => {
    const { settings } = settingsAnswering(json(200, { status: 'pass' }));
    const result = await fetchStartup(settings);
    expect(!result.ok && result.failure).toMatchObject({
      kind: 'unexpected-body',
      reason: expect.stringContaining('phase')
    });
  });

  it('a projection of another major schema version: incompatible', async () => {
    const projection = {
      ...projectionFor(genericPlatform),
      schemaVersion: '2.0.0'
    };
    const { settings } = settingsAnswering(json(200, projection));
    const result = await fetchStartup(settings);
    expect(!result.ok && result.failure).toMatchObject({
      kind: 'incompatible',
      schemaVersion: '2.0.0'
    });
  });

  it('no answer at all: a network failure, never a thrown error; the diagnostics failed too', async () => {
    const { settings } = settingsAnswering(
      new TypeError('Failed to fetch'),
      new TypeError('Failed to fetch')
    );
    const result = await fetchStartup(settings);
    expect(!result.ok && result.failure).toEqual({
      kind: 'network',
      url: `${ORIGIN}/user/alice/project/startup?interface=notebook`,
      message: 'Failed to fetch',
      diagnostics: {
        kind: 'failed',
        url: DIAGNOSTICS_URL,
        reason: 'Failed to fetch'
      }
    });
  });
});

describe('fetchDiagnostics', () => {
  it('200 with a report: the report', async () => {
    const report = diagnosticsReport([]);
    const { settings } = settingsAnswering(json(200, report));
    expect(await fetchDiagnostics(settings)).toEqual({
      kind: 'report',
      report
    });
  });

  it('404: unavailable (no server extension)', async () => {
    const { settings } = settingsAnswering(JUPYTER_404);
    expect(await fetchDiagnostics(settings)).toEqual({
      kind: 'unavailable',
      url: DIAGNOSTICS_URL,
      status: 404
    });
  });

  it.each([
    ['403 (Jupyter refused)', json(403, { message: 'Forbidden' }), 'HTTP 403'],
    [
      '200 that is not JSON',
      { status: 200, contentType: 'text/html', body: '<html></html>' },
      'not JSON'
    ],
    [
      '200 JSON of another shape',
      json(200, { ok: true, problems: [{ code: 'x' }] }),
      'not a diagnostics report'
    ]
  ] as [string, FakeAnswer, string][])(
    '%s: failed, with the reason',
    async (_name, answer, reason) => {
      const { settings } = settingsAnswering(answer);
      expect(await fetchDiagnostics(settings)).toEqual({
        kind: 'failed',
        url: DIAGNOSTICS_URL,
        reason
      });
    }
  );
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
    expect(
      request.url.startsWith(`${ORIGIN}/user/alice/project/initialize`)
    ).toBe(true);
    expect(request.headers.get('Content-Type')).toBe('application/json');
    expect(request.headers.get('Authorization')).toBe(
      'token jupyter-token-123'
    );
    expect(JSON.parse(request.body ?? '')).toEqual(body);
  });

  it('200: already initialized', async () => {
    const answer = initializeAnswer(before, false);
    const { settings } = settingsAnswering(json(200, answer));
    expect(await postInitialize(body, settings)).toEqual({
      ok: true,
      status: 200,
      value: answer
    });
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
    expect(!result.ok && result.failure).toMatchObject({
      kind: 'http',
      status,
      problem: { code, detail: `detail of ${code}` }
    });
  });

  it('a 500 from the proxy: the diagnostics say why', async () => {
    const report = diagnosticsReport([SIDECAR_FAILED], {
      state: 'failed',
      lastError: PLATFORM_MESSAGE
    });
    const { settings } = settingsAnswering(
      { status: 500, contentType: 'text/html', body: '' },
      json(200, report)
    );
    const result = await postInitialize(body, settings);
    expect(!result.ok && result.failure).toMatchObject({
      kind: 'http',
      status: 500,
      diagnostics: { kind: 'report', report }
    });
  });

  it("Jupyter's 404: not enabled (the sidecar went away)", async () => {
    const { settings } = settingsAnswering(JUPYTER_404, JUPYTER_404);
    const result = await postInitialize(body, settings);
    expect(!result.ok && result.failure.kind).toBe('not-enabled');
  });

  it('a success answer that is not the initialize body: unexpected body', async () => {
    const { settings } = settingsAnswering({
      status: 201,
      contentType: 'text/plain',
      body: 'created'
    });
    const result = await postInitialize(body, settings);
    expect(!result.ok && result.failure).toMatchObject({
      kind: 'unexpected-body',
      reason: 'not-json'
    });
  });
});

describe('createClient', () => {
  it('binds both calls to one set of settings', async () => {
    const projection = projectionFor(genericPlatform);
    const { settings, requests } = settingsAnswering(
      json(200, projection),
      json(201, initializeAnswer(projection))
    );
    const client = createClient(settings);
    expect((await client.startup()).ok).toBe(true);
    expect(
      (
        await client.initialize({
          interface: 'notebook',
          method: 'jupyterlab-dialog',
          confirm: { projectPath: 'a', statePath: 'b' }
        })
      ).ok
    ).toBe(true);
    expect(requests.map(r => r.method)).toEqual(['GET', 'POST']);
  });
});

describe('revalidating the startup answer by its ETag (the poll of an open panel)', () => {
  const tagged = (value: unknown, etag: string): FakeAnswer => ({
    ...json(200, value),
    etag
  });

  it('asks with If-None-Match once it has a tagged answer; the empty 304 is that very answer again', async () => {
    const projection = projectionFor(genericPlatform);
    const { settings, requests } = settingsAnswering(
      tagged(projection, '"v1"'),
      { status: 304 },
      { status: 304 }
    );
    const client = createClient(settings);
    const first = await client.startup();
    expect(first.ok && first.value.phase).toBe('awaiting-confirmation');
    expect(requests[0].headers.get('If-None-Match')).toBeNull();
    const second = await client.startup();
    expect(requests[1].headers.get('If-None-Match')).toBe('"v1"');
    // The same result object: the model sees an unchanged answer and shows nothing new.
    expect(second).toBe(first);
    expect(await client.startup()).toBe(first);
    expect(requests[2].headers.get('If-None-Match')).toBe('"v1"');
  });

  it('takes a changed answer and its new tag, and forgets the tag after a failure', async () => {
    const projection = projectionFor(genericPlatform);
    const ready = { ...projection, phase: 'ready' };
    const { settings, requests } = settingsAnswering(
      tagged(projection, '"v1"'),
      tagged(ready, '"v2"'),
      problemAnswer(
        problem('rate-limited', 'Too many requests: wait a minute.')
      ),
      tagged(ready, '"v2"')
    );
    const client = createClient(settings);
    await client.startup();
    const changed = await client.startup();
    expect(changed.ok && changed.value.phase).toBe('ready');
    expect(requests[1].headers.get('If-None-Match')).toBe('"v1"');
    expect((await client.startup()).ok).toBe(false);
    expect(requests[2].headers.get('If-None-Match')).toBe('"v2"');
    // After a failure nothing is revalidated: the next answer is asked for whole.
    expect((await client.startup()).ok).toBe(true);
    expect(requests[3].headers.get('If-None-Match')).toBeNull();
  });

  it('never takes a 304 it did not ask for as a projection', async () => {
    const { settings } = settingsAnswering({ status: 304 });
    const result = await fetchStartup(settings);
    expect(result.ok).toBe(false);
  });

  it('an untagged answer (an older service) is asked for whole each time', async () => {
    const projection = projectionFor(genericPlatform);
    const { settings, requests } = settingsAnswering(
      json(200, projection),
      json(200, projection)
    );
    const client = createClient(settings);
    await client.startup();
    await client.startup();
    expect(requests.map(r => r.headers.get('If-None-Match'))).toEqual([
      null,
      null
    ]);
  });
});
