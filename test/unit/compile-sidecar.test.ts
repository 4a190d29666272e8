// scripts/compile-sidecar.js skips tsc only after a successful compile newer than every source.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { current } = require('../../scripts/compile-sidecar.js') as {
  current(mark: string, inputs: string[], output: string): boolean;
};

describe('compile-sidecar: when sidecar/dist is current', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ps-compile-'));
  const src = path.join(root, 'src');
  const source = path.join(src, 'a.ts');
  const mark = path.join(root, '.compiled');
  const output = path.join(root, 'main.js');
  const at = (file: string, seconds: number) =>
    fs.utimesSync(file, seconds, seconds);

  beforeEach(() => {
    fs.rmSync(root, { recursive: true, force: true });
    fs.mkdirSync(src, { recursive: true });
    fs.writeFileSync(source, '');
    fs.writeFileSync(output, '');
    at(source, 1000);
    at(src, 1000);
  });
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

  test('current after a successful compile newer than the sources', () => {
    fs.writeFileSync(mark, '');
    at(mark, 2000);
    expect(current(mark, [src], output)).toBe(true);
  });

  test('not current without the mark of a successful compile', () => {
    expect(current(mark, [src], output)).toBe(false);
  });

  test('not current once a source changes, or a file is added, or the output is gone', () => {
    fs.writeFileSync(mark, '');
    at(mark, 2000);
    at(source, 3000);
    expect(current(mark, [src], output)).toBe(false);
    at(source, 1000);
    at(src, 3000); // a file added or removed
    expect(current(mark, [src], output)).toBe(false);
    at(src, 1000);
    fs.rmSync(output);
    expect(current(mark, [src], output)).toBe(false);
  });
});
