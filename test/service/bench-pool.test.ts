// `node bench/jupyter-proxy.js --pool FILE...`: one run's figures from the warm rounds of several
// result files, so a ratio quoted from two runs together can be printed again by anyone. It
// measures nothing; these are its answers on small result files with known rounds.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { tempRoot } from '../helpers/harness';

const BENCH = path.join(__dirname, '..', '..', 'bench', 'jupyter-proxy.js');

interface Round {
  rps: number;
  cpuUsEach: [number, number];
}

/** A result file as `--out` writes it, with only what --pool reads. */
function resultsFile(
  dir: string,
  name: string,
  pin: boolean,
  sidecarRps: number[],
  bareRps: number[]
): string {
  const rounds = (rps: number[], jupyterUs: number, backendUs: number) =>
    rps.map((r): Round => ({ rps: r, cpuUsEach: [jupyterUs, backendUs] }));
  const load = {
    'sidecar capabilities': rounds(sidecarRps, 710, 90),
    'bare capabilities': rounds(bareRps, 700, 80),
    'sidecar startup': rounds(sidecarRps, 720, 110),
    'bare startup': rounds(bareRps, 700, 80)
  };
  const file = path.join(dir, name);
  fs.writeFileSync(file, JSON.stringify({ options: { pin }, load }));
  return file;
}

/** The bench with `args`, bounded in time. */
function bench(...args: string[]) {
  return spawnSync(process.execPath, [BENCH, ...args], {
    encoding: 'utf8',
    timeout: 30_000
  });
}

const pool = (...files: string[]) => bench('--pool', ...files);

describe('bench:jupyter --pool', () => {
  let dir: string;
  beforeAll(() => {
    dir = tempRoot('ps-bench-pool-');
  });
  afterAll(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('takes the rounds of every file as one run: the median ratio, its verdict and the CPU above bare', () => {
    const a = resultsFile(dir, 'a.json', true, [900, 1000], [1000, 1000]);
    const b = resultsFile(
      dir,
      'b.json',
      true,
      [950, 990, 970],
      [1000, 1000, 1000]
    );
    const run = pool(a, b);
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('Pooled: 2 runs, 5 rounds, pinned');
    // Ratios 0.90, 1.00, 0.95, 0.99, 0.97: the median is 0.97, and the interval holds 0.95.
    expect(run.stdout).toMatch(
      /warm throughput, capabilities \(req\/s\) +\| 970 +\| 1,000 +\| 0\.97x \(0\.9\d-\d\.\d\d\) \| >= 0\.95 \| within noise/
    );
    expect(run.stdout).toContain(
      'the backend: capabilities +10.0, startup +30.0; Jupyter in front of it: capabilities +10.0, startup +20.0'
    );
  });

  it('says NO when every round is below the target, and --check then exits 1', () => {
    const slow = resultsFile(
      dir,
      'slow.json',
      false,
      [800, 850, 820],
      [1000, 1000, 1000]
    );
    const run = pool(slow);
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('Pooled: 1 run, 3 rounds, not pinned');
    expect(run.stdout).toMatch(/0\.82x \(0\.8\d-0\.8\d\) \| >= 0\.95 \| NO/);
    expect(bench('--check', '--pool', slow).status).toBe(1);
  });

  it('refuses pinned and unpinned rounds together, and a file without rounds, with exit 2', () => {
    const pinned = resultsFile(dir, 'p.json', true, [1000], [1000]);
    const unpinned = resultsFile(dir, 'u.json', false, [1000], [1000]);
    const mixed = pool(pinned, unpinned);
    expect(mixed.status).toBe(2);
    expect(mixed.stderr).toContain('mix pinned and unpinned runs');
    expect(mixed.stdout).toBe('');

    const empty = path.join(dir, 'empty.json');
    fs.writeFileSync(empty, JSON.stringify({ options: {} }));
    const none = pool(empty);
    expect(none.status).toBe(2);
    expect(none.stderr).toContain('holds no warm rounds');

    expect(pool().stderr).toContain('--pool needs one or more result files');
  });
});
