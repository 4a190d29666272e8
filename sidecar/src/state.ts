// Private project state on disk: a read-only inspection for every projection, and the one
// atomic creation that initialize performs. Nothing here follows a symbolic link.
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ProblemError } from './problems';
import type { StatePlacement } from './platforms/types';
import type { InitializationRecord as GeneratedRecord } from './api-types';

export const RECORD_FILE = 'initialization.json';
const RECORD_MAX_BYTES = 64 * 1024;
const TEMP_PREFIX = `.${RECORD_FILE}.`;

export type ConfirmationMethod = GeneratedRecord['confirmation']['method'];

/** What initialize records: sidecar/schemas/initialization-record.schema.json. */
export type InitializationRecord = GeneratedRecord;

export type StateInspection =
  | { kind: 'absent'; detail: string }
  | { kind: 'initialized'; record: InitializationRecord; detail: string }
  | { kind: 'unsafe'; detail: string; remedy: string };

const O_NOATIME = fs.constants.O_NOATIME ?? 0;
const uid = typeof process.getuid === 'function' ? process.getuid() : -1;

/** Why a directory of ours may not hold private state, or undefined when it may. */
function directoryProblem(stat: fs.Stats, requirePrivate: boolean): string | undefined {
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

function lstatOrUndefined(p: string): fs.Stats | undefined {
  try {
    // Absent (ENOENT) is undefined without the cost of an exception; any other error throws.
    return fs.lstatSync(p, { throwIfNoEntry: false });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      return undefined;
    }
    throw error;
  }
}

function unsafe(where: string, problem: string): StateInspection {
  return {
    kind: 'unsafe',
    detail: `${where} ${problem}.`,
    remedy: `Inspect ${where} and move it aside (the service never changes it for you); then run the setup again.`
  };
}

/** Read-only: stats and, when present, reads the record without touching its access time. */
export class StateInspector {
  private cached: { key: string; record: InitializationRecord | string } | undefined;

  constructor(private readonly placement: StatePlacement, private readonly projectPath: string) {}

  inspect(): StateInspection {
    // The directory everything is created in (the project, or $HOME on a hosted notebook).
    const base = path.dirname(this.placement.parentsToCreate[0] ?? this.placement.statePath);
    const baseStat = lstatOrUndefined(base);
    if (baseStat === undefined || !baseStat.isDirectory()) {
      return {
        kind: 'unsafe',
        detail: `${base} ${baseStat === undefined ? 'does not exist' : 'is not a directory'}.`,
        remedy: `Create ${base} (or point the service at an existing one) and run the setup again.`
      };
    }
    for (const parent of this.placement.parentsToCreate) {
      const stat = lstatOrUndefined(parent);
      if (stat === undefined) {
        return { kind: 'absent', detail: 'No project state yet.' };
      }
      const problem = directoryProblem(stat, false);
      if (problem) {
        return unsafe(parent, problem);
      }
    }
    const { statePath } = this.placement;
    const dir = lstatOrUndefined(statePath);
    if (dir === undefined) {
      return { kind: 'absent', detail: 'No project state yet.' };
    }
    const dirProblem = directoryProblem(dir, true);
    if (dirProblem) {
      return unsafe(statePath, dirProblem);
    }
    const recordPath = path.join(statePath, RECORD_FILE);
    const file = lstatOrUndefined(recordPath);
    if (file === undefined) {
      // A private directory without a record: an initialize that never finished.
      return { kind: 'absent', detail: 'The state directory exists but holds no record yet.' };
    }
    if (!file.isFile() || (uid !== -1 && file.uid !== uid) || (file.mode & 0o077) !== 0) {
      return unsafe(recordPath, 'is not a private regular file of yours');
    }
    const record = this.readRecord(recordPath, file);
    if (typeof record === 'string') {
      return unsafe(recordPath, record);
    }
    return { kind: 'initialized', record, detail: `Initialized ${record.confirmation.confirmedAt}.` };
  }

  private readRecord(recordPath: string, stat: fs.Stats): InitializationRecord | string {
    const key = `${stat.ino}:${stat.mtimeMs}:${stat.size}`;
    if (this.cached?.key === key) {
      return this.cached.record;
    }
    let record: InitializationRecord | string;
    if (stat.size > RECORD_MAX_BYTES) {
      record = 'is too large to be a record of this service';
    } else {
      record = parseRecord(readNoFollow(recordPath), this.placement.statePath, this.projectPath);
    }
    this.cached = { key, record };
    return record;
  }
}

function readNoFollow(p: string): string {
  const fd = fs.openSync(p, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | O_NOATIME);
  try {
    return fs.readFileSync(fd, 'utf8');
  } finally {
    fs.closeSync(fd);
  }
}

function parseRecord(text: string, statePath: string, projectPath: string): InitializationRecord | string {
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
    return `belongs to another project path`;
  }
  return r as InitializationRecord;
}

