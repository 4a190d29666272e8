// The manifest the public API document shows as getCapabilities' example answer. Fixed, never
// the running service's own: the document needs no token, and a live manifest would hand anyone
// who can reach the port the site's labels, addresses and the platform's evidence.
import { adapterFor } from './platforms';
import { selectPlatform } from './platforms/rules';
import { buildManifest, Manifest } from './manifest';
import type { SiteModelSources } from './site-names';

/**
 * A workstation where the operator named the gateway, gave its address and arranged three of
 * the six sources; every name and address is an example one.
 */
export const EXAMPLE_SITE: SiteModelSources = {
  'service-managed': { arranged: true },
  'institution-ai-gateway': {
    label: 'Example University AI Gateway',
    address: 'https://ai.example.edu/v1',
    arranged: true
  },
  'vendor-api-a': { label: 'Example Vendor API', arranged: true }
};

/** The manifest of EXAMPLE_SITE on the generic platform, selected by the operator's setting. */
export function exampleManifest(): Manifest {
  const adapter = adapterFor('generic');
  return buildManifest(
    adapter,
    selectPlatform({ present: new Set(), operatorSetting: 'generic' }),
    adapter.defaultLowRiskAutomation,
    EXAMPLE_SITE
  );
}
