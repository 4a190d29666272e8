// Sizes a reader can hold: no source file over 500 lines and no function over
// 80 in sidecar/src, src/ and jupyterlab_project_startup/, generated files aside, as measured by
// scripts/sizes.js (the TypeScript compiler API for TypeScript, Python's ast for Python).
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { tempRoot } from '../helpers/harness';

const ROOT = path.join(__dirname, '..', '..');
const SCRIPT = path.join(ROOT, 'scripts', 'sizes.js');
const MAX_FILE_LINES = 500;
const MAX_FUNCTION_LINES = 80;

interface Sizes {
  files: { file: string; lines: number }[];
  functions: { file: string; name: string; line: number; lines: number }[];
}

function measure(...args: string[]): Sizes {
  const run = spawnSync(process.execPath, [SCRIPT, '--json', ...args], {
    encoding: 'utf8'
  });
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  return JSON.parse(run.stdout) as Sizes;
}

const sizes = measure();

function overLimit(s: Sizes): string[] {
  return [
    ...s.files
      .filter(f => f.lines > MAX_FILE_LINES)
      .map(f => `${f.file}: ${f.lines} lines`),
    ...s.functions
      .filter(f => f.lines > MAX_FUNCTION_LINES)
      .map(f => `${f.file}:${f.line} ${f.name}: ${f.lines} lines`)
  ];
}

it('measures all three trees, TypeScript and Python alike', () => {
  for (const tree of ['sidecar/src/', 'src/', 'jupyterlab_project_startup/']) {
    expect(sizes.files.some(f => f.file.startsWith(tree))).toBe(true);
    expect(sizes.functions.some(f => f.file.startsWith(tree))).toBe(true);
  }
  // Generated files are not measured: the user guide is one long string from README.md.
  expect(sizes.files.map(f => f.file)).not.toContain(
    'src/generated/user-guide.ts'
  );
});

it(`no file over ${MAX_FILE_LINES} lines and no function over ${MAX_FUNCTION_LINES}`, () => {
  expect(overLimit(sizes)).toEqual([]);
});

it('finds what is too long: a planted long file, TypeScript function and Python function; skips a generated file', () => {
  const root = tempRoot('ps-sizes-');
  try {
    const write = (file: string, text: string) => {
      fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
      fs.writeFileSync(path.join(root, file), text);
    };
    const body = (n: number, line: string) => Array(n).fill(line).join('\n');
    write('sidecar/src/long.ts', `${body(501, 'export const a = 1;')}\n`);
    write(
      'src/widget.tsx',
      `export function tall(): number {\n${body(79, '  void 0;')}\n  return 1;\n}\nexport const short = () => 1;\n`
    );
    write(
      'jupyterlab_project_startup/deep.py',
      `class C:\n    def method(self):\n${body(80, '        pass')}\n`
    );
    write(
      'src/made.ts',
      `// Generated from README.md by a script; do not edit.\n${body(600, '//')}\n`
    );
    const planted = measure('--root', root);
    expect(overLimit(planted).sort()).toEqual(
      [
        'jupyterlab_project_startup/deep.py:2 method: 81 lines',
        'sidecar/src/long.ts: 501 lines',
        'src/widget.tsx:1 tall: 82 lines'
      ].sort()
    );
    expect(planted.functions).toContainEqual({
      file: 'src/widget.tsx',
      name: 'short',
      line: 83,
      lines: 1
    });
    expect(planted.files.map(f => f.file)).not.toContain('src/made.ts');
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

it('prints the five largest files and the five longest functions', () => {
  const run = spawnSync(process.execPath, [SCRIPT], { encoding: 'utf8' });
  expect(run.status).toBe(0);
  const lines = run.stdout.trim().split('\n');
  expect(lines).toHaveLength(12);
  expect(lines[0]).toBe('Largest files (lines):');
  expect(lines[6]).toBe('Longest functions (lines):');
  expect(lines[1]).toContain(sizes.files[0].file);
  expect(lines[7]).toContain(sizes.functions[0].name);
});