function fsyncDirectory(dir: string): void {
  const fd = fs.openSync(dir, fs.constants.O_RDONLY | fs.constants.O_DIRECTORY);
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** Steps of createState, in order, named for the crash-safety tests' fault injection. */
export const CREATION_STEPS = ['parents-created', 'directory-created', 'record-written', 'record-linked', 'temporary-removed'] as const;
export type CreationStep = (typeof CREATION_STEPS)[number];

export type StepHook = (step: CreationStep) => void;

/**
 * TEST-ONLY fault injection: the name of the variable that `project-startup serve` reads once at
 * start. Set to a CreationStep, the process kills itself with SIGKILL when createState reaches
 * that step (the crash-safety tests); unset, there is no hook at all. No request can set it.
 */
export const TEST_CRASH_AT_ENV = 'PROJECT_STARTUP_TEST_CRASH_AT';

/** The TEST-ONLY crash hook for `value`, undefined when unset; throws on an unknown step. */
export function testCrashHook(value: string | undefined): StepHook | undefined {
  if (value === undefined || value === '') {
    return undefined;
  }
  if (!(CREATION_STEPS as readonly string[]).includes(value)) {
    throw new RangeError(`${TEST_CRASH_AT_ENV} must be one of ${CREATION_STEPS.join(', ')}`);
  }
  return step => {
    if (step === value) {
      process.kill(process.pid, 'SIGKILL');
    }
  };
}

/**
 * Creates the state directory and its record atomically: a crash at any step leaves either
 * no record (the projection says awaiting-confirmation) or the complete record.
 * Returns created=false with the record already there when another call won.
 */
export function createState(
  placement: StatePlacement,
  inspector: StateInspector,
  record: InitializationRecord,
  onStep: StepHook = () => undefined
): { created: boolean; record: InitializationRecord } {
  for (const parent of placement.parentsToCreate) {
    ensureOwnDirectory(parent);
  }
  onStep('parents-created');
  const { statePath } = placement;
  // The directory above the state must still be what the projection resolved: no link swapped in.
  const above = path.dirname(statePath);
  if (fs.realpathSync.native(above) !== above) {
    throw new ProblemError('state-unsafe', `${above} was replaced by a symbolic link since the service started.`, {
      remedy: `Inspect ${above}, put the real directory back, and restart the service.`
    });
  }
  try {
    fs.mkdirSync(statePath, { mode: 0o700 });
    fs.chmodSync(statePath, 0o700); // a umask can only narrow 0700, but say it outright
    fsyncDirectory(path.dirname(statePath));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
      throw error;
    }
  }
  onStep('directory-created');
  const before = inspector.inspect();
  if (before.kind === 'unsafe') {
    throw new ProblemError('state-unsafe', before.detail, { remedy: before.remedy });
  }
  removeLeftoverTemporaries(statePath);
  if (before.kind === 'initialized') {
    return { created: false, record: before.record };
  }

  // The pid in the name tells a crash's leftover from another live process's file in progress.
  const temporary = path.join(statePath, `${TEMP_PREFIX}${process.pid}.${randomBytes(8).toString('hex')}.tmp`);
  const fd = fs.openSync(
    temporary,
    fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW,
    0o600
  );
  try {
    fs.fchmodSync(fd, 0o600);
    fs.writeFileSync(fd, `${JSON.stringify(record, null, 2)}\n`);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  onStep('record-written');
  let created = true;
  try {
    // link() never replaces an existing record, unlike rename(): the first writer wins.
    fs.linkSync(temporary, path.join(statePath, RECORD_FILE));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EEXIST' && code !== 'ENOENT') {
      fs.rmSync(temporary, { force: true });
      throw error;
    }
    // EEXIST: another writer linked first. ENOENT: our temporary went (removed by hand): either
    // way the record that is there now, checked below, is the answer.
    created = false;
  }
  onStep('record-linked');
  fs.rmSync(temporary, { force: true });
  fsyncDirectory(statePath);
  onStep('temporary-removed');
  if (!created) {
    const after = inspector.inspect();
    if (after.kind !== 'initialized') {
      throw new ProblemError('state-unsafe', after.detail, after.kind === 'unsafe' ? { remedy: after.remedy } : {});
    }
    return { created: false, record: after.record };
  }
  return { created: true, record };
}

function ensureOwnDirectory(dir: string): void {
  try {
    fs.mkdirSync(dir, { mode: 0o700 });
    fs.chmodSync(dir, 0o700);
    return;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
      throw error;
    }
  }
  const problem = directoryProblem(fs.lstatSync(dir), false);
  if (problem) {
    throw new ProblemError('state-unsafe', `${dir} ${problem}.`, {
      remedy: `Inspect ${dir} and move it aside (the service never changes it for you); then run the setup again.`
    });
  }
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
function removeLeftoverTemporaries(statePath: string): void {
  for (const name of fs.readdirSync(statePath)) {
    if (!name.startsWith(TEMP_PREFIX) || !name.endsWith('.tmp')) {
      continue;
    }
    const pid = Number(/^(\d+)\./.exec(name.slice(TEMP_PREFIX.length))?.[1] ?? NaN);
    const file = path.join(statePath, name);
    if ((Number.isInteger(pid) && processAlive(pid)) || !fs.lstatSync(file, { throwIfNoEntry: false })?.isFile()) {
      continue;
    }
    fs.rmSync(file, { force: true });
  }
}
