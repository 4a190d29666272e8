/** @jest-environment jsdom */
// The setup page shows the whole manifest in words: each capability and its
// values, each model source with secret-backed/credential-free and its approval modes by label,
// and the boundary with both sentences. The page's own script runs against the manifest the
// service builds, with fetch answering the projection.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { formatManifest } from '../../sidecar/src/cli/format';
import { buildManifest } from '../../sidecar/src/core/manifest';
import { adapterFor } from '../../sidecar/src/core/platforms';
import { selectPlatform } from '../../sidecar/src/core/platforms/rules';
import { PLATFORM_IDS, PlatformId } from '../../sidecar/src/core/vocabulary';
import {
  GATEWAY_ADDRESS,
  GATEWAY_LABEL,
  manifestAt,
  SITE_NAMES,
  VENDOR_A_LABEL,
  VENDOR_B_LABEL
} from '../helpers/site-names';

const STATIC = path.join(__dirname, '..', '..', 'sidecar', 'static');

function manifestOf(platform: PlatformId, policy: 'permitted' | 'denied') {
  const decision = selectPlatform({
    present: new Set(),
    operatorSetting: platform
  });
  return buildManifest(adapterFor(platform), decision, policy);
}

/** A list item's own words, without the items nested in it (a value's classification). */
function ownText(li: Element): string {
  return [...li.childNodes]
    .filter(n => n.nodeType === n.TEXT_NODE)
    .map(n => n.textContent ?? '')
    .join('')
    .trim();
}

/** The classification shown under the item whose own words are `name`. */
function classificationOf(list: HTMLElement, name: string): string[] {
  return [...list.querySelectorAll('li')]
    .filter(li => ownText(li) === name)
    .flatMap(li => [...li.querySelectorAll(':scope > ul > li')])
    .map(ownText);
}

async function renderPage(
  manifest: ReturnType<typeof manifestOf>
): Promise<HTMLElement> {
  const html = fs.readFileSync(path.join(STATIC, 'setup.html'), 'utf8');
  document.documentElement.innerHTML = html
    .replace(/^<!doctype html>\s*<html[^>]*>/i, '')
    .replace(/<\/html>\s*$/i, '');
  const projection = {
    platform: manifest.platform.id,
    interface: 'web',
    projectPath: '/p',
    statePath: '/p/.project-startup',
    phase: 'awaiting-confirmation',
    nextAction: {
      id: 'confirm-initialization',
      title: 'Confirm',
      detail: 'Press it.'
    },
    confirmation: {
      allowedInterfaces: ['web'],
      creates: ['/p/.project-startup']
    },
    readinessChecks: [],
    manifest
  };
  (globalThis as { fetch?: unknown }).fetch = () =>
    Promise.resolve({
      ok: true,
      status: 200,
      json: () => Promise.resolve(projection)
    });
  (0, eval)(fs.readFileSync(path.join(STATIC, 'setup.js'), 'utf8'));
  for (
    let i = 0;
    i < 20 && (document.getElementById('offers') as HTMLElement).hidden;
    i++
  ) {
    await new Promise(resolve => setTimeout(resolve, 5));
  }
  return document.getElementById('capabilities') as HTMLElement;
}

describe.each(
  PLATFORM_IDS.flatMap(p =>
    (['permitted', 'denied'] as const).map(policy => [p, policy] as const)
  )
)('the setup page in words: %s, low-risk automation %s', (platform, policy) => {
  it('names every capability and value, approval modes by label, the boundary with both sentences', async () => {
    const manifest = manifestOf(platform, policy);
    const list = await renderPage(manifest);
    expect((document.getElementById('offers') as HTMLElement).hidden).toBe(
      false
    );
    const text = list.textContent ?? '';
    expect(text).toContain(`${policy} by platform policy`);
    for (const capability of manifest.capabilities) {
      expect(text).toContain(capability.label);
      // Read as records: the model sources and the boundary carry members beyond id and label.
      for (const v of capability.values as ReadonlyArray<
        { id: string; label: string } & Record<string, unknown>
      >) {
        expect(text).toContain(v.label);
        if (Array.isArray(v.approvalModes)) {
          expect(classificationOf(list, v.label)).toEqual([
            `${v.secretBacked ? 'secret-backed' : 'credential-free'}; approval modes: ${(v.approvalModeLabels as string[]).join(', ')}`
          ]);
        }
        if (typeof v.excludes === 'string') {
          expect(text).toContain(v.excludes);
          expect(text).toContain(String(v.doesNotIsolate));
        }
      }
    }
    expect(text).toContain('Review Every Action');
    expect(text.includes('Low-Risk Automation')).toBe(policy === 'permitted');
    // The terminal's words (cli/format.ts, core/manifest-words.ts): every model source and
    // boundary line of `project-startup capabilities` is a line of the page.
    const items = [...list.querySelectorAll('li')].map(ownText);
    for (const terminalLine of formatManifest(manifest)
      .split('\n')
      .filter(l => l.startsWith('    '))) {
      expect(items).toContain(terminalLine.trim());
    }
  });
});

describe("the setup page names the model sources as the site's manifest does", () => {
  it('the site labels, the gateway address and a source not arranged, in the terminal words', async () => {
    const manifest = manifestAt('generic', SITE_NAMES);
    const list = await renderPage(manifest);
    const items = [...list.querySelectorAll('li')].map(ownText);
    expect(
      classificationOf(list, `${GATEWAY_LABEL} (${GATEWAY_ADDRESS})`)
    ).toEqual(['secret-backed; approval modes: Review Every Action']);
    expect(classificationOf(list, VENDOR_A_LABEL)).toEqual([
      'secret-backed; approval modes: Review Every Action'
    ]);
    expect(classificationOf(list, VENDOR_B_LABEL)).toEqual([
      'not arranged at this site'
    ]);
    expect(items).toContain(GATEWAY_LABEL);
    for (const terminalLine of formatManifest(manifest)
      .split('\n')
      .filter(l => l.startsWith('    '))) {
      expect(items).toContain(terminalLine.trim());
    }
    expect(list.textContent).not.toMatch(/Vendor API A|Vendor API B/);
  });
});
