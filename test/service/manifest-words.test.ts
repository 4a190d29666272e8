// D11: the Python client shows a capability manifest in the command line's words (policy, every
// value, each model source's secret-backed flag and approval modes, both boundary sentences),
// from one source: sidecar/src/core/manifest-words.ts and the copy generated from it.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { formatManifest } from '../../sidecar/src/cli/format';
import type { Manifest } from '../../sidecar/src/core/manifest';
import { MANIFEST_WORDS } from '../../sidecar/src/core/manifest-words';
import { PLATFORM_IDS } from '../../sidecar/src/core/vocabulary';
import { REPO_ROOT } from '../helpers/cli';
import { request, trackedServices } from '../helpers/harness';
import { runPackagePython } from '../helpers/package-python';
import {
  GATEWAY_ADDRESS,
  GATEWAY_LABEL,
  manifestAt,
  SITE_NAMES,
  VENDOR_A_LABEL,
  VENDOR_B_LABEL
} from '../helpers/site-names';

jest.setTimeout(60000);
const start = trackedServices('each');

test('the generated copy for Python equals the words of core/manifest-words.ts (node scripts/manifest-words.js)', () => {
  const copy = JSON.parse(
    fs.readFileSync(
      path.join(REPO_ROOT, 'jupyterlab_project_startup', 'manifest_words.json'),
      'utf8'
    )
  );
  expect(copy).toEqual(MANIFEST_WORDS);
});

/** The text a notebook shows for the manifest: the HTML's text, one line per block. */
function pythonManifestText(manifest: Manifest): string {
  const result = runPackagePython(
    `
import html, json, re
from jupyterlab_project_startup import client
shown = client.Result(json.loads(${JSON.stringify(JSON.stringify(manifest))}))._repr_html_()
print(html.unescape(re.sub(r"<[^>]+>", "\\n", shown)))
`,
    { timeoutMs: 30000 }
  );
  if (result.status !== 0) {
    throw new Error(result.stderr);
  }
  return result.stdout;
}

test.each(PLATFORM_IDS.map(p => [p]))(
  'D11: on %s, client.capabilities() shows every line the terminal shows of policy, values, model sources and boundary',
  async platform => {
    const svc = await start({ env: { PROJECT_STARTUP_PLATFORM: platform } });
    const manifest = (
      await request(`${svc.api}capabilities`, { token: svc.token })
    ).json as Manifest;
    const shown = pythonManifestText(manifest)
      .split('\n')
      .map(l => l.trim())
      .filter(Boolean);
    const terminal = formatManifest(manifest).split('\n');
    // Model sources and the boundary: one line each, word for word.
    const detailLines = terminal
      .filter(l => l.startsWith('    '))
      .map(l => l.trim());
    expect(detailLines.some(l => /secret-backed/.test(l))).toBe(true);
    expect(detailLines.some(l => /does not isolate/.test(l))).toBe(true);
    for (const l of detailLines) {
      expect(shown).toContain(l);
    }
    // The policy line, and each plain capability's values as the terminal lists them.
    expect(shown).toContain(
      terminal.find(l => /by platform policy/.test(l))?.trim()
    );
    for (const l of terminal.filter(l => /^ {2}\S.* {2}\S/.test(l))) {
      const values = l.trim().split(/ {2,}/)[1];
      expect(shown).toContain(values);
    }
  }
);

test("the Python client names the model sources as the site's manifest does, in the terminal's words", () => {
  const manifest = manifestAt('generic', SITE_NAMES);
  const shown = pythonManifestText(manifest)
    .split('\n')
    .map(l => l.trim())
    .filter(Boolean);
  const detailLines = formatManifest(manifest)
    .split('\n')
    .filter(l => l.startsWith('    '))
    .map(l => l.trim());
  expect(detailLines).toContain(`${GATEWAY_LABEL} (${GATEWAY_ADDRESS})`);
  expect(detailLines).toContain(
    'secret-backed; approval modes: Review Every Action'
  );
  expect(detailLines).toContain(VENDOR_B_LABEL);
  expect(detailLines).toContain('not arranged at this site');
  for (const l of detailLines) {
    expect(shown).toContain(l);
  }
  // Each classification is a line of its own, under the name it belongs to.
  const vendorB = shown.indexOf(VENDOR_B_LABEL);
  expect(shown[vendorB + 1]).toBe('not arranged at this site');
  const vendorA = shown.indexOf(VENDOR_A_LABEL);
  expect(shown[vendorA + 1]).toBe(
    'secret-backed; approval modes: Review Every Action'
  );
});
