// The rule that finds the project above the working directory (core/project-search.ts), over
// looks that count themselves: nearest first, one look per level, the full inspection only where
// a private directory of ours stands, the ceilings, and which ingress searches at all.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { StateInspection } from '../../sidecar/src/core/observations';
import {
  findProjectDir,
  markerMayBeOurs,
  searchCandidates,
  searchesUpward,
  StateMarkerLook
} from '../../sidecar/src/core/project-search';

const OURS: StateMarkerLook = {
  kind: 'entry',
  isDirectory: true,
  isSymbolicLink: false,
  uid: 1000,
  mode: 0o40700
};

function search(
  workingDir: string,
  markers: Record<string, StateMarkerLook>,
  initialized: string[],
  homeDir: string | undefined = '/home/alice',
  userUid = 1000
) {
  const looked: string[] = [];
  const inspected: string[] = [];
  const found = findProjectDir({
    workingDir,
    homeDir,
    userUid,
    statePathOf: c => path.join(c, '.project-startup'),
    lookAtMarker: p => {
      looked.push(p);
      return markers[path.dirname(p)] ?? { kind: 'absent' };
    },
    inspect: (c): StateInspection => {
      inspected.push(c);
      return initialized.includes(c)
        ? ({ kind: 'initialized' } as StateInspection)
        : { kind: 'absent', detail: 'No project state yet.' };
    }
  });
  return { found, looked, inspected };
}

describe('finding the project above the working directory', () => {
  it('takes the nearest initialized directory, with one look per level up to it', () => {
    const r = search(
      '/home/alice/p/a/b',
      { '/home/alice/p': OURS, '/home/alice': OURS },
      ['/home/alice/p', '/home/alice']
    );
    expect(r.found).toBe('/home/alice/p');
    expect(r.looked).toEqual([
      '/home/alice/p/a/b/.project-startup',
      '/home/alice/p/a/.project-startup',
      '/home/alice/p/.project-startup'
    ]);
    expect(r.inspected).toEqual(['/home/alice/p']);
  });

  it('stays in the working directory when nothing above is initialized; inspects only our private directories', () => {
    const r = search(
      '/home/alice/p/a',
      {
        '/home/alice/p': { ...OURS, mode: 0o40755 },
        '/home/alice': OURS
      },
      []
    );
    expect(r.found).toBe('/home/alice/p/a');
    expect(r.inspected).toEqual(['/home/alice']);
  });

  it('never looks above the home directory’s parent nor at the filesystem root', () => {
    expect(searchCandidates('/home/bob/x', '/home/alice')).toEqual([
      '/home/bob/x',
      '/home/bob'
    ]);
    expect(searchCandidates('/scratch/alice/p', '/home/alice')).toEqual([
      '/scratch/alice/p',
      '/scratch/alice',
      '/scratch'
    ]);
    expect(searchCandidates('/', undefined)).toEqual(['/']);
  });

  it('a marker is ours only as a real, private directory of this user', () => {
    expect(markerMayBeOurs(OURS, 1000)).toBe(true);
    expect(markerMayBeOurs({ ...OURS, uid: 65534 }, 1000)).toBe(false);
    expect(markerMayBeOurs({ ...OURS, isSymbolicLink: true }, 1000)).toBe(
      false
    );
    expect(markerMayBeOurs({ ...OURS, isDirectory: false }, 1000)).toBe(false);
    expect(markerMayBeOurs({ ...OURS, mode: 0o40750 }, 1000)).toBe(false);
    expect(markerMayBeOurs({ kind: 'absent' }, 1000)).toBe(false);
  });

  it('serve searches only as a service of one’s own (direct loopback)', () => {
    expect(searchesUpward(undefined)).toBe(true);
    expect(searchesUpward('direct-loopback')).toBe(true);
    expect(searchesUpward('notebook-server-proxy')).toBe(false);
    expect(searchesUpward('trusted-proxy')).toBe(false);
  });
});

// The rule's test vectors, shared with its Python twin (jupyterlab_project_startup/
// project_search.py, run by test/python/test_project_search.py): one rule in two languages.
interface SearchCase {
  name: string;
  workingDir: string;
  homeDir: string | null;
  userUid: number;
  markers: Record<string, StateMarkerLook>;
  initialized: string[];
  found: string;
  looked: string[];
  inspected: string[];
}
const CASES = JSON.parse(
  fs.readFileSync(
    path.join(__dirname, '..', 'fixtures', 'project-search-cases.json'),
    'utf8'
  )
) as {
  search: SearchCase[];
  candidates: {
    workingDir: string;
    homeDir: string | null;
    candidates: string[];
  }[];
  markers: { look: StateMarkerLook; userUid: number; ours: boolean }[];
};

describe('the shared test vectors (test/fixtures/project-search-cases.json)', () => {
  it.each(CASES.search.map(c => [c.name, c] as const))('%s', (_name, c) => {
    const r = search(
      c.workingDir,
      c.markers,
      c.initialized,
      c.homeDir ?? undefined,
      c.userUid
    );
    expect(r).toEqual({
      found: c.found,
      looked: c.looked,
      inspected: c.inspected
    });
  });

  it.each(CASES.candidates.map(c => [c.workingDir, c.homeDir, c] as const))(
    'candidates from %s with home %s',
    (_dir, _home, c) => {
      expect(searchCandidates(c.workingDir, c.homeDir ?? undefined)).toEqual(
        c.candidates
      );
    }
  );

  it('markers: ours only as a real, private directory of this user', () => {
    expect(CASES.markers.map(m => markerMayBeOurs(m.look, m.userUid))).toEqual(
      CASES.markers.map(m => m.ours)
    );
  });
});
