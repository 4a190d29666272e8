// The built sidecar's files are named in four places, each in its own language: the bin loads
// them, `project-startup jupyter install` checks a package holds them (RUNTIME_FILES), the wheel
// hook copies them (hatch_build.py's BUNDLE_FILES) and npm packs them (package.json "files").
// A file added to the bundle and left out of one of these ships a package that starts slowly
// or not at all, so all four must name the same files.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { RUNTIME_FILES } from '../../sidecar/src/cli/install-package';

const ROOT = path.resolve(__dirname, '..', '..');
const BUNDLE_DIR = 'sidecar/dist/bundle';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const bin = require('../../bin/project-startup.js') as Record<string, unknown>;

/** hatch_build.py's BUNDLE_FILES tuple. */
function hatchBundleFiles(): string[] {
  const source = fs.readFileSync(path.join(ROOT, 'hatch_build.py'), 'utf8');
  const tuple = /^BUNDLE_FILES = \(([^)]*)\)$/m.exec(source);
  if (tuple === null) {
    throw new Error('hatch_build.py has no BUNDLE_FILES tuple');
  }
  return [...tuple[1].matchAll(/"([^"]+)"/g)].map(m => m[1]);
}

/** Whether a package.json "files" pattern (`*` within one name, as npm reads it) matches. */
function packedBy(patterns: string[], file: string): boolean {
  return patterns.some(pattern =>
    new RegExp(
      `^${pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}$`
    ).test(file)
  );
}

describe('the bundle files', () => {
  const runtime = RUNTIME_FILES.bundle.map(file => {
    expect(path.posix.dirname(file)).toBe(BUNDLE_DIR);
    return path.posix.basename(file);
  });

  it('the wheel hook copies what an install checks for', () => {
    expect(hatchBundleFiles().sort()).toEqual([...runtime].sort());
  });

  it('the bin loads only files an install checks for, and all of the bundle', () => {
    const loaded = ['BUNDLE', 'CODE_CACHE', 'LISTEN_FIRST'].map(name => {
      const file = bin[name];
      expect(typeof file).toBe('string');
      expect(path.dirname(file as string)).toBe(path.join(ROOT, BUNDLE_DIR));
      return path.basename(file as string);
    });
    expect(loaded.sort()).toEqual([...runtime].sort());
  });

  it('npm packs every one of them', () => {
    const { files } = JSON.parse(
      fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')
    ) as { files: string[] };
    for (const file of RUNTIME_FILES.bundle) {
      expect({ file, packed: packedBy(files, file) }).toEqual({
        file,
        packed: true
      });
    }
  });
});
