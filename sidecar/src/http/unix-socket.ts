// Listening on a Unix socket path that no other user can ever connect to, and that another
// instance's socket never loses to this one.
//
// - Private by construction: the socket is bound inside a fresh 0700 directory next to the
//   requested path, made 0600 there, and only then given its public name with link(2). Whatever
//   the umask, and on systems that ignore a socket file's own mode, nobody else can reach the
//   socket before it is private (chmod after listen() left a window others connected through).
// - Never replaces a live socket: link(2) fails if the name exists, so a path is taken only when
//   it is free. A socket already there is tried first: one that answers belongs to a running
//   instance and is left alone (start-up stops, saying so); one nobody listens on is stale and
//   removed. Anything else at the path (a regular file, a directory, a link) is refused.
// - Removes only its own name: libuv unlinks the path it bound when the server closes, which
//   here is the private name (already gone); the public name is removed only while it still is
//   this socket (same device and inode), so a later instance's socket survives our shutdown.
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { ConfigError } from '../config/errors';

/** What answers at a socket path. */
export type SocketPathState = 'absent' | 'live' | 'stale' | 'not-a-socket';

/** The longest socket path every supported system binds (macOS: 104 bytes with the NUL). */
const SOCKET_PATH_MAX = 103;

function kindOf(stat: fs.Stats): string {
  return stat.isFile()
    ? 'a regular file'
    : stat.isDirectory()
      ? 'a directory'
      : stat.isSymbolicLink()
        ? 'a symbolic link'
        : 'not a socket';
}

/** Whether something listens at `socketPath`: connects once, bounded by `timeoutMs`. */
export function probeSocket(
  socketPath: string,
  timeoutMs = 1000
): Promise<'live' | 'stale' | 'absent'> {
  return new Promise(resolve => {
    const socket = net.connect({ path: socketPath });
    const done = (state: 'live' | 'stale' | 'absent') => {
      clearTimeout(timer);
      socket.destroy();
      resolve(state);
    };
    // A listener too busy to accept within the bound is still alive.
    const timer = setTimeout(() => done('live'), timeoutMs);
    socket.once('connect', () => done('live'));
    socket.once('error', (error: NodeJS.ErrnoException) =>
      // ECONNREFUSED: a socket file nobody listens on. EACCES and the rest: someone's socket we
      // may not use, which is not ours to remove.
      done(
        error.code === 'ECONNREFUSED'
          ? 'stale'
          : error.code === 'ENOENT'
            ? 'absent'
            : 'live'
      )
    );
  });
}

/** A file as the kernel knows it: the same device and inode is the same socket. */
export interface FileIdentity {
  dev: number;
  ino: number;
}

function identity(file: string): FileIdentity | undefined {
  try {
    const stat = fs.lstatSync(file);
    return { dev: stat.dev, ino: stat.ino };
  } catch {
    return undefined;
  }
}

function sameFile(
  a: FileIdentity | undefined,
  b: FileIdentity | undefined
): boolean {
  return (
    a !== undefined && b !== undefined && a.dev === b.dev && a.ino === b.ino
  );
}

/**
 * Makes `socketPath` free for a new socket: nothing there, or a stale socket (removed). Refuses
 * a live socket and anything that is not a socket, with what to do.
 */
export async function claimSocketPath(socketPath: string): Promise<void> {
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(socketPath);
  } catch {
    return; // free
  }
  if (!stat.isSocket()) {
    throw new ConfigError(
      `--unix-socket ${socketPath} is ${kindOf(stat)}, not a socket; remove it or choose another path.`
    );
  }
  const before = { dev: stat.dev, ino: stat.ino };
  const state = await probeSocket(socketPath);
  if (state === 'live') {
    throw liveSocketError(socketPath);
  }
  // Stale: remove it, but only if it still is the socket just tried (not one a new instance put
  // there meanwhile).
  if (state === 'stale' && sameFile(identity(socketPath), before)) {
    fs.rmSync(socketPath, { force: true });
  }
}

function liveSocketError(socketPath: string): ConfigError {
  return new ConfigError(
    `Another process is listening on the Unix socket ${socketPath}; stop it first, or choose another path with --unix-socket.`
  );
}

