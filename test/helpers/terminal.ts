// Commands typed into a real JupyterLab terminal (see test/system/e2e/run_in_terminal.py): the shell is
// the Jupyter server's child with the server's environment, nothing of the test's.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { REPO_ROOT, runRunner } from './kernel';

export const TERMINAL_RUNNER = path.join(
  REPO_ROOT,
  'test',
  'system',
  'e2e',
  'run_in_terminal.py'
);

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
  return runRunner(
    TERMINAL_RUNNER,
    [options.base, file, String(options.commandTimeoutS ?? 60)],
    {
      authorization: options.authorization,
      timeoutMs: options.timeoutMs ?? 120000
    }
  )
    .finally(() => fs.rmSync(dir, { recursive: true, force: true }))
    .then(({ code, stdout, stderr }) => {
      if (code !== 0) {
        throw new Error(
          `run_in_terminal.py exit ${code}\n--- stdout ---\n${stdout}\n--- stderr ---\n${stderr.slice(-4000)}`
        );
      }
      return (JSON.parse(stdout) as { results: TerminalResult[] }).results;
    });
}
