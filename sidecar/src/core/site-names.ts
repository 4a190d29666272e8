// What a site may say about its model sources: the label a person reads, which of
// them the site has arranged and where the institution's gateway (or another compatible
// service) lives. The site configuration file fills SiteModelSources (config.ts, which checks
// the file); the manifest (manifest.ts) reads it through siteSourceName, which can only rename
// and narrow: it never adds a source, never touches approval modes and never the boundary.
import type { ModelSourceValue } from './api-types';
import * as lists from './generated/schema-lists';
import { labelOf } from './vocabulary';

/** The six model-source ids, as the capability manifest names them. */
export type ModelSourceId = ModelSourceValue['id'];

export interface SiteModelSource {
  label?: string;
  address?: string;
  arranged?: boolean;
}

/** The site's words per model source; a source it does not mention keeps the product's own. */
export type SiteModelSources = Partial<Record<ModelSourceId, SiteModelSource>>;

/**
 * The only sources a site may give an address: the routes it runs or chooses itself
 * (manifest.schema.json's list, through generated/schema-lists.ts).
 */
export const ADDRESSED_MODEL_SOURCES: readonly ModelSourceId[] =
  lists.ADDRESSED_MODEL_SOURCES;

/** One source as the manifest names it at this site. */
export interface SiteSourceName {
  label: string;
  arranged: boolean;
  address?: string;
}

/**
 * Whether a source the site says nothing about is arranged. With no site configuration every
 * source the platform has is advertised. Once the site marks any
 * source `arranged: true` it has said which ones it arranged, so every source it did not mark
 * so is not arranged; until then only a source marked `arranged: false` is not.
 */
export function arrangedByDefault(site: SiteModelSources): boolean {
  return !Object.values(site).some(source => source?.arranged === true);
}

/** The label, arrangement and address of source `id` at this site. */
export function siteSourceName(
  id: ModelSourceId,
  site: SiteModelSources
): SiteSourceName {
  const source = Object.prototype.hasOwnProperty.call(site, id)
    ? site[id]
    : undefined;
  const label =
    typeof source?.label === 'string' && source.label.trim() !== ''
      ? source.label
      : labelOf(id);
  const arranged =
    typeof source?.arranged === 'boolean'
      ? source.arranged
      : arrangedByDefault(site);
  const address =
    ADDRESSED_MODEL_SOURCES.includes(id) &&
    typeof source?.address === 'string' &&
    source.address !== ''
      ? source.address
      : undefined;
  return address === undefined
    ? { label, arranged }
    : { label, arranged, address };
}
