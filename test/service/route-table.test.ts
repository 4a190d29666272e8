// The one route table (sidecar/src/http/route-table.ts) is the only list of routes: the
// dispatch the service runs, the OpenAPI document's paths, the 405 answers' Allow and the routes
// that answer without credentials must all say what the table says. A route added to the
// dispatch, the document or the operations alone fails here.
import { ROUTES } from '../../sidecar/src/http/route-table';
import {
  buildOpenApi,
  documentedMethods
} from '../../sidecar/src/http/openapi';
import { OPERATIONS } from '../../sidecar/src/http/openapi-operations';
import { request, trackedServices } from '../helpers/harness';

const start = trackedServices('all');

describe('the route table', () => {
  it('names each path once, and each operation once', () => {
    const paths = ROUTES.map(route => route.path);
    expect(new Set(paths).size).toBe(paths.length);
    const ids = ROUTES.flatMap(route =>
      route.operationId === undefined ? [] : [route.operationId]
    );
    expect(new Set(ids).size).toBe(ids.length);
    // Every described operation belongs to a route: none is described for a route that is gone.
    expect([...ids].sort()).toEqual(Object.keys(OPERATIONS).sort());
    for (const route of ROUTES) {
      expect(route.methods.length).toBeGreaterThan(0);
      // One operation per route: the document lists it under one method.
      if (route.operationId !== undefined) {
        expect(documentedMethods(route)).toHaveLength(1);
      }
    }
  });

  it('is what the running application routes, and nothing else', async () => {
    const svc = await start();
    for (const route of ROUTES) {
      for (const method of route.methods) {
        const answer = await request(`${svc.api}${route.path.slice(1)}`, {
          method,
          token: svc.token,
          headers:
            method === 'POST' ? { 'content-type': 'application/json' } : {},
          body: method === 'POST' ? '{}' : undefined
        });
        // Routed: whatever the route answers, not the dispatch's "no such resource" or 405.
        const unrouted =
          answer.status === 405 ||
          (answer.status === 404 &&
            String(answer.json?.detail).startsWith('No such resource'));
        expect([route.path, method, unrouted]).toEqual([
          route.path,
          method,
          false
        ]);
      }
      // The match is exact: another case or a trailing slash is no route.
      for (const variant of [route.path.toUpperCase(), `${route.path}/`]) {
        if (variant === route.path || ROUTES.some(r => r.path === variant)) {
          continue;
        }
        const missing = await request(`${svc.api}${variant.slice(1)}`, {
          token: svc.token
        });
        expect([variant, missing.status, missing.json.detail]).toEqual([
          variant,
          404,
          expect.stringMatching(/^No such resource/)
        ]);
      }
    }
  });

  it("is the OpenAPI document's paths, methods, operation ids and public set", () => {
    const baseUrl = '/user/alice/';
    const paths = buildOpenApi(baseUrl, '0.1.0').paths as Record<
      string,
      Record<string, { operationId: string; security?: unknown[] }>
    >;
    const described = ROUTES.filter(route => route.operationId !== undefined);
    expect(Object.keys(paths)).toEqual(
      described.map(route => `${baseUrl}project${route.path}`)
    );
    for (const route of described) {
      const item = paths[`${baseUrl}project${route.path}`];
      expect(Object.keys(item)).toEqual(documentedMethods(route));
      for (const operation of Object.values(item)) {
        expect(operation.operationId).toBe(route.operationId);
        // Public: no security requirement; otherwise the document's bearer or cookie.
        expect(operation.security).toEqual(route.public ? [] : undefined);
      }
    }
  });

  it('answers without credentials exactly on the public routes, and 405 with its Allow otherwise', async () => {
    const svc = await start();
    for (const route of ROUTES) {
      const url = `${svc.api}${route.path.slice(1)}`;
      const method = route.methods[0];
      const anonymous = await request(url, {
        method,
        headers:
          method === 'POST' ? { 'content-type': 'application/json' } : {},
        body: method === 'POST' ? '{}' : undefined
      });
      if (route.public) {
        expect([route.path, anonymous.status]).not.toEqual([route.path, 401]);
      } else {
        expect([route.path, anonymous.status]).toEqual([route.path, 401]);
      }
      const other = route.methods.includes('POST') ? 'GET' : 'POST';
      const refused = await request(url, {
        method: other,
        token: svc.token,
        headers: other === 'POST' ? { 'content-type': 'application/json' } : {},
        body: other === 'POST' ? '{}' : undefined
      });
      expect([route.path, refused.status]).toEqual([route.path, 405]);
      expect(refused.json.code).toBe('method-not-allowed');
      expect(refused.headers.allow).toBe(route.methods.join(', '));
    }
    // A path the table does not name: not found, once the caller is known.
    const unknown = `${svc.api}no-such-route`;
    expect((await request(unknown)).status).toBe(401);
    const missing = await request(unknown, { token: svc.token });
    expect(missing.status).toBe(404);
    expect(missing.json.code).toBe('not-found');
  });
});
