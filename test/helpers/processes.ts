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

/** The start time field of /proc/<pid>/stat, or undefined without /proc or without the pid. */
function startTime(pid: number): string | undefined {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) is in parentheses and may hold spaces or parentheses itself: the
  // fields after the last ')' are plain, and the start time is field 22, the 20th of them.
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
}

/** Remembers the process that holds `pid` now; throws if none does. */
export function seeProcess(pid: number | undefined): SeenProcess {
  if (pid === undefined || !alive(pid)) {
    throw new Error(`no process with pid ${pid} runs`);
  }
  return { pid, startedAt: startTime(pid) };
}

/** Whether the process first seen as `seen` still runs (or, killed, is not yet reaped). */
export function stillRuns(seen: SeenProcess): boolean {
  if (!alive(seen.pid)) {
    return false;
  }
  return seen.startedAt === undefined || startTime(seen.pid) === seen.startedAt;
}
