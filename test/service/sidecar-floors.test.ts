// The sidecar's floors (eslint.config.mjs, docs/architecture.md) hold by folder: each import a
// floor may not make is refused by ESLint, and an allowed one is not. Probe text is linted through
// ESLint's Node API with a file path inside each folder, so no probe file is ever written.
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';

const ROOT = path.join(__dirname, '..', '..');

// [file the probe pretends to be, module it imports, refused?]
const PROBES: [string, string, boolean][] = [
  ['core/probe.ts', '../observe/jupyter-runtime', true],
  ['core/probe.ts', '../config/config', true],
  ['core/probe.ts', '../service/log', true],
  ['core/probe.ts', '../files/private-file', true],
  ['core/probe.ts', '../http/app', true],
  ['core/probe.ts', 'node:fs', true],
  ['observe/probe.ts', '../config/site-config-layer', true],
  ['observe/probe.ts', '../service/service', true],
  ['observe/probe.ts', '../files/runtime-file', true],
  ['observe/probe.ts', '../http/respond', true],
  ['observe/probe.ts', '../cli/main', true],
  ['config/probe.ts', '../http/app', true],
  ['service/probe.ts', '../http/app', true],
  ['files/probe.ts', '../cli/main', true],
  ['http/probe.ts', '../cli/main', true],
  ['observe/probe.ts', '../core/observations', false],
  ['config/probe.ts', '../observe/jupyter-runtime', false],
  ['service/probe.ts', '../config/config', false],
  ['http/probe.ts', '../service/service', false],
  ['cli/probe.ts', '../http/app', false]
];

// Runs in a child Node: ESLint loads its flat config (an ES module) by dynamic import. The
// project service is off for the probes, which belong to no tsconfig; the floors need no types.
const LINT = `
const { ESLint } = require('eslint');
const probes = JSON.parse(process.argv[1]);
(async () => {
  const eslint = new ESLint({
    cwd: process.cwd(),
    overrideConfig: { languageOptions: { parserOptions: { projectService: false } } }
  });
  const out = [];
  for (const [file, module] of probes) {
    const [result] = await eslint.lintText(
      "import { probe } from '" + module + "';\\nexport const used = probe;\\n",
      { filePath: 'sidecar/src/' + file }
    );
    out.push(result.messages.map(m => m.ruleId || 'fatal: ' + m.message));
  }
  process.stdout.write(JSON.stringify(out));
})();
`;

describe('the sidecar floors by folder', () => {
  let verdicts: string[][];

  beforeAll(() => {
    const run = spawnSync(
      process.execPath,
      ['-e', LINT, JSON.stringify(PROBES)],
      { cwd: ROOT, encoding: 'utf8', timeout: 120_000 }
    );
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    verdicts = JSON.parse(run.stdout) as string[][];
  }, 150_000);

  it.each(PROBES.map((probe, index) => [...probe, index] as const))(
    '%s importing %s: refused %s',
    (file, module, refused, index) => {
      const rules = verdicts[index];
      expect(rules.filter(rule => rule.startsWith('fatal'))).toEqual([]);
      expect(rules.includes('@typescript-eslint/no-restricted-imports')).toBe(
        refused
      );
    }
  );
});
