// Private project state on disk: a read-only inspection for every projection, and the one
// atomic creation that initialize performs. Nothing here follows a symbolic link.
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ProblemError } from '../core/problems';
import type { StatePlacement } from '../core/platforms/types';
import type {
  InitializationRecord,
  StateInspection
} from '../core/observations';
import {
  DirectoryTraversal,
  HeldDirectory,
  inHeldDirectories
} from './held-directory';
import { Lstat, lstatOrUndefined } from './lstat';

export type { DirectoryTraversal } from './held-directory';

export const RECORD_FILE = 'initialization.json';
const RECORD_MAX_BYTES = 64 * 1024;
const TEMP_PREFIX = `.${RECORD_FILE}.`;

const O_NOATIME = fs.constants.O_NOATIME ?? 0;
const uid = typeof process.getuid === 'function' ? process.getuid() : -1;

/** Why a directory of ours may not hold private state, or undefined when it may. */
function directoryProblem(
  stat: fs.Stats,
  requirePrivate: boolean
): string | undefined {
  if (stat.isSymbolicLink()) {
    return 'is a symbolic link';
  }
  if (!stat.isDirectory()) {
    return 'is not a directory';
  }
  if (uid !== -1 && stat.uid !== uid) {
    return 'is owned by another user';
  }
  if ((stat.mode & 0o002) !== 0 && (stat.mode & 0o1000) === 0) {
    return 'is writable by other users';
  }
  if (requirePrivate && (stat.mode & 0o077) !== 0) {
    return `is accessible to other users (mode ${(stat.mode & 0o777).toString(8).padStart(4, '0')})`;
  }
  return undefined;
}

function unsafe(where: string, problem: string): StateInspection {
  return {
    kind: 'unsafe',
    detail: `${where} ${problem}.`,
    remedy: problem.startsWith('is accessible to other users')
      ? `If ${where} is yours and you trust what it holds, make it private with \`chmod 700 ${where}\`; otherwise move it aside (the service never changes it for you). Then check again.`
      : `Inspect ${where} and move it aside (the service never changes it for you); then check again.`
  };
}

/**
 * Directories initialize would create now, outermost first. Stops at the first component
 * that exists but is no real directory: looking below a symbolic link would follow it.
 */
export function pathsToCreate(
  placement: StatePlacement,
  lstat: Lstat = lstatOrUndefined
): string[] {
  const chain = [...placement.parentsToCreate, placement.statePath];
  for (let i = 0; i < chain.length; i++) {
    let stat: fs.Stats | undefined;
    try {
      stat = lstat(chain[i]);
    } catch {
      stat = undefined;
    }
    if (stat === undefined) {
      return chain.slice(i);
    }
    if (!stat.isDirectory()) {
      return [];
    }
  }
  return [];
}

/** Read-only: stats and, when present, reads the record without touching its access time. */
export class StateInspector {
  private cached:
    { key: string; record: InitializationRecord | string } | undefined;

  constructor(
    private readonly placement: StatePlacement,
    readonly projectPath: string,
    /** How held directories are traversed (tests choose `cwd` on Linux; see held-directory.ts). */
    readonly traversal: DirectoryTraversal = 'auto'
  ) {}

  /** `lstat`: the look this inspection is part of (service.ts shares one per request turn). */
  inspect(lstat: Lstat = lstatOrUndefined): StateInspection {
    // The directory everything is created in (the project, or $HOME on a hosted notebook).
    const base = path.dirname(
      this.placement.parentsToCreate[0] ?? this.placement.statePath
    );
    const baseStat = lstat(base);
    if (baseStat === undefined || !baseStat.isDirectory()) {
      return {
        kind: 'unsafe',
        detail: `${base} ${baseStat === undefined ? 'does not exist' : 'is not a directory'}.`,
        remedy: `Create ${base} (or point the service at an existing one) and check again.`
      };
    }
    for (const parent of this.placement.parentsToCreate) {
      const stat = lstat(parent);
      if (stat === undefined) {
        return { kind: 'absent', detail: 'No project state yet.' };
      }
      const problem = directoryProblem(stat, false);
      if (problem) {
        return unsafe(parent, problem);
      }
    }
    const { statePath } = this.placement;
    const dir = lstat(statePath);
    if (dir === undefined) {
      return { kind: 'absent', detail: 'No project state yet.' };
    }
    const dirProblem = directoryProblem(dir, true);
    if (dirProblem) {
      return unsafe(statePath, dirProblem);
    }
    // Looked at through a descriptor from here on: a link swapped in now is not followed.
    return inHeldDirectories(() => {
      let state: HeldDirectory | undefined;
      try {
        state = HeldDirectory.open(statePath, this.traversal);
        const heldProblem = directoryProblem(state.stat(), true);
        return heldProblem
          ? unsafe(statePath, heldProblem)
          : this.recordIn(state);
      } catch (error) {
        if (error instanceof ProblemError) {
          // Swapped for a link, moved away or replaced since the lstat above.
          return {
            kind: 'unsafe',
            detail: error.message,
            remedy: String(error.extensions.remedy ?? '')
          };
        }
        throw error;
      } finally {
        state?.close();
      }
    });
  }

