// The site configuration file's pure rules: its schema and the checker that walks
// it agree, every bad input is named with its line, key and fix, the seed's matrix and rules 2
// and 3 cannot be widened, and values reach the configuration after the environment and before
// the defaults, each with its origin.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import { resolveConfig, SettingError } from '../../sidecar/src/config/config';
import {
  loadSiteConfig,
  SiteConfigError
} from '../../sidecar/src/config/site-config-layer';
import {
  checkSiteConfigText,
  fileTrustProblems,
  matrixProblems,
  SITE_FILE_KEYS,
  siteConfigCandidates,
  SiteConfigFile,
  siteProblemLine
} from '../../sidecar/src/core/site-config-rules';
import { nearestKey } from '../../sidecar/src/core/site-config-validate';
import {
  operatorFileProblem,
  PathEntry
} from '../../sidecar/src/core/operator-files';
import { PLATFORM_IDS } from '../../sidecar/src/core/vocabulary';
import { SITE_CONFIG_SCHEMA } from '../../sidecar/src/core/generated/site-config-schema';

const ROOT = path.resolve(__dirname, '..', '..');
const SCHEMA = JSON.parse(
  fs.readFileSync(
    path.join(ROOT, 'sidecar', 'schemas', 'site-config.schema.json'),
    'utf8'
  )
);
const ajv = new Ajv2020({ strict: true, allErrors: true });
const ajvValidate = ajv.compile(SCHEMA);
const EXAMPLES = path.join(ROOT, 'docs', 'examples', 'site-config');

function check(document: unknown, file = '/etc/jupyter/project-startup.json') {
  return checkSiteConfigText(file, JSON.stringify(document, null, 2));
}

/** The checker refuses it, and so does Ajv over the schema file: one source. */
function refusedByBoth(document: unknown): string[] {
  const lines = check(document).problems.map(siteProblemLine);
  expect(lines.length).toBeGreaterThan(0);
  expect(ajvValidate(document)).toBe(false);
  return lines;
}

describe('the schema and its generated copies', () => {
  // The generator's own check of both copies runs in the service lane
  // (test/service/generated-code.test.ts): it starts a process.
  test('the TypeScript copy is what the schema generates', () => {
    const { $defs, properties } = SCHEMA;
    expect(SITE_CONFIG_SCHEMA.$defs).toEqual($defs);
    expect(SITE_CONFIG_SCHEMA.properties).toEqual(properties);
  });

  test('its platforms are the platforms; each variable it stands for names a key of it', () => {
    expect(SCHEMA.properties.platform.enum).toEqual([...PLATFORM_IDS]);
    for (const [variable, pointer] of Object.entries(SITE_FILE_KEYS)) {
      const [section, key] = pointer.split('/').slice(1);
      const node =
        key === undefined
          ? SCHEMA.properties[section]
          : SCHEMA.properties[section].properties[key];
      expect(`${variable} ${node === undefined ? 'missing' : 'found'}`).toBe(
        `${variable} found`
      );
      expect(node.description).toContain(variable);
    }
  });

  test.each(['generic', 'hosted-notebook', 'cluster'])(
    'the example file for %s is valid, for its own platform',
    platform => {
      const file = path.join(EXAMPLES, `${platform}.json`);
      const text = fs.readFileSync(file, 'utf8');
      const checked = checkSiteConfigText(file, text);
      expect(checked.problems.map(siteProblemLine)).toEqual([]);
      expect(ajvValidate(JSON.parse(text))).toBe(true);
      const parsed = checked.file as SiteConfigFile;
      expect(parsed.document.platform).toBe(platform);
      expect(matrixProblems(parsed, platform as 'generic')).toEqual([]);
    }
  );
});

