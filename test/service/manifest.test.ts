// The capability manifest, per platform, against an independent transcription of the capability
// matrix in service.md (ids from design.md). Platforms are selected from evidence: environment
// variables and marker files, as a real machine would show them.
import { expectValid } from '../helpers/schemas';
import {
  HttpResult,
  postJson,
  request,
  TestService,
  trackedServices
} from '../helpers/harness';

type PlatformId = 'generic' | 'hosted-notebook' | 'cluster';
type Row = {
  id: string;
  label: string;
  values: [string, string][];
  default?: string;
};

// ---------------------------------------------------------------------------------------------
// The oracle: service.md's matrix, row by row, in its order, with design.md's ids. Labels are
// the matrix's own wording (compared case-insensitively). Written by hand, not imported.
// ---------------------------------------------------------------------------------------------
const SIX_SOURCES: [string, string][] = [
  ['service-managed', 'service-managed'],
  ['institution-ai-gateway', 'institution AI gateway'],
  ['vendor-consumer-sign-in', 'consumer-account sign-in of a model vendor'],
  ['vendor-api-a', 'vendor API A'],
  ['vendor-api-b', 'vendor API B'],
  ['compatible-service', 'other compatible service']
];

/** One row of the matrix: its id, label, values as [id, label], and default when it has one. */
function row(
  id: string,
  label: string,
  values: [string, string][],
  defaultValue?: string
): Row {
  return defaultValue === undefined
    ? { id, label, values }
    : { id, label, values, default: defaultValue };
}

// Rows that read the same on more than one platform, once each.
const BOTH_RUNTIMES: Row = row(
  'inference-runtimes',
  'Service-managed inference runtimes',
  [
    ['local-lightweight', 'local lightweight runtime'],
    ['high-throughput-serving', 'high-throughput serving runtime']
  ]
);
const BOUNDARY: Row = row(
  'model-credential-boundary',
  'Model credential boundary',
  [['application-scrubbed', 'application-scrubbed']]
);
const BUILT_IN: Row = row(
  'built-in-connections',
  'Built-in institution-managed connection',
  [['institution-ai-gateway', 'institution AI gateway']]
);
const NO_BROWSER_ROUTE: Row = row('browser-route', 'Browser route', [
  ['unavailable', 'unavailable']
]);

const MATRIX: Record<PlatformId, Row[]> = {
  generic: [
    row('interfaces', 'Interfaces', [
      ['terminal', 'terminal'],
      ['web', 'browser'],
      ['notebook', 'notebook']
    ]),
    row('browser-route', 'Browser route', [
      ['direct-loopback', 'direct loopback']
    ]),
    row(
      'gateway-ingress-modes',
      'Gateway ingress modes',
      [
        ['direct-loopback', 'direct loopback'],
        ['notebook-server-proxy', 'notebook-server proxy'],
        ['trusted-proxy', 'trusted proxy']
      ],
      'direct-loopback'
    ),
    BOTH_RUNTIMES,
    row('compute-model', 'Compute model', [['current-host', 'current host']]),
    row('durable-storage', 'Durable storage', [
      ['project-directory', 'the project directory']
    ]),
    row('credential-backends', 'Credential backends', [
      ['process', 'process'],
      ['system-keyring', 'system keyring'],
      ['mounted-file', 'mounted file']
    ]),
    BOUNDARY,
    row('model-sources', 'Model sources', SIX_SOURCES),
    BUILT_IN
  ],
  'hosted-notebook': [
    row('interfaces', 'Interfaces', [
      ['terminal', 'terminal'],
      ['notebook', 'notebook']
    ]),
    NO_BROWSER_ROUTE,
    row(
      'gateway-ingress-modes',
      'Gateway ingress modes',
      [
        ['notebook-server-proxy', 'notebook-server proxy'],
        ['direct-loopback', 'direct loopback'],
        ['trusted-proxy', 'trusted proxy']
      ],
      'notebook-server-proxy'
    ),
    BOTH_RUNTIMES,
    row('compute-model', 'Compute model', [
      ['hosted-provisioned', 'provisioned compute of the hosted platform']
    ]),
    row('durable-storage', 'Durable storage', [
      [
        'home-directory',
        "a dedicated directory below the notebook user's home directory"
      ]
    ]),
    row('credential-backends', 'Credential backends', [
      ['process', 'process'],
      ['mounted-file', 'mounted file'],
      ['managed-identity', 'managed identity']
    ]),
    BOUNDARY,
    row('model-sources', 'Model sources', SIX_SOURCES),
    BUILT_IN
  ],
  cluster: [
    row('interfaces', 'Interfaces', [['terminal', 'terminal']]),
    NO_BROWSER_ROUTE,
    row(
      'gateway-ingress-modes',
      'Gateway ingress modes',
      [
        ['direct-loopback', 'direct loopback'],
        ['trusted-proxy', 'trusted proxy']
      ],
      'direct-loopback'
    ),
    row('inference-runtimes', 'Service-managed inference runtimes', [
      ['high-throughput-serving', 'high-throughput serving runtime']
    ]),
    row('compute-model', 'Compute model', [
      ['batch-allocation', 'batch-scheduler allocation']
    ]),
    row('durable-storage', 'Durable storage', [
      ['approved-project-storage', 'approved project storage']
    ]),
    row('credential-backends', 'Credential backends', [
      ['process', 'process'],
      ['mounted-file', 'mounted file']
    ]),
    BOUNDARY,
    row('model-sources', 'Model sources', [
      ['service-managed', 'service-managed'],
      ['institution-ai-gateway', 'institution AI gateway']
    ]),
    BUILT_IN
  ]
};

