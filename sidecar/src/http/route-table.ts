// The one route table. The express router (router.ts), the 404 and 405 answers, which routes
// answer without credentials (gate.ts) and the OpenAPI document's paths (openapi.ts) are all
// read from it: a route exists in all of them or in none.
import type { Method, Route } from './exchange';
import { DOCS_POLICY, PAGE_POLICY, sendFile } from './pages';
import * as routes from './routes';

const GET: readonly Method[] = ['GET', 'HEAD'];
const POST: readonly Method[] = ['POST'];

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
  ...[
    ['/', 'setup.html', 'text/html'],
    ['/setup.js', 'setup.js', 'text/javascript'],
    ['/setup.css', 'setup.css', 'text/css']
  ].map(([path, name, type]) => ({
    path,
    methods: GET,
    public: false,
    setupPage: true,
    file: { name, type, policy: PAGE_POLICY, from: 'static' as const },
    handle: sendFile
  })),
  // The icon names no route: served wherever the service runs.
  {
    path: '/favicon.svg',
    methods: GET,
    public: true,
    file: {
      name: 'favicon.svg',
      type: 'image/svg+xml',
      policy: PAGE_POLICY,
      from: 'static'
    },
    handle: sendFile
  },
  ...[
    ['/api-docs', 'api-docs.html', 'text/html', 'static'],
    ['/api-docs.js', 'api-docs.js', 'text/javascript', 'static'],
    // Swagger UI's files (scripts/api.js copies them from swagger-ui-dist at build time).
    [
      '/api-docs-assets/swagger-ui-bundle.js',
      'swagger-ui-bundle.js',
      'text/javascript',
      'api-docs'
    ],
    [
      '/api-docs-assets/swagger-ui.css',
      'swagger-ui.css',
      'text/css',
      'api-docs'
    ]
  ].map(([path, name, type, from]) => ({
    path,
    methods: GET,
    public: true,
    file: {
      name,
      type,
      policy: DOCS_POLICY,
      from: from as 'static' | 'api-docs'
    },
    handle: sendFile
  }))
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