export interface UnixListener {
  /** The socket at its public name when it was published; undefined if already gone. */
  readonly identity: FileIdentity | undefined;
  /** Removes the public name if it still is this socket (call before or after server.close). */
  release(): void;
}

/**
 * Removes the private directory and the socket's private name in it. Two system calls: fs.rmSync
 * would first load Node's rimraf module, about a millisecond before the service listens. Anything
 * else in the directory (it is this process's, mode 0700) is removed with it.
 */
function removePrivateDir(privateDir: string, privatePath: string): void {
  try {
    fs.unlinkSync(privatePath);
  } catch {
    // not made: listening failed
  }
  try {
    fs.rmdirSync(privateDir);
  } catch {
    fs.rmSync(privateDir, { recursive: true, force: true });
  }
}

/**
 * Listens on `socketPath` privately, then publishes it: on a free path (see claimSocketPath), or
 * in place of this process's own socket there (`replacing`, its identity), which the new one
 * replaces in one rename(2) so the name never goes missing (see listen-first.ts).
 */
export async function listenOnUnixSocket(
  server: net.Server,
  socketPath: string,
  replacing?: FileIdentity
): Promise<UnixListener> {
  const dir = path.dirname(socketPath);
  let privateDir: string;
  try {
    privateDir = fs.mkdtempSync(path.join(dir, '.ps')); // mode 0700, whatever the umask allows less
  } catch (error) {
    throw new ConfigError(
      `Could not create a private directory in ${dir} for the socket (${(error as NodeJS.ErrnoException).code ?? 'error'}); --unix-socket must name a path in a directory you can write.`
    );
  }
  const privatePath = path.join(privateDir, 's');
  try {
    fs.chmodSync(privateDir, 0o700);
    if (Buffer.byteLength(privatePath) > SOCKET_PATH_MAX) {
      throw new ConfigError(
        `--unix-socket ${socketPath} is in a directory whose path is too long for a socket; choose a shorter path.`
      );
    }
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(privatePath, () => {
        server.off('error', reject);
        resolve();
      });
    });
    fs.chmodSync(privatePath, 0o600);
    if (replacing === undefined) {
      publish(privatePath, socketPath);
    } else {
      replace(privatePath, socketPath, replacing);
    }
  } catch (error) {
    if (server.listening) {
      server.close();
    }
    throw error instanceof ConfigError
      ? error
      : (error as NodeJS.ErrnoException).code === 'EEXIST'
        ? liveSocketError(socketPath)
        : new ConfigError(
            `Could not listen on the Unix socket ${socketPath} (${(error as NodeJS.ErrnoException).code ?? 'error'}).`
          );
  } finally {
    removePrivateDir(privateDir, privatePath);
  }
  const ours = identity(socketPath);
  return {
    identity: ours,
    release() {
      if (sameFile(identity(socketPath), ours)) {
        fs.rmSync(socketPath, { force: true });
      }
    }
  };
}

/**
 * Gives the private socket its public name. link(2) never replaces: EEXIST means another
 * instance took the name since claimSocketPath (thrown, and reported as such).
 */
function publish(privatePath: string, socketPath: string): void {
  try {
    fs.linkSync(privatePath, socketPath);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (
      code === 'EEXIST' ||
      !(code === 'EPERM' || code === 'ENOTSUP' || code === 'EOPNOTSUPP')
    ) {
      throw error;
    }
    // A file system without hard links: rename, which replaces, so only onto a free name. (The
    // socket is private already; the remaining race is two instances starting at once.)
    if (identity(socketPath) !== undefined) {
      throw nameTaken();
    }
    fs.renameSync(privatePath, socketPath);
  }
}

/** The public name is not free: reported as another instance's live socket. */
function nameTaken(): NodeJS.ErrnoException {
  return Object.assign(new Error('exists'), { code: 'EEXIST' });
}

/**
 * Gives the private socket the public name that `replacing`, this process's own socket, has now:
 * rename(2) replaces it atomically. Anything else at the name now (our socket removed and another
 * put there) is not ours to replace (EEXIST).
 */
function replace(
  privatePath: string,
  socketPath: string,
  replacing: FileIdentity
): void {
  if (!sameFile(identity(socketPath), replacing)) {
    throw nameTaken();
  }
  fs.renameSync(privatePath, socketPath);
}
