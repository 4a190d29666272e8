// The Debian 13 root's venv cache (test/system/matrix/trixie.ts): each wheel makes a venv, and
// the ones no run has used for two days are removed when the next one is made.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pruneStaleVenvs, VENV_KEPT_MS } from '../system/matrix/trixie';

const NOW = Date.parse('2026-11-26T12:00:00Z');

function venv(
  cache: string,
  name: string,
  lastUsedMs?: number,
  dirMs?: number
): void {
  const dir = path.join(cache, name);
  fs.mkdirSync(path.join(dir, 'venv', 'bin'), { recursive: true });
  if (lastUsedMs !== undefined) {
    fs.writeFileSync(path.join(dir, 'last-used'), '');
    fs.utimesSync(
      path.join(dir, 'last-used'),
      lastUsedMs / 1000,
      lastUsedMs / 1000
    );
  }
  if (dirMs !== undefined) {
    fs.utimesSync(dir, dirMs / 1000, dirMs / 1000);
  }
}

it('removes the venvs unused for longer than they are kept, never the one in use', () => {
  const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'ps-venvs-'));
  try {
    const old = NOW - VENV_KEPT_MS - 60_000;
    venv(cache, 'stale', old);
    venv(cache, 'recent', NOW - 60_000);
    venv(cache, 'in-use', old); // the digest trixieVenv is about to use
    venv(cache, 'before-last-used', undefined, old); // made before the marker existed
    venv(cache, 'made-just-now', undefined, NOW - 1000);
    const removed = pruneStaleVenvs(cache, 'in-use', VENV_KEPT_MS, NOW);
    expect(removed.sort()).toEqual(['before-last-used', 'stale']);
    expect(fs.readdirSync(cache).sort()).toEqual([
      'in-use',
      'made-just-now',
      'recent'
    ]);
  } finally {
    fs.rmSync(cache, { recursive: true, force: true });
  }
});

it('a missing cache removes nothing', () => {
  expect(pruneStaleVenvs('/nonexistent/ps-venvs', 'x')).toEqual([]);
});