/** design.md: platform policy for low-risk automation defaults. */
const DEFAULT_POLICY: Record<PlatformId, 'permitted' | 'denied'> = {
  generic: 'permitted',
  'hosted-notebook': 'denied',
  cluster: 'denied'
};

// Distinctive values planted in the environment; none may ever appear in a manifest.
const HUB_URL = 'http://hub-distinct-q7x3.example.invalid:8081/hub/api';
const HUB_USER = 'zq-distinct-user-5k9w';
const JOB_ID = '73519842';
const SLURM_CONF_PATH = '/opt/distinct-slurm-r2d8/slurm.conf';
const PLANTED = [
  HUB_URL,
  'hub-distinct-q7x3',
  HUB_USER,
  JOB_ID,
  SLURM_CONF_PATH,
  'distinct-slurm-r2d8'
];

const HUB_ENV = { JUPYTERHUB_API_URL: HUB_URL, JUPYTERHUB_USER: HUB_USER };

interface Signal {
  name: string;
  kind: 'env' | 'file' | 'setting';
  platform: PlatformId;
}

interface Case {
  name: string;
  platform: PlatformId;
  env: Record<string, string>;
  files: string[];
  decidedBy: string;
  signals: Signal[];
}

const CASES: Case[] = [
  {
    name: 'generic from no evidence',
    platform: 'generic',
    env: {},
    files: [],
    decidedBy: 'default',
    signals: []
  },
  {
    name: 'hosted-notebook from JUPYTERHUB_API_URL + JUPYTERHUB_USER',
    platform: 'hosted-notebook',
    env: HUB_ENV,
    files: [],
    decidedBy: 'hosted-notebook-spawner',
    signals: [
      { name: 'JUPYTERHUB_API_URL', kind: 'env', platform: 'hosted-notebook' },
      { name: 'JUPYTERHUB_USER', kind: 'env', platform: 'hosted-notebook' }
    ]
  },
  // One variable of the batch scheduler each.
  ...[
    ['SLURM_JOB_ID', JOB_ID],
    ['SLURM_CONF', SLURM_CONF_PATH]
  ].map(([variable, value]): Case => ({
    name: `cluster from ${variable}`,
    platform: 'cluster',
    env: { [variable]: value },
    files: [],
    decidedBy: 'batch-scheduler',
    signals: [{ name: variable, kind: 'env', platform: 'cluster' }]
  })),
  {
    name: 'cluster from the /etc/slurm/slurm.conf marker file',
    platform: 'cluster',
    env: {},
    files: ['/etc/slurm/slurm.conf'],
    decidedBy: 'batch-scheduler',
    signals: [
      { name: '/etc/slurm/slurm.conf', kind: 'file', platform: 'cluster' }
    ]
  }
];

const byName = (a: { name: string }, b: { name: string }) =>
  a.name.localeCompare(b.name);

async function getCapabilities(
  svc: TestService,
  headers: Record<string, string> = {}
): Promise<HttpResult> {
  return request(`${svc.api}capabilities`, { token: svc.token, headers });
}

async function rpc(svc: TestService, body: unknown): Promise<HttpResult> {
  return postJson(`${svc.api}gateway`, svc.token, body);
}

