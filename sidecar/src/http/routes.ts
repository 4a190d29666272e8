// The API routes' work: capabilities, startup, initialize, the JSON-RPC gateway, health and the
// API description. Every decision is the core's or the service's; a handler turns a request
// into a call and the answer into a response. The gate (before-route.ts) has checked the Host and the
// credentials before any of these runs.
import type { IncomingMessage } from 'node:http';
import { asProblemError, ProblemError } from '../core/problems';
import { parseAllocationClaim } from '../core/allocation-claim';
import {
  channelOf,
  ConfirmationChannel,
  PROMPT_KEY_HEADER
} from '../core/confirmation';
import {
  healthProof,
  NONCE_PATTERN,
  serviceViewOf
} from '../core/health-proof';
import { INTERFACE_IDS } from '../core/vocabulary';
import type { InitializeResult } from '../service/service';
import { parseInterface } from '../core/requests';
import { readJsonBody } from './body';
import { rpcBody } from './encoded-bodies';
import { Exchange, identityOf } from './types';
import { handleRpc, parseErrorResponse } from './gateway';
import { checkSameOrigin, RequestIdentity } from './ingress-guards';
import { carriesJupyterXsrf, checkJupyterXsrf } from './jupyter-xsrf';
import { sendJson } from './respond';

/** Weak comparison, as RFC 9110 asks for If-None-Match. */
function matchesEtag(header: string | undefined, etag: string): boolean {
  if (!header) {
    return false;
  }
  if (header.trim() === '*') {
    return true;
  }
  return header.split(',').some(tag => tag.trim().replace(/^W\//, '') === etag);
}

/** Sends `bytes` tagged with `etag`, or an empty 304 when the client already holds them. */
function sendTagged(
  { request, response }: Exchange,
  bytes: Buffer,
  etag: string
): void {
  response.setHeader('ETag', etag);
  if (matchesEtag(request.headers['if-none-match'], etag)) {
    response.statusCode = 304;
    response.end();
    return;
  }
  sendJson(response, 200, bytes);
}

/** What this request's transport shows about where a confirmation comes from. */
function channel(
  { app, request }: Exchange,
  identity: RequestIdentity
): ConfirmationChannel {
  const ingress = app.guard.mode;
  const raw = request.headers[PROMPT_KEY_HEADER];
  const prompted =
    app.promptKey !== undefined &&
    typeof raw === 'string' &&
    app.promptKey.matches(raw);
  return channelOf(
    ingress,
    identity.via,
    prompted,
    ingress === 'notebook-server-proxy' && carriesJupyterXsrf(request)
  );
}

export function capabilities(exchange: Exchange): void {
  const { json, etag } = exchange.app.service.manifest;
  exchange.response.setHeader('Cache-Control', 'private, no-cache');
  sendTagged(exchange, exchange.app.encoded.of('capabilities', json), etag);
}

/** The interface and the allocation claim of a startup request, each given at most once. */
function startupParameters(query: URLSearchParams) {
  const values = query.getAll('interface');
  if (values.length > 1) {
    throw new ProblemError(
      'unknown-interface',
      `Give the interface parameter once: one of ${INTERFACE_IDS.join(', ')}.`,
      { allowedValues: [...INTERFACE_IDS] }
    );
  }
  const iface = parseInterface(values[0]);
  const claims = query.getAll('allocation');
  if (claims.length > 1) {
    throw new ProblemError(
      'validation-failed',
      'Give the allocation parameter once, as <scheduler>:<job id>.'
    );
  }
  return { iface, claim: parseAllocationClaim(claims[0], '/allocation') };
}

export async function startup(exchange: Exchange): Promise<void> {
  const { service, encoded, claimRateLimiter } = exchange.app;
  const identity = identityOf(exchange);
  const { iface, claim } = startupParameters(exchange.query);
  const pending = service.startupJson(iface, claim, () =>
    claimRateLimiter.take(identity.clientKey)
  );
  const json = typeof pending === 'string' ? pending : await pending;
  // The projection's JSON is the same string object while nothing observed has changed. A
  // poller that sends back the last ETag gets an empty 304 while the answer is the same (the
  // tag is a hash of the bytes). Still no-store: a projection names private paths.
  const { bytes, etag } = encoded.tagged(`startup ${iface}`, json);
  sendTagged(exchange, bytes, etag);
}

export async function initialize(exchange: Exchange): Promise<void> {
  const { request, response, app } = exchange;
  const identity = identityOf(exchange);
  checkSameOrigin(request, app.guard, identity);
  checkJupyterXsrf(request, app.guard);
  // Limited before any work: not even the body is read beyond the limit.
  app.rateLimiter.take(identity.clientKey);
  const body = await readJsonBody(request);
  const result = await createProjectState(
    app,
    identity,
    channel(exchange, identity),
    body
  );
  sendJson(response, result.status, JSON.stringify(result.body));
}

/**
 * The initialize route's work, and the one place anything in the product creates project
 * state: this route, the gateway's project.initialize (the same call in JSON-RPC), and the
 * command line without a running service (cli/in-process.ts, through this route) all end here.
 */
async function createProjectState(
  app: Exchange['app'],
  identity: RequestIdentity,
  observed: ConfirmationChannel,
  body: unknown
): Promise<InitializeResult> {
  const result = await app.service.initialize(body, {
    ingress: app.recordIngress ?? app.guard.mode,
    channel: observed,
    admitNewClaim: () => app.claimRateLimiter.take(identity.clientKey)
  });
  app.logger.info(
    result.status === 201
      ? 'project state created'
      : 'project state already present',
    {
      interface: result.body.record.confirmation.interface,
      method: result.body.record.confirmation.method
    }
  );
  return result;
}

/** The body of a gateway request, or undefined once a JSON-RPC parse error is answered. */
async function gatewayBody(
  exchange: Exchange
): Promise<{ parsed: unknown } | undefined> {
  try {
    return { parsed: await readJsonBody(exchange.request) };
  } catch (error) {
    const problem = asProblemError(error);
    if (problem.code !== 'invalid-json') {
      throw problem;
    }
    const answer = parseErrorResponse(problem, exchange.instance);
    sendJson(exchange.response, 200, JSON.stringify(answer));
    return undefined;
  }
}

export async function gateway(exchange: Exchange): Promise<void> {
  const { request, response, app } = exchange;
  const identity = identityOf(exchange);
  checkSameOrigin(request, app.guard, identity);
  const body = await gatewayBody(exchange);
  if (body === undefined) {
    return;
  }
  const observed = channel(exchange, identity);
  const result = await handleRpc(body.parsed, {
    service: app.service,
    instance: exchange.instance,
    beforeInitialize: () => {
      checkJupyterXsrf(request, app.guard);
      app.rateLimiter.take(identity.clientKey);
    },
    initialize: async params =>
      (await createProjectState(app, identity, observed, params)).body,
    admitNewClaim: () => app.claimRateLimiter.take(identity.clientKey)
  });
  if (result === undefined) {
    response.statusCode = 204;
    response.end();
    return;
  }
  sendJson(response, 200, rpcBody(result, app.service, app.encoded));
}

/** The nonce of a health request, checked; undefined when none was asked for. */
function healthNonce(query: URLSearchParams): string | undefined {
  const nonce = query.get('nonce');
  if (nonce === null) {
    return undefined;
  }
  if (query.getAll('nonce').length > 1 || !NONCE_PATTERN.test(nonce)) {
    throw new ProblemError(
      'validation-failed',
      'nonce must be given once, as 32 to 128 lowercase hexadecimal characters.',
      {
        errors: [{ pointer: '/nonce', detail: 'must match ^[0-9a-f]{32,128}$' }]
      }
    );
  }
  return nonce;
}

export function health({ app, request, response, query }: Exchange): void {
  const nonce = app.proofKey === undefined ? undefined : healthNonce(query);
  if (nonce === undefined || app.proofKey === undefined) {
    const bytes = app.encoded.of('health', app.healthJson);
    sendJson(response, 200, bytes, 'application/health+json');
    return;
  }
  // The proof binds the client's nonce to this instance and this connection (a relay's
  // connection is another one); the token itself is never sent.
  const proof = healthProof(
    app.proofKey,
    nonce,
    app.service.instanceId,
    serviceViewOf(request.socket)
  );
  sendJson(
    response,
    200,
    `${app.healthJson.slice(0, -1)},"proof":${JSON.stringify(proof)}}`,
    'application/health+json'
  );
}

export function openapi({ app, response }: Exchange): void {
  sendJson(response, 200, app.openApiJson());
}

/** Whether a navigation (a person in a browser) made the request, not a script. */
export function wantsHtml(request: IncomingMessage): boolean {
  return (
    request.headers['sec-fetch-mode'] === 'navigate' ||
    (request.headers.accept ?? '').includes('text/html')
  );
}
