// What ships and what operators read speaks for itself: no message, schema description, comment
// or page cites the team's own specification files or its issue and audit numbers, which no user
// has. A rule is stated in words, and a pointer goes to the product's own docs.
import * as fs from 'node:fs';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');

/** The trees that ship (sources, schemas, the Python package), the docs people read, the tests. */
const TREES = [
  'sidecar/src',
  'sidecar/schemas',
  'src',
  'schema',
  'style',
  'bin',
  'scripts',
  'jupyterlab_project_startup',
  'docs'
];
/** The tests and benches may cite the specs they check against, never the tracker. */
const TEST_TREES = ['test', 'bench'];
const FILES = ['README.md'];
/** This file: its examples of citations are the rule's own test. */
const SELF = path.relative(ROOT, __filename);
/** Build outputs inside those trees: made from the files checked here. */
const SKIPPED = new Set([
  'labextension',
  'node',
  'node_modules',
  '__pycache__',
  'dist'
]);
const TEXT = /\.(ts|tsx|js|mjs|cjs|py|json|md|html|css|toml|yaml|yml)$/;

/** Each way a citation of our own tracker has been written. */
const TRACKER: [string, RegExp][] = [
  ['an audit finding', /\baudit \(?[A-Z]*\d+/i],
  ['an issue number', /\bissues? \d+/i],
  ['a defect or finding number', /\b(defect|finding) \d+/i]
];
/** ... and of our specs. */
const CITATIONS: [string, RegExp][] = [
  ['a spec file', /\b(service|design|style|jupyter-environment)\.md\b/],
  ['the seed', /\bseed'?s?\b(?!_)/i],
  ...TRACKER
];

function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) {
    return [];
  }
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap(entry => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      return SKIPPED.has(entry.name) ? [] : filesUnder(full);
    }
    return TEXT.test(entry.name) ? [full] : [];
  });
}

/** `file:line: what` for each citation in `text`. */
export function citationsIn(
  file: string,
  text: string,
  citations = CITATIONS
): string[] {
  return text.split('\n').flatMap((line, index) =>
    citations
      .filter(([, pattern]) =>
        // A random seed's variable (PROJECT_STARTUP_FUZZ_SEED) is not the seed.
        pattern.test(line.replace(/\w*_SEED\b|prints the seed/gi, ''))
      )
      .map(
        ([what]) =>
          `${file}:${index + 1}: ${what}: ${line.trim().slice(0, 120)}`
      )
  );
}

describe('no citation of our specs or tracker where users read', () => {
  test('the rule catches each way a citation is written, and passes plain words', () => {
    expect(citationsIn('f', 'refused: service.md rule 3')).toHaveLength(1);
    expect(citationsIn('f', "the seed's capability matrix")).toHaveLength(1);
    expect(citationsIn('f', '// decided in audit D13')).toHaveLength(1);
    expect(citationsIn('f', '// found by the audit (D13)')).toHaveLength(1);
    expect(citationsIn('f', '/** (issue 23) */')).toHaveLength(1);
    expect(citationsIn('f', 'package sizes (defect 7)')).toHaveLength(1);
    expect(
      citationsIn(
        'f',
        'a secret-backed source always has every action reviewed'
      )
    ).toEqual([]);
    expect(
      citationsIn('f', 'PROJECT_STARTUP_FUZZ_SEED replays a failure')
    ).toEqual([]);
  });

  test('sources, schemas, the Python package and the docs cite none', () => {
    const files = [
      ...TREES.flatMap(tree => filesUnder(path.join(ROOT, tree))),
      ...FILES.map(file => path.join(ROOT, file))
    ];
    expect(files.length).toBeGreaterThan(100);
    const found = files.flatMap(file =>
      citationsIn(path.relative(ROOT, file), fs.readFileSync(file, 'utf8'))
    );
    expect(found).toEqual([]);
  });

  test('the tests and benches cite no issue, audit or defect number', () => {
    const files = TEST_TREES.flatMap(tree => filesUnder(path.join(ROOT, tree)))
      // Their code; bench/README.md is a record of measurements, dated by what was worked on.
      .filter(
        file => path.relative(ROOT, file) !== SELF && !file.endsWith('.md')
      );
    expect(files.length).toBeGreaterThan(100);
    const found = files.flatMap(file =>
      citationsIn(
        path.relative(ROOT, file),
        fs.readFileSync(file, 'utf8'),
        TRACKER
      )
    );
    expect(found).toEqual([]);
  });
});
