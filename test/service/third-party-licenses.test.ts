// Whatever third-party code the sidecar bundle carries, with its comments stripped, has its license
// text shipped beside it: sidecar/dist/THIRD_PARTY_LICENSES.md (scripts/third-party-licenses.js, run by
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

  it('the bundle carries no third-party package, and the file says so', () => {
    const dirs = licenses.packageDirs(
      JSON.parse(fs.readFileSync(licenses.INPUTS, 'utf8')) as string[]
    );
    expect(dirs.map(dir => path.basename(dir))).toEqual([]);
    const listed = fs.readFileSync(licenses.OUT, 'utf8');
    expect(listed).toContain('contains no third-party\npackage');
    expect(listed).not.toMatch(/^## /m);
    expect(listed).not.toContain('| Package |');
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
