// Commands typed into a real JupyterLab terminal (see test/e2e/run_in_terminal.py): the shell is
// the Jupyter server's child with the server's environment, nothing of the test's.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { PYTHON, REPO_ROOT } from './kernel';

export const TERMINAL_RUNNER = path.join(REPO_ROOT, 'test', 'e2e', 'run_in_terminal.py');

export interface TerminalResult {
  command: string;
  status: number;
  output: string;
}

export function runInTerminal(options: {
  base: string;
  authorization: string;
  commands: string[];
  commandTimeoutS?: number;
  timeoutMs?: number;
}): Promise<TerminalResult[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ps-terminal-'));
  const file = path.join(dir, 'commands.json');
  fs.writeFileSync(file, JSON.stringify(options.commands));
  return new Promise((resolve, reject) => {
    const child = spawn(PYTHON, [TERMINAL_RUNNER, options.base, file, String(options.commandTimeoutS ?? 60)], {
      env: { PATH: '/usr/bin:/bin', LANG: 'C.UTF-8', PYTHONDONTWRITEBYTECODE: '1', RUNNER_AUTHORIZATION: options.authorization },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe']
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    const timer = setTimeout(() => {
      try {
        process.kill(-(child.pid as number), 'SIGKILL');
      } catch {
        // gone
      }
    }, options.timeoutMs ?? 120000);
    child.on('error', reject);
    child.on('close', code => {
      clearTimeout(timer);
      fs.rmSync(dir, { recursive: true, force: true });
      if (code !== 0) {
        reject(new Error(`run_in_terminal.py exit ${code}\n--- stdout ---\n${stdout}\n--- stderr ---\n${stderr.slice(-4000)}`));
        return;
      }
      resolve((JSON.parse(stdout) as { results: TerminalResult[] }).results);
    });
  });
}
