// Starts the real service in this process on a loopback port, with its own temporary project,
// home and runtime directories, and platform evidence given as environment variables and
// marker files. Requests go over real HTTP with full control of the headers.
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { resolveConfig, ServeOptions } from '../../sidecar/src/config/config';
import { createLogger } from '../../sidecar/src/service/log';
import { RunningService, startService } from '../../sidecar/src/http/server';
import type { EarlyListener } from '../../sidecar/src/http/listen-first';
import type {
  DirectoryTraversal,
  StepHook
} from '../../sidecar/src/observe/state';
import { openApiMismatches } from './openapi';

/** Evidence that selects each platform the way a real machine would show it. */
export const PLATFORM_EVIDENCE = {
  generic: { env: {}, files: [] as string[] },
  'hosted-notebook': {
    env: {
      JUPYTERHUB_API_URL: 'http://127.0.0.1:8081/hub/api',
      JUPYTERHUB_USER: 'alice',
      JUPYTERHUB_SERVICE_PREFIX: '/user/alice/'
    },
    files: [] as string[]
  },
  /** A login node: the scheduler is configured, no allocation. */
  cluster: {
    env: { SLURM_CONF: '/etc/slurm/slurm.conf' },
    files: ['/etc/slurm/slurm.conf']
  }
} as const;

/** Every readiness check the service reports, in its order (design.md "Readiness checks"). */
export const CHECK_IDS = [
  'platform-evidence',
  'interface-support',
  'project-path',
  'state-path',
  'approved-storage',
  'compute-allocation',
  'gateway-ingress',
  'browser-route',
  'credential-backends',
  'inference-runtimes',
  'confirmation'
];

export interface TestServiceOptions {
  env?: Record<string, string>;
  files?: readonly string[];
  serve?: ServeOptions;
  /** Create the project directory (default true). */
  createProject?: boolean;
  /** Path of the project below the temporary root (default "project"). */
  projectName?: string;
  onCreationStep?: StepHook;
  /** How the service traverses the state's directories (default auto). */
  stateTraversal?: DirectoryTraversal;
  /** A socket listened on before the service, as the bin does for `serve --unix-socket`. */
  listeningFirst?: EarlyListener;
  /** The clock sign-in sessions expire by (default Date.now). */
  clock?: () => number;
}

export interface TestService {
  running: RunningService;
  root: string;
  projectDir: string;
  homeDir: string;
  runtimeDir: string;
  env: Record<string, string>;
  /** http://127.0.0.1:PORT */
  origin: string;
  /** {origin}{base}project/ */
  api: string;
  token: string;
  logs: string[];
  close(): Promise<void>;
}

/**
 * A PATH with no scheduler or D-Bus client on it: liveness is "unknown" whatever this machine
 * has installed (a real Slurm, for the cluster tests). Tests that want the clients set PATH.
 */
export const NO_SCHEDULER_PATH = '/nonexistent-project-startup-test-bin';

/** A loopback port that refuses connections, so runtime probes fail fast and deterministically. */
export const CLOSED_URL = 'http://127.0.0.1:9/';

/** A loopback TCP port nothing listens on right now (for a server a test starts next). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export function tempRoot(prefix = 'ps-test-'): string {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
}

export async function startTestService(
  options: TestServiceOptions = {}
): Promise<TestService> {
  const root = tempRoot();
  const projectDir = path.join(root, options.projectName ?? 'project');
  const homeDir = path.join(root, 'home');
  const runtimeDir = path.join(root, 'run');
  fs.mkdirSync(homeDir);
  if (options.createProject !== false) {
    fs.mkdirSync(projectDir, { recursive: true });
  }
  const env: Record<string, string> = {
    HOME: homeDir,
    PATH: NO_SCHEDULER_PATH,
    PROJECT_STARTUP_RUNTIME_DIR: runtimeDir,
    PROJECT_STARTUP_LOCAL_RUNTIME_URL: CLOSED_URL,
    PROJECT_STARTUP_SERVING_RUNTIME_URL: CLOSED_URL,
    ...options.env
  };
  const files = new Set(options.files ?? []);
  const logs: string[] = [];
  // The notebook-server-proxy ingress on TCP stands in for Jupyter's proxy in these suites.
  const config = resolveConfig(
    { projectDir, allowUnauthenticatedTcp: true, ...options.serve },
    env,
    projectDir
  );
  const running = await startService({
    config,
    env,
    fileExists: p => files.has(p),
    logger: createLogger('debug', line => logs.push(line)),
    onCreationStep: options.onCreationStep,
    clock: options.clock,
    stateTraversal: options.stateTraversal,
    listeningFirst: options.listeningFirst
  });
  const origin = running.url ? new URL(running.url).origin : 'http://localhost';
  return {
    running,
    root,
    projectDir: config.projectDir,
    homeDir,
    runtimeDir,
    env,
    origin,
    api: running.url ?? '',
    token: running.token ?? '',
    logs,
    close: async () => {
      await running.close();
      fs.rmSync(root, { recursive: true, force: true });
    }
  };
}

/**
 * Test services for the scope this is called in (a file or a describe block): returns a start
 * function and registers the hook that closes every service it started, after each test
 * ('each') or after all the scope's tests ('all').
 */
export function trackedServices(
  when: 'each' | 'all'
): (options?: TestServiceOptions) => Promise<TestService> {
  const open: TestService[] = [];
  const closeAll = async (): Promise<void> => {
    await Promise.all(open.splice(0).map(svc => svc.close()));
  };
  if (when === 'each') {
    afterEach(closeAll);
  } else {
    afterAll(closeAll);
  }
  return async (options = {}) => {
    const svc = await startTestService(options);
    open.push(svc);
    return svc;
  };
}