describe('bad input: each named with its file, line, key and fix', () => {
  test('malformed JSON: the line and column where the parser stopped', () => {
    const text =
      '{\n  "platform": "generic",\n  "limits": { "probeTimeoutMs": 10, }\n}\n';
    const { problems, file } = checkSiteConfigText('/x/site.json', text);
    expect(file).toBeUndefined();
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({
      file: '/x/site.json',
      line: 3,
      key: ''
    });
    expect(problems[0].column).toBeGreaterThan(30);
    expect(siteProblemLine(problems[0])).toMatch(
      /^\/x\/site\.json:3:\d+: not valid JSON\. Fix: /
    );
    const truncated = checkSiteConfigText('/x/site.json', '{\n "platform": ');
    expect(truncated.problems[0].line).toBe(2);
  });

  test("malformed JSON: the problem never quotes the file's text (it may be a secret)", () => {
    for (const text of [
      '{\n  "x": sk-live-ABCDEFGHIJKLMNOP\n}\n',
      '{\n  "x": "sk-live-ABCDEFGHIJKLMNOP" "y"\n}\n',
      '{"x": "sk-live-ABCDEFGHIJKLMNOP\u0001"}',
      'sk-live-ABCDEFGHIJKLMNOP'
    ]) {
      const [problem] = checkSiteConfigText('/x/site.json', text).problems;
      const line = siteProblemLine(problem);
      expect(line).toMatch(/^\/x\/site\.json:\d+:\d+: not valid JSON\. Fix: /);
      expect(line).not.toMatch(/sk|live|ABC/);
    }
  });

  test('a wrong type, at its own line', () => {
    const text = '{\n  "sessions": {\n    "idleSeconds": "2h"\n  }\n}\n';
    const [problem] = checkSiteConfigText('/x/site.json', text).problems;
    expect(problem).toMatchObject({ line: 3, key: 'sessions.idleSeconds' });
    expect(problem.message).toMatch(/is a string; it must be a whole number/);
    expect(ajvValidate(JSON.parse(text))).toBe(false);
    expect(
      refusedByBoth({
        modelSources: { 'vendor-api-a': { arranged: 'yes' } }
      })[0]
    ).toMatch(
      /modelSources\.vendor-api-a\.arranged is a string; it must be true or false/
    );
    expect(
      refusedByBoth({ storage: { approvedRoots: '/projects' } })[0]
    ).toMatch(/storage\.approvedRoots is a string; it must be an array/);
  });

  test('an unknown key at any level, with the nearest known key suggested', () => {
    const [top] = refusedByBoth({ platfrom: 'generic' });
    expect(top).toMatch(
      /platfrom is not a known key at the top level\. Fix: Did you mean "platform"\?/
    );
    const [deep] = refusedByBoth({ limits: { probeTimeoutMS: 100 } });
    expect(deep).toMatch(
      /limits\.probeTimeoutMS .*Did you mean "probeTimeoutMs"\?/
    );
    const [source] = refusedByBoth({ modelSources: { 'vendor-api-c': {} } });
    expect(source).toMatch(/Did you mean "vendor-api-a"\?/);
    const [far] = refusedByBoth({ sessions: { colour: 'blue' } });
    expect(far).toMatch(/the keys in sessions are "idleSeconds", "maxSeconds"/);
    expect(nearestKey('zzzzzzzz', ['platform', 'policy'])).toBeUndefined();
  });

  test.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty'])(
    'a key named after an Object.prototype member (%s) is unknown at every level, whatever it holds',
    member => {
      // As JSON text: an object literal's __proto__ would set the prototype instead.
      const at = (inner: string) => checkSiteConfigText('/x', inner).problems;
      const top = at(
        `{"${member}": {"approvalModes": ["low-risk-automation"]}}`
      );
      expect(top.map(siteProblemLine)).toEqual([
        expect.stringMatching(
          new RegExp(`^/x:1: ${member} is not a known key at the top level`)
        )
      ]);
      const nested = at(
        `{"modelSources": {"vendor-api-a": {"${member}": {"approvalModes": []}}}}`
      );
      expect(nested.map(p => p.key)).toEqual([
        `modelSources.vendor-api-a.${member}`
      ]);
      expect(at(`{"limits": {"${member}": 1}}`).map(p => p.key)).toEqual([
        `limits.${member}`
      ]);
      // JSON.parse made it an own key; nothing reached Object.prototype.
      expect(Object.prototype).not.toHaveProperty('approvalModes');
      expect(ajvValidate(JSON.parse(`{"${member}": {}}`))).toBe(false);
    }
  );

  test('a path that is not absolute', () => {
    expect(refusedByBoth({ secrets: { directory: 'run/secrets' } })[0]).toMatch(
      /secrets\.directory is not an absolute path\. Fix: .*starting with \//
    );
    expect(
      refusedByBoth({ storage: { approvedRoots: ['/ok', 'projects'] } })
    ).toEqual([
      expect.stringMatching(/storage\.approvedRoots\.1 is not an absolute path/)
    ]);
  });

  test('a URL with credentials, never echoed', () => {
    const [line] = refusedByBoth({
      modelSources: {
        'institution-ai-gateway': {
          address: 'https://alice:hunter2@ai.example.edu/v1'
        }
      }
    });
    expect(line).toMatch(/address holds credentials/);
    expect(line).not.toContain('hunter2');
    expect(
      refusedByBoth({
        endpoints: { managedIdentityUrl: 'http://u:p@169.254.169.254/' }
      })[0]
    ).toMatch(/managedIdentityUrl holds credentials/);
    expect(
      refusedByBoth({
        modelSources: {
          'compatible-service': { address: 'http://llm.example.edu/' }
        }
      })[0]
    ).toMatch(/address is not what it must be: An https:\/\/ address/);
  });

  test('an address is a scheme, host, port and path: a query or fragment is refused, never echoed', () => {
    for (const address of [
      'https://ai.example.edu/v1?api_key=sk-live-SECRET',
      'https://ai.example.edu/v1#sk-live-SECRET',
      'https://ai.example.edu?sk-live-SECRET'
    ]) {
      const [line] = refusedByBoth({
        modelSources: { 'institution-ai-gateway': { address } }
      });
      expect(line).toMatch(
        /address has a query or a fragment \(from \? or #\); an address is a scheme, host, port and path only/
      );
      expect(line).not.toContain('SECRET');
    }
    expect(
      check({
        modelSources: {
          'institution-ai-gateway': {
            address: 'https://ai.example.edu:8443/v1/chat'
          }
        }
      }).problems
    ).toEqual([]);
  });

  test.each([
    ['an escape', '\u001b[2J'],
    ['a C1 control', '\u009b2J'],
    ['a right-to-left override', '\u202e'],
    ['a left-to-right mark', '\u200e'],
    ['a first-strong isolate', '\u2068'],
    ['a line separator', '\u2028'],
    ['a paragraph separator', '\u2029']
  ])('a label or an address holding %s is refused', (_, character) => {
    for (const document of [
      { modelSources: { 'vendor-api-a': { label: `Open${character}AI` } } },
      {
        modelSources: {
          'institution-ai-gateway': {
            address: `https://ai.example.edu/v1${character}x`
          }
        }
      },
      { endpoints: { localRuntimeUrl: `http://127.0.0.1:11434/${character}` } }
    ]) {
      expect(refusedByBoth(document)[0]).toMatch(
        /holds a control character or an invisible one that reorders or breaks text/
      );
    }
  });

  test('a label with control characters, or longer than 80 characters', () => {
    expect(
      refusedByBoth({
        modelSources: { 'vendor-api-a': { label: 'Open\u001b[31mAI' } }
      })[0]
    ).toMatch(/label holds a control character/);
    expect(
      refusedByBoth({
        modelSources: { 'vendor-api-a': { label: 'Line\nbreak' } }
      })[0]
    ).toMatch(/label holds a control character/);
    expect(
      refusedByBoth({
        modelSources: { 'vendor-api-b': { label: 'x'.repeat(81) } }
      })[0]
    ).toMatch(/label is 81 characters, more than 80/);
    expect(
      check({ modelSources: { 'vendor-api-b': { label: 'é'.repeat(80) } } })
        .problems
    ).toEqual([]);
    expect(
      refusedByBoth({ modelSources: { 'vendor-api-b': { label: '' } } })[0]
    ).toMatch(/label is empty/);
  });

  test('a key twice in one object', () => {
    const text = '{\n  "platform": "generic",\n  "platform": "cluster"\n}';
    expect(
      checkSiteConfigText('/x', text).problems.map(siteProblemLine)
    ).toEqual([
      '/x:3: platform appears twice in the same object. Fix: Keep one of them: JSON readers disagree on which one counts.'
    ]);
  });
});

