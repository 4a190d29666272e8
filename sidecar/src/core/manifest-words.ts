// The words in which a capability manifest is shown to a person, one copy: the command line's
// `capabilities` (cli/format.ts) reads them here, and the Python client reads the copy that
// `node scripts/manifest-words.js` generates from this module
// (jupyterlab_project_startup/manifest_words.json; test/service/manifest-words.test.ts keeps them equal).
// `{name}` marks a value filled in. A site's label is never run into the words that classify its
// source: the name and its classification are two pieces every interface shows apart (its own
// line, its own cell), so a label written like a classification cannot pass for one.

export const MANIFEST_WORDS = {
  heading: 'Capabilities of the {platform} ({platformId})',
  evidence: 'selected by {decidedBy}; evidence: {signals}; host: {host}',
  noSignals: 'none',
  overruled: 'overruled: {overruled}',
  policy: 'low-risk automation: {policy} by platform policy',
  defaultValue: '{label} (default)',
  modelSource: '{secret}; approval modes: {modes}',
  notArranged: 'not arranged at this site',
  addressed: '{label} ({address})',
  secretBacked: 'secret-backed',
  credentialFree: 'credential-free',
  boundary: '{label}: {excludes} {doesNotIsolate}'
} as const;

export type ManifestWord = keyof typeof MANIFEST_WORDS;

/** A template with its `{name}` places filled; a place without a value stays as written. */
export function fillWords(
  word: ManifestWord,
  values: Readonly<Record<string, string>>
): string {
  return MANIFEST_WORDS[word].replace(/\{(\w+)\}/g, (whole, name: string) =>
    Object.prototype.hasOwnProperty.call(values, name) ? values[name] : whole
  );
}

/** What modelSourceWords reads of a model source of the manifest. */
export interface ModelSourceWordsInput {
  label: string;
  arranged?: boolean;
  address?: string;
  secretBacked: boolean;
  approvalModeLabels: readonly string[];
}

/** A model source in words: its name and, apart, what it is at this site. */
export interface ModelSourceText {
  /** The site's name for it, with its address where it has one. */
  name: string;
  /** "not arranged at this site", or whether it is secret-backed and its approval modes. */
  classification: string;
}

/**
 * A model source in words: the site's name for it (with its address, where it has one), and
 * apart from it either that this site has not arranged it or whether it is secret-backed and its
 * approval modes. A manifest without `arranged` (a service before 1.1.0) means arranged.
 */
export function modelSourceWords(
  source: ModelSourceWordsInput
): ModelSourceText {
  const name =
    source.address === undefined
      ? source.label
      : fillWords('addressed', {
          label: source.label,
          address: source.address
        });
  if (source.arranged === false) {
    return { name, classification: MANIFEST_WORDS.notArranged };
  }
  return {
    name,
    classification: fillWords('modelSource', {
      secret: source.secretBacked
        ? MANIFEST_WORDS.secretBacked
        : MANIFEST_WORDS.credentialFree,
      modes: source.approvalModeLabels.join(', ')
    })
  };
}
