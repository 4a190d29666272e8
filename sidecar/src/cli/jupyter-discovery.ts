// A terminal beside JupyterLab: the Jupyter server it runs under, and the Project Startup service
// that jupyter-server-proxy runs behind it (`{base_url}project/`). Found the way Jupyter's own
// tools find a server: on JupyterHub from the single-user environment the terminal inherits
// (JUPYTERHUB_SERVICE_URL and JUPYTERHUB_API_TOKEN), elsewhere from Jupyter's runtime files
// (`jpserver-<pid>.json`: url, token, pid, root_dir), choosing the server that is an ancestor of
// this process (a JupyterLab terminal's shell is the server's child) or the only one whose root
// holds the project. Requests then go through Jupyter with its token, so Jupyter authenticates
// them and the proxy starts the sidecar if nobody has yet.
//
// The choice is a pure function over gathered evidence (chooseJupyter); reading files and
// processes is separate (gatherJupyterEvidence).
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as https from 'node:https';
import * as path from 'node:path';
import {
  jupyterRuntimeDir,
  readOwnRuntimeFile,
  runtimeRootDir
} from '../observe/jupyter-runtime';
import type { Env } from '../core/env';

export { jupyterRuntimeDir } from '../observe/jupyter-runtime';

export interface JupyterServerInfo {
  /** Base URL of the server, ending in "/" (http://127.0.0.1:8888/user/alice/). */
  url: string;
  token: string;
  pid: number;
  rootDir?: string;
  /** The runtime file it came from. */
  file: string;
}

export interface JupyterEvidence {
  hub?: { url: string; token: string };
  servers: JupyterServerInfo[];
  /** This process's ancestors, nearest first. */
  ancestors: number[];
  /** JUPYTER_SERVER_URL, which jupyter_server gives its terminals. */
  serverUrl?: string;
  /** Runtime files of live processes that are not proven Jupyter servers of ours, and why. */
  refused?: string[];
}

export interface JupyterChoice {
  url: string;
  token: string;
  /** How it was found, for a person (never the token). */
  how: string;
}

/** JUPYTERHUB_SERVICE_URL binds to all addresses when the spawner's ip is empty: connect to loopback. */
function connectable(url: string): string {
  return url
    .replace(/^(https?:\/\/)(?::|0\.0\.0\.0:)/, '$1127.0.0.1:')
    .replace(/^(https?:\/\/)\[::\]:/, '$1[::1]:');
}

function withSlash(url: string): string {
  return url.endsWith('/') ? url : `${url}/`;
}

/** The server, if any, this terminal belongs to. Pure. */
export function chooseJupyter(
  evidence: JupyterEvidence,
  projectDir: string
): JupyterChoice | undefined {
  if (evidence.hub) {
    return {
      ...evidence.hub,
      how: 'JupyterHub single-user server ($JUPYTERHUB_SERVICE_URL, with $JUPYTERHUB_API_TOKEN)'
    };
  }
  const parent =
    evidence.servers.find(s => evidence.ancestors.includes(s.pid)) ??
    (evidence.serverUrl
      ? evidence.servers.find(
          s => s.url === withSlash(connectable(evidence.serverUrl as string))
        )
      : undefined);
  if (parent) {
    return {
      url: parent.url,
      token: parent.token,
      how: `Jupyter server (pid ${parent.pid}) this terminal runs under (${parent.file})`
    };
  }
  const holding = evidence.servers.filter(
    s =>
      s.rootDir !== undefined &&
      (projectDir === s.rootDir ||
        projectDir.startsWith(
          s.rootDir.endsWith(path.sep) ? s.rootDir : s.rootDir + path.sep
        ))
  );
  if (holding.length === 1) {
    return {
      url: holding[0].url,
      token: holding[0].token,
      how: `Jupyter server (pid ${holding[0].pid}) serving ${holding[0].rootDir} (${holding[0].file})`
    };
  }
  return undefined;
}

/**
 * How a client finds its Jupyter server (README, "How a client finds its Jupyter server"; the
 * Python client's twin is jupyterlab_project_startup/client.py, `_jupyter_process_refusal`).
 * A runtime file names a pid and an address; the token it holds goes there only when:
 *  1. the pid's owner is this user (Linux: /proc/PID's owner; macOS: `ps -o uid=`), so another
 *     user's process that now holds a recycled pid is never taken for ours (EPERM is not "alive");
 *  2. that process started before the file was last written (Linux: /proc/PID/stat starttime;
 *     macOS: `ps -o etime=`, to the second), so it is the Jupyter server that wrote the file and
 *     not a later process that got the pid of a server which died (its file left behind). This
 *     holds for any launcher (jupyter lab, jupyterhub-singleuser, batchspawner, python -m ...),
 *     which a test of the command's name would not;
 *  3. the TCP listener on the file's port belongs to that process, where the platform can tell
 *     (Linux: the LISTEN socket's inode in /proc/net/tcp{,6} among /proc/PID/fd; macOS: `lsof`
 *     when it is installed, else this step is skipped there and steps 1-2 stand alone).
 * A server on a Unix socket (`sock`) is not used. On Windows none of this can be told: no
 * runtime file is used there (name the server explicitly).
 * Returns why the process is refused, or undefined when it is proven.
 */
