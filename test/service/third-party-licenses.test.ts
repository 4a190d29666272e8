// The sidecar bundle carries express 5's router and its dependencies with their comments stripped (issue 22,
// defect 8): sidecar/dist/THIRD_PARTY_LICENSES.md (scripts/third-party-licenses.js, run by
// build:sidecar) carries each one's license text, and the npm package ships it. The wheel's
// file list is checked by test/system/install/wheel.test.ts, which builds the wheel.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPO_ROOT, runProcess } from '../helpers/cli';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const licenses = require('../../scripts/third-party-licenses.js') as {
  INPUTS: string;
  OUT: string;
  packageDirs(inputs: string[]): string[];
};

const LICENSE_FILE = /^(licen[cs]e|copying)/i;

/** `name`'s package.json as Node's lookup finds it from `from` (its `exports` may hide it from require.resolve). */
function nodeModulesManifest(name: string, from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const manifest = path.join(dir, 'node_modules', name, 'package.json');
    if (fs.existsSync(manifest)) {
      return manifest;
    }
    if (path.dirname(dir) === dir) {
      throw new Error(`${name} is not installed where ${from} would find it`);
    }
  }
}

/** router (the sidecar's HTTP routing) and every package it depends on at run time, found as Node resolves them. */
function routerClosure(): Map<string, string> {
  const found = new Map<string, string>();
  const visit = (name: string, from: string): void => {
    const manifest = nodeModulesManifest(name, from);
    const dir = path.dirname(manifest);
    if (found.has(dir)) {
      return;
    }
    found.set(dir, name);
    const pkg = JSON.parse(fs.readFileSync(manifest, 'utf8')) as {
      dependencies?: Record<string, string>;
    };
    for (const dep of Object.keys(pkg.dependencies ?? {})) {
      visit(dep, dir);
    }
  };
  visit('router', REPO_ROOT);
  return found;
}

/** The sections of the licenses file: `## name version` to the next `## `. */
function sections(markdown: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of markdown.split(/^## /m).slice(1)) {
    const newline = part.indexOf('\n');
    out.set(part.slice(0, newline).trim(), part.slice(newline + 1));
  }
  return out;
}

describe('third-party licenses of the sidecar bundle', () => {
  it("every package among the bundle's inputs is listed with its version and its license file's whole text", () => {
    const inputs = JSON.parse(
      fs.readFileSync(licenses.INPUTS, 'utf8')
    ) as string[];
    const dirs = licenses.packageDirs(inputs);
    // router and its dependencies at least (the next test names them).
    expect(dirs.length).toBeGreaterThanOrEqual(routerClosure().size);
    const listed = sections(fs.readFileSync(licenses.OUT, 'utf8'));
    for (const dir of dirs) {
      const pkg = JSON.parse(
        fs.readFileSync(path.join(dir, 'package.json'), 'utf8')
      ) as { name: string; version: string };
      const section = listed.get(`${pkg.name} ${pkg.version}`);
      expect([pkg.name, section === undefined]).toEqual([pkg.name, false]);
      const file = fs.readdirSync(dir).find(n => LICENSE_FILE.test(n));
      expect([pkg.name, file]).not.toEqual([pkg.name, undefined]);
      const text = fs
        .readFileSync(path.join(dir, file as string), 'utf8')
        .replace(/\r\n/g, '\n')
        .trim();
      expect(section).toContain(text);
    }
  });

  it('router and all its run-time dependencies are bundled, so all are listed; express is not', () => {
    const inputs = new Set(
      licenses.packageDirs(
        JSON.parse(fs.readFileSync(licenses.INPUTS, 'utf8')) as string[]
      )
    );
    const closure = routerClosure();
    expect(closure.size).toBeGreaterThanOrEqual(5);
    const missing = [...closure]
      .filter(([dir]) => !inputs.has(dir))
      .map(([, name]) => name);
    expect(missing).toEqual([]);
    const listed = fs.readFileSync(licenses.OUT, 'utf8');
    for (const name of ['router', 'path-to-regexp', 'parseurl', 'debug']) {
      expect(listed).toMatch(new RegExp(`^## ${name} \\d`, 'm'));
    }
    // The sidecar answers on node:http with express's router alone (bench/README.md).
    expect(listed).not.toMatch(/^## express \d/m);
  });

  it('the npm package ships THIRD_PARTY_LICENSES.md (npm pack --dry-run --json)', async () => {
    const packed = await runProcess(
      'npm',
      ['pack', '--dry-run', '--json', '--ignore-scripts'],
      {
        cwd: REPO_ROOT,
        env: {
          PATH: `${path.dirname(process.execPath)}:/usr/bin:/bin`,
          HOME: process.env.HOME ?? '/tmp',
          npm_config_offline: 'true'
        },
        timeoutMs: 60000
      }
    );
    expect(packed.code).toBe(0);
    const [pack] = JSON.parse(packed.stdout) as { files: { path: string }[] }[];
    const files = pack.files.map(f => f.path);
    expect(files).toContain('sidecar/dist/THIRD_PARTY_LICENSES.md');
    expect(files).toContain('LICENSE');
    expect(files).not.toContain('sidecar/dist/bundle-inputs.json');
  }, 70000);
});
