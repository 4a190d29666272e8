// JSON Schema's `type` keyword is one rule: the generator writes it once into the sidecar and once
// into the extension (which cannot import sidecar code), and both hand-written checkers use it.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { hasJsonType } from '../../sidecar/src/core/generated/json-type';

const ROOT = path.resolve(__dirname, '..', '..');
const COPIES = [
  'sidecar/src/core/generated/json-type.ts',
  'src/generated/json-type.ts'
];
const CHECKERS = [
  'sidecar/src/core/site-config-validate.ts',
  'src/schema-check.ts'
];

function sourcesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap(entry => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      return entry.name === 'generated' ? [] : sourcesUnder(full);
    }
    return /\.tsx?$/.test(entry.name) ? [full] : [];
  });
}

describe("JSON Schema's type keyword", () => {
  test('follows draft 2020-12 for each type', () => {
    const cases: [unknown, string, boolean][] = [
      [{}, 'object', true],
      [[], 'object', false],
      [null, 'object', false],
      [[], 'array', true],
      [null, 'null', true],
      [0, 'null', false],
      [3, 'integer', true],
      [3.5, 'integer', false],
      [3.5, 'number', true],
      [Number.NaN, 'number', false],
      ['x', 'string', true],
      [false, 'boolean', true],
      [1, 'string', false]
    ];
    for (const [value, type, expected] of cases) {
      expect([value, type, hasJsonType(value, type)]).toEqual([
        value,
        type,
        expected
      ]);
    }
  });

  test('is the same text in the sidecar and the extension, and both checkers import it', () => {
    const [sidecar, extension] = COPIES.map(file =>
      fs.readFileSync(path.join(ROOT, file), 'utf8')
    );
    expect(extension).toBe(sidecar);
    for (const file of CHECKERS) {
      expect([
        file,
        fs
          .readFileSync(path.join(ROOT, file), 'utf8')
          .includes("import { hasJsonType } from './generated/json-type';")
      ]).toEqual([file, true]);
    }
  });

  test('is written by hand nowhere else', () => {
    const written = [
      ...sourcesUnder(path.join(ROOT, 'sidecar', 'src')),
      ...sourcesUnder(path.join(ROOT, 'src'))
    ].filter(file =>
      /function has(Json)?Type\b/.test(fs.readFileSync(file, 'utf8'))
    );
    expect(written.map(file => path.relative(ROOT, file))).toEqual([]);
  });
});
