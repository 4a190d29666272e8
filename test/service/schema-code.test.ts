// One source for each list and each request shape: the validators and lists
// the sidecar and the extension use are generated from sidecar/schemas and schema/plugin.json
// (scripts/schema-code.js), and no schema keeps a copy of a list that drifted from the source.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vocabulary from '../../sidecar/src/core/vocabulary';
import { PROBLEM_CODES } from '../../sidecar/src/core/problems';
import { SCHEDULERS } from '../../sidecar/src/core/generated/schema-lists';
import {
  validateGatewayRequest,
  validateInitializeRequest
} from '../../sidecar/src/core/generated/request-validators';
import { MAX_BATCH, GATEWAY_METHODS } from '../../sidecar/src/http/gateway';
import {
  CHECK_STATUSES,
  NOTIFICATION_KINDS,
  PHASES as EXTENSION_PHASES
} from '../../src/tokens';
import {
  DEFAULT_REFRESH_INTERVAL,
  MAX_REFRESH_INTERVAL,
  MIN_REFRESH_INTERVAL,
  refreshIntervalSeconds
} from '../../src/model';

const ROOT = path.resolve(__dirname, '..', '..');
const SCHEMA_DIR = path.join(ROOT, 'sidecar', 'schemas');

type Json = unknown;

function readJson(file: string): Json {
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}

/** Every enum of every schema: where it is and what it lists. */
function schemaEnums(): { at: string; values: unknown[] }[] {
  const found: { at: string; values: unknown[] }[] = [];
  const walk = (value: Json, at: string): void => {
    if (Array.isArray(value)) {
      value.forEach((v, i) => walk(v, `${at}/${i}`));
    } else if (value !== null && typeof value === 'object') {
      for (const [key, member] of Object.entries(value)) {
        if (key === 'enum' && Array.isArray(member)) {
          found.push({ at: `${at}/enum`, values: member });
        } else {
          walk(member, `${at}/${key}`);
        }
      }
    }
  };
  for (const name of fs.readdirSync(SCHEMA_DIR)) {
    if (name.endsWith('.schema.json')) {
      walk(readJson(path.join(SCHEMA_DIR, name)), `${name}#`);
    }
  }
  return found;
}

describe('generated code', () => {
  it('the committed validators and lists are what the schemas generate (node scripts/schema-code.js check)', () => {
    const r = spawnSync(
      process.execPath,
      [path.join(ROOT, 'scripts', 'schema-code.js'), 'check'],
      { cwd: ROOT, encoding: 'utf8', timeout: 60000 }
    );
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });
});

describe('the generated request validators count own members only', () => {
  const initialize = {
    interface: 'terminal',
    confirm: { projectPath: '/p', statePath: '/p/.project-startup' }
  };
  const gateway = { jsonrpc: '2.0', method: 'project.capabilities', id: 1 };

  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty'])(
    'a member named %s is an additional property, at the top and nested',
    member => {
      expect(validateInitializeRequest(initialize)).toBe(true);
      expect(validateGatewayRequest(gateway)).toBe(true);
      // From JSON text, as a body arrives: JSON.parse makes each an own member.
      const extra = (body: object, json: string) =>
        JSON.parse(`${JSON.stringify(body).slice(0, -1)},"${member}":${json}}`);
      for (const [validate, body] of [
        [validateInitializeRequest, extra(initialize, '{}')],
        [
          validateInitializeRequest,
          { ...initialize, confirm: extra(initialize.confirm, '"/x"') }
        ],
        [validateGatewayRequest, extra(gateway, '1')]
      ] as const) {
        expect(validate(body)).toBe(false);
        expect(validate.errors).toContainEqual(
          expect.objectContaining({
            keyword: 'additionalProperties',
            params: { additionalProperty: member }
          })
        );
      }
    }
  );

  it('a required member found only on the prototype is missing', () => {
    const inherited = Object.assign(
      Object.create({ confirm: initialize.confirm }),
      {
        interface: 'terminal'
      }
    );
    expect(validateInitializeRequest(inherited)).toBe(false);
    expect(validateInitializeRequest.errors).toContainEqual(
      expect.objectContaining({
        keyword: 'required',
        params: { missingProperty: 'confirm' }
      })
    );
  });
});

