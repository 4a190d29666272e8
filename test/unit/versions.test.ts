// One version and one address for both packages: package.json holds them;
// pyproject.toml reads the version from it (hatch's regex source) and repeats the addresses in
// [project.urls]; the changelog has an entry for the version. docs/releasing.md is the procedure.
import * as fs from 'node:fs';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');

interface PackageJson {
  version: string;
  homepage: string;
  bugs: { url: string };
  repository: { type: string; url: string };
}

/** The body of one `[table]` of a TOML file, up to the next table header. */
function tomlTable(toml: string, table: string): string {
  const start = toml.indexOf(`\n[${table}]\n`);
  if (start < 0) {
    throw new Error(`pyproject.toml has no [${table}]`);
  }
  const rest = toml.slice(start + table.length + 4);
  const next = rest.search(/^\[/m);
  return next < 0 ? rest : rest.slice(0, next);
}

/** `key = "value"` (or '...') pairs of a TOML table body. */
function tomlStrings(body: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of body.matchAll(/^([A-Za-z][\w-]*)\s*=\s*(["'])(.*)\2\s*$/gm)) {
    out[m[1]] = m[3];
  }
  return out;
}

describe('one version, one address', () => {
  const pkg = JSON.parse(read('package.json')) as PackageJson;
  const pyproject = read('pyproject.toml');

  it("the Python package's version is package.json's, read by hatch's regex source", () => {
    expect(tomlTable(pyproject, 'project')).toMatch(
      /^dynamic\s*=\s*\[[^\]]*"version"/m
    );
    expect(tomlTable(pyproject, 'project')).not.toMatch(/^version\s*=/m);
    const source = tomlStrings(tomlTable(pyproject, 'tool.hatch.version'));
    expect(source.source).toBe('regex');
    expect(source.path).toBe('package.json');
    // Python's named group, as hatch compiles it, in JavaScript's spelling.
    const pattern = new RegExp(source.pattern.replace(/\(\?P</g, '(?<'), 'm');
    expect(pattern.exec(read(source.path))?.groups?.version).toBe(pkg.version);
  });

  it('the version is both a semver and a normalized PEP 440 version, and the changelog has its entry', () => {
    expect(pkg.version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(read('CHANGELOG.md')).toMatch(
      new RegExp(`^## \\[${pkg.version.replace(/\./g, '\\.')}\\] - `, 'm')
    );
    expect(read('CHANGELOG.md')).toMatch(/^## \[Unreleased\]$/m);
  });

  it("pyproject's [project.urls] are package.json's homepage, repository and bugs", () => {
    expect(pkg.homepage).toMatch(/^https:\/\/github\.com\/[\w.-]+\/[\w.-]+$/);
    expect(pkg.repository).toEqual({
      type: 'git',
      url: `git+${pkg.homepage}.git`
    });
    expect(pkg.bugs.url).toBe(`${pkg.homepage}/issues`);
    const urls = tomlStrings(tomlTable(pyproject, 'project.urls'));
    expect(urls).toEqual({
      Homepage: pkg.homepage,
      Source: pkg.homepage,
      Issues: pkg.bugs.url,
      Changelog: `${pkg.homepage}/blob/main/CHANGELOG.md`
    });
  });

  it('the release procedure names the one place of the version, the tag and both builds', () => {
    const releasing = read('docs/releasing.md');
    expect(releasing).toContain('npm version');
    expect(releasing).toMatch(/git tag -a v\d/);
    expect(releasing).toContain('npm pack');
    expect(releasing).toContain('node scripts/build-wheel.js');
    expect(releasing).toContain('test/unit/versions.test.ts');
  });
});