/** Compares the served capabilities with one platform's matrix, value by value, in order. */
function expectMatrix(capabilities: unknown, platform: PlatformId): void {
  const rows = MATRIX[platform];
  const served = capabilities as {
    id: string;
    label: string;
    values: { id: string; label: string }[];
    default?: string;
  }[];
  expect(served.map(c => c.id)).toEqual(rows.map(r => r.id));
  rows.forEach((row, i) => {
    const cap = served[i];
    expect({ row: row.id, label: cap.label.toLowerCase() }).toEqual({
      row: row.id,
      label: row.label.toLowerCase()
    });
    expect({ row: row.id, ids: cap.values.map(v => v.id) }).toEqual({
      row: row.id,
      ids: row.values.map(v => v[0])
    });
    expect({
      row: row.id,
      labels: cap.values.map(v => v.label.toLowerCase())
    }).toEqual({
      row: row.id,
      labels: row.values.map(v => v[1].toLowerCase())
    });
    if (row.default !== undefined) {
      expect({ row: row.id, default: cap.default }).toEqual({
        row: row.id,
        default: row.default
      });
    } else {
      expect({ row: row.id, default: cap.default }).toEqual({
        row: row.id,
        default: undefined
      });
    }
  });
}

describe.each(CASES)('manifest: $name', c => {
  const start = trackedServices('all');
  let svc: TestService;
  let caps: HttpResult;

  beforeAll(async () => {
    svc = await start({ env: c.env, files: c.files });
    caps = await getCapabilities(svc);
  });

  it('GET capabilities returns the capability matrix of service.md, value by value, in order', () => {
    expect(caps.status).toBe(200);
    expect(caps.headers['content-type']).toMatch(/^application\/json/);
    expectValid('Manifest', caps.json);
    expect(caps.json.platform.id).toBe(c.platform);
    expect(typeof caps.json.platform.label).toBe('string');
    expect(caps.json.schemaVersion).toMatch(/^\d+\.\d+\.\d+/);
    expectMatrix(caps.json.capabilities, c.platform);
  });

  it('gateway-ingress-modes carries the platform default, which is one of its values', () => {
    const row = caps.json.capabilities.find(
      (r: { id: string }) => r.id === 'gateway-ingress-modes'
    );
    const expected = MATRIX[c.platform].find(
      r => r.id === 'gateway-ingress-modes'
    )?.default;
    expect(row.default).toBe(expected);
    expect(row.values.map((v: { id: string }) => v.id)).toContain(row.default);
  });

  it('model sources: secret-backed ones allow review-every-action only; service-managed follows the policy default', () => {
    const policy = DEFAULT_POLICY[c.platform];
    expect(caps.json.policy).toEqual({ lowRiskAutomation: policy });
    const row = caps.json.capabilities.find(
      (r: { id: string }) => r.id === 'model-sources'
    );
    for (const value of row.values) {
      if (value.id === 'service-managed') {
        expect(value.secretBacked).toBe(false);
        expect(value.approvalModes).toEqual(
          policy === 'permitted'
            ? ['review-every-action', 'low-risk-automation']
            : ['review-every-action']
        );
      } else {
        expect({ id: value.id, secretBacked: value.secretBacked }).toEqual({
          id: value.id,
          secretBacked: true
        });
        expect({ id: value.id, approvalModes: value.approvalModes }).toEqual({
          id: value.id,
          approvalModes: ['review-every-action']
        });
      }
    }
  });

  it('model-credential-boundary states what it excludes and what it does not isolate', () => {
    const row = caps.json.capabilities.find(
      (r: { id: string }) => r.id === 'model-credential-boundary'
    );
    expect(row.values).toHaveLength(1);
    const value = row.values[0];
    expect(value.id).toBe('application-scrubbed');
    // Excluded: provider credentials, from supported tools and from persisted or interface state.
    expect(value.excludes).toMatch(/credential/i);
    expect(value.excludes).toMatch(/tool/i);
    expect(value.excludes).toMatch(/persist/i);
    expect(value.excludes).toMatch(/interface/i);
    // Not isolated: an in-process agent tool from the model client.
    expect(value.doesNotIsolate).toMatch(/not isolate/i);
    expect(value.doesNotIsolate).toMatch(/in-process/i);
    expect(value.doesNotIsolate).toMatch(/model client/i);
  });

  it('evidence reports the signals seen, the deciding rule and nothing overruled', () => {
    const evidence = caps.json.platform.evidence;
    expect(evidence.decidedBy).toBe(c.decidedBy);
    expect([...evidence.signals].sort(byName)).toEqual(
      [...c.signals].sort(byName)
    );
    expect(evidence.overruled).toEqual([]);
    expect(evidence.host).toBe('workstation');
  });

  it('never carries the value of an environment variable', () => {
    for (const planted of PLANTED) {
      expect({ planted, found: caps.text.includes(planted) }).toEqual({
        planted,
        found: false
      });
    }
  });

  it('is served with a strong ETag; If-None-Match gives 304 with no body, another tag gives 200', async () => {
    const etag = caps.headers.etag as string;
    expect(etag).toMatch(/^"[^"]+"$/);
    expect(etag.startsWith('W/')).toBe(false);

    const same = await getCapabilities(svc, { 'if-none-match': etag });
    expect(same.status).toBe(304);
    expect(same.text).toBe('');
    expect(same.headers.etag).toBe(etag);

    // If-None-Match uses the weak comparison (RFC 9110 13.1.2), and takes lists.
    const weak = await getCapabilities(svc, { 'if-none-match': `W/${etag}` });
    expect(weak.status).toBe(304);
    expect(weak.text).toBe('');
    const list = await getCapabilities(svc, {
      'if-none-match': `"something-else", ${etag}`
    });
    expect(list.status).toBe(304);

    const other = await getCapabilities(svc, {
      'if-none-match': '"not-the-manifest-tag"'
    });
    expect(other.status).toBe(200);
    expect(other.text).toBe(caps.text);
    expect(other.headers.etag).toBe(etag);
    expectValid('Manifest', other.json);

    // The tag is stable: the same manifest gets the same tag on every request.
    const again = await getCapabilities(svc);
    expect(again.headers.etag).toBe(etag);
    expect(again.text).toBe(caps.text);
  });

  it('is the same manifest in GET startup for every interface (deep- and byte-equal)', async () => {
    for (const iface of ['terminal', 'web', 'notebook']) {
      const r = await request(`${svc.api}startup?interface=${iface}`, {
        token: svc.token
      });
      expect(r.status).toBe(200);
      expectValid('StartupProjection', r.json);
      expect(r.json.manifest).toEqual(caps.json);
      expect(JSON.stringify(r.json.manifest)).toBe(caps.text);
    }
  });

  it('is the same manifest through the gateway methods project.capabilities and project.startup', async () => {
    const r = await rpc(svc, [
      { jsonrpc: '2.0', id: 1, method: 'project.capabilities' },
      {
        jsonrpc: '2.0',
        id: 2,
        method: 'project.startup',
        params: { interface: 'terminal' }
      },
      {
        jsonrpc: '2.0',
        id: 3,
        method: 'project.startup',
        params: { interface: 'web' }
      },
      {
        jsonrpc: '2.0',
        id: 4,
        method: 'project.startup',
        params: { interface: 'notebook' }
      }
    ]);
    expect(r.status).toBe(200);
    expectValid('GatewayResponse', r.json);
    expect(r.json.map((x: { id: number }) => x.id)).toEqual([1, 2, 3, 4]);
    const [capsRpc, ...startups] = r.json;
    expectValid('Manifest', capsRpc.result);
    expect(capsRpc.result).toEqual(caps.json);
    expect(JSON.stringify(capsRpc.result)).toBe(caps.text);
    for (const s of startups) {
      expectValid('StartupProjection', s.result);
      expect(s.result.manifest).toEqual(caps.json);
      expect(JSON.stringify(s.result.manifest)).toBe(caps.text);
    }
  });
});

