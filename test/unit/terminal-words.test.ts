// `project-startup capabilities` shows the whole manifest in words: every
// capability and value, each model source with secret-backed/credential-free and its approval
// modes by label ("Review Every Action", "Low-Risk Automation"), the boundary's two sentences.
import { formatManifest } from '../../sidecar/src/cli/format';
import { buildManifest } from '../../sidecar/src/core/manifest';
import { adapterFor } from '../../sidecar/src/core/platforms';
import { selectPlatform } from '../../sidecar/src/core/platforms/rules';
import { PLATFORM_IDS } from '../../sidecar/src/core/vocabulary';

describe.each(
  PLATFORM_IDS.flatMap(p =>
    (['permitted', 'denied'] as const).map(policy => [p, policy] as const)
  )
)('capabilities in words: %s, low-risk automation %s', (platform, policy) => {
  it('names every capability and value, each source with its approval modes, and the boundary in full', () => {
    const manifest = buildManifest(
      adapterFor(platform),
      selectPlatform({ present: new Set(), operatorSetting: platform }),
      policy
    );
    const text = formatManifest(manifest);
    expect(text).toContain(`low-risk automation: ${policy} by platform policy`);
    for (const capability of manifest.capabilities) {
      expect(text).toContain(capability.label);
      // Read as records: the model sources and the boundary carry members beyond id and label.
      for (const v of capability.values as ReadonlyArray<
        { id: string; label: string } & Record<string, unknown>
      >) {
        expect(text).toContain(v.label);
        if (Array.isArray(v.approvalModes)) {
          const labels = v.approvalModeLabels as string[];
          expect(labels).toEqual(
            (v.approvalModes as string[]).map(id =>
              id === 'review-every-action'
                ? 'Review Every Action'
                : 'Low-Risk Automation'
            )
          );
          expect(text).toContain(
            `    ${v.label}\n      ${v.secretBacked ? 'secret-backed' : 'credential-free'}; approval modes: ${labels.join(', ')}\n`
          );
        }
        if (typeof v.excludes === 'string') {
          expect(text).toContain(
            `    ${v.label}: ${v.excludes} ${String(v.doesNotIsolate)}\n`
          );
        }
      }
    }
    expect(text.includes('Low-Risk Automation')).toBe(policy === 'permitted');
  });
});
