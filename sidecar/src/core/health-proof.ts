// The health route's proof of identity: before the command line sends the token anywhere, it
// asks the health route (without credentials) to answer a fresh nonce with an HMAC keyed by the
// token. Only the service that holds the token can answer; the token itself never travels, and
// the nonce makes an old answer useless to whoever saw it.
//
// The answer is bound to the connection it travels on: the HMAC also covers the service's own
// address and port and the client's source port, each as the service sees the socket. The
// client checks it with its own view of the same connection (the address and port it connected
// to, its own source port). A relay (something at another address that asks the real service
// over a connection of its own and passes the answer on) computes nothing itself, and what it
// passes on names the relay's connection, not the client's: the check fails. What the proof
// does not prove: that no process of the same user, or root, answers (they can read the token).
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Socket } from 'node:net';

/** What a client sends as `?nonce=`: 32 to 128 hexadecimal characters (we send 64). */
export const NONCE_PATTERN = /^[0-9a-f]{32,128}$/;

/** Binds the answer to this protocol, the nonce, the instance and the connection that answers. */
const CONTEXT = 'project-startup health proof v2';

/** One connection, named the same from both ends. Empty on a Unix socket (no addresses). */
export interface ProofConnection {
  /** The address the service listens on (the client's remote address). */
  serviceAddress: string;
  servicePort: string;
  /** The client's source port (the service's remote port). */
  clientPort: string;
}

export function newNonce(): string {
  return randomBytes(32).toString('hex');
}

/** ::ffff:127.0.0.1 (an IPv4 peer of a dual-stack socket) and 127.0.0.1 are one address. */
function plainAddress(address: string | undefined): string {
  return (address ?? '').replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '');
}

function portText(port: number | undefined): string {
  return port === undefined ? '' : String(port);
}

/** The connection as the service sees a request's socket. */
export function serviceViewOf(socket: Socket): ProofConnection {
  return {
    serviceAddress: plainAddress(socket.localAddress),
    servicePort: portText(socket.localPort),
    clientPort: portText(socket.remotePort)
  };
}

/**
 * The connection as the client sees its socket. Read it while the socket is open: once
 * destroyed, Node no longer knows the addresses.
 */
export function clientViewOf(socket: Socket): ProofConnection {
  return {
    serviceAddress: plainAddress(socket.remoteAddress),
    servicePort: portText(socket.remotePort),
    clientPort: portText(socket.localPort)
  };
}

/** HMAC-SHA256(token, context \n nonce \n instanceId \n service address \n port \n client port), hex. */
export function healthProof(
  token: string,
  nonce: string,
  instanceId: string,
  connection: ProofConnection
): string {
  return createHmac('sha256', token)
    .update(
      [
        CONTEXT,
        nonce,
        instanceId,
        connection.serviceAddress,
        connection.servicePort,
        connection.clientPort
      ].join('\n')
    )
    .digest('hex');
}

/**
 * Whether `proof` answers `nonce` for this token and instance over this very connection
 * (constant-time comparison).
 */
export function proofMatches(
  proof: unknown,
  token: string,
  nonce: string,
  instanceId: string,
  connection: ProofConnection
): boolean {
  if (typeof proof !== 'string' || !/^[0-9a-f]{64}$/.test(proof)) {
    return false;
  }
  const expected = Buffer.from(
    healthProof(token, nonce, instanceId, connection),
    'hex'
  );
  return timingSafeEqual(Buffer.from(proof, 'hex'), expected);
}