describe('manifest: conflicting evidence and operator settings', () => {
  const startService = trackedServices('all');
  async function start(
    env: Record<string, string>,
    files: string[] = []
  ): Promise<{ svc: TestService; caps: HttpResult }> {
    const svc = await startService({ env, files });
    const caps = await getCapabilities(svc);
    expect(caps.status).toBe(200);
    expectValid('Manifest', caps.json);
    return { svc, caps };
  }

  it('SLURM_JOB_ID with the JupyterHub variables selects cluster and reports the hub signals as overruled', async () => {
    const { caps } = await start({ SLURM_JOB_ID: JOB_ID, ...HUB_ENV });
    const evidence = caps.json.platform.evidence;
    expect(caps.json.platform.id).toBe('cluster');
    expect(evidence.decidedBy).toBe('batch-scheduler');
    expect([...evidence.signals].sort(byName)).toEqual(
      [
        { name: 'SLURM_JOB_ID', kind: 'env', platform: 'cluster' },
        {
          name: 'JUPYTERHUB_API_URL',
          kind: 'env',
          platform: 'hosted-notebook'
        },
        { name: 'JUPYTERHUB_USER', kind: 'env', platform: 'hosted-notebook' }
      ].sort(byName)
    );
    expect([...evidence.overruled].sort(byName)).toEqual(
      [
        {
          name: 'JUPYTERHUB_API_URL',
          kind: 'env',
          platform: 'hosted-notebook'
        },
        { name: 'JUPYTERHUB_USER', kind: 'env', platform: 'hosted-notebook' }
      ].sort(byName)
    );
    expectMatrix(caps.json.capabilities, 'cluster');
    for (const planted of PLANTED) {
      expect({ planted, found: caps.text.includes(planted) }).toEqual({
        planted,
        found: false
      });
    }
  });

  it('the operator setting PROJECT_STARTUP_PLATFORM=generic wins over Slurm evidence, which is reported as overruled', async () => {
    const { caps } = await start(
      {
        PROJECT_STARTUP_PLATFORM: 'generic',
        SLURM_JOB_ID: JOB_ID,
        SLURM_CONF: SLURM_CONF_PATH
      },
      ['/etc/slurm/slurm.conf']
    );
    const evidence = caps.json.platform.evidence;
    expect(caps.json.platform.id).toBe('generic');
    expect(evidence.decidedBy).toBe('operator-setting');
    const slurm: Signal[] = [
      { name: 'SLURM_JOB_ID', kind: 'env', platform: 'cluster' },
      { name: 'SLURM_CONF', kind: 'env', platform: 'cluster' },
      { name: '/etc/slurm/slurm.conf', kind: 'file', platform: 'cluster' }
    ];
    expect([...evidence.signals].sort(byName)).toEqual(
      [
        ...slurm,
        {
          name: 'PROJECT_STARTUP_PLATFORM',
          kind: 'setting',
          platform: 'generic'
        }
      ].sort(byName)
    );
    expect([...evidence.overruled].sort(byName)).toEqual(
      [...slurm].sort(byName)
    );
    expectMatrix(caps.json.capabilities, 'generic');
    expect(caps.json.policy.lowRiskAutomation).toBe('permitted');
    for (const planted of PLANTED) {
      expect({ planted, found: caps.text.includes(planted) }).toEqual({
        planted,
        found: false
      });
    }
  });

  it('JUPYTERHUB_USER alone is not hosted-notebook evidence (the rule needs both variables)', async () => {
    const { caps } = await start({ JUPYTERHUB_USER: HUB_USER });
    expect(caps.json.platform.id).toBe('generic');
    expect(caps.json.platform.evidence.decidedBy).toBe('default');
    expect(caps.text.includes(HUB_USER)).toBe(false);
  });

  it('a container marker keeps generic and says "container" in the evidence', async () => {
    const { caps } = await start({}, ['/.dockerenv']);
    expect(caps.json.platform.id).toBe('generic');
    expect(caps.json.platform.evidence.decidedBy).toBe('default');
    expect(caps.json.platform.evidence.host).toBe('container');
    expect(caps.json.platform.evidence.overruled).toEqual([]);
    expectMatrix(caps.json.capabilities, 'generic');
  });

  // The platform default flipped by the setting: permitted where the default denies, denied
  // where it permits.
  it.each([
    ['permitted', 'hosted-notebook', HUB_ENV],
    ['permitted', 'cluster', { SLURM_JOB_ID: JOB_ID }],
    ['denied', 'generic', {}]
  ] as ['permitted' | 'denied', PlatformId, Record<string, string>][])(
    'PROJECT_STARTUP_LOW_RISK_AUTOMATION=%s on %s: service-managed has low-risk-automation exactly when permitted',
    async (policy, platform, env) => {
      const { caps } = await start({
        ...env,
        PROJECT_STARTUP_LOW_RISK_AUTOMATION: policy
      });
      expect(caps.json.platform.id).toBe(platform);
      expect(caps.json.policy).toEqual({ lowRiskAutomation: policy });
      const sources = caps.json.capabilities.find(
        (r: { id: string }) => r.id === 'model-sources'
      ).values;
      for (const v of sources) {
        expect({ id: v.id, modes: v.approvalModes }).toEqual({
          id: v.id,
          modes:
            v.id === 'service-managed' && policy === 'permitted'
              ? ['review-every-action', 'low-risk-automation']
              : ['review-every-action']
        });
      }
      expectMatrix(caps.json.capabilities, platform);
    }
  );

  it('the same evidence gives the same manifest and the same ETag (deterministic selection)', async () => {
    const env = { SLURM_JOB_ID: JOB_ID, ...HUB_ENV };
    const a = await start(env);
    const b = await start(env);
    expect(b.caps.text).toBe(a.caps.text);
    expect(b.caps.headers.etag).toBe(a.caps.headers.etag);
  });
});