describe('one list, wherever a schema names it', () => {
  const lists: [string, readonly string[]][] = [
    ['platforms', vocabulary.PLATFORM_IDS],
    ['interfaces', vocabulary.INTERFACE_IDS],
    ['phases', vocabulary.PHASES],
    ['ingress modes', vocabulary.INGRESS_MODES],
    ['inference runtimes', vocabulary.INFERENCE_RUNTIMES],
    ['credential backends', vocabulary.CREDENTIAL_BACKENDS],
    ['approval modes', vocabulary.APPROVAL_MODES],
    ['schedulers', SCHEDULERS]
  ];

  // A `then` narrows a list on purpose (the browser interfaces of a setup-page record).
  it.each(lists)(
    'every schema enum holding two or more %s holds them all (conditional narrowings aside)',
    (_name, list) => {
      const partial = schemaEnums()
        .filter(e => !e.at.includes('/then/'))
        .filter(
          e => e.values.filter(v => list.includes(v as string)).length >= 2
        )
        .filter(e => !list.every(id => e.values.includes(id)))
        .map(e => e.at);
      expect(partial).toEqual([]);
    }
  );

  it('the extension lists the phases and check statuses of the schema', () => {
    const startup = readJson(path.join(SCHEMA_DIR, 'startup.schema.json')) as {
      $defs: {
        phase: { enum: string[] };
        readinessCheck: { properties: { status: { enum: string[] } } };
      };
    };
    expect([...EXTENSION_PHASES]).toEqual(startup.$defs.phase.enum);
    expect([...vocabulary.PHASES]).toEqual(startup.$defs.phase.enum);
    expect([...CHECK_STATUSES]).toEqual(
      startup.$defs.readinessCheck.properties.status.enum
    );
  });

  it('the problem codes are problem.schema.json codes, each with its status', () => {
    const problem = readJson(path.join(SCHEMA_DIR, 'problem.schema.json')) as {
      properties: { code: { enum: string[] } };
      allOf: {
        if: { properties: { code: { const: string } } };
        then: { properties: { status: { const: number } } };
      }[];
    };
    expect(Object.keys(PROBLEM_CODES).sort()).toEqual(
      [...problem.properties.code.enum].sort()
    );
    for (const rule of problem.allOf) {
      const code = rule.if.properties.code.const as keyof typeof PROBLEM_CODES;
      expect([code, PROBLEM_CODES[code].status]).toEqual([
        code,
        rule.then.properties.status.const
      ]);
    }
  });

  it('the gateway takes its methods and batch limit from gateway-request.schema.json', () => {
    const gateway = readJson(
      path.join(SCHEMA_DIR, 'gateway-request.schema.json')
    ) as {
      oneOf: [unknown, { maxItems: number }];
      $defs: { request: { properties: { method: { enum: string[] } } } };
    };
    expect([...GATEWAY_METHODS]).toEqual(
      gateway.$defs.request.properties.method.enum
    );
    expect(MAX_BATCH).toBe(gateway.oneOf[1].maxItems);
  });
});

describe('the settings schema is the one source of the extension’s settings lists', () => {
  const settings = readJson(path.join(ROOT, 'schema', 'plugin.json')) as {
    properties: {
      refreshInterval: { default: number; minimum: number; maximum: number };
      mutedNotifications: { items: { oneOf: { const: string }[] } };
    };
  };

  it('the notification kinds are mutedNotifications’ values, in order', () => {
    expect([...NOTIFICATION_KINDS]).toEqual(
      settings.properties.mutedNotifications.items.oneOf.map(k => k.const)
    );
  });

  it('the refresh interval’s default and bounds are refreshInterval’s, and the model keeps to them', () => {
    const refresh = settings.properties.refreshInterval;
    expect([
      DEFAULT_REFRESH_INTERVAL,
      MIN_REFRESH_INTERVAL,
      MAX_REFRESH_INTERVAL
    ]).toEqual([refresh.default, refresh.minimum, refresh.maximum]);
    expect(refreshIntervalSeconds(refresh.maximum)).toBe(refresh.maximum);
    expect(refreshIntervalSeconds(refresh.maximum + 1)).toBe(refresh.default);
    expect(refreshIntervalSeconds(refresh.minimum)).toBe(refresh.minimum);
    expect(refreshIntervalSeconds(refresh.minimum - 1)).toBe(refresh.default);
  });
});
