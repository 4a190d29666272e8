// Settings a platform does not use: accepted (they are valid, and the same file may serve
// several platforms), but `config check` warns, so an operator does not believe a value is in
// force where the selected platform never reads it. Pure: the adapter decides.
import type { PlatformAdapter } from './platforms/types';
import type { SiteVariable } from './site-config-rules';
import { labelOf, PLATFORM_IDS } from './vocabulary';
import { adapterFor } from './platforms';

/** Whether the platform reads the setting; settings not listed are read everywhere. */
const USED_BY: Partial<Record<SiteVariable, (a: PlatformAdapter) => boolean>> =
  {
    PROJECT_STARTUP_APPROVED_STORAGE: a => a.requiresApprovedStorage,
    PROJECT_STARTUP_LOCAL_RUNTIME_URL: a =>
      a.inferenceRuntimes.includes('local-lightweight'),
    PROJECT_STARTUP_SERVING_RUNTIME_URL: a =>
      a.inferenceRuntimes.includes('high-throughput-serving'),
    PROJECT_STARTUP_MANAGED_IDENTITY_URL: a =>
      a.credentialBackends.includes('managed-identity'),
    PROJECT_STARTUP_ALLOCATION_RATE_LIMIT: a =>
      a.computeModel === 'batch-allocation'
  };

/** Why `variable` is unused on `adapter`'s platform, or undefined when it is used there. */
export function unusedOn(
  adapter: PlatformAdapter,
  variable: SiteVariable
): string | undefined {
  const used = USED_BY[variable];
  if (used === undefined || used(adapter)) {
    return undefined;
  }
  const users = PLATFORM_IDS.filter(id => used(adapterFor(id))).map(labelOf);
  return `the ${labelOf(adapter.id)} does not use it, so it has no effect here (${users.map(u => `the ${u}`).join(' and ')} ${users.length === 1 ? 'does' : 'do'})`;
}
