// ServerConnection settings whose fetch answers from a queue, for the tests that go through the
// real ServerConnection.makeRequest (api.test.ts, plugin.test.ts). jsdom has no fetch, Headers
// or Request; makeSettings reads those globals, so the fakes from fixtures.ts are installed.
import { ServerConnection } from '@jupyterlab/services';
import {
  BASE_URL,
  FakeAnswer,
  FakeHeaders,
  FakeRequest,
  fakeResponse
} from './fixtures';

export const ORIGIN = 'http://localhost:8888';

export interface FakeServer {
  settings: ServerConnection.ISettings;
  requests: FakeRequest[];
  answers: (FakeAnswer | Error)[];
}

export function fakeServer(...answers: (FakeAnswer | Error)[]): FakeServer {
  const server: FakeServer = {
    settings: undefined as unknown as ServerConnection.ISettings,
    requests: [],
    answers
  };
  const fetch = jest.fn((request: FakeRequest) => {
    server.requests.push(request);
    const next = server.answers.shift();
    if (next === undefined) {
      return Promise.reject(
        new TypeError(
          `no answer left in the test for ${request.method} ${request.url}`
        )
      );
    }
    return next instanceof Error
      ? Promise.reject(next)
      : Promise.resolve(fakeResponse(next));
  });
  Object.assign(globalThis, {
    fetch,
    Headers: FakeHeaders,
    Request: FakeRequest
  });
  server.settings = ServerConnection.makeSettings({
    baseUrl: `${ORIGIN}${BASE_URL}`,
    token: 'jupyter-token-123',
    fetch: fetch as unknown as typeof globalThis.fetch,
    Request: FakeRequest as unknown as typeof Request,
    Headers: FakeHeaders as unknown as typeof Headers
  });
  return server;
}
