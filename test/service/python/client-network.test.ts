// The Python client against real HTTP servers on loopback: a
// redirect to another origin is refused before the token goes there (urllib copies the
// Authorization header to wherever a redirect points); one within the server is followed; an
// answer cut short is a clear problem, never a traceback. SERVER A is a small /usr/bin/python3
// HTTP server that redirects or misbehaves by path; SERVER B records whatever reaches it.
import { ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { tempRoot } from '../../helpers/harness';
import {
  startRecorder,
  stopAllFixtureProcesses
} from '../../helpers/jupyter-impostors';
import { firstOutput } from '../../helpers/listener-as-user';
import { runPackagePython } from '../../helpers/package-python';

const SERVER_A = `
import http.server, sys
elsewhere, log = sys.argv[1], sys.argv[2]
class A(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        with open(log, "a") as f:
            f.write(self.requestline + "\\n" + str(self.headers) + "\\n")
        if self.path.startswith("/away/"):
            self.send_response(302)
            self.send_header("Location", elsewhere + self.path)
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif self.path.startswith("/here/project/startup"):
            self.send_response(307)
            self.send_header("Location", "/here/project/moved")
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif self.path.startswith("/here/project/moved"):
            data = b'{"phase": "moved-here"}'
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        else:  # /cut/: promises 100 bytes, sends 3 and closes
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "100")
            self.end_headers()
            self.wfile.write(b'{"p')
            self.wfile.flush()
            self.close_connection = True
    def log_message(self, *args):
        pass
server = http.server.HTTPServer(("127.0.0.1", 0), A)
print(server.server_address[1], flush=True)
server.serve_forever()
`;

let serverA: ChildProcess | undefined;
let root = '';
afterAll(() => {
  serverA?.kill('SIGKILL');
  stopAllFixtureProcesses();
  if (root) {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

async function startServerA(elsewhere: string, log: string): Promise<number> {
  const child = spawn('/usr/bin/python3', ['-c', SERVER_A, elsewhere, log], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: '/usr/bin:/bin' }
  });
  serverA = child;
  return Number(await firstOutput(child, 'server A'));
}

function python(
  code: string,
  env: Record<string, string> = {}
): {
  out: Record<string, unknown>;
  stderr: string;
} {
  const result = runPackagePython(code, { timeoutMs: 60000, env });
  let out: Record<string, unknown> = {};
  try {
    out = JSON.parse(result.stdout) as Record<string, unknown>;
  } catch {
    // a traceback: stderr says what
  }
  return { out, stderr: result.stderr };
}

const CALL = (url: string) => `
import json
from jupyterlab_project_startup import client
try:
    client.connect(url=${JSON.stringify(url)}, token="secret-jupyter-token")
    print(json.dumps({"answer": client.startup(), "code": None}))
except client.ProjectStartupError as problem:
    print(json.dumps({"code": problem.code, "detail": problem.detail, "fix": problem.fix}))
`;

describe('the Python client and what a Jupyter server (or anything at its address) answers', () => {
  let portA = 0;
  let logA = '';
  let logB = '';
  let portB = 0;

  beforeAll(async () => {
    root = tempRoot('ps-py-network-');
    fs.chmodSync(root, 0o755);
    logA = path.join(root, 'a.log');
    logB = path.join(root, 'b.log');
    fs.writeFileSync(logA, '');
    fs.writeFileSync(logB, '');
    const b = await startRecorder(0, logB);
    portB = b.port;
    portA = await startServerA(`http://localhost:${b.port}`, logA);
  });

  it('a redirect to another origin is refused: the token never reaches it, and the problem says so', () => {
    const { out, stderr } = python(CALL(`http://127.0.0.1:${portA}/away/`));
    expect(stderr).not.toContain('Traceback');
    expect(fs.readFileSync(logB, 'utf8')).toBe('');
    expect(out.code).toBe('jupyter-redirected');
    expect(out.detail).toContain('the token was not sent there');
    expect(String(out.detail)).not.toContain('secret-jupyter-token');
  });

  it('a redirect within the same server is followed, with the token', () => {
    const { out, stderr } = python(CALL(`http://127.0.0.1:${portA}/here/`));
    expect(stderr).not.toContain('Traceback');
    expect(out).toEqual({ answer: { phase: 'moved-here' }, code: null });
    expect(fs.readFileSync(logA, 'utf8')).toMatch(
      /GET \/here\/project\/moved HTTP\/1\.1\n(.+\n)*Authorization: token secret-jupyter-token\n/
    );
  });

  it('an HTTP proxy named by the environment is not used: the token goes straight to the server', () => {
    const before = fs.readFileSync(logB, 'utf8');
    const proxy = `http://127.0.0.1:${portB}/`;
    const { out, stderr } = python(CALL(`http://127.0.0.1:${portA}/here/`), {
      http_proxy: proxy,
      HTTP_PROXY: proxy
    });
    expect(stderr).not.toContain('Traceback');
    expect(fs.readFileSync(logB, 'utf8')).toBe(before);
    expect(out).toEqual({ answer: { phase: 'moved-here' }, code: null });
  });

  it('an answer cut short is a clear problem, never a traceback', () => {
    const { out, stderr } = python(CALL(`http://127.0.0.1:${portA}/cut/`));
    expect(stderr).not.toContain('Traceback');
    expect(out.code).toBe('jupyter-unreachable');
  });

  it('an address that is not http(s) is a clear problem, never a traceback', () => {
    for (const url of ['ftp://127.0.0.1/', 'not a url', 'http://[::1/']) {
      const { out, stderr } = python(CALL(url));
      expect({ url, stderr }).toEqual({ url, stderr: '' });
      expect(out.code).toBe('jupyter-url-invalid');
    }
  });
});
