// The site configuration file's rules: where it is looked for, what its text must be (schema,
// the platforms' fixed sources and approval rules), when its file may be trusted, and which variable each
// key stands for. Pure: observe/site-config-file.ts reads the file, config.ts applies it.
import * as path from 'node:path';
import { adapterFor } from './platforms';
import { ALL_MODEL_SOURCES } from './platforms/types';
import { labelOf, PlatformId } from './vocabulary';
import { dottedKey, schemaProblems } from './site-config-validate';
import { parseErrorPosition, pointerLines } from './site-config-lines';

export type ModelSourceId = (typeof ALL_MODEL_SOURCES)[number];

/** What the file says of each model source: the hand-off to the manifest builder (site-names.ts). */
import type { SiteModelSources } from './site-names';
import type { Env } from './env';
export type { SiteModelSource, SiteModelSources } from './site-names';

/** The file's name in each Jupyter config directory. */
export const SITE_CONFIG_FILE_NAME = 'project-startup.json';
/** The variable naming the file explicitly (the flag --config wins over it). */
export const SITE_CONFIG_ENV = 'PROJECT_STARTUP_CONFIG';
/** Bigger than any real site configuration by far; a bigger file is refused unread. */
export const SITE_CONFIG_MAX_BYTES = 256 * 1024;

/** Where a value of the effective configuration came from (as `git config --show-origin`). */
export type SettingOrigin =
  | { source: 'default' }
  | { source: 'file'; path: string; line?: number }
  | { source: 'env'; name: string }
  /** Jupyter's configuration, passed on by its server (name: c.ProjectStartup.<trait>). */
  | { source: 'jupyter'; name: string }
  | { source: 'flag'; name: string };

/** One problem of the site configuration: the file, where in it, the key, what is wrong, the fix. */
export interface SiteProblem {
  file: string;
  line?: number;
  column?: number;
  /** Dotted key (modelSources.vendor-api-a.label); '' for the file as a whole. */
  key: string;
  message: string;
  fix: string;
}

/** The problem as one line: `file:line: key: message. Fix: fix` */
export function siteProblemLine(problem: SiteProblem): string {
  const at = problem.line === undefined ? '' : `:${problem.line}`;
  const column = problem.column === undefined ? '' : `:${problem.column}`;
  const key =
    problem.key === '' || problem.message.startsWith(problem.key)
      ? ''
      : `${problem.key}: `;
  // A message may end its own sentence; the line adds the full stop only where it does not.
  const message = /[.!?]$/.test(problem.message)
    ? problem.message
    : `${problem.message}.`;
  return `${problem.file}${at}${column}: ${key}${message} Fix: ${problem.fix}`;
}

/**
 * Each existing PROJECT_STARTUP_* variable of site policy and the file key (JSON pointer) that
 * stands for it, in the variable's own syntax once read (siteSettingText). The token, the
 * project and runtime directories, the log level and the proxy hops stay variables only: a
 * secret, or a person's or a deployment's, not the site's.
 */
export const SITE_FILE_KEYS = {
  PROJECT_STARTUP_PLATFORM: '/platform',
  PROJECT_STARTUP_LOW_RISK_AUTOMATION: '/policy/lowRiskAutomation',
  PROJECT_STARTUP_APPROVED_STORAGE: '/storage/approvedRoots',
  PROJECT_STARTUP_LOCAL_RUNTIME_URL: '/endpoints/localRuntimeUrl',
  PROJECT_STARTUP_SERVING_RUNTIME_URL: '/endpoints/servingRuntimeUrl',
  PROJECT_STARTUP_MANAGED_IDENTITY_URL: '/endpoints/managedIdentityUrl',
  PROJECT_STARTUP_SECRETS_DIR: '/secrets/directory',
  PROJECT_STARTUP_TRUSTED_PROXY_SECRET_FILE: '/secrets/trustedProxySecretFile',
  PROJECT_STARTUP_INITIALIZE_RATE_LIMIT: '/limits/initializeRateLimit',
  PROJECT_STARTUP_ALLOCATION_RATE_LIMIT: '/limits/allocationRateLimit',
  PROJECT_STARTUP_MAX_CONNECTIONS: '/limits/maxConnections',
  PROJECT_STARTUP_REQUEST_TIMEOUT_MS: '/limits/requestTimeoutMs',
  PROJECT_STARTUP_PROBE_TIMEOUT_MS: '/limits/probeTimeoutMs',
  PROJECT_STARTUP_SESSION_IDLE_SECONDS: '/sessions/idleSeconds',
  PROJECT_STARTUP_SESSION_MAX_SECONDS: '/sessions/maxSeconds'
} as const;
export type SiteVariable = keyof typeof SITE_FILE_KEYS;

