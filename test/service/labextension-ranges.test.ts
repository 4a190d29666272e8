// The built labextension asks JupyterLab for its shared packages with ranges that every
// JupyterLab 4 satisfies (module federation warns, or refuses, where the host's version is outside
// them), it bundles none of them, and it stays within its size budget. The ranges come from
// package.json's `jupyterlab.sharedPackages`; without them @jupyterlab/builder writes the
// building JupyterLab's own versions (^4.6.4 for @jupyterlab/application, ^4.7.4 for apputils),
// so a rebuild with a newer builder must not narrow them silently.
//
// Needs the build (`npm run build`, which `npm test` runs first).
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vm from 'node:vm';
import * as zlib from 'node:zlib';

const ROOT = path.resolve(__dirname, '..', '..');

interface IPackageJson {
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  devDependencies?: Record<string, string>;
  jupyterlab: {
    outputDir: string;
    sharedPackages?: Record<
      string,
      { bundled?: boolean; requiredVersion?: string }
    >;
    _build?: { load: string };
  };
}

const pkg = JSON.parse(
  fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')
) as IPackageJson;
const OUTPUT = path.join(ROOT, pkg.jupyterlab.outputDir);
const BUILT_PACKAGE = path.join(OUTPUT, 'package.json');

/**
 * The oldest JupyterLab 4 front end: the version JupyterLab 4.0.0 ships of each package the
 * extension shares (its @jupyterlab/* 4.0.0 packages and their dependency ranges). Every range
 * must accept these.
 */
const JUPYTERLAB_4_0: Record<string, string> = {
  '@jupyterlab/coreutils': '6.0.0',
  '@jupyterlab/services': '7.0.0',
  '@jupyterlab/rendermime-interfaces': '3.8.0',
  '@lumino/algorithm': '2.0.0',
  '@lumino/commands': '2.1.1',
  '@lumino/coreutils': '2.1.1',
  '@lumino/disposable': '2.1.1',
  '@lumino/messaging': '2.0.0',
  '@lumino/polling': '2.1.1',
  '@lumino/properties': '2.0.0',
  '@lumino/signaling': '2.1.1',
  '@lumino/virtualdom': '2.0.0',
  '@lumino/widgets': '2.1.1',
  react: '18.2.0',
  'react-dom': '18.2.0',
  // Notebook 7.0 is built on JupyterLab 4.0.
  '@jupyter-notebook/application': '7.0.0',
  '@jupyter-notebook/tree': '7.0.0'
};

function oldestHostVersion(name: string): string | undefined {
  if (JUPYTERLAB_4_0[name]) {
    return JUPYTERLAB_4_0[name];
  }
  return name.startsWith('@jupyterlab/') ? '4.0.0' : undefined;
}

function parseVersion(version: string): number[] {
  const match = /^(\d+)\.(\d+)\.(\d+)$/.exec(version);
  if (!match) {
    throw new Error(`not a plain version: ${version}`);
  }
  return match.slice(1).map(Number);
}

/** Whether `version` satisfies the caret range `range` (^a.b.c, no prerelease). */
function caretSatisfies(range: string, version: string): boolean {
  const [lowMajor, lowMinor, lowPatch] = parseVersion(range.replace(/^\^/, ''));
  const [major, minor, patch] = parseVersion(version);
  if (major !== lowMajor) {
    return false;
  }
  return minor > lowMinor || (minor === lowMinor && patch >= lowPatch);
}

/**
 * The shared modules the remoteEntry consumes, with the range it requires of each, decoded from
 * webpack's array form: [1, 4, 0, 0] is ^4.0.0, [2, ...] would be ~, and a string item starts
 * the prerelease part ([1, 2, 3, 1, , 'alpha', 1] is ^2.3.1-alpha.1).
 */
function consumedShares(remoteEntry: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const match of remoteEntry.matchAll(
    /\("default","([^"]+)",!(?:0|1),(\[[^\]]*\])/g
  )) {
    const encoded = vm.runInNewContext(`(${match[2]})`) as (
      number | string | undefined
    )[];
    const prefix =
      encoded[0] === 1
        ? '^'
        : encoded[0] === 2
          ? '~'
          : `<${String(encoded[0])}>`;
    let text = '';
    for (let i = 1; i < encoded.length; i++) {
      const item = encoded[i];
      if (item === undefined) {
        text += '-';
      } else {
        text += `${i > 1 && text.slice(-1) !== '-' ? '.' : ''}${item}`;
      }
    }
    found.set(match[1], `${prefix}${text}`);
  }
  return found;
}

/** The packages the built lib/ imports at run time (type-only imports are gone by then). */
function runtimeImports(): Set<string> {
  const imported = new Set<string>();
  const lib = path.join(ROOT, 'lib');
  for (const file of fs.readdirSync(lib).filter(f => f.endsWith('.js'))) {
    const text = fs.readFileSync(path.join(lib, file), 'utf8');
    for (const match of text.matchAll(
      /(?:from|import)\s*'((?:@[^/']+\/)?[^/'.][^/']*)[^']*'/g
    )) {
      imported.add(match[1]);
    }
  }
  return imported;
}

