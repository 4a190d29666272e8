// The one route table (sidecar/src/http/route-table.ts) is the only list of routes: the router
// the service runs, the OpenAPI document's paths, the 405 answers' Allow and the routes
// that answer without credentials must all say what the table says. A route added to the
// router, the document or the operations alone fails here.
import type { Router } from 'router';
import { ROUTES } from '../../sidecar/src/http/route-table';
import {
  buildOpenApi,
  documentedMethods
} from '../../sidecar/src/http/openapi';
import { OPERATIONS } from '../../sidecar/src/http/openapi-operations';
import { request, trackedServices } from '../helpers/harness';

const start = trackedServices('all');

interface RouterLayer {
  route?: { path: string; methods: Record<string, boolean> };
  handle: { stack?: RouterLayer[] };
}

/** path -> methods (lower case; `_all` for the 405 catch-all) of every route the router holds. */
function routerRoutes(stack: RouterLayer[]): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const layer of stack) {
    if (layer.route !== undefined) {
      expect(found.has(layer.route.path)).toBe(false);
      found.set(layer.route.path, Object.keys(layer.route.methods).sort());
    } else if (layer.handle.stack !== undefined) {
      for (const [path, methods] of routerRoutes(layer.handle.stack)) {
        expect(found.has(path)).toBe(false);
        found.set(path, methods);
      }
    }
  }
  return found;
}

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
    const app = svc.running.app as unknown as {
      router: Router;
    };
    const routed = routerRoutes(app.router.stack as unknown as RouterLayer[]);
    const expected = new Map(
      ROUTES.map(route => [
        route.path,
        [...route.methods.map(method => method.toLowerCase()), '_all'].sort()
      ])
    );
    expect(routed).toEqual(expected);
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
