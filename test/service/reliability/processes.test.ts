// The helper the suites watch processes with (test/helpers/processes.ts): a process is the one
// first seen only while its pid and its start time both match, so a pid the kernel gave again
// is not mistaken for it.
import { spawn } from 'node:child_process';
import {
  alive,
  groupRuns,
  seeProcess,
  stillRuns
} from '../../helpers/processes';
import { waitFor } from '../../helpers/wait';

describe('watching a process by pid and start time', () => {
  it('a running child is seen and still runs; killed and reaped, it does not', async () => {
    const child = spawn(
      process.execPath,
      ['-e', 'setInterval(() => {}, 1000)'],
      {
        stdio: 'ignore'
      }
    );
    const exited = new Promise(resolve => child.once('exit', resolve));
    try {
      const seen = seeProcess(child.pid);
      expect(seen.pid).toBe(child.pid);
      if (process.platform === 'linux') {
        expect(seen.startedAt).toMatch(/^\d+$/);
      }
      expect(stillRuns(seen)).toBe(true);
      child.kill('SIGKILL');
      await exited;
      // Reaped: its pid is free, or already another process's, which started later.
      expect(stillRuns(seen)).toBe(false);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('the same pid with another start time is another process', () => {
    const self = seeProcess(process.pid);
    expect(stillRuns(self)).toBe(true);
    expect(alive(process.pid)).toBe(true);
    if (process.platform === 'linux') {
      expect(stillRuns({ pid: process.pid, startedAt: '1' })).toBe(false);
    }
  });

  it('a process group runs while a member runs; a killed orphan left unreaped does not count', async () => {
    // The shell leads a new group and exits at once, leaving its `sleep` to pid 1, which may
    // never reap it once killed (this machine's pid 1 does not).
    const leader = spawn('sh', ['-c', 'sleep 30 & echo $!'], {
      detached: true,
      stdio: ['ignore', 'pipe', 'ignore']
    });
    const group = leader.pid as number;
    let printed = '';
    leader.stdout.on('data', (chunk: Buffer) => (printed += chunk.toString()));
    await new Promise(resolve => leader.once('exit', resolve));
    const orphan = Number(printed.trim());
    try {
      expect(groupRuns(group)).toBe(true);
      process.kill(-group, 'SIGKILL');
      await waitFor(() => !groupRuns(group), {
        what: 'the killed group to stop running',
        timeoutMs: 5000,
        intervalMs: 50
      });
      expect(stillRuns({ pid: orphan, startedAt: undefined })).toBe(false);
    } finally {
      try {
        process.kill(-group, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  });

  it('no pid, or not a pid, is not alive', () => {
    expect(alive(undefined)).toBe(false);
    expect(alive(0)).toBe(false);
    expect(alive(-1)).toBe(false);
    expect(alive(1.5)).toBe(false);
    expect(() => seeProcess(undefined)).toThrow(/no process/);
  });
});