const NOT_RUNNING = ' is not running';
const START_SLACK_MS = 2000;

export function jupyterProcessRefusal(
  pid: number,
  port: number,
  fileWrittenMs: number,
  platform: NodeJS.Platform = process.platform
): string | undefined {
  if (platform === 'win32' || typeof process.getuid !== 'function') {
    return 'this platform cannot tell who owns a process';
  }
  const owner = processOwner(pid, platform);
  if (owner === undefined) {
    return `process ${pid}${NOT_RUNNING}`;
  }
  if (owner !== process.getuid()) {
    return `process ${pid} belongs to another user (uid ${owner})`;
  }
  const startedMs = processStartMs(pid, platform);
  if (startedMs === undefined) {
    return `the start time of process ${pid} cannot be read`;
  }
  // A process start is known to 10 ms (/proc) or 1 s (`ps`), and a runtime directory on a network
  // file system takes its times from the file server's clock: 2 s of slack. Another user is
  // refused above whatever the times, so the slack only spares our own short-lived processes.
  if (startedMs > fileWrittenMs + START_SLACK_MS) {
    return `process ${pid} started after its runtime file was written: it is not the server that wrote it`;
  }
  const listening = listenerBelongsTo(pid, port, platform);
  if (listening === false) {
    return `process ${pid} does not hold the listener on port ${port}`;
  }
  return undefined;
}

function run(file: string, args: string[]): string | undefined {
  const result = spawnSync(file, args, { encoding: 'utf8', timeout: 2000 });
  return result.status === 0 ? result.stdout : undefined;
}

function processOwner(pid: number, platform: string): number | undefined {
  if (platform === 'linux') {
    try {
      return fs.statSync(`/proc/${pid}`).uid;
    } catch {
      return undefined;
    }
  }
  const out = run('ps', ['-o', 'uid=', '-p', String(pid)])?.trim();
  return out && /^\d+$/.test(out) ? Number(out) : undefined;
}

/** Linux's USER_HZ, the unit of /proc/PID/stat starttime: 100 on every architecture Node runs on. */
const USER_HZ = 100;

function processStartMs(pid: number, platform: string): number | undefined {
  if (platform === 'linux') {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      // Field 22, counted after the parenthesised command name (which may hold spaces).
      const startTicks = Number(
        stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]
      );
      const uptimeS = Number(
        fs.readFileSync('/proc/uptime', 'utf8').split(' ')[0]
      );
      if (!Number.isFinite(startTicks) || !Number.isFinite(uptimeS)) {
        return undefined;
      }
      return Date.now() - (uptimeS - startTicks / USER_HZ) * 1000;
    } catch {
      return undefined;
    }
  }
  // [[dd-]hh:]mm:ss since the start.
  const match = /^\s*(?:(?:(\d+)-)?(\d+):)?(\d+):(\d+)\s*$/.exec(
    run('ps', ['-o', 'etime=', '-p', String(pid)]) ?? ''
  );
  if (!match) {
    return undefined;
  }
  const [days, hours, minutes, seconds] = match
    .slice(1)
    .map(part => Number(part ?? 0));
  return (
    Date.now() - (((days * 24 + hours) * 60 + minutes) * 60 + seconds) * 1000
  );
}

/** The inodes of the TCP sockets listening on `port` (Linux: /proc/net/tcp and tcp6). */
function listeningInodes(port: number): Set<string> {
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = fs.readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      // local_address is HEXADDR:HEXPORT; st 0A is LISTEN; field 9 is the inode.
      if (
        fields.length > 9 &&
        fields[3] === '0A' &&
        parseInt(fields[1].split(':')[1] ?? '', 16) === port
      ) {
        inodes.add(fields[9]);
      }
    }
  }
  return inodes;
}

/** true, false, or undefined where the platform cannot tell. */
function listenerBelongsTo(
  pid: number,
  port: number,
  platform: string
): boolean | undefined {
  if (platform === 'linux') {
    const inodes = listeningInodes(port);
    let fds: string[];
    try {
      fds = fs.readdirSync(`/proc/${pid}/fd`);
    } catch {
      return false;
    }
    for (const fd of fds.slice(0, 4096)) {
      try {
        const match = /^socket:\[(\d+)\]$/.exec(
          fs.readlinkSync(`/proc/${pid}/fd/${fd}`)
        );
        if (match && inodes.has(match[1])) {
          return true;
        }
      } catch {
        continue; // closed meanwhile
      }
    }
    return false;
  }
  // macOS (and other Unix): lsof, where it is installed; without it, this step cannot be told.
  const result = spawnSync(
    'lsof',
    ['-nP', '-a', '-p', String(pid), `-iTCP:${port}`, '-sTCP:LISTEN', '-t'],
    { encoding: 'utf8', timeout: 5000 }
  );
  if (result.error) {
    return undefined;
  }
  return result.stdout.split('\n').some(line => line.trim() === String(pid));
}

