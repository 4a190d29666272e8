// Whether a process runs, for the suites that watch processes by pid. A pid names a process only
// until it is reaped: from then on the kernel may give it to any new process or thread, and on a
// busy machine with a small pid space it does so within milliseconds. So a process the tests
// watch is remembered as its pid and, where the system tells it, the time it started; a process
// with that pid but another start time is a different one.
import * as fs from 'node:fs';

/** A process as a suite first saw it. */
export interface SeenProcess {
  pid: number;
  /** Its start time in clock ticks after boot (Linux's /proc); undefined where not known. */
  startedAt: string | undefined;
}

/** Whether any process or thread holds `pid` (a zombie not yet reaped included). */
export function alive(pid: number | undefined): boolean {
  if (pid === undefined || !Number.isInteger(pid) || pid <= 0) {
    return false;
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * The fields of /proc/<pid>/stat after the command name (field 3 onwards), or undefined without
 * /proc or without the pid. The command name (field 2) is in parentheses and may hold spaces or
 * parentheses itself: the fields after the last ')' are plain.
 */
function statFields(pid: number): string[] | undefined {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** The start time (field 22), or undefined without /proc or without the pid. */
function startTime(pid: number): string | undefined {
  return statFields(pid)?.[19];
}

/** Whether `pid` is a zombie: killed, waiting for a parent to reap it (field 3 is its state). */
function zombie(pid: number): boolean {
  return statFields(pid)?.[0] === 'Z';
}

/**
 * Whether a process of group `pgid` still runs. A killed process whose parent died first is
 * handed to pid 1, and not every pid 1 reaps (a container's may not): such a zombie runs
 * nothing, so it does not count. Without /proc, any member counts, zombies included.
 */
export function groupRuns(pgid: number): boolean {
  let pids: string[];
  try {
    pids = fs.readdirSync('/proc').filter(name => /^[0-9]+$/.test(name));
  } catch {
    try {
      process.kill(-pgid, 0);
      return true;
    } catch {
      return false;
    }
  }
  return pids.some(name => {
    const fields = statFields(Number(name));
    // Field 5 is the process group, the 3rd after the name.
    return (
      fields !== undefined && fields[2] === String(pgid) && fields[0] !== 'Z'
    );
  });
}

/** Remembers the process that holds `pid` now; throws if none does. */
export function seeProcess(pid: number | undefined): SeenProcess {
  if (pid === undefined || !alive(pid)) {
    throw new Error(`no process with pid ${pid} runs`);
  }
  return { pid, startedAt: startTime(pid) };
}

/**
 * Whether the process first seen as `seen` still runs. A zombie does not: its pid is not given
 * again until it is reaped, and an orphan's may never be where pid 1 does not reap.
 */
export function stillRuns(seen: SeenProcess): boolean {
  if (!alive(seen.pid) || zombie(seen.pid)) {
    return false;
  }
  return seen.startedAt === undefined || startTime(seen.pid) === seen.startedAt;
}
