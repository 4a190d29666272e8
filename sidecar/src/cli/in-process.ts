// The command line's own service: with none running for the project, `init` creates the state
// through the service's POST /project/initialize all the same, served by this process on a Unix
// socket in a fresh private directory for just that one request. The state, the record and every
// check are then the route's; nothing else in the product writes the state (see
// test/service/state-writers.test.ts).
//
// Who can reach it: the directory is mode 0700 (mkdtemp) and removed at once; the request needs a
// bearer token and, for the terminal prompt, a prompt key, both made here and never written
// anywhere. The record names the ingress `command-line`, as it always has for this path.
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { PROMPT_KEY_HEADER } from '../core/confirmation';
import { ProblemError } from '../core/problems';
import { jsonOrProblem } from './http-client';
import { createLogger } from '../service/log';
import type { InitializeResult, StartupService } from '../service/service';
import { createApp } from '../http/app';
import { DirectLoopbackGuard, SecretMatcher } from '../http/ingress-guards';
import { allocationRateLimiter, RateLimiter } from '../http/rate-limit';

/** The longest socket path every supported system binds (macOS: 104 bytes with the NUL). */
const SOCKET_PATH_MAX = 103;

/** A service's answer as status and JSON; one that is not JSON is an `internal` problem. */
export function readJsonAnswer(
  response: http.IncomingMessage,
  unreadable: string
): Promise<{ status: number; json: unknown }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    response.on('data', (chunk: Buffer) => chunks.push(chunk));
    response.on('end', () => {
      try {
        resolve({
          status: response.statusCode ?? 0,
          json: JSON.parse(Buffer.concat(chunks).toString('utf8'))
        });
      } catch {
        reject(new ProblemError('internal', unreadable));
      }
    });
  });
}

/**
 * A fresh private directory for the socket: in the temporary directory, or in /tmp where that
 * path is too long for a socket (a deep $TMPDIR).
 */
function privateSocketPath(tmpdir: string): { dir: string; socket: string } {
  for (const base of [tmpdir, '/tmp']) {
    const probe = path.join(base, 'project-startup-XXXXXX', 's');
    if (Buffer.byteLength(probe) > SOCKET_PATH_MAX) {
      continue;
    }
    const dir = fs.mkdtempSync(path.join(base, 'project-startup-'));
    fs.chmodSync(dir, 0o700); // mkdtemp makes it 0700 already; say it outright
    return { dir, socket: path.join(dir, 's') };
  }
  throw new ProblemError(
    'internal',
    `Could not find a directory with a path short enough for a private socket (TMPDIR is ${tmpdir}).`
  );
}

function listen(server: http.Server, socket: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(socket, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

function send(
  socket: string,
  route: string,
  headers: Record<string, string>,
  payload: string
): Promise<{ status: number; json: unknown }> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        socketPath: socket,
        method: 'POST',
        path: route,
        headers: {
          host: 'localhost',
          accept: 'application/json',
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(payload),
          ...headers
        },
        agent: false
      },
      response =>
        readJsonAnswer(
          response,
          'The initialize route sent an unreadable answer.'
        ).then(resolve, reject)
    );
    request.on('error', reject);
    request.end(payload);
  });
}

/**
 * POST /project/initialize to `service`, served by this process for this one request. A
 * `promptAnswered` request carries the prompt key, so the route sees the terminal prompt as the
 * transport-observed channel; otherwise it is a plain API call.
 */
export async function initializeInProcess(
  service: StartupService,
  body: object,
  promptAnswered: boolean,
  /** Where the private directory goes: the system's temporary directory (tests pass theirs). */
  tmpdir: string = os.tmpdir()
): Promise<InitializeResult> {
  const { config } = service;
  const token = randomBytes(32).toString('hex');
  const promptKey = randomBytes(32).toString('base64url');
  const app = createApp({
    service,
    guard: new DirectLoopbackGuard(
      token,
      'project-startup-session',
      `${config.baseUrl}project/`
    ),
    // The command line speaks for itself: the route's log lines are the service's, not a terminal's.
    logger: createLogger('error', () => undefined),
    rateLimiter: new RateLimiter(config.initializeRateLimit),
    claimRateLimiter: allocationRateLimiter(config.allocationRateLimit),
    promptKey: new SecretMatcher(promptKey),
    recordIngress: 'command-line'
  });
  const server = http.createServer({ requireHostHeader: false }, app);
  const { dir, socket } = privateSocketPath(tmpdir);
  try {
    await listen(server, socket);
    const answer = await send(
      socket,
      `${config.baseUrl}project/initialize`,
      {
        authorization: `Bearer ${token}`,
        ...(promptAnswered ? { [PROMPT_KEY_HEADER]: promptKey } : {})
      },
      JSON.stringify(body)
    );
    return {
      status: answer.status === 201 ? 201 : 200,
      body: jsonOrProblem<InitializeResult['body']>(
        answer,
        'The initialize route'
      )
    };
  } finally {
    await new Promise<void>(resolve => {
      if (!server.listening) {
        resolve();
        return;
      }
      server.close(() => resolve());
      server.closeAllConnections();
    });
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
