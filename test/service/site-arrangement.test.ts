// What a site arranged reaches every sentence of the command line, read directly from the site
// file: the built-in connection of a gateway the site did not arrange is said to be not
// arranged; the credential check asks for model credentials only where an arranged source needs
// them and counts the gateway's token only for an arranged gateway; the platform evidence names
// the site file when the file's `platform` key chose the platform.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Manifest } from '../../sidecar/src/core/manifest';
import { RunResult, runCli, trackedSandboxes } from '../helpers/cli';

jest.setTimeout(30000);
const sandbox = trackedSandboxes();

interface Check {
  id: string;
  status: string;
  observed: string;
  remedy?: string;
}

function expectSuccess(r: RunResult): void {
  if (r.code !== 0) {
    throw new Error(
      `expected exit 0, got ${r.code}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`
    );
  }
}

/** A sandbox whose site file is `document`; the io to run the command line in it. */
function withSite(document: unknown, env: Record<string, string> = {}) {
  const s = sandbox();
  const file = path.join(s.root, 'site.json');
  fs.writeFileSync(file, JSON.stringify(document, null, 2), { mode: 0o644 });
  return {
    file,
    io: {
      env: { ...s.env, ...env, PROJECT_STARTUP_CONFIG: file },
      cwd: s.projectDir
    }
  };
}

async function checksOf(io: {
  env: Record<string, string>;
  cwd: string;
}): Promise<Record<string, Check>> {
  const r = await runCli(['status', '--local', '--json'], io);
  expectSuccess(r);
  const projection = JSON.parse(r.stdout) as { readinessChecks: Check[] };
  return Object.fromEntries(projection.readinessChecks.map(c => [c.id, c]));
}

test('a gateway the site did not arrange is not named as its built-in connection', async () => {
  const { io } = withSite({
    platform: 'generic',
    modelSources: { 'institution-ai-gateway': { arranged: false } }
  });
  const [human, json] = await Promise.all([
    runCli(['capabilities'], io),
    runCli(['capabilities', '--json'], io)
  ]);
  expectSuccess(human);
  expectSuccess(json);
  const manifest = JSON.parse(json.stdout) as Manifest;
  expect(
    manifest.capabilities.find(c => c.id === 'built-in-connections')?.values
  ).toEqual([
    {
      id: 'institution-ai-gateway',
      label: 'Institution AI gateway',
      arranged: false
    }
  ]);
  expect(human.stdout).toContain(
    '  Built-in institution-managed connection\n    Institution AI gateway\n      not arranged at this site\n'
  );
});

test('only the credential-free source arranged: no model credential is asked for', async () => {
  const { io } = withSite({
    platform: 'generic',
    modelSources: { 'service-managed': { arranged: true } }
  });
  const check = (await checksOf(io))['credential-backends'];
  expect(check).toMatchObject({
    status: 'skip',
    observed:
      'only credential-free model sources are arranged at this site, so no model credential is needed'
  });
  expect(check.remedy).toBeUndefined();
});

test("the gateway's token is not counted for a gateway the site did not arrange", async () => {
  const { io } = withSite(
    {
      platform: 'generic',
      modelSources: {
        'vendor-api-a': { arranged: true },
        'institution-ai-gateway': { arranged: false }
      }
    },
    { PROJECT_STARTUP_AI_GATEWAY_TOKEN: 'gw-token-value' }
  );
  const check = (await checksOf(io))['credential-backends'];
  // Not counted: no backend passes on its word (with none broken, nothing is asked of anyone).
  expect(check.status).not.toBe('pass');
  expect(check.observed).toContain(
    'no model provider credential in the environment (not counted, the gateway is not arranged at this site: PROJECT_STARTUP_AI_GATEWAY_TOKEN'
  );
  expect(JSON.stringify(check)).not.toContain('gw-token-value');

  // Arranged, the same token counts.
  const arranged = withSite(
    {
      platform: 'generic',
      modelSources: { 'institution-ai-gateway': { arranged: true } }
    },
    { PROJECT_STARTUP_AI_GATEWAY_TOKEN: 'gw-token-value' }
  );
  const counted = (await checksOf(arranged.io))['credential-backends'];
  expect(counted.status).toBe('pass');
  expect(counted.observed).toContain(
    'model provider credential(s) present: PROJECT_STARTUP_AI_GATEWAY_TOKEN'
  );
});

test("the evidence names the site file when the file's `platform` chose the platform", async () => {
  const { file, io } = withSite({ platform: 'hosted-notebook' });
  const [human, json, checks] = await Promise.all([
    runCli(['capabilities'], io),
    runCli(['capabilities', '--json'], io),
    checksOf(io)
  ]);
  expectSuccess(human);
  expectSuccess(json);
  const manifest = JSON.parse(json.stdout) as Manifest;
  expect(manifest.platform.evidence.signals[0]).toEqual({
    name: `platform in ${file}`,
    kind: 'setting',
    platform: 'hosted-notebook'
  });
  expect(human.stdout).toContain(
    `selected by operator-setting; evidence: platform in ${file}`
  );
  expect(human.stdout).not.toContain('PROJECT_STARTUP_PLATFORM');
  // The container markers of this machine, if any, follow the setting.
  expect(checks['platform-evidence'].observed).toContain(
    `Hosted notebook platform selected by rule operator-setting (platform in ${file}`
  );

  // Set by the variable, the variable is named.
  const byVariable = withSite(
    { platform: 'hosted-notebook' },
    { PROJECT_STARTUP_PLATFORM: 'generic' }
  );
  const variable = await runCli(['capabilities', '--json'], byVariable.io);
  expectSuccess(variable);
  expect(
    (JSON.parse(variable.stdout) as Manifest).platform.evidence.signals[0]
  ).toEqual({
    name: 'PROJECT_STARTUP_PLATFORM',
    kind: 'setting',
    platform: 'generic'
  });
});
