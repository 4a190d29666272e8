// What a request asks for, read from its body, params or query: the shapes are checked by
// validators generated from sidecar/schemas (core/generated/request-validators.ts); this file
// only turns their verdict into the stable problems and the typed request. Every interface (the
// REST routes, the gateway, the command line) parses an interface name here. Pure.
import { AllocationClaim, parseAllocationClaim } from './allocation-claim';
import {
  validateGatewayRequest,
  validateInitializeRequest
} from './generated/request-validators';
import { ProblemError } from './problems';
import { fieldErrors, SchemaValidator } from './schema-errors';
import { INTERFACE_IDS, InterfaceId, isInterfaceId } from './vocabulary';

export interface InitializeRequest {
  interface: InterfaceId;
  /** The caller's own allocation (the terminal's job on the cluster), verified with the scheduler. */
  allocation: AllocationClaim | undefined;
  confirm: { projectPath: string; statePath: string };
}

export interface StartupRequest {
  interface: InterfaceId;
  allocation: AllocationClaim | undefined;
}

/**
 * An interface name: missing-interface when absent or empty, unknown-interface when it is no
 * interface id ("browser" included), both listing the allowed values.
 */
export function parseInterface(raw: unknown): InterfaceId {
  if (raw === undefined || raw === '' || raw === null) {
    throw new ProblemError(
      'missing-interface',
      `Say which interface asks: interface is one of ${INTERFACE_IDS.join(', ')}.`,
      { allowedValues: [...INTERFACE_IDS] }
    );
  }
  if (typeof raw !== 'string' || !isInterfaceId(raw)) {
    throw new ProblemError(
      'unknown-interface',
      `The interface must be one of ${INTERFACE_IDS.join(', ')} ("web" is the browser interface).`,
      { allowedValues: [...INTERFACE_IDS] }
    );
  }
  return raw;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * Checks `value` with a generated validator. The interface is judged first, by parseInterface,
 * so its two problems (and their allowed values) are the same wherever an interface is named;
 * any other difference from the schema is one validation-failed problem listing every field
 * (`only` keeps the errors at or below one pointer).
 */
function validate(
  validator: SchemaValidator,
  value: unknown,
  checked: unknown,
  what: string,
  only = ''
): asserts value is Record<string, unknown> {
  if (isRecord(value)) {
    parseInterface(value.interface);
  }
  if (validator(checked)) {
    return;
  }
  const errors = fieldErrors(
    validator.errors?.filter(
      e => e.instancePath === only || e.instancePath.startsWith(`${only}/`)
    )
  );
  throw new ProblemError(
    'validation-failed',
    `${what}: ${errors.map(e => `${e.pointer || '(body)'} ${e.detail}`).join('; ')}.`,
    { errors }
  );
}

/** The body of POST initialize (and the params of project.initialize). */
export function parseInitializeRequest(body: unknown): InitializeRequest {
  validate(
    validateInitializeRequest,
    body,
    body,
    'The request body is not what initialize takes'
  );
  const confirm = body.confirm as { projectPath: string; statePath: string };
  return {
    interface: body.interface as InterfaceId,
    // The schema checks the form; the claim's own rules (a job id never starts with "-").
    allocation: parseAllocationClaim(body.allocation, '/allocation'),
    confirm: { projectPath: confirm.projectPath, statePath: confirm.statePath }
  };
}

/** The params of the gateway's project.startup (absent params name no interface). */
export function parseStartupParams(params: unknown): StartupRequest {
  const named = params === undefined ? {} : params;
  // Checked as the params of a project.startup request: the gateway schema is their one source.
  validate(
    validateGatewayRequest,
    named,
    { jsonrpc: '2.0', method: 'project.startup', params: named },
    'The params are not what project.startup takes',
    '/params'
  );
  return {
    interface: named.interface as InterfaceId,
    allocation: parseAllocationClaim(named.allocation, '/params/allocation')
  };
}
