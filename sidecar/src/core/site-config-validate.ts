// The site configuration file checked against its schema (generated/site-config-schema.ts, from
// sidecar/schemas/site-config.schema.json): every problem at once, each with its JSON pointer,
// what is wrong and the fix. Unknown keys get the nearest known key; keys that try to widen the
// product's fixed rules are refused naming the rule. Pure.
import {
  SITE_CONFIG_SCHEMA,
  SiteSchemaNode
} from './generated/site-config-schema';
import { pointerToken } from './site-config-lines';
import { hasJsonType } from './generated/json-type';

/** One problem of a site configuration file, before its line is known. */
export interface SiteProblemAt {
  /** JSON pointer of the key ('' for the whole file). */
  pointer: string;
  message: string;
  fix: string;
}

/** Keys that would change what no site may change, and the rule each would break. */
const RULE_2 =
  'the model credential boundary (application-scrubbed) and its sentences are the same at every site';
const RULE_3 =
  'a model source reached with a secret always has every action reviewed, at every site';

/** The rule a key breaks, wherever it appears, or undefined. */
export function forbiddenKeyRule(key: string): string | undefined {
  if (/boundary|application-scrubbed|excludes|doesNotIsolate/i.test(key)) {
    return RULE_2;
  }
  if (/approval|low-?risk|secret-?backed|automation/i.test(key)) {
    return RULE_3;
  }
  return undefined;
}

/** The edit distance between two keys (Levenshtein, case-insensitive). */
export function editDistance(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  let previous = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const current = [i];
    for (let j = 1; j <= y.length; j++) {
      current[j] = Math.min(
        previous[j] + 1,
        current[j - 1] + 1,
        previous[j - 1] + (x[i - 1] === y[j - 1] ? 0 : 1)
      );
    }
    previous = current;
  }
  return previous[y.length];
}

/** The known key nearest to `key`, when it is near enough to be a slip (a third of its length). */
export function nearestKey(
  key: string,
  known: readonly string[]
): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of known) {
    const distance = editDistance(key, candidate);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  const limit = Math.max(2, Math.floor(Math.max(key.length, 3) / 3));
  return bestDistance <= limit ? best : undefined;
}

/** A dotted key for people: /modelSources/vendor-api-a/label -> modelSources.vendor-api-a.label. */
export function dottedKey(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map(t => t.replace(/~1/g, '/').replace(/~0/g, '~'))
    .join('.');
}

function resolve(node: SiteSchemaNode): {
  node: SiteSchemaNode;
  def?: string;
} {
  if (node.$ref === undefined) {
    return { node };
  }
  const def = node.$ref.replace('#/$defs/', '');
  const target = SITE_CONFIG_SCHEMA.$defs[def];
  return {
    node: { ...target, description: node.description ?? target.description },
    def
  };
}