describe('the fixed rules, which no file can widen', () => {
  test('a source the selected platform lacks is refused, saying why and where the docs say so', () => {
    const text = JSON.stringify(
      {
        modelSources: {
          'vendor-api-a': { label: 'OpenAI API' },
          'service-managed': {}
        }
      },
      null,
      2
    );
    const file = checkSiteConfigText('/x/site.json', text)
      .file as SiteConfigFile;
    expect(matrixProblems(file, 'generic')).toEqual([]);
    expect(matrixProblems(file, 'hosted-notebook')).toEqual([]);
    const [problem] = matrixProblems(file, 'cluster');
    expect(problem).toMatchObject({
      key: 'modelSources.vendor-api-a',
      line: 3
    });
    expect(siteProblemLine(problem)).toMatch(
      /has no vendor-api-a source; each platform has a fixed set of model sources, and a file cannot add one \(docs\/site-configuration\.md, "What the file may not do"\).*Fix: Remove modelSources\.vendor-api-a; the cluster platform's sources are service-managed, institution-ai-gateway/
    );
  });

  test('Low-Risk Automation for a secret-backed route: refused, stating the review rule', () => {
    for (const key of ['approvalModes', 'lowRiskAutomation', 'secretBacked']) {
      const lines = refusedByBoth({
        modelSources: { 'vendor-api-a': { [key]: ['low-risk-automation'] } }
      });
      expect(lines[0]).toMatch(
        /is refused: a model source reached with a secret always has every action reviewed, at every site, and no file can change that \(docs\/site-configuration\.md/
      );
    }
    expect(refusedByBoth({ approvalModes: {} })[0]).toMatch(
      /every action reviewed/
    );
  });

  test("the boundary's sentences: refused, stating the boundary rule", () => {
    expect(refusedByBoth({ boundary: { excludes: '' } })[0]).toMatch(
      /^\/etc\/jupyter\/project-startup\.json:2: boundary is refused: the model credential boundary \(application-scrubbed\) and its sentences are the same at every site/
    );
    expect(
      refusedByBoth({
        modelSources: { 'vendor-api-b': { boundary: 'none' } }
      })[0]
    ).toMatch(/credential boundary/);
  });
});

describe('when the file itself may not be trusted', () => {
  const facts = {
    path: '/home/a/.jupyter/project-startup.json',
    viaSymlink: false,
    ownerUid: 1000,
    mode: 0o100644,
    processUid: 1000
  };

  test('a file readable by others that holds a secret; private, only the unknown key is left', () => {
    const document = { token: 'abcdefghijklmnop1234', policy: {} };
    const [problem] = fileTrustProblems(facts, document);
    expect(siteProblemLine(problem)).toMatch(
      /readable by others \(mode 0644\) and token looks like a secret\. Fix: Remove the secret/
    );
    expect(siteProblemLine(problem)).not.toContain('abcdefghijklmnop1234');
    expect(fileTrustProblems({ ...facts, mode: 0o100600 }, document)).toEqual(
      []
    );
    expect(
      fileTrustProblems(
        { ...facts, mode: 0o100640 },
        { limits: { apiKey: 'x' } }
      )
    ).toHaveLength(1);
    // Paths to secrets are not secrets.
    expect(
      fileTrustProblems(facts, {
        secrets: { directory: '/run/secrets', trustedProxySecretFile: '/run/s' }
      })
    ).toEqual([]);
  });
});

describe('who could have written a file the configuration names (core/operator-files.ts)', () => {
  const dir = (p: string, uid = 0, mode = 0o40755) => ({
    path: p,
    kind: 'directory' as const,
    uid,
    mode,
    readOnly: false
  });
  const file = (uid = 1000, mode = 0o100644) => ({
    path: '/srv/jupyter/project-startup.json',
    kind: 'file' as const,
    uid,
    mode,
    readOnly: false
  });
  const way = [dir('/'), dir('/srv'), dir('/srv/jupyter', 1000)];
  const problem = (entries: PathEntry[], secret = false) =>
    operatorFileProblem(entries, 1000, secret);

  test("root's and the service user's files in their own directories are believed", () => {
    expect(problem([...way, file()])).toBeUndefined();
    expect(problem([...way, file(0)])).toBeUndefined();
    expect(problem([...way, file(1000, 0o100600)], true)).toBeUndefined();
  });

  test("another user's file, or one under another user's directory or link: the owner and the chown", () => {
    expect(problem([...way, file(65534)])).toEqual({
      path: '/srv/jupyter/project-startup.json',
      message:
        'the file is owned by uid 65534, not by root or uid 1000 (the user the service runs as): that user could change what it says',
      fix: 'Run `chown root /srv/jupyter/project-startup.json` (or put the file where only root or uid 1000 can change it).'
    });
    expect(
      problem([dir('/'), dir('/srv', 65534), dir('/srv/jupyter'), file()])
        ?.message
    ).toMatch(/^the directory \/srv above it is owned by uid 65534/);
    expect(
      problem([
        ...way,
        {
          ...file(65534),
          path: '/srv/jupyter/l',
          kind: 'link',
          mode: 0o120777
        },
        file()
      ])?.message
    ).toMatch(
      /^the symbolic link \/srv\/jupyter\/l on the way to it is owned by uid 65534/
    );
  });

  test('a group or world write bit on the file or a directory: the mode and the chmod', () => {
    expect(problem([...way, file(1000, 0o100666)])).toEqual({
      path: '/srv/jupyter/project-startup.json',
      message:
        'the file can be written by group and others (mode 0666): another user could change or replace it',
      fix: 'Run `chmod go-w /srv/jupyter/project-startup.json`.'
    });
    expect(
      problem([dir('/'), dir('/srv', 0, 0o40775), dir('/srv/jupyter'), file()])
    ).toMatchObject({
      path: '/srv',
      message: expect.stringMatching(
        /^the directory \/srv above it can be written by its group \(mode 0775\)/
      ),
      fix: 'Run `chmod go-w /srv`.'
    });
  });

  test('a sticky directory (/tmp) and a read-only mount (a ConfigMap) are excepted', () => {
    expect(
      problem([dir('/'), dir('/tmp', 0, 0o41777), file()])
    ).toBeUndefined();
    const configMap = { ...dir('/etc/config', 0, 0o40777), readOnly: true };
    expect(problem([dir('/'), configMap, file(0)])).toBeUndefined();
    expect(
      problem([dir('/'), { ...configMap, readOnly: false }, file(0)])?.message
    ).toMatch(/can be written by group and others \(mode 0777\)/);
  });

  test('a secret must be readable by its owner only; without uids, ownership is not asked', () => {
    expect(problem([...way, file(1000, 0o100640)], true)).toEqual({
      path: '/srv/jupyter/project-startup.json',
      message:
        'the file can be read or written by group or others (mode 0640), and it holds a secret',
      fix: 'Run `chmod 600 /srv/jupyter/project-startup.json`, and replace the secret: others could read it.'
    });
    expect(
      operatorFileProblem([...way, file(65534)], undefined, false)
    ).toBeUndefined();
  });
});

describe('where the file is looked for', () => {
  test('user, then environment, then system, as `jupyter --paths` orders them', () => {
    expect(
      siteConfigCandidates({}, '/home/a').map(c => `${c.scope} ${c.path}`)
    ).toEqual([
      'user /home/a/.jupyter/project-startup.json',
      'system /usr/local/etc/jupyter/project-startup.json',
      'system /etc/jupyter/project-startup.json'
    ]);
    const env = {
      JUPYTER_CONFIG_DIR: '/cfg/user',
      JUPYTER_CONFIG_PATH: '/cfg/one:/cfg/two',
      PROJECT_STARTUP_PYTHON: '/opt/venv/bin/python3'
    };
    expect(
      siteConfigCandidates(env, '/home/a').map(c => `${c.scope} ${c.path}`)
    ).toEqual([
      'user /cfg/user/project-startup.json',
      'environment /cfg/one/project-startup.json',
      'environment /cfg/two/project-startup.json',
      'environment /opt/venv/etc/jupyter/project-startup.json',
      'system /usr/local/etc/jupyter/project-startup.json',
      'system /etc/jupyter/project-startup.json'
    ]);
    expect(siteConfigCandidates({ JUPYTER_NO_CONFIG: '1' }, '/home/a')).toEqual(
      []
    );
  });
});

describe('precedence: flag, then environment, then file, then default', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ps-site-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  function writeSite(document: unknown): string {
    const file = path.join(dir, 'site.json');
    fs.writeFileSync(file, JSON.stringify(document, null, 2), { mode: 0o600 });
    return file;
  }

  test('each value from the variable, else the file, else its default, with its origin', () => {
    const file = writeSite({
      limits: { probeTimeoutMs: 2500, requestTimeoutMs: 20000 },
      policy: { lowRiskAutomation: 'denied' },
      storage: { approvedRoots: ['/projects', '/scratch'] },
      modelSources: { 'vendor-api-a': { label: 'OpenAI API', arranged: true } }
    });
    const env = {
      HOME: dir,
      PROJECT_STARTUP_CONFIG: file,
      PROJECT_STARTUP_REQUEST_TIMEOUT_MS: '30000'
    };
    const config = resolveConfig({}, env, dir);
    expect(config.probeTimeoutMs).toBe(2500);
    expect(config.origins.PROJECT_STARTUP_PROBE_TIMEOUT_MS).toEqual({
      source: 'file',
      path: file,
      line: 3
    });
    expect(config.requestTimeoutMs).toBe(30000);
    expect(config.origins.PROJECT_STARTUP_REQUEST_TIMEOUT_MS).toEqual({
      source: 'env',
      name: 'PROJECT_STARTUP_REQUEST_TIMEOUT_MS'
    });
    expect(config.sessions.idleSeconds).toBe(7200);
    expect(config.origins.PROJECT_STARTUP_SESSION_IDLE_SECONDS).toEqual({
      source: 'default'
    });
    expect(config.lowRiskAutomation).toBe('denied');
    expect(config.approvedStorage).toEqual(['/projects', '/scratch']);
    expect(config.modelSources).toEqual({
      'vendor-api-a': { label: 'OpenAI API', arranged: true }
    });
    expect(config.siteConfigFile).toBe(file);
    // The flag names another file: it wins over the variable.
    const other = path.join(dir, 'other.json');
    fs.writeFileSync(other, '{"limits": {"probeTimeoutMs": 700}}', {
      mode: 0o600
    });
    const flagged = resolveConfig({ config: other }, env, dir);
    expect(flagged.probeTimeoutMs).toBe(700);
    expect(flagged.siteConfigFile).toBe(other);
  });

  test('without a file nothing changes: defaults and variables as before', () => {
    const config = resolveConfig(
      {},
      { HOME: dir, JUPYTER_CONFIG_DIR: dir },
      dir
    );
    expect(config.siteConfigFile).toBeUndefined();
    expect(config.modelSources).toEqual({});
    expect(config.probeTimeoutMs).toBe(1000);
  });

  test("every integer key's bounds are the variable's bounds (one rule in two places, held equal)", () => {
    const integers = Object.entries(SITE_FILE_KEYS).flatMap(
      ([variable, pointer]) => {
        const [section, key] = pointer.split('/').slice(1);
        const node =
          key === undefined
            ? undefined
            : SCHEMA.properties[section].properties[key];
        return node?.type === 'integer' ? [{ variable, node }] : [];
      }
    );
    expect(integers.length).toBeGreaterThanOrEqual(5);
    for (const { variable, node } of integers) {
      const env = (value: number) => ({
        HOME: dir,
        JUPYTER_CONFIG_DIR: dir,
        [variable]: String(value)
      });
      expect(() => resolveConfig({}, env(node.minimum), dir)).not.toThrow();
      expect(() => resolveConfig({}, env(node.maximum), dir)).not.toThrow();
      expect(() => resolveConfig({}, env(node.minimum - 1), dir)).toThrow(
        SettingError
      );
      expect(() => resolveConfig({}, env(node.maximum + 1), dir)).toThrow(
        SettingError
      );
    }
  });

  test("a value the schema lets through but the variable's parser refuses is the file's problem", () => {
    const file = writeSite({ limits: { initializeRateLimit: '0/60' } });
    let thrown: unknown;
    try {
      resolveConfig({}, { HOME: dir, PROJECT_STARTUP_CONFIG: file }, dir);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(SiteConfigError);
    expect((thrown as SiteConfigError).problems.map(siteProblemLine)).toEqual([
      `${file}:3: limits.initializeRateLimit must look like 30/60 (requests per seconds). Fix: Correct limits.initializeRateLimit, or remove it for the default.`
    ]);
  });

  test('a bad file refuses the whole configuration (nothing starts half configured)', () => {
    const file = writeSite({
      platform: 'cluster',
      modelSources: { 'vendor-api-b': { label: 'Anthropic API' } }
    });
    expect(() =>
      resolveConfig({}, { HOME: dir, PROJECT_STARTUP_CONFIG: file }, dir)
    ).toThrow(/has no vendor-api-b source/);
    // The variable's platform wins over the file's, and has that source.
    const config = resolveConfig(
      {},
      {
        HOME: dir,
        PROJECT_STARTUP_CONFIG: file,
        PROJECT_STARTUP_PLATFORM: 'generic'
      },
      dir
    );
    expect(config.platform).toBe('generic');
    expect(config.origins.PROJECT_STARTUP_PLATFORM).toEqual({
      source: 'env',
      name: 'PROJECT_STARTUP_PLATFORM'
    });
  });

  test('an explicit file must exist and be named by an absolute path', () => {
    const missing = loadSiteConfig(
      undefined,
      { PROJECT_STARTUP_CONFIG: path.join(dir, 'nope.json') },
      dir,
      dir
    );
    expect(missing.problems.map(siteProblemLine)).toEqual([
      expect.stringMatching(/nope\.json: the file does not exist\. Fix: /)
    ]);
    const relative = loadSiteConfig(
      undefined,
      { PROJECT_STARTUP_CONFIG: 'site.json' },
      dir,
      dir
    );
    expect(relative.problems[0].message).toMatch(
      /PROJECT_STARTUP_CONFIG is not an absolute path/
    );
  });
});
