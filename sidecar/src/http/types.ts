// The shapes the HTTP layer passes around: a route of the one table (route-table.ts), what the
// app holds for every request, and one request on its way through a route.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../service/log';
import type { StartupService } from '../service/service';
import type { EncodedBodies } from './encoded-bodies';
import type {
  IngressGuard,
  RequestIdentity,
  SecretMatcher
} from './ingress-guards';
import type { OperationId } from './openapi-operations';
import type { RateLimiter } from './rate-limit';

export type Method = 'GET' | 'HEAD' | 'POST';

/** A file a route serves: from sidecar/static (read at start-up) or the built API docs. */
export interface RouteFile {
  name: string;
  type: string;
  /** The Content-Security-Policy it is served with. */
  policy: string;
  from: 'static' | 'api-docs';
}

export type Handler = (exchange: Exchange) => void | Promise<void>;

/** One route of the service, under `{base}project`. */
export interface Route {
  path: string;
  /** What the route answers, as its Allow header lists them. */
  methods: readonly Method[];
  /**
   * Answers without credentials (where the ingress allows: not behind a trusted proxy). Only
   * what the package itself ships: liveness, the API description, its docs page, the icon.
   */
  public: boolean;
  /** Its operation in the OpenAPI document; none for the pages and their files. */
  operationId?: OperationId;
  /** Part of the setup page: served only where the platform has a browser route. */
  setupPage?: boolean;
  file?: RouteFile;
  handle: Handler;
}

export interface AppOptions {
  service: StartupService;
  guard: IngressGuard;
  logger: Logger;
  rateLimiter: RateLimiter;
  /** New job ids per client in the allocation parameter (each costs a scheduler query). */
  claimRateLimiter: RateLimiter;
  /** The command line's prompt key (from the runtime file): proves a TTY prompt was answered. */
  promptKey?: SecretMatcher;
  /** The token the health route proves it holds (health-proof.ts); none, no proof. */
  proofKey?: string;
  /**
   * The ingress the record names where it is not the guard's: `command-line` on the command
   * line's own private socket (cli/in-process.ts), which only that process can reach.
   */
  recordIngress?: 'command-line';
}

/** What every request may use, made once with the app (nothing is read on a request path). */
export interface AppContext extends AppOptions {
  /** `{base}project`: every route lives below it. */
  prefix: string;
  encoded: EncodedBodies;
  healthJson: string;
  /**
   * The API description's JSON: built on its first request from the schema files read with
   * the app (a few ms of CPU a cold start need not spend), then kept.
   */
  openApiJson: () => string;
  /** The bytes of each file route from sidecar/static, by route path. */
  files: ReadonlyMap<string, Buffer>;
}

/** One request on a route, once the gate (before-route.ts) has let it through. */
export interface Exchange {
  request: IncomingMessage;
  response: ServerResponse;
  app: AppContext;
  route: Route;
  query: URLSearchParams;
  /** Who asked; undefined on a public route. */
  identity?: RequestIdentity;
  /** The request path as problems' `instance` shows it. */
  instance: string;
}

/** Who asked, on a route that is not public (the gate authenticated the request). */
export function identityOf(exchange: Exchange): RequestIdentity {
  if (exchange.identity === undefined) {
    throw new Error(`route ${exchange.route.path} ran unauthenticated`);
  }
  return exchange.identity;
}
