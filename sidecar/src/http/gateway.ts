// JSON-RPC 2.0 over POST {base_url}project/gateway: the same core calls as the REST routes,
// with each failure's problem details in error.data.
import { asProblemError, ProblemError } from '../core/problems';
import type { StartupService } from '../service/service';
import type { InitializeResponse } from '../core/api-types';
import { parseStartupParams } from '../core/requests';
import { validateGatewayRequest } from '../core/generated/request-validators';
import { fieldErrors, SchemaError } from '../core/schema-errors';
import {
  GATEWAY_MAX_BATCH,
  GATEWAY_METHODS
} from '../core/generated/schema-lists';

export const JSON_RPC_ERRORS = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internal: -32603,
  /** Application errors (stale confirmation, wrong phase, ...): details in error.data. */
  application: -32000
} as const;

const PARAM_CODES = new Set([
  'missing-interface',
  'unknown-interface',
  'validation-failed'
]);

// The methods and the batch limit are the schema's (gateway-request.schema.json).
export { GATEWAY_METHODS };
export const MAX_BATCH = GATEWAY_MAX_BATCH;
type GatewayMethod = (typeof GATEWAY_METHODS)[number];

type Id = string | number | null;

export interface RpcContext {
  service: StartupService;
  /** Called before project.initialize runs (rate limit per client). */
  beforeInitialize: () => void;
  /**
   * project.initialize: the initialize route's own work (routes.ts), with what the transport
   * observed of this request; the gateway never creates state itself.
   */
  initialize: (params: unknown) => Promise<InitializeResponse>;
  /** Called before a job id not asked about yet costs a scheduler query (rate limit per client). */
  admitNewClaim: () => void;
  instance: string;
}

function errorResponse(
  id: Id,
  code: number,
  message: string,
  problem?: ProblemError,
  instance?: string
) {
  return {
    jsonrpc: '2.0',
    id,
    error: {
      code,
      message,
      ...(problem ? { data: problem.toProblem(instance) } : {})
    }
  };
}

export function parseErrorResponse(problem: ProblemError, instance: string) {
  return errorResponse(
    null,
    JSON_RPC_ERRORS.parseError,
    'Parse error',
    problem,
    instance
  );
}

/** -32600 with a validation-failed problem naming what is wrong in the request object. */
function invalidRequest(
  id: Id,
  errors: { pointer: string; detail: string }[],
  instance: string,
  message = 'Invalid Request'
) {
  return errorResponse(
    id,
    JSON_RPC_ERRORS.invalidRequest,
    message,
    new ProblemError(
      'validation-failed',
      'The JSON-RPC request does not have the shape of a JSON-RPC 2.0 request.',
      { errors }
    ),
    instance
  );
}

function isId(value: unknown): value is Id {
  return (
    value === null ||
    typeof value === 'string' ||
    (typeof value === 'number' && Number.isFinite(value))
  );
}

type Envelope =
  | { ok: true; method: GatewayMethod }
  | {
      ok: false;
      unknownMethod: boolean;
      errors: ReturnType<typeof fieldErrors>;
    };

/**
 * The request object checked against gateway-request.schema.json. What the schema says of the
 * params (per method) is left to the method's own parse, which names the interface's problems;
 * an unknown method is method-not-found, not a malformed request.
 */
function checkEnvelope(message: Record<string, unknown>): Envelope {
  if (validateGatewayRequest(message)) {
    return { ok: true, method: message.method as GatewayMethod };
  }
  const all = validateGatewayRequest.errors ?? [];
  const ofParams = (e: SchemaError) =>
    e.instancePath.startsWith('/params') ||
    (e.instancePath === '' && e.params.missingProperty === 'params');
  const errors = fieldErrors(all.filter(e => !ofParams(e)));
  const methodErrors = errors.filter(e => e.pointer === '/method');
  if (errors.length === 0) {
    return { ok: true, method: message.method as GatewayMethod };
  }
  const unknownMethod =
    errors.length === methodErrors.length && typeof message.method === 'string';
  return { ok: false, unknownMethod, errors };
}

async function call(
  method: GatewayMethod,
  params: unknown,
  ctx: RpcContext
): Promise<unknown> {
  switch (method) {
    case 'project.capabilities':
      return ctx.service.manifest.manifest;
    case 'project.startup': {
      const request = parseStartupParams(params);
      return ctx.service.startup(
        request.interface,
        request.allocation,
        ctx.admitNewClaim
      );
    }
    case 'project.initialize':
      ctx.beforeInitialize();
      return ctx.initialize(params ?? {});
  }
}

async function handleOne(
  message: unknown,
  ctx: RpcContext
): Promise<object | undefined> {
  if (
    message === null ||
    typeof message !== 'object' ||
    Array.isArray(message)
  ) {
    return invalidRequest(
      null,
      [{ pointer: '', detail: 'must be an object' }],
      ctx.instance
    );
  }
  const m = message as Record<string, unknown>;
  const hasId = Object.prototype.hasOwnProperty.call(m, 'id');
  const id: Id = hasId && isId(m.id) ? m.id : null;
  const envelope = checkEnvelope(m);
  if (!envelope.ok && !envelope.unknownMethod) {
    return invalidRequest(id, envelope.errors, ctx.instance);
  }
  if (!envelope.ok) {
    const methods = GATEWAY_METHODS.join(', ');
    return hasId
      ? errorResponse(
          id,
          JSON_RPC_ERRORS.methodNotFound,
          `Method not found; methods are ${methods}`,
          new ProblemError(
            'not-found',
            `The gateway has no such method; its methods are ${methods}.`,
            { allowedValues: [...GATEWAY_METHODS] }
          ),
          ctx.instance
        )
      : undefined;
  }
  try {
    const result = await call(envelope.method, m.params, ctx);
    return hasId ? { jsonrpc: '2.0', id, result } : undefined;
  } catch (error) {
    if (!hasId) {
      return undefined;
    }
    const problem = asProblemError(error);
    if (PARAM_CODES.has(problem.code)) {
      return errorResponse(
        id,
        JSON_RPC_ERRORS.invalidParams,
        'Invalid params',
        problem,
        ctx.instance
      );
    }
    if (problem.code === 'internal') {
      return errorResponse(
        id,
        JSON_RPC_ERRORS.internal,
        'Internal error',
        problem,
        ctx.instance
      );
    }
    return errorResponse(
      id,
      JSON_RPC_ERRORS.application,
      problem.message,
      problem,
      ctx.instance
    );
  }
}

/** The response to send, or undefined when every message was a notification (HTTP 204). */
export async function handleRpc(
  body: unknown,
  ctx: RpcContext
): Promise<unknown> {
  if (!Array.isArray(body)) {
    return handleOne(body, ctx);
  }
  if (body.length === 0) {
    return invalidRequest(
      null,
      [{ pointer: '', detail: 'a batch holds at least one call' }],
      ctx.instance,
      'Invalid Request: empty batch'
    );
  }
  if (body.length > MAX_BATCH) {
    return errorResponse(
      null,
      JSON_RPC_ERRORS.invalidRequest,
      `Invalid Request: a batch holds at most ${MAX_BATCH} calls`,
      new ProblemError(
        'validation-failed',
        `A batch holds at most ${MAX_BATCH} calls.`,
        { limit: MAX_BATCH }
      ),
      ctx.instance
    );
  }
  const responses: object[] = [];
  // One after the other: initialize must see the state the calls before it left.
  for (const message of body) {
    const response = await handleOne(message, ctx);
    if (response !== undefined) {
      responses.push(response);
    }
  }
  return responses.length > 0 ? responses : undefined;
}
