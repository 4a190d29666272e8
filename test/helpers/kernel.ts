// Notebooks run the way a person's are: in a kernel the Jupyter server starts (its child, with
// the server's environment and nothing of the test's), importing this project's Python package
// as an installed package would be importable. See test/system/e2e/run_notebook_in_server.py.
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

export const REPO_ROOT = path.resolve(__dirname, '..', '..');
export const PYTHON = '/usr/bin/python3';
export const RUNNER = path.join(
  REPO_ROOT,
  'test',
  'system',
  'e2e',
  'run_notebook_in_server.py'
);
export const PACKAGE_DIR = path.join(REPO_ROOT, 'jupyterlab_project_startup');

/**
 * Makes `import jupyterlab_project_startup` work for every Python of the user whose home is
 * `home`, as `pip install --user -e .` would: a `.pth` file in the user site-packages directory
 * naming a directory that holds (a link to) the package. The kernelspec's /usr/bin/python3 reads
 * it because the kernel inherits HOME from the server.
 */
export function installForUser(home: string, stageDir: string): string {
  const probe = spawnSync(
    PYTHON,
    ['-c', 'import site; print(site.getusersitepackages())'],
    {
      encoding: 'utf8',
      timeout: 20000,
      env: { PATH: '/usr/bin:/bin', HOME: home }
    }
  );
  if (probe.status !== 0) {
    throw new Error(
      `cannot find the user site-packages of ${PYTHON}: ${probe.stderr}`
    );
  }
  const userSite = probe.stdout.trim();
  fs.mkdirSync(userSite, { recursive: true });
  fs.mkdirSync(stageDir, { recursive: true });
  const link = path.join(stageDir, 'jupyterlab_project_startup');
  if (!fs.existsSync(link)) {
    fs.symlinkSync(PACKAGE_DIR, link);
  }
  fs.writeFileSync(
    path.join(userSite, 'jupyterlab_project_startup_dev.pth'),
    `${stageDir}\n`
  );
  return userSite;
}

export interface Cell {
  cell_type: string;
  execution_count: number | null;
  outputs: {
    output_type: string;
    name?: string;
    text?: string | string[];
    data?: Record<string, string | string[]>;
    ename?: string;
    evalue?: string;
  }[];
}

export function notebookOf(cells: string[]): Record<string, unknown> {
  return {
    nbformat: 4,
    nbformat_minor: 5,
    metadata: {
      kernelspec: {
        name: 'python3',
        display_name: 'Python 3 (ipykernel)',
        language: 'python'
      },
      language_info: { name: 'python' }
    },
    cells: cells.map((source, i) => ({
      cell_type: 'code',
      id: `cell-${i}`,
      metadata: {},
      execution_count: null,
      outputs: [],
      source
    }))
  };
}

export interface KernelRun {
  code: number | null;
  stdout: string;
  stderr: string;
  cells: Cell[];
}

/**
 * Writes `cells` as a notebook to `source`, runs it in a kernel the server at `base` starts
 * (REST API with `authorization`, connection file from `runtimeDir`), saves the executed notebook
 * to `target` and returns its cells. Bounded by `timeoutMs` (the runner's process group is
 * killed then).
 */
export function runInServerKernel(options: {
  base: string;
  authorization: string;
  runtimeDir: string;
  source: string;
  target: string;
  cells: string[];
  cellTimeoutS?: number;
  timeoutMs?: number;
  env?: Record<string, string>;
}): Promise<KernelRun> {
  fs.writeFileSync(
    options.source,
    JSON.stringify(notebookOf(options.cells), null, 1)
  );
  fs.mkdirSync(path.dirname(options.target), { recursive: true });
  fs.rmSync(options.target, { force: true });
  return runRunner(
    RUNNER,
    [
      options.base,
      options.runtimeDir,
      options.source,
      options.target,
      String(options.cellTimeoutS ?? 60)
    ],
    {
      authorization: options.authorization,
      env: options.env,
      timeoutMs: options.timeoutMs ?? 150000
    }
  ).then(({ code, stdout, stderr }) => {
    let cells: Cell[] = [];
    try {
      cells = (
        JSON.parse(fs.readFileSync(options.target, 'utf8')) as { cells: Cell[] }
      ).cells;
    } catch {
      // no executed notebook: the caller reports stdout/stderr
    }
    return { code, stdout, stderr, cells };
  });
}

/**
 * Runs one of the e2e runner scripts (test/system/e2e/run_*.py) in a process group of its own, with the
 * credential in RUNNER_AUTHORIZATION (the kernel or terminal it drives never sees it); the whole
 * group is killed when the time bound passes.
 */
export function runRunner(
  script: string,
  args: string[],
  options: {
    authorization: string;
    env?: Record<string, string>;
    timeoutMs: number;
  }
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(PYTHON, [script, ...args], {
      env: {
        PATH: '/usr/bin:/bin',
        LANG: 'C.UTF-8',
        PYTHONDONTWRITEBYTECODE: '1',
        RUNNER_AUTHORIZATION: options.authorization,
        ...options.env
      },
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
    }, options.timeoutMs);
    child.on('error', error => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', code => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The one JSON line each cell printed, and every error, for assertions. */
export function printedJson(run: KernelRun): {
  printed: Record<string, unknown>[];
  errors: string[];
} {
  const errors = run.cells.flatMap((cell, i) =>
    cell.outputs
      .filter(o => o.output_type === 'error')
      .map(o => `cell ${i}: ${o.ename}: ${o.evalue}`)
  );
  const printed = run.cells.map((cell, i) => {
    const text = cell.outputs
      .filter(o => o.output_type === 'stream' && o.name === 'stdout')
      .map(o => ([] as string[]).concat(o.text ?? []).join(''))
      .join('');
    try {
      return JSON.parse(text) as Record<string, unknown>;
    } catch {
      return { cell: `unparsed-${i}`, text };
    }
  });
  return { printed, errors };
}

/** The text/html a cell displayed (display_data or execute_result). */
export function displayedHtml(cell: Cell): string {
  return cell.outputs
    .filter(
      o =>
        o.output_type === 'display_data' || o.output_type === 'execute_result'
    )
    .map(o => ([] as string[]).concat(o.data?.['text/html'] ?? []).join(''))
    .join('');
}