export interface HttpResult {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: any;
}

export interface RequestOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Send the service token as a Bearer header (default true when a token is given). */
  token?: string;
  socketPath?: string;
  /** On a connection of its own (no pooled keep-alive socket), sent with `Connection: close`. */
  newConnection?: boolean;
}

/**
 * One real HTTP request; the Host header defaults to the URL's host and can be overridden. The
 * answer is checked against the OpenAPI document (helpers/openapi.ts): one it does not describe
 * rejects, naming the route, status and what differs.
 */
export function request(
  url: string,
  options: RequestOptions = {}
): Promise<HttpResult> {
  return sendOnce(url, options).catch((error: RequestError) => {
    // A pooled keep-alive socket that the service closed as idle just as this request went out
    // is reset before the service read a byte of it (Node's documented race): send it once
    // more, on a connection of its own. A reset of a fresh connection is a real failure.
    if (error.code === 'ECONNRESET' && error.reusedSocket === true) {
      return sendOnce(url, { ...options, newConnection: true });
    }
    throw error;
  });
}

type RequestError = NodeJS.ErrnoException & { reusedSocket?: boolean };

function sendOnce(url: string, options: RequestOptions): Promise<HttpResult> {
  const target = new URL(url);
  const headers: Record<string, string> = {
    host: target.host,
    ...options.headers
  };
  if (options.newConnection) {
    headers.connection = 'close';
  }
  if (options.token !== undefined) {
    headers.authorization = `Bearer ${options.token}`;
  }
  if (options.body !== undefined && headers['content-length'] === undefined) {
    headers['content-length'] = String(Buffer.byteLength(options.body));
  }
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        method: options.method ?? 'GET',
        host: target.hostname,
        port: target.port,
        path: `${target.pathname}${target.search}`,
        headers,
        socketPath: options.socketPath,
        ...(options.newConnection ? { agent: false } : {}),
        timeout: 10000
      },
      response => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = text === '' ? undefined : JSON.parse(text);
          } catch {
            json = undefined;
          }
          // Every answer, in every suite, must be what the served OpenAPI document describes.
          const mismatches = openApiMismatches({
            method: options.method ?? 'GET',
            url,
            status: response.statusCode ?? 0,
            contentType: response.headers['content-type'],
            text,
            fromService:
              response.headers['x-project-startup-version'] !== undefined
          });
          if (mismatches.length > 0) {
            reject(
              new Error(
                `the answer does not match the OpenAPI document:\n  ${mismatches.join('\n  ')}`
              )
            );
            return;
          }
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            text,
            json
          });
        });
      }
    );
    req.on('timeout', () => req.destroy(new Error('request timed out')));
    req.on('error', (error: RequestError) => {
      error.reusedSocket = req.reusedSocket;
      reject(error);
    });
    req.end(options.body);
  });
}

/**
 * The header `project-startup init` sends after a person answered its prompt on a TTY: the
 * prompt key from the service's private runtime file (what a real command line reads).
 */
export function promptKeyHeader(svc: TestService): Record<string, string> {
  const files = fs
    .readdirSync(svc.runtimeDir)
    .filter(name => name.endsWith('.json'));
  const info = JSON.parse(
    fs.readFileSync(path.join(svc.runtimeDir, files[0]), 'utf8')
  ) as { promptKey?: string };
  if (!info.promptKey) {
    throw new Error(`no prompt key in the runtime file of ${svc.api}`);
  }
  return { 'x-project-startup-prompt-key': info.promptKey };
}

/** POST a JSON body with the Bearer token. */
export function postJson(
  url: string,
  token: string,
  body: unknown,
  headers: Record<string, string> = {},
  options: Pick<RequestOptions, 'newConnection'> = {}
): Promise<HttpResult> {
  return request(url, {
    ...options,
    method: 'POST',
    token,
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body)
  });
}

export interface RawResponse {
  status: number;
  /** Lower-cased names; a repeated header keeps its last value. */
  headers: Record<string, string>;
  body: string;
}

/**
 * Sends bytes as they are on a fresh connection to 127.0.0.1:port and parses the one response
 * once the connection closes (so the request should ask for that, or be one the server closes).
 * Rejects when the connection has not closed within timeoutMs.
 */
export function rawRequest(
  port: number,
  data: string | Buffer,
  timeoutMs = 5000
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error('raw request timed out'));
    }, timeoutMs);
    socket.on('data', chunk => chunks.push(chunk));
    socket.on('error', () => undefined); // a reset after the response still leaves what was read
    socket.on('close', () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      const head = split === -1 ? text : text.slice(0, split);
      const [statusLine, ...lines] = head.split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        if (colon > 0) {
          headers[line.slice(0, colon).trim().toLowerCase()] = line
            .slice(colon + 1)
            .trim();
        }
      }
      resolve({
        status: Number(statusLine.split(' ')[1] ?? 0),
        headers,
        body: split === -1 ? '' : text.slice(split + 4)
      });
    });
    socket.write(data);
  });
}

/** Every file and directory below `dir` with mode, size and all three timestamps, by lstat only. */
export function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (p: string) => {
    const s = fs.lstatSync(p);
    out[p] =
      `${s.mode.toString(8)} ${s.size} ${s.atimeMs} ${s.mtimeMs} ${s.ctimeMs} ${s.ino}`;
    if (s.isDirectory()) {
      for (const name of fs.readdirSync(p).sort()) {
        walk(path.join(p, name));
      }
    }
  };
  walk(dir);
  return out;
}