/** A checked file: its document and the line of each pointer. */
export interface SiteConfigFile {
  path: string;
  document: Readonly<Record<string, unknown>>;
  lines: ReadonlyMap<string, number>;
}

export interface SiteConfigCheck {
  /** Undefined when the text is not JSON. */
  file?: SiteConfigFile;
  problems: SiteProblem[];
}

/** The value at a JSON pointer of a document, or undefined. */
export function valueAt(document: unknown, pointer: string): unknown {
  let node = document;
  for (const token of pointer.split('/').slice(1)) {
    const key = token.replace(/~1/g, '/').replace(/~0/g, '~');
    if (
      node === null ||
      typeof node !== 'object' ||
      !Object.hasOwn(node, key)
    ) {
      return undefined;
    }
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** A variable's value as the file sets it, in the variable's syntax (paths joined by ":"). */
export function siteSettingText(
  file: SiteConfigFile,
  variable: SiteVariable
): string | undefined {
  const value = valueAt(file.document, SITE_FILE_KEYS[variable]);
  if (value === undefined) {
    return undefined;
  }
  return Array.isArray(value) ? value.join(':') : String(value);
}

/** The line of a pointer, or of its nearest enclosing member. */
export function lineOf(
  lines: ReadonlyMap<string, number>,
  pointer: string
): number | undefined {
  for (let at = pointer; ; at = at.slice(0, at.lastIndexOf('/'))) {
    const line = lines.get(at);
    if (line !== undefined || at === '') {
      return line;
    }
  }
}

/** Checks a file's text: JSON, one object, the schema, no duplicate keys. */
export function checkSiteConfigText(
  file: string,
  text: string
): SiteConfigCheck {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    const { line, column } = parseErrorPosition(text, (error as Error).message);
    return {
      problems: [
        {
          file,
          line,
          column,
          key: '',
          // Line and column only: the parser's own message quotes the text around the fault,
          // which may be a secret, and this problem is logged and served behind the proxy.
          message: 'not valid JSON',
          fix: 'Correct the JSON at that line and column (a missing or extra comma, quote or brace is the usual cause); `project-startup config check` shows the next problem.'
        }
      ]
    };
  }
  const { lines, duplicates } = pointerLines(text);
  const located = (
    pointer: string,
    message: string,
    fix: string
  ): SiteProblem => ({
    file,
    line: lineOf(lines, pointer),
    key: dottedKey(pointer),
    message,
    fix
  });
  const problems = [
    ...duplicates.map(pointer =>
      located(
        pointer,
        `${dottedKey(pointer)} appears twice in the same object`,
        'Keep one of them: JSON readers disagree on which one counts.'
      )
    ),
    ...schemaProblems(document).map(p => located(p.pointer, p.message, p.fix))
  ];
  const isObject =
    document !== null &&
    typeof document === 'object' &&
    !Array.isArray(document);
  return {
    file: isObject
      ? { path: file, document: document as Record<string, unknown>, lines }
      : undefined,
    problems
  };
}

/** The model sources the file names (after checkSiteConfigText found no problem). */
export function siteModelSources(
  file: SiteConfigFile | undefined
): SiteModelSources {
  const sources = file?.document.modelSources;
  return sources !== null &&
    typeof sources === 'object' &&
    !Array.isArray(sources)
    ? (sources as SiteModelSources)
    : {};
}

/**
 * The platform's fixed sources: the file may name only sources the selected platform has. A file that
 * names another is refused (it would advertise a route the platform cannot support).
 */
export function matrixProblems(
  file: SiteConfigFile,
  platform: PlatformId
): SiteProblem[] {
  const offered: readonly string[] = adapterFor(platform).modelSources;
  return Object.keys(siteModelSources(file))
    .filter(id => !offered.includes(id))
    .map(id => ({
      file: file.path,
      line: lineOf(file.lines, `/modelSources/${id}`),
      key: `modelSources.${id}`,
      message: `the ${labelOf(platform)} (${platform}) has no ${id} source; each platform has a fixed set of model sources, and a file cannot add one (docs/site-configuration.md, "What the file may not do")`,
      fix: `Remove modelSources.${id}; the ${platform} platform's sources are ${offered.join(', ')}.`
    }));
}

/** Keys whose name says they hold a secret; the file's own path keys are not secrets. */
const SECRET_KEY = /token|secret|password|passwd|api-?key|credential|bearer/i;
const PATH_KEYS = new Set([
  '/secrets',
  '/secrets/directory',
  '/secrets/trustedProxySecretFile'
]);

/**
 * Pointers of what the file holds that looks like a secret. No key of the schema can hold one
 * (tokens never live in the file, only paths to them), so this finds a secret someone pasted
 * under a key of their own, which the schema refuses too.
 */
export function secretPointers(document: unknown, at = ''): string[] {
  if (document === null || typeof document !== 'object') {
    return [];
  }
  return Object.entries(document).flatMap(([key, value]) => {
    const pointer = `${at}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    const own =
      SECRET_KEY.test(key) &&
      !PATH_KEYS.has(pointer) &&
      value !== null &&
      typeof value !== 'object'
        ? [pointer]
        : [];
    return [...own, ...secretPointers(value, pointer)];
  });
}

/** What observe/ saw of the file it read. */
export interface SiteFileFacts {
  path: string;
  /** The path (its last component) is a symbolic link; ownerUid is then its target's owner. */
  viaSymlink: boolean;
  ownerUid: number;
  mode: number;
  processUid: number;
}

/**
 * What the file's text adds to its trust. Who could have written it is settled before it is
 * read (core/operator-files.ts); a file readable by others that holds a secret is refused: the
 * secret is out already.
 */
export function fileTrustProblems(
  facts: SiteFileFacts,
  document: unknown
): SiteProblem[] {
  const problems: SiteProblem[] = [];
  if ((facts.mode & 0o044) !== 0) {
    for (const pointer of secretPointers(document)) {
      problems.push({
        file: facts.path,
        key: dottedKey(pointer),
        message: `the file is readable by others (mode ${(facts.mode & 0o777).toString(8).padStart(4, '0')}) and ${dottedKey(pointer)} looks like a secret`,
        fix: `Remove the secret from the file (tokens never live here: set ${'PROJECT_STARTUP_TOKEN'} or put credential files in secrets.directory), and rotate it: others could read it.`
      });
    }
  }
  return problems;
}

export type SiteConfigScope = 'explicit' | 'user' | 'environment' | 'system';

export interface SiteConfigCandidate {
  path: string;
  scope: SiteConfigScope;
}

/**
 * Where the file is looked for, first found wins, as Jupyter orders its config directories
 * (`jupyter --paths`): the user's ($JUPYTER_CONFIG_DIR, else ~/.jupyter), then the
 * environment's ($JUPYTER_CONFIG_PATH's entries, then the prefix of $PROJECT_STARTUP_PYTHON's
 * interpreter, <prefix>/etc/jupyter, which is its sys.prefix for a venv or conda), then the
 * system's (/usr/local/etc/jupyter, /etc/jupyter). $JUPYTER_NO_CONFIG: none.
 */
export function siteConfigCandidates(
  env: Env,
  homeDir: string | undefined
): SiteConfigCandidate[] {
  if (env.JUPYTER_NO_CONFIG) {
    return [];
  }
  const user = env.JUPYTER_CONFIG_DIR
    ? [env.JUPYTER_CONFIG_DIR]
    : homeDir === undefined
      ? []
      : [path.join(homeDir, '.jupyter')];
  const python = env.PROJECT_STARTUP_PYTHON;
  const prefix =
    python &&
    path.isAbsolute(python) &&
    path.basename(path.dirname(python)) === 'bin'
      ? [path.join(path.dirname(path.dirname(python)), 'etc', 'jupyter')]
      : [];
  const environment = [
    ...(env.JUPYTER_CONFIG_PATH ?? '')
      .split(path.delimiter)
      .filter(p => p !== ''),
    ...prefix
  ];
  const system = ['/usr/local/etc/jupyter', '/etc/jupyter'];
  const seen = new Set<string>();
  return [
    ...user.map(dir => ({ dir, scope: 'user' as const })),
    ...environment.map(dir => ({ dir, scope: 'environment' as const })),
    ...system.map(dir => ({ dir, scope: 'system' as const }))
  ]
    .filter(({ dir }) => path.isAbsolute(dir))
    .map(({ dir, scope }) => ({
      path: path.join(dir, SITE_CONFIG_FILE_NAME),
      scope
    }))
    .filter(c => !seen.has(c.path) && seen.add(c.path) !== undefined);
}
