// A directory held open by its descriptor, and the two ways of naming what is inside it without
// looking its path up again (observe/state.ts creates and inspects the project state through it).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ProblemError } from '../core/problems';

/**
 * A directory held open by descriptor, so that what is done in it happens in *that* directory,
 * whatever is renamed or swapped at its path meanwhile (the symlink race of initialize).
 *
 * Node has no openat()/mkdirat()/linkat(), so names are resolved relative to the held directory
 * in one of two ways, both closed by construction:
 * - `proc` (Linux): `/proc/self/fd/<fd>/<name>`. The kernel follows the descriptor's magic link
 *   to the open directory itself; the directory's path is never looked up again.
 * - `cwd` (macOS, where `/dev/fd/<fd>` is the descriptor and cannot be traversed; any system
 *   without /proc): the process changes its working directory to the directory's path, checks
 *   that the working directory now has the held descriptor's device and inode (else refuses,
 *   state-unsafe, before anything is written), and then uses plain relative names. The working
 *   directory is a reference to the directory, not a path: a rename or a link swapped in after
 *   the check changes nothing. The working directory is restored when the synchronous creation
 *   or inspection ends (inHeldDirectories); nothing else in this process uses relative paths.
 */
export type Traversal = 'proc' | 'cwd';
/** `auto` (what the service uses): `proc` where this process can traverse /proc, else `cwd`. */
export type DirectoryTraversal = Traversal | 'auto';
/** What `auto` found, once per process: whether /proc works does not change while it runs. */
let detected: Traversal | undefined;
/** The held directory that is the working directory now, checked (`cwd` traversal only). */
let entered: HeldDirectory | undefined;
/** Whether the working directory was changed and must be put back. */
let movedCwd = false;

/**
 * The traversal for `choice`: tests name `cwd` to run the other platforms' path on Linux; the
 * service leaves it to `auto`.
 */
function chooseTraversal(fd: number, choice: DirectoryTraversal): Traversal {
  if (choice !== 'auto') {
    return choice;
  }
  if (detected === undefined) {
    detected = 'cwd';
    if (process.platform === 'linux') {
      // Once per process: /proc is mounted and lets this process through its descriptors.
      try {
        const viaProc = fs.statSync(`/proc/self/fd/${fd}/.`);
        const held = fs.fstatSync(fd);
        detected =
          viaProc.dev === held.dev && viaProc.ino === held.ino ? 'proc' : 'cwd';
      } catch {
        detected = 'cwd';
      }
    }
  }
  return detected;
}

/** Runs `work` (synchronous) and then puts the working directory back if a held one was entered. */
export function inHeldDirectories<T>(work: () => T): T {
  let original: string;
  try {
    original = process.cwd();
  } catch {
    original = '/'; // the working directory was removed: nothing better to go back to
  }
  try {
    return work();
  } finally {
    entered = undefined;
    if (movedCwd) {
      movedCwd = false;
      try {
        process.chdir(original);
      } catch {
        process.chdir('/');
      }
    }
  }
}

export class HeldDirectory {
  private constructor(
    readonly fd: number,
    /** The path a person knows it by, for messages (and where `cwd` traversal enters it). */
    readonly shown: string,
    private readonly mode: Traversal
  ) {}

  /** Opens `dir` without following a link in its last component; realPath() checks the rest. */
  static open(dir: string, traversal: DirectoryTraversal): HeldDirectory {
    const fd = openDirectoryNoFollow(dir, dir);
    return new HeldDirectory(fd, dir, chooseTraversal(fd, traversal));
  }

  /** The path of `name` inside this very directory. */
  at(name: string): string {
    if (this.mode === 'proc') {
      return `/proc/self/fd/${this.fd}/${name}`;
    }
    this.enter();
    return name;
  }

  /** The directory itself, as a path that lists it (readdir). */
  self(): string {
    if (this.mode === 'proc') {
      return `/proc/self/fd/${this.fd}`;
    }
    this.enter();
    return '.';
  }

  /** Where the held directory is now, as the kernel knows it. */
  realPath(): string {
    if (this.mode === 'proc') {
      return fs.readlinkSync(`/proc/self/fd/${this.fd}`);
    }
    this.enter();
    return process.cwd();
  }

  stat(): fs.Stats {
    return fs.fstatSync(this.fd);
  }

  /** Opens the child directory `name` (never through a link), held in its turn. */
  child(name: string): HeldDirectory {
    const fd = openDirectoryNoFollow(
      this.at(name),
      path.join(this.shown, name)
    );
    return new HeldDirectory(fd, path.join(this.shown, name), this.mode);
  }

  /** `cwd` traversal: makes this directory the working directory, checked by device and inode. */
  private enter(): void {
    if (entered === this) {
      return;
    }
    entered = undefined;
    movedCwd = true;
    try {
      process.chdir(this.shown);
    } catch {
      throw swapped(this.shown);
    }
    const here = fs.statSync('.');
    const held = this.stat();
    if (here.dev !== held.dev || here.ino !== held.ino) {
      throw swapped(this.shown); // a link or another directory is at the path now: refuse
    }
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the process has one working directory: which held directory it is
    entered = this;
  }

  fsync(): void {
    fs.fsyncSync(this.fd);
  }

  close(): void {
    fs.closeSync(this.fd);
  }
}

export function swapped(where: string): ProblemError {
  return new ProblemError(
    'state-unsafe',
    `${where} was moved or replaced while the service was working in it.`,
    {
      remedy: `Find out what renames entries in ${path.dirname(where)} (only you should be able to); put the real directory back and check again.`
    }
  );
}

function openDirectoryNoFollow(p: string, shown: string): number {
  try {
    return fs.openSync(
      p,
      fs.constants.O_RDONLY | fs.constants.O_DIRECTORY | fs.constants.O_NOFOLLOW
    );
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') {
      throw new ProblemError('state-unsafe', `${shown} is a symbolic link.`, {
        remedy: `Inspect ${shown} and move the link aside; the service never follows links.`
      });
    }
    if (code === 'ENOTDIR') {
      throw new ProblemError('state-unsafe', `${shown} is not a directory.`, {
        remedy: `Inspect ${shown} and move it aside (the service never changes it for you); then check again.`
      });
    }
    if (code === 'ENOENT') {
      throw swapped(shown); // it was there a moment ago (created or seen): moved away since
    }
    throw error;
  }
}
