// No circles among the sidecar's modules: the floors (docs/architecture.md,
// ESLint's sidecarLayers) stop arrows running up; this stops two modules of one floor from
// importing each other, type-only imports included.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { tempRoot } from '../helpers/harness';

const SIDECAR_SRC = path.join(__dirname, '..', '..', 'sidecar', 'src');
const RELATIVE_IMPORT = /(?:from|import\(|require\()\s*'(\.[^']+)'/g;

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap(entry => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      return sourceFiles(full);
    }
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

function resolveImport(from: string, specifier: string): string | undefined {
  const target = path.resolve(path.dirname(from), specifier);
  return [`${target}.ts`, path.join(target, 'index.ts')].find(candidate =>
    fs.existsSync(candidate)
  );
}

/** Every import circle under `root`, each as its modules in order, relative to `root`. */
function importCycles(root: string): string[] {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(root)) {
    const text = fs.readFileSync(file, 'utf8');
    const targets = [...text.matchAll(RELATIVE_IMPORT)]
      .map(match => resolveImport(file, match[1]))
      .filter((target): target is string => target !== undefined);
    graph.set(file, [...new Set(targets)]);
  }
  const visiting = new Set<string>();
  const done = new Set<string>();
  const trail: string[] = [];
  const cycles: string[] = [];
  const visit = (file: string): void => {
    visiting.add(file);
    trail.push(file);
    for (const next of graph.get(file) ?? []) {
      if (visiting.has(next)) {
        cycles.push(
          [...trail.slice(trail.indexOf(next)), next]
            .map(f => path.relative(root, f))
            .join(' -> ')
        );
      } else if (!done.has(next)) {
        visit(next);
      }
    }
    trail.pop();
    visiting.delete(file);
    done.add(file);
  };
  for (const file of graph.keys()) {
    if (!done.has(file)) {
      visit(file);
    }
  }
  return cycles;
}

it('no module of the sidecar imports, directly or through others, a module that imports it', () => {
  expect(importCycles(SIDECAR_SRC)).toEqual([]);
});

it('finds a planted circle through a type-only import, a folder index and a lazy require', () => {
  const root = tempRoot('ps-cycles-');
  try {
    const write = (file: string, text: string) => {
      fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
      fs.writeFileSync(path.join(root, file), text);
    };
    write('a.ts', "import type { B } from './b';\nexport type A = B;\n");
    write('b.ts', "import { c } from './sub';\nexport type B = typeof c;\n");
    write(
      'sub/index.ts',
      "export const c = () => require('../a') as typeof import('../a');\n"
    );
    write('lone.ts', "import { c } from './sub';\nexport const d = c;\n");
    expect(importCycles(root)).toEqual([
      'a.ts -> b.ts -> sub/index.ts -> a.ts'
    ]);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});
