import type { PlatformId } from '../vocabulary';
import { clusterPlatform } from './cluster';
import { genericPlatform } from './generic';
import { hostedNotebookPlatform } from './hosted-notebook';
import type { PlatformAdapter } from './types';

export const PLATFORM_ADAPTERS: Readonly<Record<PlatformId, PlatformAdapter>> =
  {
    generic: genericPlatform,
    'hosted-notebook': hostedNotebookPlatform,
    cluster: clusterPlatform
  };

export function adapterFor(id: PlatformId): PlatformAdapter {
  return PLATFORM_ADAPTERS[id];
}