  /** The record in the held state directory: absent, this project's record, or why it is unsafe. */
  recordIn(state: HeldDirectory): StateInspection {
    const recordPath = path.join(state.shown, RECORD_FILE);
    const file = fs.lstatSync(state.at(RECORD_FILE), { throwIfNoEntry: false });
    if (file === undefined) {
      // A private directory without a record: an initialize that never finished.
      return {
        kind: 'absent',
        detail: 'The state directory exists but holds no record yet.'
      };
    }
    if (
      !file.isFile() ||
      (uid !== -1 && file.uid !== uid) ||
      (file.mode & 0o077) !== 0
    ) {
      return unsafe(recordPath, 'is not a private regular file of yours');
    }
    const record = this.readRecord(state.at(RECORD_FILE), file);
    if (typeof record === 'string') {
      return unsafe(recordPath, record);
    }
    return {
      kind: 'initialized',
      record,
      detail: `Initialized ${record.confirmation.confirmedAt}.`
    };
  }

  private readRecord(
    recordPath: string,
    stat: fs.Stats
  ): InitializationRecord | string {
    const key = `${stat.ino}:${stat.mtimeMs}:${stat.size}`;
    if (this.cached?.key === key) {
      return this.cached.record;
    }
    let record: InitializationRecord | string;
    if (stat.size > RECORD_MAX_BYTES) {
      record = 'is too large to be a record of this service';
    } else {
      record = parseRecord(
        readNoFollow(recordPath),
        this.placement.statePath,
        this.projectPath
      );
    }
    this.cached = { key, record };
    return record;
  }
}

function readNoFollow(p: string): string {
  const fd = fs.openSync(
    p,
    fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | O_NOATIME
  );
  try {
    return fs.readFileSync(fd, 'utf8');
  } finally {
    fs.closeSync(fd);
  }
}

function parseRecord(
  text: string,
  statePath: string,
  projectPath: string
): InitializationRecord | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 'is not valid JSON';
  }
  const r = value as Partial<InitializationRecord> | null;
  if (
    r === null ||
    typeof r !== 'object' ||
    r.kind !== 'project-startup-state' ||
    typeof r.confirmation !== 'object' ||
    r.confirmation === null ||
    typeof r.confirmation.confirmedAt !== 'string'
  ) {
    return 'is not a record of this service';
  }
  if (r.projectPath !== projectPath || r.statePath !== statePath) {
    return 'belongs to another project path';
  }
  return r as InitializationRecord;
}

/** Steps of createState, in order, named for the crash-safety tests' fault injection. */
export const CREATION_STEPS = [
  'parents-created',
  'directory-created',
  'record-written',
  'record-linked',
  'temporary-removed'
] as const;
export type CreationStep = (typeof CREATION_STEPS)[number];

/** Called as createState reaches each step: the crash-safety tests stop the process there. */
export type StepHook = (step: CreationStep) => void;

function refuse(where: string, problem: string): ProblemError {
  return new ProblemError('state-unsafe', `${where} ${problem}.`, {
    remedy: `Inspect ${where} and move it aside (the service never changes it for you); then check again.`
  });
}

/** Creates `name` in `parent` (mode 0700) unless it exists; opens and checks it; true when created. */
function holdOwnDirectory(
  parent: HeldDirectory,
  name: string,
  requirePrivate: boolean
): { dir: HeldDirectory; created: boolean } {
  let created = false;
  try {
    fs.mkdirSync(parent.at(name), { mode: 0o700 });
    created = true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
      throw error;
    }
  }
  const dir = parent.child(name);
  try {
    if (created) {
      fs.fchmodSync(dir.fd, 0o700); // a umask can only narrow 0700, but say it outright
      parent.fsync();
    }
    const problem = directoryProblem(dir.stat(), requirePrivate);
    if (problem) {
      throw refuse(dir.shown, problem);
    }
    return { dir, created };
  } catch (error) {
    dir.close();
    throw error;
  }
}

/**
 * Creates the state directory and its record atomically: a crash at any step leaves either
 * no record (the projection says awaiting-confirmation) or the complete record.
 * Returns created=false with the record already there when another call won.
 *
 * Every step after the first open happens through held directory descriptors (HeldDirectory):
 * the directory above the state is opened once and checked to be the one the service resolved;
 * each directory below it is created and then opened without following a link, and checked
 * (owner, mode) on the descriptor itself. Renaming or swapping any of them for a link after
 * that changes nothing about where the record goes.
 */