/** The TCP port of a server URL (its scheme's default when none is written). */
function portOf(url: URL): number {
  return url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
}

/**
 * Runtime files of running servers of this user: files we own that nobody else may change, of
 * a process proven by jupyterProcessRefusal. The others are reported in `refused` (for a person:
 * never a token).
 */
export function readJupyterServers(
  runtimeDir: string,
  refused: string[] = []
): JupyterServerInfo[] {
  let names: string[];
  try {
    names = fs
      .readdirSync(runtimeDir)
      .filter(n => /^jpserver-\d+\.json$/.test(n));
  } catch {
    return [];
  }
  const servers: JupyterServerInfo[] = [];
  for (const name of names.slice(0, 64)) {
    const file = path.join(runtimeDir, name);
    // Only what this user wrote and nobody else can change: its token goes to its address.
    const own = readOwnRuntimeFile(file);
    if (own === undefined) {
      continue;
    }
    const { info } = own;
    const url = typeof info.url === 'string' ? info.url : '';
    const pid = Number(info.pid);
    if (
      !/^https?:\/\//.test(url) ||
      info.sock ||
      !Number.isInteger(pid) ||
      pid <= 0
    ) {
      continue;
    }
    const address = withSlash(connectable(url));
    let refusal: string | undefined;
    try {
      refusal = jupyterProcessRefusal(
        pid,
        portOf(new URL(address)),
        own.mtimeMs
      );
    } catch {
      continue; // an address URL cannot parse
    }
    if (refusal !== undefined) {
      // A file left by a server that is gone is common and harmless: only a live process is news.
      if (!refusal.endsWith(NOT_RUNNING)) {
        refused.push(`${file}: ${refusal}`);
      }
      continue;
    }
    servers.push({
      url: address,
      token: typeof info.token === 'string' ? info.token : '',
      pid,
      rootDir: runtimeRootDir(info),
      file
    });
  }
  return servers;
}

/** This process's ancestors (nearest first, at most 32): /proc on Linux, `ps` elsewhere (macOS). */
export function ancestorPids(): number[] {
  const pids: number[] = [];
  let pid = process.ppid;
  for (let i = 0; i < 32 && pid > 1; i++) {
    pids.push(pid);
    let next: number | undefined;
    if (process.platform === 'linux') {
      try {
        // Field 4 of /proc/PID/stat, after the parenthesised command name (which may hold spaces).
        const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
        next = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      } catch {
        next = undefined;
      }
    } else if (process.platform !== 'win32') {
      const ps = spawnSync('ps', ['-o', 'ppid=', '-p', String(pid)], {
        encoding: 'utf8',
        timeout: 2000
      });
      next = ps.status === 0 ? Number(ps.stdout.trim()) : undefined;
    }
    if (next === undefined || !Number.isInteger(next) || next === pid) {
      break;
    }
    pid = next;
  }
  return pids;
}

export function gatherJupyterEvidence(env: Env): JupyterEvidence {
  const hubUrl = env.JUPYTERHUB_SERVICE_URL;
  const hubToken = env.JUPYTERHUB_API_TOKEN;
  if (hubUrl && hubToken && /^https?:\/\//.test(hubUrl)) {
    return {
      hub: { url: withSlash(connectable(hubUrl)), token: hubToken },
      servers: [],
      ancestors: []
    };
  }
  const refused: string[] = [];
  return {
    servers: readJupyterServers(jupyterRuntimeDir(env), refused),
    ancestors: ancestorPids(),
    serverUrl: env.JUPYTER_SERVER_URL,
    refused
  };
}

export interface JupyterAnswer {
  status: number;
  json: unknown;
}

/** One request to `{url}{route}` through Jupyter with its token; bounded in time and size. */
export function jupyterRequest(
  choice: JupyterChoice,
  method: 'GET' | 'POST',
  route: string,
  body?: object
): Promise<JupyterAnswer> {
  const target = new URL(route, choice.url);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const transport = target.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const request = transport.request(
      target,
      {
        method,
        headers: {
          accept: 'application/json',
          ...(choice.token ? { authorization: `token ${choice.token}` } : {}),
          ...(payload
            ? {
                'content-type': 'application/json',
                'content-length': Buffer.byteLength(payload)
              }
            : {})
        },
        timeout: 30000
      },
      response => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > 4 * 1024 * 1024) {
            request.destroy(new Error('the answer is too large'));
            return;
          }
          chunks.push(chunk);
        });
        response.on('end', () => {
          let json: unknown;
          try {
            json = JSON.parse(Buffer.concat(chunks).toString('utf8'));
          } catch {
            json = undefined;
          }
          resolve({ status: response.statusCode ?? 0, json });
        });
        response.on('error', reject);
      }
    );
    request.on('timeout', () =>
      request.destroy(new Error('no answer within 30 s'))
    );
    request.on('error', reject);
    request.end(payload);
  });
}
