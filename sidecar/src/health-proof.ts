// The health route's proof of identity: before the command line sends the token anywhere, it
// asks the health route (without credentials) to answer a fresh nonce with an HMAC keyed by the
// token. Only the service that holds the token can answer; the token itself never travels, and
// the nonce makes an old answer useless to whoever saw it.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** What a client sends as `?nonce=`: 32 to 128 hexadecimal characters (we send 64). */
export const NONCE_PATTERN = /^[0-9a-f]{32,128}$/;

/** Binds the answer to this protocol, the nonce and the instance that answers. */
const CONTEXT = 'project-startup health proof v1';

export function newNonce(): string {
  return randomBytes(32).toString('hex');
}

/** HMAC-SHA256(token, context \n nonce \n instanceId), hex. */
export function healthProof(
  token: string,
  nonce: string,
  instanceId: string
): string {
  return createHmac('sha256', token)
    .update(`${CONTEXT}\n${nonce}\n${instanceId}`)
    .digest('hex');
}

/** Whether `proof` answers `nonce` for this token and instance (constant-time comparison). */
export function proofMatches(
  proof: unknown,
  token: string,
  nonce: string,
  instanceId: string
): boolean {
  if (typeof proof !== 'string' || !/^[0-9a-f]{64}$/.test(proof)) {
    return false;
  }
  const expected = Buffer.from(healthProof(token, nonce, instanceId), 'hex');
  return timingSafeEqual(Buffer.from(proof, 'hex'), expected);
}
