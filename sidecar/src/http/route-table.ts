// The one route table. The dispatch (router.ts), the 404 and 405 answers, which routes
// answer without credentials (before-route.ts) and the OpenAPI document's paths (openapi.ts) are all
// read from it: a route exists in all of them or in none.
import type { Method, Route, RouteFile } from './types';
import { DOCS_POLICY, PAGE_POLICY, sendFile } from './pages';
import * as routes from './routes';

const GET: readonly Method[] = ['GET', 'HEAD'];
const POST: readonly Method[] = ['POST'];

/** A route that serves one file (GET, HEAD): by default from sidecar/static, with credentials. */
function fileRoute(
  path: string,
  name: string,
  type: string,
  options: {
    public?: boolean;
    setupPage?: boolean;
    policy?: string;
    from?: RouteFile['from'];
  }
): Route {
  return {
    path,
    methods: GET,
    public: options.public ?? false,
    ...(options.setupPage ? { setupPage: true } : {}),
    file: {
      name,
      type,
      policy: options.policy ?? PAGE_POLICY,
      from: options.from ?? 'static'
    },
    handle: sendFile
  };
}

/** The API docs page and its files: public, with the docs page's policy. */
const DOCS = { public: true, policy: DOCS_POLICY };

export const ROUTES: readonly Route[] = [
  {
    path: '/capabilities',
    methods: GET,
    public: false,
    operationId: 'getCapabilities',
    handle: routes.capabilities
  },
  {
    path: '/startup',
    methods: GET,
    public: false,
    operationId: 'getStartup',
    handle: routes.startup
  },
  {
    path: '/initialize',
    methods: POST,
    public: false,
    operationId: 'initialize',
    handle: routes.initialize
  },
  {
    path: '/gateway',
    methods: POST,
    public: false,
    operationId: 'gateway',
    handle: routes.gateway
  },
  {
    path: '/health',
    methods: GET,
    public: true,
    operationId: 'getHealth',
    handle: routes.health
  },
  {
    path: '/openapi.json',
    methods: GET,
    public: true,
    operationId: 'getOpenApi',
    handle: routes.openapi
  },
  // The setup page: served only where the platform has a browser route.
  fileRoute('/', 'setup.html', 'text/html', { setupPage: true }),
  fileRoute('/setup.js', 'setup.js', 'text/javascript', { setupPage: true }),
  fileRoute('/setup.css', 'setup.css', 'text/css', { setupPage: true }),
  // The icon names no route: served wherever the service runs.
  fileRoute('/favicon.svg', 'favicon.svg', 'image/svg+xml', { public: true }),
  fileRoute('/api-docs', 'api-docs.html', 'text/html', DOCS),
  fileRoute('/api-docs.js', 'api-docs.js', 'text/javascript', DOCS),
  // Swagger UI's files (scripts/api.js copies them from swagger-ui-dist at build time).
  fileRoute(
    '/api-docs-assets/swagger-ui-bundle.js',
    'swagger-ui-bundle.js',
    'text/javascript',
    { ...DOCS, from: 'api-docs' }
  ),
  fileRoute('/api-docs-assets/swagger-ui.css', 'swagger-ui.css', 'text/css', {
    ...DOCS,
    from: 'api-docs'
  })
];

const BY_PATH = new Map(ROUTES.map(route => [route.path, route]));

/** The route at `path` (below `{base}project`), if there is one. */
export function routeAt(path: string): Route | undefined {
  return BY_PATH.get(path);
}

/** Every method some route answers, in the table's order (CONNECT's Allow). */
export function methodsOfAllRoutes(): Method[] {
  return [...new Set(ROUTES.flatMap(route => route.methods))];
}
