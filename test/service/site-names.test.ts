// `project-startup capabilities` names the model sources as the site configuration file does,
// read directly and through a running service, whose API description shows
// the same manifest as its example answer. The file is named by PROJECT_STARTUP_CONFIG, the one
// variable of the site contract.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { exampleManifest } from '../../sidecar/src/core/example-manifest';
import type { Manifest } from '../../sidecar/src/core/manifest';
import {
  CliSandbox,
  RunResult,
  runCli,
  startServe,
  trackedSandboxes
} from '../helpers/cli';
import { request } from '../helpers/harness';
import { expectValid } from '../helpers/schemas';
import {
  GATEWAY_ADDRESS,
  GATEWAY_LABEL,
  manifestAt,
  modelSources,
  SITE_NAMES,
  siteFile,
  VENDOR_A_LABEL,
  VENDOR_B_LABEL
} from '../helpers/site-names';

jest.setTimeout(30000);
const sandbox = trackedSandboxes();

/** A sandbox with the site file written beside the project, and its PROJECT_STARTUP_CONFIG. */
function siteSandbox(): { s: CliSandbox; config: Record<string, string> } {
  const s = sandbox();
  const file = path.join(s.root, 'site.json');
  fs.writeFileSync(file, siteFile(), { mode: 0o644 });
  return { s, config: { PROJECT_STARTUP_CONFIG: file } };
}

function expectSuccess(r: RunResult): void {
  if (r.code !== 0) {
    throw new Error(
      `expected exit 0, got ${r.code}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`
    );
  }
}

/** The lines of `capabilities` that show the site's names. */
function expectSiteLines(stdout: string): void {
  expect(stdout).toContain(
    `\n    ${GATEWAY_LABEL} (${GATEWAY_ADDRESS})\n      secret-backed; approval modes: Review Every Action\n`
  );
  expect(stdout).toContain(
    `\n    ${VENDOR_A_LABEL}\n      secret-backed; approval modes: Review Every Action\n`
  );
  expect(stdout).toContain(
    `\n    ${VENDOR_B_LABEL}\n      not arranged at this site\n`
  );
  expect(stdout).toMatch(
    new RegExp(
      `^\\s+Built-in institution-managed connection\\s+${GATEWAY_LABEL}$`,
      'm'
    )
  );
  expect(stdout).not.toMatch(/Vendor API A|Vendor API B/);
}

describe('project-startup capabilities at a site', () => {
  it('read directly: the labels, the address and the sources not arranged of the site file', async () => {
    const { s, config } = siteSandbox();
    const io = { env: { ...s.env, ...config }, cwd: s.projectDir };
    const [human, json] = await Promise.all([
      runCli(['capabilities'], io),
      runCli(['capabilities', '--json'], io)
    ]);
    expectSuccess(human);
    expectSuccess(json);
    expectSiteLines(human.stdout);
    const manifest = JSON.parse(json.stdout) as Manifest;
    expectValid('Manifest', manifest);
    expect(modelSources(manifest)).toEqual(
      modelSources(manifestAt('generic', SITE_NAMES))
    );
  });

  it("through a running service: the service's names; its token-free API description shows the fixed example, not them", async () => {
    const { s, config } = siteSandbox();
    const server = await startServe([], {
      env: { ...s.env, ...config },
      cwd: s.projectDir
    });
    // The command line is not told of the file: the names come from the service.
    const io = { env: s.env, cwd: s.projectDir };
    const [human, json] = await Promise.all([
      runCli(['capabilities'], io),
      runCli(['capabilities', '--json'], io)
    ]);
    expectSuccess(human);
    expectSuccess(json);
    expectSiteLines(human.stdout);
    const manifest = JSON.parse(json.stdout) as Manifest;
    const described = await request(`${server.url}openapi.json`);
    expect(described.status).toBe(200);
    const example = (
      described.json as {
        paths: Record<
          string,
          {
            get?: {
              responses: Record<
                string,
                { content: Record<string, { example?: unknown }> }
              >;
            };
          }
        >;
      }
    ).paths['/project/capabilities'].get?.responses['200'].content[
      'application/json'
    ].example;
    expect(example).toEqual(exampleManifest());
    const siteLabel = modelSources(manifest).find(
      m => m.id === 'institution-ai-gateway'
    )?.label;
    expect(siteLabel).toMatch(/Zephyr/);
    expect(described.text).not.toContain(siteLabel);
  });
});
