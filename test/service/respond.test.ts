// The one problem writer (sidecar/src/http/respond.ts): problem details sent as a response and
// written straight to a socket Node took away from the HTTP layer are the same answer, the same
// status line, headers and body, so a client cannot tell which layer refused it.
import * as http from 'node:http';
import * as net from 'node:net';
import { problemOf } from '../../sidecar/src/core/problems';
import {
  sendProblem,
  writeProblemToSocket
} from '../../sidecar/src/http/respond';
import { VERSION } from '../../sidecar/src/service/version';

const PROBLEM = problemOf(
  'method-not-allowed',
  'Not here: “quoted” and non-ASCII, so the length counts bytes.',
  { extra: 1 },
  '/somewhere'
);
const HEADERS = { Allow: 'GET, HEAD', 'Retry-After': '1' };

let server: http.Server;
let port: number;

beforeAll(async () => {
  server = http.createServer((_request, response) =>
    sendProblem(response, PROBLEM, HEADERS)
  );
  server.on('connect', (_request: http.IncomingMessage, socket: net.Socket) =>
    writeProblemToSocket(socket, PROBLEM, HEADERS)
  );
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as net.AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise(resolve => server.close(resolve));
});

/** The raw answer to `head` (a request line and headers), read until the server closes. */
function exchange(head: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', chunk => chunks.push(chunk));
    socket.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.on('error', reject);
    socket.write(head);
  });
}

/** Status line, headers (lower-cased names) and body of a raw answer. */
function parse(raw: string) {
  const [head, body] = raw.split('\r\n\r\n');
  const [status, ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(
    lines.map(line => {
      const colon = line.indexOf(':');
      return [line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()];
    })
  );
  return { status, headers, body };
}

describe('problem details, to a response and to a socket', () => {
  it('are the same status, headers and body', async () => {
    const viaResponse = parse(
      await exchange(
        'GET /x HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n'
      )
    );
    const viaSocket = parse(
      await exchange('CONNECT example.org:443 HTTP/1.1\r\nHost: x\r\n\r\n')
    );
    expect(viaSocket.status).toBe('HTTP/1.1 405 Method Not Allowed');
    expect(viaResponse.status).toBe(viaSocket.status);
    expect(viaSocket.body).toBe(JSON.stringify(PROBLEM));
    expect(viaResponse.body).toBe(viaSocket.body);
    // Node adds a Date to what it writes itself; everything else is the writer's.
    const { date, ...responseHeaders } = viaResponse.headers;
    expect(date).toBeDefined();
    expect(responseHeaders).toEqual(viaSocket.headers);
    expect(viaSocket.headers).toEqual({
      'x-project-startup-version': VERSION,
      'x-content-type-options': 'nosniff',
      'cache-control': 'no-store',
      'content-type': 'application/problem+json; charset=utf-8',
      allow: 'GET, HEAD',
      'retry-after': '1',
      'content-length': String(Buffer.byteLength(viaSocket.body)),
      connection: 'close'
    });
  });
});