export function createState(
  placement: StatePlacement,
  inspector: StateInspector,
  record: InitializationRecord,
  onStep: StepHook = () => undefined
): { created: boolean; record: InitializationRecord } {
  return inHeldDirectories(() => {
    const { statePath } = placement;
    const base = path.dirname(placement.parentsToCreate[0] ?? statePath);
    const held: HeldDirectory[] = [];
    try {
      const top = HeldDirectory.open(base, inspector.traversal);
      held.push(top);
      // The directory everything goes into must still be what the service resolved: no link
      // swapped in above it. (The project and home paths are real paths from the start.)
      if (top.realPath() !== base) {
        throw new ProblemError(
          'state-unsafe',
          `${base} was replaced by a symbolic link since the service started.`,
          {
            remedy: `Inspect ${base}, put the real directory back, and restart the service.`
          }
        );
      }
      let parent = top;
      for (const dir of placement.parentsToCreate) {
        parent = holdOwnDirectory(parent, path.basename(dir), false).dir;
        held.push(parent);
      }
      onStep('parents-created');
      const state = holdOwnDirectory(
        parent,
        path.basename(statePath),
        true
      ).dir;
      held.push(state);
      onStep('directory-created');
      return writeRecord(state, record, onStep, inspector);
    } finally {
      for (const dir of held.reverse()) {
        dir.close();
      }
    }
  });
}

function writeRecord(
  state: HeldDirectory,
  record: InitializationRecord,
  onStep: StepHook,
  inspector: StateInspector
): { created: boolean; record: InitializationRecord } {
  const before = inspector.recordIn(state);
  if (before.kind === 'unsafe') {
    throw new ProblemError('state-unsafe', before.detail, {
      remedy: before.remedy
    });
  }
  removeLeftoverTemporaries(state);
  // A record confirmed on another platform does not count here (it was confirmed under other
  // rules): this confirmation replaces it, atomically, by rename.
  const replacing =
    before.kind === 'initialized' && before.record.platform !== record.platform;
  if (before.kind === 'initialized' && !replacing) {
    return { created: false, record: before.record };
  }

  // The pid in the name tells a crash's leftover from another live process's file in progress.
  const temporary = `${TEMP_PREFIX}${process.pid}.${randomBytes(8).toString('hex')}.tmp`;
  const fd = fs.openSync(
    state.at(temporary),
    fs.constants.O_WRONLY |
      fs.constants.O_CREAT |
      fs.constants.O_EXCL |
      fs.constants.O_NOFOLLOW,
    0o600
  );
  let created = true;
  try {
    fs.fchmodSync(fd, 0o600);
    fs.writeFileSync(fd, `${JSON.stringify(record, null, 2)}\n`);
    fs.fsyncSync(fd);
    onStep('record-written');
    if (replacing) {
      // rename() replaces the other platform's record in one step: old or new, never neither.
      fs.renameSync(state.at(temporary), state.at(RECORD_FILE));
      onStep('record-linked');
      state.fsync();
      onStep('temporary-removed');
      return { created: true, record };
    }
    try {
      // link() never replaces an existing record, unlike rename(): the first writer wins.
      fs.linkSync(state.at(temporary), state.at(RECORD_FILE));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'EEXIST' && code !== 'ENOENT') {
        fs.rmSync(state.at(temporary), { force: true });
        throw error;
      }
      // EEXIST: another writer linked first. ENOENT: our temporary went (removed by hand): either
      // way the record that is there now, checked below, is the answer.
      created = false;
    }
    onStep('record-linked');
    fs.rmSync(state.at(temporary), { force: true });
    state.fsync();
    onStep('temporary-removed');
  } finally {
    fs.closeSync(fd);
  }
  if (!created) {
    const after = inspector.recordIn(state);
    if (after.kind !== 'initialized') {
      throw new ProblemError(
        'state-unsafe',
        after.detail,
        after.kind === 'unsafe' ? { remedy: after.remedy } : {}
      );
    }
    return { created: false, record: after.record };
  }
  return { created: true, record };
}

/** Whether a process with this pid still runs (and so may still be writing its temporary). */
function processAlive(pid: number): boolean {
  if (pid === process.pid) {
    return false; // createState is synchronous: none of ours is in progress while we look
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Removes temporaries that crashed writers left; never another live process's, never a directory. */
function removeLeftoverTemporaries(state: HeldDirectory): void {
  for (const name of fs.readdirSync(state.self())) {
    if (!name.startsWith(TEMP_PREFIX) || !name.endsWith('.tmp')) {
      continue;
    }
    const pid = Number(
      /^(\d+)\./.exec(name.slice(TEMP_PREFIX.length))?.[1] ?? NaN
    );
    if (
      (Number.isInteger(pid) && processAlive(pid)) ||
      !fs.lstatSync(state.at(name), { throwIfNoEntry: false })?.isFile()
    ) {
      continue;
    }
    fs.rmSync(state.at(name), { force: true });
  }
}
