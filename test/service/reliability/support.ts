// Shared by the reliability and security suites: bounds read from the environment, raw HTTP
// exchanges with a full response parser, response invariants (problem details, no leaks),
// process memory and descriptor readings from /proc, and file-tree listings.
import * as fs from 'node:fs';
import * as net from 'node:net';
import { PROBLEM_CODES } from '../../../sidecar/src/core/problems';
import { validateAgainst } from '../../helpers/schemas';

/** A positive integer bound from the environment, or the CI-sized default. */
export function intFromEnv(
  name: string,
  fallback: number,
  min = 1,
  max = 1_000_000
): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') {
    return fallback;
  }
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new Error(
      `${name} must be an integer from ${min} to ${max}, not ${JSON.stringify(raw)}`
    );
  }
  return value;
}

export interface Exchange {
  /** 0 when the connection closed without a (final) response. */
  status: number;
  /** Lower-cased names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** Every header line as sent, for CR/LF and duplicate checks. */
  rawHead: string;
  body: string;
  /** Informational (1xx) responses that came first. */
  informational: number[];
  /** The connection timed out before it closed. */
  timedOut: boolean;
}

function decodeChunked(data: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  while (at < data.length) {
    const lineEnd = data.indexOf('\r\n', at);
    if (lineEnd === -1) {
      break;
    }
    const size = parseInt(
      data.subarray(at, lineEnd).toString('latin1').split(';')[0],
      16
    );
    if (!Number.isFinite(size) || size === 0) {
      break;
    }
    parts.push(data.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

/** Parses what a server sent on one connection: skips 1xx answers, decodes chunked bodies. */
export function parseResponse(data: Buffer, timedOut = false): Exchange {
  const informational: number[] = [];
  let rest = data;
  for (;;) {
    const split = rest.indexOf('\r\n\r\n');
    const head = (split === -1 ? rest : rest.subarray(0, split)).toString(
      'latin1'
    );
    const [statusLine, ...lines] = head.split('\r\n');
    const status = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1];
    if (status === undefined) {
      return {
        status: 0,
        headers: {},
        rawHead: head,
        body: rest.toString('utf8'),
        informational,
        timedOut
      };
    }
    const code = Number(status);
    if (code >= 100 && code < 200 && split !== -1) {
      informational.push(code);
      rest = rest.subarray(split + 4);
      continue;
    }
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      if (colon > 0) {
        const name = line.slice(0, colon).trim().toLowerCase();
        const value = line.slice(colon + 1).trim();
        headers[name] =
          headers[name] === undefined ? value : `${headers[name]}, ${value}`;
      }
    }
    let body = split === -1 ? Buffer.alloc(0) : rest.subarray(split + 4);
    if (/chunked/i.test(headers['transfer-encoding'] ?? '')) {
      body = decodeChunked(body);
    }
    return {
      status: code,
      headers,
      rawHead: head,
      body: body.toString('utf8'),
      informational,
      timedOut
    };
  }
}

/**
 * Writes `data` as it is on a fresh loopback connection and collects everything until the server
 * closes it (requests should say `Connection: close`). Resolves, never rejects: a timeout is
 * reported in `timedOut`. `localAddress` picks the client's loopback source address.
 */
export function exchange(
  target: { port: number } | { socketPath: string },
  data: string | Buffer,
  options: { timeoutMs?: number; localAddress?: string } = {}
): Promise<Exchange> {
  return new Promise(resolve => {
    const socket =
      'port' in target
        ? net.connect({
            port: target.port,
            host: '127.0.0.1',
            localAddress: options.localAddress
          })
        : net.connect({ path: target.socketPath });
    const chunks: Buffer[] = [];
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      socket.destroy();
    }, options.timeoutMs ?? 10000);
    socket.on('data', chunk => chunks.push(chunk));
    socket.on('error', () => undefined); // a reset after the answer still leaves what was read
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(parseResponse(Buffer.concat(chunks), timedOut));
    });
    socket.write(data);
  });
}

/** One request as raw bytes: request line, headers in order, optional body. */
export function rawHttp(
  method: string,
  target: string,
  headers: [string, string][],
  body?: string | Buffer
): Buffer {
  const head = `${method} ${target} HTTP/1.1\r\n${headers.map(([n, v]) => `${n}: ${v}\r\n`).join('')}\r\n`;
  return body === undefined
    ? Buffer.from(head, 'latin1')
    : Buffer.concat([Buffer.from(head, 'latin1'), Buffer.from(body)]);
}

/** Signs of a stack trace or of the service's own code paths. */
export function leakSigns(text: string): string[] {
  const found: string[] = [];
  if (/\n\s+at\s/.test(text) || text.includes('    at ')) {
    found.push('stack trace');
  }
  if (
    /sidecar\/(src|dist)\//.test(text) ||
    text.includes('node_modules') ||
    text.includes('node:internal')
  ) {
    found.push('code path');
  }
  if (/\.(ts|js):\d+/.test(text)) {
    found.push('source position');
  }
  return found;
}

/**
 * What is wrong with a 4xx/5xx answer as problem details (empty when it is right): the media
 * type, the Problem schema, a status member equal to the HTTP status, a code of that status.
 * A HEAD answer has no body: only the media type is checked.
 */
export function problemViolations(
  status: number,
  contentType: string | undefined,
  body: string,
  method = 'GET'
): string[] {
  const out: string[] = [];
  if (!/^application\/problem\+json/.test(contentType ?? '')) {
    out.push(
      `${status} with Content-Type ${contentType ?? '(none)'}, not application/problem+json`
    );
  }
  if (method.toUpperCase() === 'HEAD') {
    return out;
  }
  let json: { status?: unknown; code?: unknown } | undefined;
  try {
    json = JSON.parse(body) as { status?: unknown; code?: unknown };
  } catch {
    out.push(`${status} body is not JSON: ${body.slice(0, 120)}`);
    return out;
  }
  out.push(
    ...validateAgainst('Problem', json).map(e => `Problem schema: ${e}`)
  );
  if (json.status !== status) {
    out.push(
      `status member ${String(json.status)} differs from HTTP ${status}`
    );
  }
  const known = PROBLEM_CODES[json.code as keyof typeof PROBLEM_CODES];
  if (known === undefined) {
    out.push(`unknown problem code ${String(json.code)}`);
  } else if (known.status !== status) {
    out.push(
      `code ${String(json.code)} belongs to ${known.status}, answered ${status}`
    );
  }
  return out;
}

/** Resident set size of a process in bytes (VmRSS of /proc/PID/status), or undefined when gone. */
export function rssOf(pid: number): number | undefined {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1];
    return kb === undefined ? undefined : Number(kb) * 1024;
  } catch {
    return undefined;
  }
}

/** How many file descriptors a process holds open, or undefined when it is gone. */
export function openFdsOf(pid: number): number | undefined {
  try {
    return fs.readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return undefined;
  }
}

/** Whether a process holds the pid (test/helpers/processes.ts says when that is the one meant). */
export { alive } from '../../helpers/processes';

/** Every path below `dir`: the helpers' listTree, under the name these suites use. */
export { listTree as tree } from '../../helpers/cli';

/** Least-squares slope of (x, y) points. */
export function slope(points: readonly [number, number][]): number {
  const n = points.length;
  if (n < 2) {
    return 0;
  }
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  let num = 0;
  let den = 0;
  for (const [x, y] of points) {
    num += (x - mx) * (y - my);
    den += (x - mx) ** 2;
  }
  return den === 0 ? 0 : num / den;
}
