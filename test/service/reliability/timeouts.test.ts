// Request timeouts of the real `project-startup serve`, with PROJECT_STARTUP_REQUEST_TIMEOUT_MS
// set to 1 s: a connection that sends nothing, one that stops in the middle of its headers and one
// that stops in the middle of its body are each answered 408 `request-timeout` as problem details
// (RFC 9110 §15.5.9; it used to be 400 malformed-request) and closed, and the service serves on.
//
// "When they say": Node looks for late requests only every `connectionsCheckingInterval` (30 s
// unless set), so a 1 s timeout used to fire after up to 31 s. Each exchange here waits at most
// 15 s (a bound on the test, not a measured speed): only a timeout checked about every second
// answers within it. An idle keep-alive connection is closed after 5 s (Node times that one
// itself, on the socket).
import { startServe, trackedSandboxes } from '../../helpers/cli';
import { alive, exchange, problemViolations } from './support';

const sandbox = trackedSandboxes();
const TOKEN = 'timeout-test-token-0123456789abcdef0123456789';
const WAIT_MS = 15000;

describe('request timeouts (PROJECT_STARTUP_REQUEST_TIMEOUT_MS=1000)', () => {
  it.each([
    ['sends nothing at all', () => ''],
    [
      'stops in the middle of its headers',
      (port: number) =>
        `GET /project/capabilities HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthoriz`
    ],
    [
      'stops in the middle of its body',
      (port: number) =>
        `POST /project/gateway HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"jsonrpc":`
    ]
  ])(
    'a client that %s is answered 408 request-timeout and closed',
    async (_what, data) => {
      const s = sandbox();
      const server = await startServe([], {
        env: {
          ...s.env,
          PROJECT_STARTUP_TOKEN: TOKEN,
          PROJECT_STARTUP_REQUEST_TIMEOUT_MS: '1000'
        },
        cwd: s.projectDir
      });
      const ex = await exchange({ port: server.port }, data(server.port), {
        timeoutMs: WAIT_MS
      });
      expect({ timedOut: ex.timedOut, status: ex.status }).toEqual({
        timedOut: false,
        status: 408
      });
      expect(
        problemViolations(ex.status, ex.headers['content-type'], ex.body)
      ).toEqual([]);
      const problem = JSON.parse(ex.body) as {
        code: string;
        timeoutMs: number;
      };
      expect(problem.code).toBe('request-timeout');
      expect(problem.timeoutMs).toBe(1000);
      expect(ex.headers.connection).toBe('close');

      const health = await exchange(
        { port: server.port },
        `GET /project/health HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nConnection: close\r\n\r\n`
      );
      expect(health.status).toBe(200);
      expect(alive(server.child.pid as number)).toBe(true);
      expect((await server.stop()).code).toBe(0);
    },
    40000
  );

  it('an idle keep-alive connection (a request answered, then nothing) is closed after its 5 s', async () => {
    const s = sandbox();
    const server = await startServe([], {
      env: { ...s.env, PROJECT_STARTUP_TOKEN: TOKEN },
      cwd: s.projectDir
    });
    // No Connection: close: the exchange ends only when the service closes the connection.
    const ex = await exchange(
      { port: server.port },
      `GET /project/health HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\n\r\n`,
      { timeoutMs: WAIT_MS }
    );
    expect({ timedOut: ex.timedOut, status: ex.status }).toEqual({
      timedOut: false,
      status: 200
    });
    expect(ex.headers['keep-alive']).toBe('timeout=5');
    expect((await server.stop()).code).toBe(0);
  }, 40000);

  it.each([
    [
      'PROJECT_STARTUP_REQUEST_TIMEOUT_MS',
      '5',
      /PROJECT_STARTUP_REQUEST_TIMEOUT_MS must be a whole number from 1000 to 300000/
    ],
    [
      'PROJECT_STARTUP_MAX_CONNECTIONS',
      '0',
      /PROJECT_STARTUP_MAX_CONNECTIONS must be a whole number from 1 to 65536/
    ]
  ])(
    '%s=%s stops start-up with a message naming the setting',
    async (name, value, message) => {
      const s = sandbox();
      await expect(
        startServe([], {
          env: { ...s.env, [name]: value },
          cwd: s.projectDir,
          timeoutMs: 8000
        })
      ).rejects.toThrow(message);
    },
    20000
  );
});
