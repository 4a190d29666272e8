// The platform the service selects and where it keeps a project's state, over the vectors the
// Python client's test runs too (test/fixtures/project-search-cases.json, `platforms`): the
// environment's signals, and a site file's `platform` read through the service's own site-file
// loading and setting precedence. And the Python client's copy of the rules
// (platform_rules.json) is the one core/platforms/rules-data.ts gives.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  LayeredSettings,
  loadSiteConfig
} from '../../sidecar/src/config/site-config-layer';
import { adapterFor } from '../../sidecar/src/core/platforms';
import { platformRulesData } from '../../sidecar/src/core/platforms/rules-data';
import {
  InvalidPlatformSetting,
  selectPlatform
} from '../../sidecar/src/core/platforms/rules';
import { gatherPlatformEvidence } from '../../sidecar/src/observe/evidence';

const ROOT = path.resolve(__dirname, '..', '..');
const CASES = JSON.parse(
  fs.readFileSync(
    path.join(ROOT, 'test', 'fixtures', 'project-search-cases.json'),
    'utf8'
  )
) as {
  platforms: {
    name: string;
    env: Record<string, string>;
    files: string[];
    sitePlatform: string | null;
    platform: string | null;
    projectPath: string;
    homeDir: string | null;
    statePath?: string;
    parentsToCreate?: string[];
  }[];
};

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'platform-vectors-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

test('the Python client reads the rules core gives (node scripts/platform-rules.js)', () => {
  const copy = JSON.parse(
    fs.readFileSync(
      path.join(ROOT, 'jupyterlab_project_startup', 'platform_rules.json'),
      'utf8'
    )
  );
  expect(copy).toEqual(JSON.parse(JSON.stringify(platformRulesData())));
});

test('the vectors include a site file that names the platform', () => {
  expect(CASES.platforms.some(c => c.sitePlatform !== null)).toBe(true);
});

test.each(CASES.platforms.map(c => [c.name, c]))('%s', (_name, vector) => {
  const c = vector as (typeof CASES.platforms)[number];
  const env: Record<string, string> = { ...c.env };
  if (c.sitePlatform !== null) {
    const file = path.join(dir, `${c.sitePlatform}.json`);
    fs.writeFileSync(file, JSON.stringify({ platform: c.sitePlatform }), {
      mode: 0o644
    });
    env.PROJECT_STARTUP_CONFIG = file;
  } else {
    env.JUPYTER_NO_CONFIG = '1';
  }
  const loaded = loadSiteConfig(undefined, env, dir, undefined);
  expect(loaded.problems).toEqual([]);
  const setting = new LayeredSettings(env, loaded.file).platform();
  const files = new Set(c.files);
  const decide = () =>
    selectPlatform({
      ...gatherPlatformEvidence(env, p => files.has(p)),
      operatorSetting: setting
    });
  if (c.platform === null) {
    expect(decide).toThrow(InvalidPlatformSetting);
    return;
  }
  const decision = decide();
  expect(decision.platform).toBe(c.platform);
  expect(
    adapterFor(decision.platform).placeState(
      c.projectPath,
      c.homeDir ?? undefined
    )
  ).toEqual({ statePath: c.statePath, parentsToCreate: c.parentsToCreate });
});
