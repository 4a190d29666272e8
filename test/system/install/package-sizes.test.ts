// The sizes the docs give must be the measured ones. The npm package is
// measured with `npm pack --dry-run` (packed and unpacked), the wheel as installed in the real
// stack's venv (every file its RECORD lists); scripts/package-sizes.js writes them to
// docs/package-sizes.json, which docs/performance.md quotes. This test measures again and fails
// when the file is stale (off by more than the script's tolerance) or the docs quote another figure.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { realStack } from '../../helpers/real-stack';
import { PACKAGE_VERSION, REPO_ROOT } from './python';

interface Sizes {
  version: string;
  npm: {
    packed: number;
    unpacked: number;
    display: { packed: string; unpacked: string };
  };
  wheel: { installed: number; display: { installed: string } };
}

// eslint-disable-next-line @typescript-eslint/no-require-imports
const sizes = require('../../../scripts/package-sizes.js') as {
  measure(venv: string): Sizes;
  differences(recorded: unknown, measured: Sizes): string[];
  display(bytes: number): string;
  SIZES_FILE: string;
};

const PERFORMANCE = path.join(REPO_ROOT, 'docs', 'performance.md');

describe('package sizes', () => {
  let measured: Sizes;
  let recorded: Sizes;
  beforeAll(() => {
    measured = sizes.measure(realStack().venv);
    recorded = JSON.parse(fs.readFileSync(sizes.SIZES_FILE, 'utf8')) as Sizes;
  }, 180000);

  it('docs/package-sizes.json holds the measured sizes of this version', () => {
    expect(measured.version).toBe(PACKAGE_VERSION);
    expect(recorded.version).toBe(PACKAGE_VERSION);
    expect(sizes.differences(recorded, measured)).toEqual([]);
    // Its display strings are its own figures, as the script prints them.
    expect(recorded.npm.display).toEqual({
      packed: sizes.display(recorded.npm.packed),
      unpacked: sizes.display(recorded.npm.unpacked)
    });
    expect(recorded.wheel.display.installed).toBe(
      sizes.display(recorded.wheel.installed)
    );
  });

  it("a stale figure is caught (the README's old 418 KiB packed, 1.1 MB unpacked, 1.3 MB installed)", () => {
    const stale = {
      npm: { packed: 418 * 1024, unpacked: 1.1e6 },
      wheel: { installed: 1.3e6 }
    };
    expect(sizes.differences(stale, measured)).toHaveLength(3);
  });

  it('docs/performance.md quotes the recorded figures', () => {
    // Without docs/performance.md there are no quoted figures to compare.
    if (!fs.existsSync(PERFORMANCE)) {
      return;
    }
    const text = fs.readFileSync(PERFORMANCE, 'utf8');
    for (const figure of [
      recorded.npm.display.packed,
      recorded.npm.display.unpacked,
      recorded.wheel.display.installed
    ]) {
      expect(text).toContain(figure);
    }
  });
});
