// A site's names for its model sources, as a site configuration file gives them, and
// the manifest the service builds from them: shared by the tests of every interface that shows
// the names. The labels are ones no seed word contains, so finding one proves it came from here.
import { buildManifest, Manifest } from '../../sidecar/src/core/manifest';
import { adapterFor } from '../../sidecar/src/core/platforms';
import { selectPlatform } from '../../sidecar/src/core/platforms/rules';
import type { SiteModelSources } from '../../sidecar/src/core/site-names';
import type {
  LowRiskAutomationPolicy,
  PlatformId
} from '../../sidecar/src/core/vocabulary';

export const GATEWAY_LABEL = 'Zephyr University AI Gateway';
export const GATEWAY_ADDRESS = 'https://ai.zephyr.example.edu/v1';
export const VENDOR_A_LABEL = 'Quokka Vendor API';
export const VENDOR_B_LABEL = 'Wombat Vendor API';

/** The gateway and vendor A arranged (with service-managed), vendor B named but not arranged. */
export const SITE_NAMES: SiteModelSources = {
  'service-managed': { arranged: true },
  'institution-ai-gateway': {
    label: GATEWAY_LABEL,
    address: GATEWAY_ADDRESS,
    arranged: true
  },
  'vendor-api-a': { label: VENDOR_A_LABEL, arranged: true },
  'vendor-api-b': { label: VENDOR_B_LABEL, arranged: false }
};

/** The site configuration file that gives SITE_NAMES (site-contract: `modelSources`). */
export function siteFile(platform?: PlatformId): string {
  return JSON.stringify(
    { ...(platform ? { platform } : {}), modelSources: SITE_NAMES },
    null,
    2
  );
}

/** The manifest of `platform` at a site, as the service builds it. */
export function manifestAt(
  platform: PlatformId,
  site: SiteModelSources,
  policy: LowRiskAutomationPolicy = adapterFor(platform)
    .defaultLowRiskAutomation
): Manifest {
  return buildManifest(
    adapterFor(platform),
    selectPlatform({ present: new Set(), operatorSetting: platform }),
    policy,
    site
  );
}

/** The model-source values of a manifest. */
export function modelSources(
  manifest: Manifest
): Extract<
  Manifest['capabilities'][number],
  { id: 'model-sources' }
>['values'] {
  const row = manifest.capabilities.find(c => c.id === 'model-sources');
  if (row === undefined || row.id !== 'model-sources') {
    throw new Error('the manifest has no model-sources row');
  }
  return row.values;
}
