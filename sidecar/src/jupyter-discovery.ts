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
import * as os from 'node:os';
import * as path from 'node:path';

type Env = Readonly<Record<string, string | undefined>>;

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
}

export interface JupyterChoice {
  url: string;
  token: string;
  /** How it was found, for a person (never the token). */
  how: string;
}

/** Jupyter's runtime directory, by jupyter_core's rules (JUPYTER_RUNTIME_DIR, then the data dir). */
export function jupyterRuntimeDir(
  env: Env,
  home = env.HOME || os.homedir(),
  platform = process.platform
): string {
  if (env.JUPYTER_RUNTIME_DIR) {
    return env.JUPYTER_RUNTIME_DIR;
  }
  let data = env.JUPYTER_DATA_DIR;
  if (!data) {
    if (platform === 'darwin') {
      data = path.join(home, 'Library', 'Jupyter');
    } else if (platform === 'win32') {
      data = path.join(
        env.APPDATA ?? path.join(home, 'AppData', 'Roaming'),
        'jupyter'
      );
    } else {
      data = path.join(
        env.XDG_DATA_HOME || path.join(home, '.local', 'share'),
        'jupyter'
      );
    }
  }
  return path.join(data, 'runtime');
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

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false; // gone (ESRCH), or another user's process (EPERM): not a server of ours
  }
}

/** Runtime files of running servers of this user: 0600-style files we own, of a live process. */
export function readJupyterServers(runtimeDir: string): JupyterServerInfo[] {
  let names: string[];
  try {
    names = fs
      .readdirSync(runtimeDir)
      .filter(n => /^jpserver-\d+\.json$/.test(n));
  } catch {
    return [];
  }
  const uid =
    typeof process.getuid === 'function' ? process.getuid() : undefined;
  const servers: JupyterServerInfo[] = [];
  for (const name of names.slice(0, 64)) {
    const file = path.join(runtimeDir, name);
    try {
      const stat = fs.statSync(file);
      // Only what this user wrote and nobody else can change: its token goes to its address.
      if (
        (uid !== undefined && stat.uid !== uid) ||
        (stat.mode & 0o022) !== 0 ||
        stat.size > 64 * 1024
      ) {
        continue;
      }
      const info = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<
        string,
        unknown
      >;
      const url = typeof info.url === 'string' ? info.url : '';
      const pid = Number(info.pid);
      if (
        !/^https?:\/\//.test(url) ||
        info.sock ||
        !Number.isInteger(pid) ||
        pid <= 0 ||
        !alive(pid)
      ) {
        continue;
      }
      servers.push({
        url: withSlash(connectable(url)),
        token: typeof info.token === 'string' ? info.token : '',
        pid,
        rootDir:
          typeof info.root_dir === 'string'
            ? info.root_dir
            : typeof info.notebook_dir === 'string'
              ? info.notebook_dir
              : undefined,
        file
      });
    } catch {
      continue;
    }
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
  return {
    servers: readJupyterServers(jupyterRuntimeDir(env)),
    ancestors: ancestorPids(),
    serverUrl: env.JUPYTER_SERVER_URL
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
