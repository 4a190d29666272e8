// schema/plugin.json is read by two validators: JupyterLab's front end (Ajv, JSON Schema draft
// 7, in SettingRegistry: test/unit/extension/live-plugin.test.ts) and the Jupyter server's settings
// API, which validates every save with jsonschema's Draft4Validator (jupyterlab_server's
// settings_utils.py, to this day). Draft 4 has no `const`: a `oneOf` of bare `const` choices
// matches every value there ("valid under each of"), so the server refused every save with
// 400 and "Don't show again" was lost. Each choice also says `pattern` (which draft 4 knows);
// this test holds both validators to the same verdicts, through Debian's real jsonschema.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { PYTHON } from '../../helpers/kernel';

const SCHEMA_FILE = path.join(
  __dirname,
  '..',
  '..',
  '..',
  'schema',
  'plugin.json'
);

interface IChoice {
  const: string;
  pattern: string;
  title: string;
}

const schema = JSON.parse(fs.readFileSync(SCHEMA_FILE, 'utf8')) as {
  properties: {
    mutedNotifications: { items: { type: string; oneOf: IChoice[] } };
  };
};

/** Draft4Validator's verdict on each of `settings`: its error messages ([] when valid). */
function draft4Errors(settings: unknown[]): string[][] {
  const script = [
    'import json, sys',
    'from jsonschema import Draft4Validator',
    'schema = json.load(open(sys.argv[1]))',
    'Draft4Validator.check_schema(schema)',
    'print(json.dumps([[e.message for e in Draft4Validator(schema).iter_errors(s)] for s in json.load(sys.stdin)]))'
  ].join('\n');
  const result = spawnSync(PYTHON, ['-c', script, SCHEMA_FILE], {
    input: JSON.stringify(settings),
    encoding: 'utf8',
    timeout: 30000
  });
  if (result.status !== 0) {
    throw new Error(
      `python3 jsonschema failed (${result.status}): ${result.stderr}`
    );
  }
  return JSON.parse(result.stdout) as string[][];
}

describe("schema/plugin.json under the Jupyter server's validator (jsonschema Draft4Validator)", () => {
  it('each muted kind is one choice: its const, the same value as a whole-string pattern, and a title', () => {
    const { items } = schema.properties.mutedNotifications;
    expect(items.type).toBe('string');
    for (const choice of items.oneOf) {
      expect(choice.pattern).toBe(`^${choice.const}$`);
      expect(choice.const).toMatch(/^[a-z-]+$/); // no regex metacharacters
      expect(choice.title.length).toBeGreaterThan(10);
    }
  });

  it('saves every known kind and refuses an unknown, mistyped or repeated one, as the front end does', () => {
    const kinds = schema.properties.mutedNotifications.items.oneOf.map(
      c => c.const
    );
    const valid = [
      {},
      { mutedNotifications: [] },
      { mutedNotifications: kinds },
      ...kinds.map(kind => ({ mutedNotifications: [kind] })),
      { refreshInterval: 0, openWhenAwaitingConfirmation: false }
    ];
    const invalid = [
      { mutedNotifications: ['no-such-kind'] },
      { mutedNotifications: ['not-enabled-too'] },
      { mutedNotifications: [3] },
      { mutedNotifications: ['failing', 'failing'] },
      { refreshInterval: 99999 }
    ];
    const verdicts = draft4Errors([...valid, ...invalid]);
    expect(verdicts.slice(0, valid.length)).toEqual(valid.map(() => []));
    for (const errors of verdicts.slice(valid.length)) {
      expect(errors.length).toBeGreaterThan(0);
    }
  });
});
