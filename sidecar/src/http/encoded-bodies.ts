// The UTF-8 bytes of JSON bodies that stay the same from request to request, encoded once, and
// the gateway's answers built around them.
import { etagOf } from '../core/manifest';
import type { StartupService } from '../service/service';

interface Entry {
  json: string;
  bytes: Buffer;
  etag?: string;
}

/**
 * A Buffer goes to the socket as it is, where a string would be copied and encoded every time.
 * (The same bytes and the same Content-Length either way.)
 */
export class EncodedBodies {
  private readonly bodies = new Map<string, Entry>();

  of(key: string, json: string): Buffer {
    return this.entry(key, json).bytes;
  }

  /** The bytes with their strong ETag (a hash of them), hashed once per distinct body. */
  tagged(key: string, json: string): { bytes: Buffer; etag: string } {
    const entry = this.entry(key, json);
    entry.etag ??= etagOf(json);
    return { bytes: entry.bytes, etag: entry.etag };
  }

  private entry(key: string, json: string): Entry {
    const known = this.bodies.get(key);
    if (known !== undefined && known.json === json) {
      return known;
    }
    const entry = { json, bytes: Buffer.from(json, 'utf8') };
    this.bodies.set(key, entry);
    return entry;
  }
}

type RpcResponse = { jsonrpc?: unknown; id?: unknown; result?: unknown } | null;

const CLOSE_BRACE = Buffer.from('}');

/**
 * `JSON.stringify(result)`, as UTF-8 bytes, for what handleRpc returns: one response or a batch.
 * A successful response whose result the service has already serialized (the manifest, a startup
 * result) reuses those bytes, encoded once; everything else is serialized as usual.
 */
export function rpcBody(
  result: unknown,
  service: StartupService,
  encoded: EncodedBodies
): string | Buffer {
  if (Array.isArray(result)) {
    return `[${result.map(response => responseJson(response, service)).join(',')}]`;
  }
  const r = result as RpcResponse;
  const prepared = preparedResult(r, service);
  if (prepared === undefined) {
    return JSON.stringify(result);
  }
  // Three pieces copied into one Buffer: the large middle one is never rebuilt as a string.
  // The same bytes as the capabilities or startup route's body, encoded once for both.
  const bytes = encoded.of(prepared.kind, prepared.json);
  return Buffer.concat([
    Buffer.from(rpcResultHead(r), 'utf8'),
    bytes,
    CLOSE_BRACE
  ]);
}

function responseJson(response: unknown, service: StartupService): string {
  const r = response as RpcResponse;
  const prepared = preparedResult(r, service);
  return prepared === undefined
    ? JSON.stringify(response)
    : `${rpcResultHead(r)}${prepared.json}}`;
}

/** A success response's JSON up to its result: `{"jsonrpc":…,"id":…,"result":`. */
function rpcResultHead(r: RpcResponse): string {
  return `{"jsonrpc":${JSON.stringify(r?.jsonrpc)},"id":${JSON.stringify(r?.id)},"result":`;
}

/** The prepared JSON of a successful { jsonrpc, id, result } (handleRpc's order), if known. */
function preparedResult(
  r: RpcResponse,
  service: StartupService
): ReturnType<StartupService['preparedJson']> {
  if (r === null || typeof r !== 'object' || !('result' in r)) {
    return undefined;
  }
  const keys = Object.keys(r);
  if (
    keys.length !== 3 ||
    keys[0] !== 'jsonrpc' ||
    keys[1] !== 'id' ||
    keys[2] !== 'result' ||
    r.id === undefined
  ) {
    return undefined; // JSON.stringify would drop an undefined id; leave such a shape to it
  }
  return service.preparedJson(r.result);
}
