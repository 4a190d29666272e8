// One set of impostor fixtures for every client that finds its Jupyter server from Jupyter's
// runtime files (the Node command line, sidecar/src/cli/jupyter-discovery.ts; the Python client,
// jupyterlab_project_startup/client.py). Each fixture is a runtime directory of this user (0700)
// holding one `jpserver-<pid>.json` whose root_dir is the project, and a real RECORDER: a
// /usr/bin/python3 HTTP server on loopback that writes down every request it receives, headers
// included, so a test can tell whether a token or an Authorization header ever arrived.
//
//   honest      the recorder is our own process, wrote (after it started) the file naming its
//               own pid and port: a Jupyter server of ours. The token must arrive (the control).
//   otherUser   the recorder runs as another user (uid 65534) and the file names its pid and
//               port: what a pid check that takes EPERM for "alive" (or root's kill 0) accepts.
//   stale       the recorder is ours, but started after the file was last written: a server
//               that died left the file, and a later process got its pid and port.
//   notListener the file names a process of ours (a `sleep`, started before the file) that does
//               not listen; the port is held by the recorder, another process.
//   truncated   the file is cut short mid-JSON (a server killed while writing it).
import { ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { tempRoot } from './harness';
import { firstOutput, OTHER_UID, spawnPythonAs } from './listener-as-user';

export type FixtureKind =
  'honest' | 'otherUser' | 'stale' | 'notListener' | 'truncated';

export interface JupyterFixture {
  kind: FixtureKind;
  root: string;
  runtimeDir: string;
  projectDir: string;
  /** The token the runtime file holds. */
  token: string;
  /** Everything the recorder received ('' when nothing, or no recorder). */
  received(): string;
  /** Whether anything secret reached the recorder: the token, an Authorization header or a cookie. */
  leaked(): boolean;
  /** Whether any request at all reached the recorder. */
  asked(): boolean;
  stop(): void;
}

const RECORDER = `
import http.server, sys
log = sys.argv[1]
class Recorder(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        with open(log, "a") as f:
            f.write(self.requestline + "\\n" + str(self.headers) + "\\n")
        data = b"not here"
        self.send_response(404)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
    do_POST = do_GET
    def log_message(self, *args):
        pass
server = http.server.HTTPServer(("127.0.0.1", 0), Recorder)
print(server.server_address[1], flush=True)
server.serve_forever()
`;

const children = new Set<ChildProcess>();

/** Starts the recorder as `uid`; resolves with the process and the port it listens on. */
export async function startRecorder(
  uid: number,
  log: string
): Promise<{ child: ChildProcess; port: number }> {
  const child = spawnPythonAs(uid, RECORDER, [log]);
  children.add(child);
  const port = Number(await firstOutput(child, 'the recorder'));
  return { child, port };
}

function writeServerFile(
  runtimeDir: string,
  pid: number,
  body: string,
  writtenSecondsAgo = 0
): string {
  const file = path.join(runtimeDir, `jpserver-${pid}.json`);
  fs.writeFileSync(file, body, { mode: 0o600 });
  if (writtenSecondsAgo > 0) {
    const then = new Date(Date.now() - writtenSecondsAgo * 1000);
    fs.utimesSync(file, then, then);
  }
  return file;
}

/** Builds one fixture; stop() (or stopAllFixtures) ends its processes and removes its files. */
export async function makeJupyterFixture(
  kind: FixtureKind
): Promise<JupyterFixture> {
  const root = tempRoot(`ps-jpserver-${kind}-`);
  fs.chmodSync(root, 0o755);
  const runtimeDir = path.join(root, 'runtime');
  const projectDir = path.join(root, 'project');
  fs.mkdirSync(runtimeDir, { mode: 0o700 });
  fs.mkdirSync(projectDir);
  const token = `fixture-token-${kind}-${process.pid}-${Date.now()}`;
  const log = path.join(root, 'received.log');
  fs.writeFileSync(log, '', { mode: 0o600 });
  const own: ChildProcess[] = [];
  const info = (pid: number, port: number) =>
    JSON.stringify({
      base_url: '/',
      hostname: '127.0.0.1',
      password: false,
      pid,
      port,
      root_dir: projectDir,
      secure: false,
      sock: '',
      token,
      url: `http://127.0.0.1:${port}/`,
      version: '1.23.3'
    });

  if (kind === 'truncated') {
    writeServerFile(runtimeDir, process.pid, info(process.pid, 9).slice(0, 40));
  } else {
    const uid = kind === 'otherUser' ? OTHER_UID : 0;
    fs.chownSync(log, uid, uid);
    const recorder = await startRecorder(uid, log);
    own.push(recorder.child);
    if (kind === 'notListener') {
      const sleeper = spawn('/bin/sleep', ['120'], { stdio: 'ignore' });
      children.add(sleeper);
      own.push(sleeper);
      const pid = sleeper.pid as number;
      writeServerFile(runtimeDir, pid, info(pid, recorder.port));
    } else {
      const pid = recorder.child.pid as number;
      // stale: last written a minute before this process started.
      writeServerFile(
        runtimeDir,
        pid,
        info(pid, recorder.port),
        kind === 'stale' ? 60 : 0
      );
    }
  }
  const received = () => fs.readFileSync(log, 'utf8');
  return {
    kind,
    root,
    runtimeDir,
    projectDir,
    token,
    received,
    leaked: () => {
      const text = received().toLowerCase();
      return (
        text.includes(token.toLowerCase()) ||
        text.includes('authorization') ||
        text.includes('cookie')
      );
    },
    asked: () => received() !== '',
    stop: () => {
      for (const child of own) {
        child.kill('SIGKILL');
        children.delete(child);
      }
      fs.rmSync(root, { recursive: true, force: true });
    }
  };
}

/** For an afterAll/afterEach: ends every fixture process still running. */
export function stopAllFixtureProcesses(): void {
  for (const child of children) {
    child.kill('SIGKILL');
  }
  children.clear();
}