describe('the built labextension asks JupyterLab for ranges every JupyterLab 4 satisfies', () => {
  let built: IPackageJson;
  let remoteEntry: string;
  let consumed: Map<string, string>;

  beforeAll(() => {
    if (!fs.existsSync(BUILT_PACKAGE)) {
      throw new Error(
        `${path.relative(ROOT, BUILT_PACKAGE)} is missing: run \`npm run build\` first.`
      );
    }
    built = JSON.parse(fs.readFileSync(BUILT_PACKAGE, 'utf8')) as IPackageJson;
    const load = built.jupyterlab._build?.load;
    expect(load).toMatch(/^static\/remoteEntry\.[0-9a-f]+\.js$/);
    remoteEntry = fs.readFileSync(path.join(OUTPUT, load as string), 'utf8');
    consumed = consumedShares(remoteEntry);
  });

  it('npm users install no JupyterLab: no dependencies, every shared package an optional peer', () => {
    // The key stays: @jupyterlab/builder reads it and fails without it.
    expect(pkg.dependencies).toEqual({});
    for (const name of Object.keys(pkg.peerDependencies ?? {})) {
      expect({
        name,
        optional: pkg.peerDependenciesMeta?.[name]?.optional
      }).toEqual({ name, optional: true });
      // Built and tested against one JupyterLab: the development copy is pinned.
      expect({ name, dev: pkg.devDependencies?.[name] }).toEqual({
        name,
        dev: expect.stringMatching(/^\d+\.\d+\.\d+$/)
      });
    }
  });

  it('each shared package is declared once, with the same range as a peer and as a shared package', () => {
    const shared = pkg.jupyterlab.sharedPackages ?? {};
    expect(Object.keys(shared).sort()).toEqual(
      Object.keys(pkg.peerDependencies ?? {}).sort()
    );
    for (const [name, config] of Object.entries(shared)) {
      expect({
        name,
        bundled: config.bundled,
        requiredVersion: config.requiredVersion
      }).toEqual({
        name,
        bundled: false,
        requiredVersion: pkg.peerDependencies?.[name]
      });
    }
    // The built copy of package.json (what JupyterLab reads) says the same.
    expect(built.jupyterlab.sharedPackages).toEqual(shared);
    expect(built.peerDependencies).toEqual(pkg.peerDependencies);
  });

  it('every range accepts JupyterLab 4.0 and the JupyterLab the tests run', () => {
    for (const [name, range] of Object.entries(pkg.peerDependencies ?? {})) {
      expect(range).toMatch(/^\^\d+\.\d+\.\d+$/);
      const oldest = oldestHostVersion(name);
      expect({ name, range, knownOldest: oldest !== undefined }).toEqual({
        name,
        range,
        knownOldest: true
      });
      expect({
        name,
        range,
        oldest,
        accepts: caretSatisfies(range, oldest as string)
      }).toEqual({ name, range, oldest, accepts: true });
      // The @jupyterlab/* 4 packages at their lowest major release: ^4.0.0, ^6.0.0 (coreutils), ^7.0.0 (services).
      if (name.startsWith('@jupyterlab/')) {
        expect({ name, range }).toEqual({ name, range: `^${oldest}` });
      }
      const installed = (
        JSON.parse(
          fs.readFileSync(
            path.join(ROOT, 'node_modules', name, 'package.json'),
            'utf8'
          )
        ) as { version: string }
      ).version;
      expect({
        name,
        range,
        installed,
        accepts: caretSatisfies(range, installed)
      }).toEqual({ name, range, installed, accepts: true });
    }
  });

  it('the remoteEntry requires exactly the declared range of every package it consumes, and the extension bundles none', () => {
    expect(consumed.size).toBeGreaterThan(0);
    for (const [name, required] of consumed) {
      expect({ name, required }).toEqual({
        name,
        required: pkg.peerDependencies?.[name]
      });
    }
    // Everything of JupyterLab's that lib/ imports at run time comes from the host, not the bundle.
    const hostPackages = [...runtimeImports()].filter(name =>
      /^(@jupyterlab\/|@lumino\/|@jupyter-notebook\/|react$|react-dom$)/.test(
        name
      )
    );
    expect(hostPackages.length).toBeGreaterThan(0);
    for (const name of hostPackages) {
      expect({ name, consumed: consumed.has(name) }).toEqual({
        name,
        consumed: true
      });
    }
    expect(remoteEntry).toContain('@jupyterlab/application');
  });

  // What keeps it there: the service's answers are checked by one interpreter over the reader
  // schemas as data (src/schema-check.ts), the panel and the dialog are one lazy chunk
  // (src/on-demand.ts), and the styles are one minified module without style-loader
  // (scripts/style-min.js).
  it('stays within its 30 KiB gzipped budget', () => {
    const staticDir = path.join(OUTPUT, 'static');
    const gzipped = fs
      .readdirSync(staticDir)
      .filter(f => f.endsWith('.js'))
      .reduce(
        (sum, f) =>
          sum + zlib.gzipSync(fs.readFileSync(path.join(staticDir, f))).length,
        0
      );
    expect(gzipped).toBeLessThanOrEqual(30 * 1024);
  });
});