function typeName(value: unknown): string {
  if (value === null) {
    return 'null';
  }
  if (Array.isArray(value)) {
    return 'an array';
  }
  if (typeof value === 'number') {
    return Number.isInteger(value) ? 'a whole number' : 'a number';
  }
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

const TYPE_WORDS: Readonly<Record<string, string>> = {
  object: 'an object ({ ... })',
  array: 'an array ([ ... ])',
  string: 'a string ("...")',
  integer: 'a whole number',
  boolean: 'true or false'
};

/** Every problem of `document` against the site configuration schema. */
export function schemaProblems(document: unknown): SiteProblemAt[] {
  const problems: SiteProblemAt[] = [];
  walk(document, SITE_CONFIG_SCHEMA, '', problems);
  return problems;
}

function walk(
  value: unknown,
  given: SiteSchemaNode,
  pointer: string,
  out: SiteProblemAt[]
): void {
  const { node, def } = resolve(given);
  const key = dottedKey(pointer) || 'the file';
  const meaning = node.description ? ` (${node.description})` : '';
  if (node.enum !== undefined) {
    if (typeof value !== 'string' || !node.enum.includes(value)) {
      out.push({
        pointer,
        message: `${key} must be one of ${node.enum.map(v => `"${v}"`).join(', ')}`,
        fix: `Set ${key} to one of ${node.enum.map(v => `"${v}"`).join(', ')}, or remove it.`
      });
    }
    return;
  }
  if (node.type !== undefined && !hasJsonType(value, node.type)) {
    out.push({
      pointer,
      message: `${key} is ${typeName(value)}; it must be ${TYPE_WORDS[node.type] ?? node.type}`,
      fix: `Write ${key} as ${TYPE_WORDS[node.type] ?? node.type}${meaning}.`
    });
    return;
  }
  if (node.type === 'object') {
    walkObject(value as Record<string, unknown>, node, pointer, out);
  } else if (node.type === 'array' && node.items !== undefined) {
    (value as unknown[]).forEach((item, i) =>
      walk(item, node.items as SiteSchemaNode, `${pointer}/${i}`, out)
    );
  } else if (node.type === 'string') {
    const problem = stringProblem(value as string, node, def, key);
    if (problem !== undefined) {
      out.push({ pointer, ...problem });
    }
  } else if (node.type === 'integer') {
    const n = value as number;
    if (
      (node.minimum !== undefined && n < node.minimum) ||
      (node.maximum !== undefined && n > node.maximum)
    ) {
      out.push({
        pointer,
        message: `${key} is ${n}, outside ${node.minimum} to ${node.maximum}`,
        fix: `Set ${key} to a whole number from ${node.minimum} to ${node.maximum}${meaning}.`
      });
    }
  }
}

function walkObject(
  value: Record<string, unknown>,
  node: SiteSchemaNode,
  pointer: string,
  out: SiteProblemAt[]
): void {
  const known = Object.keys(node.properties ?? {});
  const where = dottedKey(pointer);
  for (const [member, child] of Object.entries(value)) {
    const at = `${pointer}/${pointerToken(member)}`;
    // Own members only: a key named after an Object.prototype member (`constructor`,
    // `__proto__`) would otherwise find a "schema" there and pass unchecked.
    const schema =
      node.properties !== undefined && Object.hasOwn(node.properties, member)
        ? node.properties[member]
        : undefined;
    if (schema !== undefined) {
      walk(child, schema, at, out);
      continue;
    }
    const nearest = nearestKey(member, known);
    const rule = nearest === undefined ? forbiddenKeyRule(member) : undefined;
    if (rule !== undefined) {
      out.push({
        pointer: at,
        message: `${dottedKey(at)} is refused: ${rule}, and no file can change that (docs/site-configuration.md, "What the file may not do")`,
        fix: `Remove ${dottedKey(at)}.`
      });
      continue;
    }
    const level = where === '' ? 'at the top level' : `in ${where}`;
    out.push({
      pointer: at,
      message: `${dottedKey(at)} is not a known key ${level}`,
      fix:
        nearest !== undefined
          ? `Did you mean "${nearest}"? Rename it, or remove it.`
          : `Remove it; the keys ${level} are ${known.map(k => `"${k}"`).join(', ')}.`
    });
  }
}

/**
 * C0 and C1 controls, the bidirectional marks, embeddings, overrides and isolates, and the line
 * and paragraph separators: the characters the schema's label pattern (^[^...]*$) refuses, and
 * its URL patterns too.
 */
const HIDDEN_CHARACTER = new RegExp(
  `[${/^\^\[\^(.*)\]\*\$$/.exec(SITE_CONFIG_SCHEMA.$defs.label.pattern ?? '')?.[1] ?? ''}]`,
  'u'
);

/** What is wrong with a string, in the words of the definition it follows. */
function stringProblem(
  value: string,
  node: SiteSchemaNode,
  def: string | undefined,
  key: string
): { message: string; fix: string } | undefined {
  const length = [...value].length;
  const pattern =
    node.pattern === undefined ? undefined : new RegExp(node.pattern, 'u');
  const meaning = node.description ?? '';
  // Shown on every interface, so nothing that could redraw a terminal or reorder what a
  // person reads (the schema's patterns say the same).
  if (
    (def === 'label' || def === 'url' || def === 'httpsUrl') &&
    HIDDEN_CHARACTER.test(value)
  ) {
    return {
      message: `${key} holds a control character or an invisible one that reorders or breaks text (a line break, tab, escape, bidirectional override or line separator)`,
      fix: `Write ${key} as plain text on one line: ${meaning}`
    };
  }
  if (def === 'absolutePath' && !value.startsWith('/')) {
    return {
      message: `${key} is not an absolute path`,
      fix: `Write ${key} as an absolute path, starting with / (a relative one would depend on the directory the service starts in).`
    };
  }
  if (
    (def === 'url' || def === 'httpsUrl') &&
    /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(value)
  ) {
    return {
      message: `${key} holds credentials (user:password@ before the host)`,
      fix: `Remove the credentials from ${key}; the file is no place for a secret (a token reaches the service through the credential backends).`
    };
  }
  if (def === 'httpsUrl' && /[?#]/.test(value)) {
    return {
      message: `${key} has a query or a fragment (from ? or #); an address is a scheme, host, port and path only`,
      fix: 'Remove everything from the ? or # on: whatever an address holds is shown on every interface, so a key or token in it would be out (a credential reaches the service through the credential backends).'
    };
  }
  if (node.minLength !== undefined && length < node.minLength) {
    return { message: `${key} is empty`, fix: `Write ${key}: ${meaning}` };
  }
  if (node.maxLength !== undefined && length > node.maxLength) {
    return {
      message: `${key} is ${length} characters, more than ${node.maxLength}`,
      fix: `Shorten ${key} to ${node.maxLength} characters at most: ${meaning}`
    };
  }
  if (pattern !== undefined && !pattern.test(value)) {
    return {
      message: `${key} is not what it must be: ${meaning}`,
      fix: `Write ${key} as ${meaning.charAt(0).toLowerCase()}${meaning.slice(1)}`
    };
  }
  return undefined;
}
