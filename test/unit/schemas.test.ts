// The JSON Schemas in sidecar/schemas describe what the service really sends and accepts:
// everything the code builds validates, and the mistakes a client or a regression would make
// are refused. The OpenAPI document embeds exactly these files.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { resolveConfig } from '../../sidecar/src/config/config';
import { handleRpc, RpcContext } from '../../sidecar/src/http/gateway';
import {
  buildOpenApi,
  defComponentName,
  loadSchema,
  SCHEMA_DIR,
  SCHEMA_FILES,
  SchemaName,
  schemaComponents
} from '../../sidecar/src/http/openapi';
import { buildManifest, Manifest } from '../../sidecar/src/core/manifest';
import { PLATFORM_ADAPTERS } from '../../sidecar/src/core/platforms';
import {
  PlatformEvidence,
  selectPlatform
} from '../../sidecar/src/core/platforms/rules';
import type {
  AllocationObservation,
  ComputeStatus,
  PlatformAdapter
} from '../../sidecar/src/core/platforms/types';
import {
  PROBLEM_CODES,
  ProblemCode,
  ProblemError
} from '../../sidecar/src/core/problems';
import {
  buildProjection,
  ProjectionInputs
} from '../../sidecar/src/core/projection';
import {
  StartupService,
  StartupResult
} from '../../sidecar/src/service/service';
import { parseInitializeRequest } from '../../sidecar/src/core/requests';
import type {
  InitializationRecord,
  StateInspection
} from '../../sidecar/src/core/observations';
import {
  INTERFACE_IDS,
  InterfaceId,
  LowRiskAutomationPolicy,
  PHASES,
  Phase,
  PLATFORM_IDS,
  PlatformId
} from '../../sidecar/src/core/vocabulary';
import { expectValid, SCHEMA_NAMES, validateAgainst } from '../helpers/schemas';

/** What a client receives: the value after a trip through JSON (undefined members vanish). */
function wire<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/**
 * A deep copy to break on purpose. Loosely typed: the values' types are generated from these
 * very schemas, so what the tests build to be refused is exactly what the types forbid.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
function clone(value: unknown): any {
  return structuredClone(value);
}

function expectInvalid(name: SchemaName, value: unknown, why: string): void {
  const errors = validateAgainst(name, value);
  if (errors.length === 0) {
    throw new Error(
      `${SCHEMA_FILES[name]} accepted a value it must refuse: ${why}`
    );
  }
}

// ------------------------------------------------------------------------ synthetic evidence

/** Evidence sets that select each platform, with and without competing signals. */
const EVIDENCE: Record<
  PlatformId,
  { name: string; evidence: PlatformEvidence }[]
> = {
  generic: [
    { name: 'workstation, no signals', evidence: { present: new Set() } },
    {
      name: 'docker container',
      evidence: { present: new Set(['/.dockerenv', 'KUBERNETES_SERVICE_HOST']) }
    },
    {
      name: 'only half of the spawner variables',
      evidence: { present: new Set(['JUPYTERHUB_USER']) }
    },
    {
      name: 'operator setting overruling a spawner',
      evidence: {
        present: new Set(['JUPYTERHUB_API_URL', 'JUPYTERHUB_USER']),
        operatorSetting: 'generic'
      }
    }
  ],
  'hosted-notebook': [
    {
      name: 'JupyterHub spawner',
      evidence: { present: new Set(['JUPYTERHUB_API_URL', 'JUPYTERHUB_USER']) }
    },
    {
      name: 'operator setting',
      evidence: {
        present: new Set(['/run/.containerenv']),
        operatorSetting: 'hosted-notebook'
      }
    }
  ],
  cluster: [
    {
      name: 'Slurm allocation',
      evidence: { present: new Set(['SLURM_JOB_ID']) }
    },
    {
      name: 'login node with slurm.conf',
      evidence: { present: new Set(['/etc/slurm/slurm.conf', 'SLURM_CONF']) }
    },
    {
      name: 'allocation inside a JupyterHub spawn (cluster wins, hub overruled)',
      evidence: {
        present: new Set([
          'PBS_JOBID',
          'JUPYTERHUB_API_URL',
          'JUPYTERHUB_USER',
          'APPTAINER_CONTAINER'
        ])
      }
    },
    {
      name: 'operator setting',
      evidence: { present: new Set(), operatorSetting: 'cluster' }
    }
  ]
};

const ADAPTERS = Object.values(PLATFORM_ADAPTERS);
const POLICIES: LowRiskAutomationPolicy[] = ['permitted', 'denied'];

function manifestFor(
  adapter: PlatformAdapter,
  policy: LowRiskAutomationPolicy = adapter.defaultLowRiskAutomation
): Manifest {
  const decision = selectPlatform(EVIDENCE[adapter.id][0].evidence);
  return wire(buildManifest(adapter, decision, policy));
}

function capabilityIndex(manifest: Manifest, id: string): number {
  const index = manifest.capabilities.findIndex(c => c.id === id);
  expect(index).toBeGreaterThanOrEqual(0);
  return index;
}

// ------------------------------------------------------------------------ projections

const PROJECT = '/srv/projects/alpha';
const APPROVED = ['/srv/projects'];
const BROWSER_URL = 'http://127.0.0.1:8123/project/';

function sampleRecord(
  adapter: PlatformAdapter,
  statePath: string
): InitializationRecord {
  const terminalOnly = !adapter.interfaces.some(i => i !== 'terminal');
  return {
    schemaVersion: '1.0.0',
    kind: 'project-startup-state',
    projectPath: PROJECT,
    statePath,
    platform: adapter.id,
    confirmation: terminalOnly
      ? {
          interface: 'terminal',
          method: 'terminal-prompt',
          ingress: 'command-line',
          confirmedAt: '2025-05-01T09:30:00.000Z'
        }
      : {
          interface: 'notebook',
          method: 'jupyterlab-dialog',
          ingress: 'notebook-server-proxy',
          confirmedAt: '2025-05-01T09:30:00.000Z'
        },
    service: { version: '0.1.0' }
  };
}

type StateKind = StateInspection['kind'];

function stateOf(
  kind: StateKind,
  adapter: PlatformAdapter,
  statePath: string
): StateInspection {
  switch (kind) {
    case 'absent':
      return { kind, detail: 'No project state yet.' };
    case 'initialized':
      return {
        kind,
        record: sampleRecord(adapter, statePath),
        detail: 'Initialized 2025-05-01T09:30:00.000Z.'
      };
    case 'unsafe':
      return {
        kind,
        detail: `${statePath} is a symbolic link.`,
        remedy: `Inspect ${statePath} and move it aside (the service never changes it for you); then check again.`
      };
  }
}

/** Compute observations per adapter: satisfied ones, and unsatisfied ones where the platform has any. */
function computeCases(
  adapter: PlatformAdapter
): { name: string; compute: ComputeStatus }[] {
  if (adapter.computeModel !== 'batch-allocation') {
    return [
      {
        name: `${adapter.computeModel} compute`,
        compute: adapter.assessCompute(undefined)
      }
    ];
  }
  const allocations: {
    name: string;
    allocation: AllocationObservation | undefined;
  }[] = [
    { name: 'no allocation (login node)', allocation: undefined },
    {
      name: 'live allocation',
      allocation: {
        scheduler: 'slurm',
        jobId: '4242',
        live: true,
        state: 'RUNNING',
        detail: 'Slurm says job 4242 is RUNNING'
      }
    },
    {
      name: 'allocation, no scheduler client',
      allocation: {
        scheduler: 'pbs',
        jobId: '17.pbs',
        live: null,
        detail: 'qstat is not installed here'
      }
    },
    {
      name: 'finished allocation',
      allocation: {
        scheduler: 'lsf',
        jobId: '99',
        live: false,
        state: 'DONE',
        detail: 'LSF says job 99 is DONE'
      }
    },
    {
      name: 'unknown flux job',
      allocation: {
        scheduler: 'flux',
        jobId: 'f2abc',
        live: false,
        detail: 'flux does not know the job'
      }
    }
  ];
  const seen = new Map<string, { name: string; compute: ComputeStatus }>();
  for (const { name, allocation } of allocations) {
    const compute = adapter.assessCompute(allocation);
    const key = JSON.stringify(compute);
    if (!seen.has(key)) {
      seen.set(key, { name, compute });
    }
  }
  return [...seen.values()];
}

function inputsFor(
  adapter: PlatformAdapter,
  iface: InterfaceId,
  stateKind: StateKind,
  compute: ComputeStatus,
  options: { approvedStorage?: readonly string[]; verifiedUrl?: boolean } = {}
): ProjectionInputs {
  const placement = adapter.placeState(PROJECT, '/home/alice');
  const evidence = EVIDENCE[adapter.id][0].evidence;
  return {
    adapter,
    decision: selectPlatform(evidence),
    iface,
    baseUrl: '/',
    projectPath: PROJECT,
    statePath: placement.statePath,
    creates:
      stateKind === 'absent'
        ? [...placement.parentsToCreate, placement.statePath]
        : [],
    project: { ok: true, observed: 'is a writable directory' },
    state: stateOf(stateKind, adapter, placement.statePath),
    approvedStorage: options.approvedStorage ?? APPROVED,
    compute,
    ingress: {
      mode: adapter.defaultIngress,
      listening: 'http://127.0.0.1:8123',
      offered: true
    },
    browserUrl:
      options.verifiedUrl === false || adapter.browserRoute === 'unavailable'
        ? undefined
        : BROWSER_URL,
    credentials: adapter.credentialBackends.map((backend, i) => ({
      backend,
      available: i === 0,
      configured: i === 0,
      observed:
        i === 0
          ? '1 credential variable(s) present: VENDOR_API_KEY'
          : 'not configured'
    })),
    runtimes: adapter.inferenceRuntimes.map((id, i) => ({
      id,
      url: `http://127.0.0.1:${11434 + i}/`,
      reachable: i === 0,
      configured: i === 0,
      observed: i === 0 ? 'answered HTTP 200' : 'not reachable'
    }))
  };
}

interface ProjectionCase {
  name: string;
  result: StartupResult;
}

function projectionCases(): ProjectionCase[] {
  const cases: ProjectionCase[] = [];
  for (const adapter of ADAPTERS) {
    const manifest = buildManifest(
      adapter,
      selectPlatform(EVIDENCE[adapter.id][0].evidence),
      adapter.defaultLowRiskAutomation
    );
    for (const iface of INTERFACE_IDS) {
      for (const stateKind of ['absent', 'initialized', 'unsafe'] as const) {
        for (const { name: computeName, compute } of computeCases(adapter)) {
          const projection = buildProjection(
            inputsFor(adapter, iface, stateKind, compute)
          );
          cases.push({
            name: `${adapter.id} / ${iface} / ${stateKind} / ${computeName}`,
            result: wire({ ...projection, manifest })
          });
        }
      }
    }
    // Outside approved storage (cluster blocks), and a web URL that could not be verified.
    const compute = computeCases(adapter)[0].compute;
    cases.push({
      name: `${adapter.id} / terminal / outside approved storage`,
      result: wire({
        ...buildProjection(
          inputsFor(adapter, 'terminal', 'absent', compute, {
            approvedStorage: ['/elsewhere']
          })
        ),
        manifest
      })
    });
    cases.push({
      name: `${adapter.id} / web / unverified browser URL`,
      result: wire({
        ...buildProjection(
          inputsFor(adapter, 'web', 'absent', compute, { verifiedUrl: false })
        ),
        manifest
      })
    });
  }
  return cases;
}

const PROJECTIONS = projectionCases();

function projection(predicate: (r: StartupResult) => boolean): StartupResult {
  const found = PROJECTIONS.find(c => predicate(c.result));
  if (found === undefined) {
    throw new Error('no projection case matches');
  }
  return clone(found.result);
}

// ========================================================================= the files

describe('schema files', () => {
  test.each(SCHEMA_NAMES)(
    '%s is a draft 2020-12 schema with a urn $id, a title and a description',
    name => {
      const schema = loadSchema(name);
      const base = SCHEMA_FILES[name].replace(/\.schema\.json$/, '');
      expect(schema.$schema).toBe(
        'https://json-schema.org/draft/2020-12/schema'
      );
      expect(schema.$id).toBe(`urn:jupyterlab-project-startup:schema:${base}`);
      expect(typeof schema.title).toBe('string');
      expect(typeof schema.description).toBe('string');
    }
  );

  test('every file in sidecar/schemas is a registered schema', () => {
    const files = fs
      .readdirSync(SCHEMA_DIR)
      .filter(f => f.endsWith('.json'))
      // The site configuration file's schema is no API body: no OpenAPI component.
      .filter(f => f !== 'site-config.schema.json')
      .sort();
    expect(files).toEqual(Object.values(SCHEMA_FILES).sort());
  });

  test('every $ref names a schema of this project or a local definition', () => {
    const ids = new Set(SCHEMA_NAMES.map(n => loadSchema(n).$id as string));
    const refs: string[] = [];
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) {
        node.forEach(walk);
      } else if (node !== null && typeof node === 'object') {
        for (const [key, value] of Object.entries(node)) {
          if (key === '$ref' && typeof value === 'string') {
            refs.push(value);
          } else {
            walk(value);
          }
        }
      }
    };
    SCHEMA_NAMES.forEach(n => walk(loadSchema(n)));
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of refs) {
      if (!ref.startsWith('#')) {
        expect(ids).toContain(ref.split('#')[0]);
      }
    }
  });

  test('the enums of the schemas are the vocabulary of the code', () => {
    const problem = loadSchema('Problem') as {
      properties: { code: { enum: string[] } };
    };
    expect(problem.properties.code.enum).toEqual(Object.keys(PROBLEM_CODES));
    const startup = loadSchema('StartupProjection') as {
      $defs: Record<string, { enum: string[] }>;
    };
    expect(startup.$defs.phase.enum).toEqual([...PHASES]);
    const manifest = loadSchema('Manifest') as {
      $defs: Record<string, { enum: string[] }>;
    };
    expect(manifest.$defs.platformId.enum).toEqual([...PLATFORM_IDS]);
    expect(startup.$defs.interfaceId.enum).toEqual([...INTERFACE_IDS]);
  });
});

// ========================================================================= manifest

describe('manifest schema', () => {
  const cases = ADAPTERS.flatMap(adapter =>
    EVIDENCE[adapter.id].flatMap(({ name, evidence }) =>
      POLICIES.map(policy => ({ adapter, name, evidence, policy }))
    )
  );

  test.each(cases.map(c => [c.adapter.id, c.name, c.policy, c] as const))(
    '%s manifest (%s, low-risk automation %s) is valid',
    (_id, _name, _policy, { adapter, evidence, policy }) => {
      const decision = selectPlatform(evidence);
      expect(decision.platform).toBe(adapter.id);
      expectValid('Manifest', wire(buildManifest(adapter, decision, policy)));
    }
  );

  test('a manifest with overruled evidence is valid and names what was overruled', () => {
    const decision = selectPlatform(EVIDENCE.cluster[2].evidence);
    expect(decision.overruled.length).toBeGreaterThan(0);
    expectValid(
      'Manifest',
      wire(buildManifest(PLATFORM_ADAPTERS.cluster, decision, 'denied'))
    );
  });

  test('refuses a manifest missing a member, with an extra member or an unknown platform', () => {
    const good = manifestFor(PLATFORM_ADAPTERS.generic);
    const noPolicy: Partial<Manifest> = clone(good);
    delete noPolicy.policy;
    expectInvalid('Manifest', noPolicy, 'policy missing');
    expectInvalid(
      'Manifest',
      { ...clone(good), extra: true },
      'unknown top-level member'
    );
    const unknown = clone(good) as unknown as { platform: { id: string } };
    unknown.platform.id = 'kubernetes';
    expectInvalid('Manifest', unknown, 'unknown platform id');
    const badRule = clone(good) as unknown as {
      platform: { evidence: { decidedBy: string } };
    };
    badRule.platform.evidence.decidedBy = 'guess';
    expectInvalid('Manifest', badRule, 'unknown decidedBy rule');
    const badSignal = clone(good);
    badSignal.platform.evidence.signals.push({
      name: 'X',
      kind: 'registry' as unknown as 'env',
      platform: 'generic'
    });
    expectInvalid('Manifest', badSignal, 'unknown signal kind');
    const badVersion = clone(good);
    badVersion.schemaVersion = '1.0';
    expectInvalid('Manifest', badVersion, 'schemaVersion is not semver');
  });

  test('refuses capabilities out of order, missing, duplicated or with unknown values', () => {
    const good = manifestFor(PLATFORM_ADAPTERS.generic);
    const swapped = clone(good);
    [swapped.capabilities[0], swapped.capabilities[1]] = [
      swapped.capabilities[1],
      swapped.capabilities[0]
    ];
    expectInvalid('Manifest', swapped, 'rows swapped');
    const missing = clone(good);
    missing.capabilities.splice(capabilityIndex(missing, 'model-sources'), 1);
    expectInvalid('Manifest', missing, 'a row missing');
    const extra = clone(good);
    extra.capabilities.push(clone(extra.capabilities[0]));
    expectInvalid('Manifest', extra, 'an eleventh row');
    const browser = clone(good);
    browser.capabilities[capabilityIndex(browser, 'interfaces')].values.push({
      id: 'browser',
      label: 'Browser'
    });
    expectInvalid('Manifest', browser, '"browser" is not an interface id');
    const empty = clone(good);
    empty.capabilities[capabilityIndex(empty, 'credential-backends')].values =
      [];
    expectInvalid('Manifest', empty, 'a row without values');
    const twoRoutes = clone(good);
    twoRoutes.capabilities[
      capabilityIndex(twoRoutes, 'browser-route')
    ].values.push({ id: 'unavailable', label: 'Unavailable' });
    expectInvalid('Manifest', twoRoutes, 'two browser routes');
  });

  test('gateway ingress modes must name their default, other rows must not', () => {
    const good = manifestFor(PLATFORM_ADAPTERS['hosted-notebook']);
    const noDefault = clone(good);
    delete noDefault.capabilities[
      capabilityIndex(noDefault, 'gateway-ingress-modes')
    ].default;
    expectInvalid(
      'Manifest',
      noDefault,
      'gateway-ingress-modes without default'
    );
    const badDefault = clone(good);
    badDefault.capabilities[
      capabilityIndex(badDefault, 'gateway-ingress-modes')
    ].default = 'public-internet';
    expectInvalid('Manifest', badDefault, 'unknown default ingress mode');
    const strayDefault = clone(good);
    strayDefault.capabilities[
      capabilityIndex(strayDefault, 'interfaces')
    ].default = 'terminal';
    expectInvalid('Manifest', strayDefault, 'default on a row without one');
  });

  test('the credential boundary must say what it excludes and what it does not isolate', () => {
    const good = manifestFor(PLATFORM_ADAPTERS.generic);
    const i = capabilityIndex(good, 'model-credential-boundary');
    const noIsolate = clone(good);
    delete noIsolate.capabilities[i].values[0].doesNotIsolate;
    expectInvalid('Manifest', noIsolate, 'boundary without doesNotIsolate');
    const otherBoundary = clone(good);
    otherBoundary.capabilities[i].values[0].id = 'process-isolated';
    expectInvalid(
      'Manifest',
      otherBoundary,
      'boundary other than application-scrubbed'
    );
    const plainValueExtra = clone(good);
    plainValueExtra.capabilities[
      capabilityIndex(plainValueExtra, 'compute-model')
    ].values[0].secret = 'x';
    expectInvalid(
      'Manifest',
      plainValueExtra,
      'unknown extra on a plain value'
    );
  });

  test('model sources follow the approval-mode rules', () => {
    const permitted = manifestFor(PLATFORM_ADAPTERS.generic, 'permitted');
    const i = capabilityIndex(permitted, 'model-sources');
    const sourceIndex = (m: Manifest, id: string) =>
      m.capabilities[i].values.findIndex(v => v.id === id);

    const lowRiskSecret = clone(permitted);
    lowRiskSecret.capabilities[i].values[
      sourceIndex(lowRiskSecret, 'vendor-api-a')
    ].approvalModes = ['review-every-action', 'low-risk-automation'];
    expectInvalid(
      'Manifest',
      lowRiskSecret,
      'a secret-backed route offering Low-Risk Automation'
    );

    const notSecret = clone(permitted);
    notSecret.capabilities[i].values[
      sourceIndex(notSecret, 'institution-ai-gateway')
    ].secretBacked = false;
    expectInvalid(
      'Manifest',
      notSecret,
      'the institution gateway claiming to be credential-free'
    );

    const serviceSecret = clone(permitted);
    serviceSecret.capabilities[i].values[
      sourceIndex(serviceSecret, 'service-managed')
    ].secretBacked = true;
    expectInvalid(
      'Manifest',
      serviceSecret,
      'service-managed claiming a secret'
    );

    const noModes = clone(permitted);
    delete noModes.capabilities[i].values[0].approvalModes;
    expectInvalid('Manifest', noModes, 'a source without approval modes');

    const denied = clone(permitted);
    denied.policy.lowRiskAutomation = 'denied';
    expectInvalid(
      'Manifest',
      denied,
      'policy denied while service-managed offers Low-Risk Automation'
    );

    expectValid('Manifest', manifestFor(PLATFORM_ADAPTERS.generic, 'denied'));
  });
});

// ========================================================================= startup projection

describe('startup projection schema', () => {
  test('the cases cover every phase, interface, platform and state', () => {
    const results = PROJECTIONS.map(c => c.result);
    expect(new Set(results.map(r => r.phase))).toEqual(new Set<Phase>(PHASES));
    expect(new Set(results.map(r => r.platform))).toEqual(
      new Set(PLATFORM_IDS)
    );
    expect(results.some(r => r.compute.satisfied)).toBe(true);
    expect(results.some(r => !r.compute.satisfied)).toBe(true);
    expect(results.some(r => r.browserUrl !== undefined)).toBe(true);
    expect(results.some(r => r.confirmation.record !== undefined)).toBe(true);
  });

  test.each(PROJECTIONS.map(c => [c.name, c.result] as const))(
    '%s is valid',
    (_name, result) => {
      expectValid('StartupProjection', result);
    }
  );

  test('refuses a projection without its manifest or with a broken one', () => {
    const good = projection(r => r.phase === 'awaiting-confirmation');
    const noManifest: Partial<StartupResult> = clone(good);
    delete noManifest.manifest;
    expectInvalid('StartupProjection', noManifest, 'manifest missing');
    const brokenManifest = clone(good) as unknown as {
      manifest: { capabilities: unknown[] };
    };
    brokenManifest.manifest.capabilities = [];
    expectInvalid(
      'StartupProjection',
      brokenManifest,
      'manifest without capabilities'
    );
  });

  test('refuses unknown interfaces, phases, check statuses and members', () => {
    const good = projection(r => r.phase === 'awaiting-confirmation');
    expectInvalid(
      'StartupProjection',
      { ...clone(good), interface: 'browser' },
      '"browser" is not an interface id'
    );
    expectInvalid(
      'StartupProjection',
      { ...clone(good), phase: 'initializing' },
      'unknown phase'
    );
    expectInvalid(
      'StartupProjection',
      { ...clone(good), token: 'abc' },
      'unknown member'
    );
    expectInvalid(
      'StartupProjection',
      { ...clone(good), projectPath: 'relative/path' },
      'relative project path'
    );
    const badCheck = clone(good);
    (badCheck.readinessChecks[0] as { status: string }).status = 'ok';
    expectInvalid('StartupProjection', badCheck, 'unknown check status');
    const unknownCheck = clone(good);
    unknownCheck.readinessChecks[0].id = 'vibes';
    expectInvalid('StartupProjection', unknownCheck, 'unknown check id');
    const noChecks = clone(good);
    noChecks.readinessChecks = [];
    expectInvalid('StartupProjection', noChecks, 'no readiness checks');
    const noObserved: Partial<StartupResult['readinessChecks'][number]>[] =
      clone(good).readinessChecks;
    delete noObserved[0].observed;
    expectInvalid(
      'StartupProjection',
      { ...clone(good), readinessChecks: noObserved },
      'check without observed'
    );
  });

  test('the next action must fit the phase', () => {
    const ready = projection(r => r.phase === 'ready');
    expectInvalid(
      'StartupProjection',
      {
        ...clone(ready),
        nextAction: { id: 'confirm-initialization', title: 't', detail: 'd' }
      },
      'ready phase asking for confirmation'
    );
    const awaiting = projection(r => r.phase === 'awaiting-confirmation');
    expectInvalid(
      'StartupProjection',
      {
        ...clone(awaiting),
        nextAction: { id: 'none', title: 't', detail: 'd' }
      },
      'awaiting confirmation with nothing to do'
    );
    const blocked = projection(r => r.phase === 'blocked');
    expect(blocked.nextAction.checkId).toBeDefined();
    const noCheckId = clone(blocked);
    delete noCheckId.nextAction.checkId;
    expectInvalid(
      'StartupProjection',
      noCheckId,
      'fix-check without the check id'
    );
    const unsupported = projection(r => r.phase === 'unsupported-interface');
    const noInterfaces = clone(unsupported);
    delete noInterfaces.nextAction.interfaces;
    expectInvalid(
      'StartupProjection',
      noInterfaces,
      'switch-interface without the interfaces'
    );
    expectInvalid(
      'StartupProjection',
      {
        ...clone(awaiting),
        nextAction: { ...awaiting.nextAction, id: 'reboot' }
      },
      'unknown next action'
    );
  });

  test('the initialize request inside the next action is a valid initialize body', () => {
    const awaiting = projection(
      r =>
        r.phase === 'awaiting-confirmation' &&
        r.nextAction.request !== undefined
    );
    expectValid('InitializeRequest', awaiting.nextAction.request?.body);
    const bad = clone(awaiting) as unknown as {
      nextAction: { request: { body: Record<string, unknown> } };
    };
    bad.nextAction.request.body.force = true;
    expectInvalid(
      'StartupProjection',
      bad,
      'unknown member in the embedded initialize body'
    );
  });

  test('browserUrl is only for the web interface, and must be a URL', () => {
    const web = projection(r => r.browserUrl !== undefined);
    expect(web.interface).toBe('web');
    expectInvalid(
      'StartupProjection',
      { ...clone(web), interface: 'notebook' },
      'browserUrl on notebook'
    );
    expectInvalid(
      'StartupProjection',
      { ...clone(web), browserUrl: 'not a url' },
      'browserUrl not a URL'
    );
    const terminal = projection(
      r => r.interface === 'terminal' && r.platform === 'generic'
    );
    expectInvalid(
      'StartupProjection',
      { ...clone(terminal), browserUrl: BROWSER_URL },
      'browserUrl on terminal'
    );
  });

  test('a confirmed projection carries its record and an unconfirmed one does not', () => {
    const confirmed = projection(r => r.confirmation.confirmed);
    const noRecord = clone(confirmed);
    delete noRecord.confirmation.record;
    expectInvalid('StartupProjection', noRecord, 'confirmed without record');
    const unconfirmed = projection(r => !r.confirmation.confirmed);
    expectInvalid(
      'StartupProjection',
      {
        ...clone(unconfirmed),
        confirmation: {
          ...unconfirmed.confirmation,
          record: confirmed.confirmation.record
        }
      },
      'record without confirmation'
    );
    const badMethod = clone(unconfirmed) as unknown as {
      confirmation: { method: string };
    };
    badMethod.confirmation.method = 'email';
    expectInvalid(
      'StartupProjection',
      badMethod,
      'unknown confirmation method'
    );
  });

  test('compute status is strict', () => {
    const cluster = projection(
      r => r.platform === 'cluster' && r.compute.allocation !== undefined
    );
    const badScheduler = clone(cluster) as unknown as {
      compute: { allocation: { scheduler: string } };
    };
    badScheduler.compute.allocation.scheduler = 'cron';
    expectInvalid('StartupProjection', badScheduler, 'unknown scheduler');
    const noSatisfied: Partial<ComputeStatus> = clone(cluster.compute);
    delete noSatisfied.satisfied;
    expectInvalid(
      'StartupProjection',
      { ...clone(cluster), compute: noSatisfied },
      'compute without satisfied'
    );
    expectInvalid(
      'StartupProjection',
      { ...clone(cluster), compute: { ...cluster.compute, model: 'cloud' } },
      'unknown compute model'
    );
  });
});

// ========================================================================= record and initialize

describe('initialization record schema', () => {
  const record = sampleRecord(
    PLATFORM_ADAPTERS.generic,
    `${PROJECT}/.project-startup`
  );

  test('records of every platform and ingress are valid', () => {
    for (const adapter of ADAPTERS) {
      expectValid(
        'InitializationRecord',
        sampleRecord(
          adapter,
          adapter.placeState(PROJECT, '/home/alice').statePath
        )
      );
    }
    for (const ingress of [
      'direct-loopback',
      'notebook-server-proxy',
      'trusted-proxy'
    ] as const) {
      expectValid('InitializationRecord', {
        ...record,
        confirmation: { ...record.confirmation, ingress }
      });
    }
  });

  test('refuses credentials, mismatched methods, bad timestamps and unknown values', () => {
    expectInvalid(
      'InitializationRecord',
      { ...record, token: 'secret' },
      'a credential-like extra member'
    );
    expectInvalid(
      'InitializationRecord',
      { ...record, kind: 'something-else' },
      'wrong kind'
    );
    expectInvalid(
      'InitializationRecord',
      { ...record, platform: 'laptop' },
      'unknown platform'
    );
    expectInvalid(
      'InitializationRecord',
      { ...record, statePath: '.project-startup' },
      'relative state path'
    );
    expectInvalid(
      'InitializationRecord',
      {
        ...record,
        confirmation: { ...record.confirmation, confirmedAt: 'yesterday' }
      },
      'not a date-time'
    );
    expectInvalid(
      'InitializationRecord',
      { ...record, confirmation: { ...record.confirmation, ingress: 'ssh' } },
      'unknown ingress'
    );
    expectInvalid(
      'InitializationRecord',
      {
        ...record,
        confirmation: {
          ...record.confirmation,
          interface: 'terminal',
          method: 'setup-page'
        }
      },
      'a setup-page confirmation from the terminal'
    );
    expectInvalid(
      'InitializationRecord',
      { ...record, service: { version: '0.1.0', host: 'x' } },
      'unknown service member'
    );
  });
});

describe('initialize request schema agrees with parseInitializeRequest', () => {
  const confirm = {
    projectPath: PROJECT,
    statePath: `${PROJECT}/.project-startup`
  };
  const accepted = (body: unknown): boolean => {
    try {
      parseInitializeRequest(body);
      return true;
    } catch (error) {
      expect(error).toBeInstanceOf(ProblemError);
      return false;
    }
  };
  const bodies: [string, unknown][] = [
    ['web without method', { interface: 'web', confirm }],
    [
      'notebook with jupyterlab-dialog',
      { interface: 'notebook', method: 'jupyterlab-dialog', confirm }
    ],
    [
      'web with setup-page',
      { interface: 'web', method: 'setup-page', confirm }
    ],
    [
      'notebook with http-api',
      { interface: 'notebook', method: 'http-api', confirm }
    ],
    [
      'terminal with terminal-prompt',
      { interface: 'terminal', method: 'terminal-prompt', confirm }
    ],
    ['unknown member', { interface: 'web', confirm, force: true }],
    [
      'unknown member in confirm',
      { interface: 'web', confirm: { ...confirm, token: 'x' } }
    ],
    // The body's method is ignored: any string is accepted, as if absent.
    [
      'unknown method (ignored)',
      { interface: 'web', method: 'email', confirm }
    ],
    [
      'method not fitting the interface (ignored)',
      { interface: 'web', method: 'jupyterlab-dialog', confirm }
    ],
    [
      'terminal-prompt from a browser (ignored)',
      { interface: 'notebook', method: 'terminal-prompt', confirm }
    ],
    ['method not a string', { interface: 'web', method: 7, confirm }],
    ['"browser" as interface', { interface: 'browser', confirm }],
    ['missing interface', { confirm }],
    ['missing confirm', { interface: 'web' }],
    [
      'confirm without statePath',
      { interface: 'web', confirm: { projectPath: PROJECT } }
    ],
    [
      'path not a string',
      { interface: 'web', confirm: { ...confirm, statePath: 7 } }
    ],
    ['an array', [{ interface: 'web', confirm }]],
    ['null', null]
  ];

  test.each(bodies)('%s', (_name, body) => {
    const errors = validateAgainst('InitializeRequest', body);
    expect(errors.length === 0).toBe(accepted(body));
  });

  test('valid bodies pass and wrong ones fail (the table is not one-sided)', () => {
    expect(bodies.filter(([, b]) => accepted(b)).length).toBeGreaterThanOrEqual(
      5
    );
    expect(
      bodies.filter(([, b]) => !accepted(b)).length
    ).toBeGreaterThanOrEqual(10);
  });

  test('relative paths never match a projection, and the schema says so', () => {
    expectInvalid(
      'InitializeRequest',
      {
        interface: 'web',
        confirm: { projectPath: 'alpha', statePath: 'alpha/.project-startup' }
      },
      'relative paths'
    );
  });
});

// ========================================================================= problems and health

describe('problem schema', () => {
  const codes = Object.keys(PROBLEM_CODES) as ProblemCode[];

  test.each(codes)('%s problem is valid', code => {
    expectValid(
      'Problem',
      wire(
        new ProblemError(code, `Something about ${code}.`).toProblem(
          '/project/startup'
        )
      )
    );
    expectValid(
      'Problem',
      wire(new ProblemError(code, `Without an instance (${code}).`).toProblem())
    );
  });

  test('extension members are allowed (RFC 9457)', () => {
    expectValid(
      'Problem',
      wire(
        new ProblemError(
          'unknown-interface',
          'Use terminal, web or notebook.',
          { allowedValues: ['terminal', 'web', 'notebook'] }
        ).toProblem('/project/startup')
      )
    );
    expectValid(
      'Problem',
      wire(
        new ProblemError('validation-failed', 'Bad body.', {
          errors: [{ pointer: '/force', detail: 'is not a known field' }]
        }).toProblem()
      )
    );
  });

  test('refuses unknown codes, mismatched status or type, and missing members', () => {
    const good = wire(
      new ProblemError('wrong-phase', 'Not now.').toProblem(
        '/project/initialize'
      )
    );
    expectInvalid('Problem', { ...good, code: 'teapot' }, 'unknown code');
    expectInvalid(
      'Problem',
      { ...good, status: 400 },
      'status of another code'
    );
    expectInvalid('Problem', { ...good, status: 200 }, 'a success status');
    expectInvalid(
      'Problem',
      { ...good, type: 'urn:jupyterlab-project-startup:problem:not-found' },
      'type of another code'
    );
    expectInvalid(
      'Problem',
      { ...good, type: 'about:blank' },
      'type not of this service'
    );
    const { detail: _detail, ...noDetail } = good;
    expectInvalid('Problem', noDetail, 'detail missing');
    expectInvalid('Problem', { ...good, detail: '' }, 'empty detail');
  });
});

describe('health schema', () => {
  const health = {
    status: 'pass',
    version: '0.1.0',
    instanceId: '3b241101-e2bb-4255-8caf-4136c566a962',
    platform: 'generic'
  };

  test('the health body is valid', () => {
    expectValid('Health', health);
  });

  test('refuses other statuses, ids and members', () => {
    expectInvalid(
      'Health',
      { ...health, status: 'fail' },
      'status other than pass'
    );
    expectInvalid(
      'Health',
      { ...health, instanceId: 'instance-1' },
      'instance id not a UUID'
    );
    expectInvalid(
      'Health',
      { ...health, version: 'latest' },
      'version not semver'
    );
    expectInvalid(
      'Health',
      { ...health, platform: 'desktop' },
      'unknown platform'
    );
    expectInvalid('Health', { ...health, token: 'x' }, 'unknown member');
    const { instanceId: _id, ...noId } = health;
    expectInvalid('Health', noId, 'instanceId missing');
  });
});

// ========================================================================= gateway

describe('gateway request schema', () => {
  const confirm = {
    projectPath: PROJECT,
    statePath: `${PROJECT}/.project-startup`
  };
  const capabilities = {
    jsonrpc: '2.0',
    id: 1,
    method: 'project.capabilities'
  };
  const startup = {
    jsonrpc: '2.0',
    id: 'b',
    method: 'project.startup',
    params: { interface: 'notebook' }
  };
  const initialize = {
    jsonrpc: '2.0',
    id: null,
    method: 'project.initialize',
    params: { interface: 'web', method: 'setup-page', confirm }
  };

  test('single calls, notifications and batches are valid', () => {
    expectValid('GatewayRequest', capabilities);
    expectValid('GatewayRequest', { ...capabilities, params: {} });
    expectValid('GatewayRequest', startup);
    expectValid('GatewayRequest', initialize);
    const { id: _id, ...notification } = startup;
    expectValid('GatewayRequest', notification);
    expectValid('GatewayRequest', [capabilities, startup, initialize]);
    expectValid(
      'GatewayRequest',
      Array.from({ length: 20 }, (_, i) => ({ ...capabilities, id: i }))
    );
  });

  test('refuses what the gateway refuses', () => {
    expectInvalid('GatewayRequest', [], 'empty batch');
    expectInvalid(
      'GatewayRequest',
      Array.from({ length: 21 }, (_, i) => ({ ...capabilities, id: i })),
      'batch of 21'
    );
    expectInvalid(
      'GatewayRequest',
      { ...capabilities, method: 'project.delete' },
      'unknown method'
    );
    expectInvalid(
      'GatewayRequest',
      { ...capabilities, jsonrpc: '1.0' },
      'not JSON-RPC 2.0'
    );
    expectInvalid(
      'GatewayRequest',
      { ...startup, params: ['notebook'] },
      'positional params'
    );
    expectInvalid(
      'GatewayRequest',
      { ...startup, params: undefined },
      'startup without params'
    );
    expectInvalid(
      'GatewayRequest',
      { ...startup, params: { interface: 'browser' } },
      'startup for "browser"'
    );
    expectInvalid(
      'GatewayRequest',
      { ...initialize, params: { ...initialize.params, force: true } },
      'initialize with an unknown member'
    );
    expectInvalid(
      'GatewayRequest',
      {
        ...initialize,
        params: { ...initialize.params, method: 7 }
      },
      'method not a string'
    );
    expectInvalid(
      'GatewayRequest',
      { ...capabilities, id: { n: 1 } },
      'object id'
    );
    expectInvalid(
      'GatewayRequest',
      [capabilities, 'project.startup'],
      'a batch with a non-object'
    );
  });
});

describe('gateway responses of a running service', () => {
  let root: string;
  let service: StartupService;
  let ctx: RpcContext;

  beforeAll(() => {
    root = fs.realpathSync(
      fs.mkdtempSync(path.join(os.tmpdir(), 'schemas-test-'))
    );
    const project = path.join(root, 'project');
    fs.mkdirSync(project);
    const env = {
      PROJECT_STARTUP_PLATFORM: 'generic',
      HOME: root,
      PROJECT_STARTUP_RUNTIME_DIR: path.join(root, 'runtime'),
      PROJECT_STARTUP_LOCAL_RUNTIME_URL: 'http://127.0.0.1:9/',
      PROJECT_STARTUP_SERVING_RUNTIME_URL: 'http://127.0.0.1:9/',
      PROJECT_STARTUP_PROBE_TIMEOUT_MS: '200'
    };
    service = new StartupService({
      config: resolveConfig({ projectDir: project }, env),
      env,
      fileExists: () => false
    });
    ctx = {
      service,
      beforeInitialize: () => undefined,
      initialize: async params =>
        (
          await service.initialize(params, {
            ingress: 'direct-loopback',
            channel: { kind: 'api' }
          })
        ).body,
      admitNewClaim: () => undefined,
      instance: '/project/gateway'
    };
  });

  afterAll(() => {
    fs.rmSync(root, { recursive: true, force: true });
  });

  test('the health body of the service is valid', () => {
    expectValid('Health', {
      status: 'pass',
      version: service.version,
      instanceId: service.instanceId,
      platform: service.adapter.id
    });
  });

  test('capabilities, startup and initialize results are valid, alone and in a batch', async () => {
    const capabilities = wire(
      await handleRpc(
        { jsonrpc: '2.0', id: 1, method: 'project.capabilities' },
        ctx
      )
    );
    expectValid('GatewayResponse', capabilities);
    expectValid('Manifest', (capabilities as { result: unknown }).result);

    const startup = wire(await service.startup('web'));
    expectValid('StartupProjection', startup);
    expect(startup.phase).toBe('awaiting-confirmation');

    const batch = wire(
      await handleRpc(
        [
          {
            jsonrpc: '2.0',
            id: 'startup',
            method: 'project.startup',
            params: { interface: 'notebook' }
          },
          {
            jsonrpc: '2.0',
            id: 'init',
            method: 'project.initialize',
            params: {
              interface: 'web',
              method: 'setup-page',
              confirm: {
                projectPath: startup.projectPath,
                statePath: startup.statePath
              }
            }
          },
          {
            jsonrpc: '2.0',
            id: 'again',
            method: 'project.startup',
            params: { interface: 'web' }
          }
        ],
        ctx
      )
    ) as { id: string; result: Record<string, unknown> }[];
    expectValid('GatewayResponse', batch);
    expect(batch.map(r => r.id)).toEqual(['startup', 'init', 'again']);
    expectValid('StartupProjection', batch[0].result);
    expectValid('InitializeResponse', batch[1].result);
    expect(batch[1].result.created).toBe(true);
    expectValid('InitializationRecord', batch[1].result.record);
    expectValid('StartupProjection', batch[2].result);
    expect(batch[2].result.phase).toBe('ready');

    const again = wire(
      await service.initialize(
        {
          interface: 'notebook',
          method: 'jupyterlab-dialog',
          confirm: {
            projectPath: startup.projectPath,
            statePath: startup.statePath
          }
        },
        { ingress: 'notebook-server-proxy' }
      )
    );
    expect(again.status).toBe(200);
    expectValid('InitializeResponse', again.body);
    expectInvalid(
      'InitializeResponse',
      { ...again.body, phase: 'awaiting-confirmation' },
      'phase not fitting the next action'
    );
    expectInvalid(
      'InitializeResponse',
      { ...again.body, created: 'no' },
      'created not a boolean'
    );
    const { record: _record, ...noRecord } = again.body;
    expectInvalid('InitializeResponse', noRecord, 'record missing');
  });

  test('errors carry problem details in error.data', async () => {
    const responses = wire(
      await handleRpc(
        [
          {
            jsonrpc: '2.0',
            id: 1,
            method: 'project.startup',
            params: { interface: 'browser' }
          },
          { jsonrpc: '2.0', id: 2, method: 'project.nothing' },
          {
            jsonrpc: '2.0',
            id: 3,
            method: 'project.initialize',
            params: {
              interface: 'web',
              confirm: { projectPath: '/elsewhere', statePath: '/elsewhere/.s' }
            }
          },
          { jsonrpc: '1.0', id: 4, method: 'project.startup' },
          { jsonrpc: '2.0', method: 'project.capabilities' }
        ],
        ctx
      )
    ) as { id: number; error: { code: number; data?: { code: string } } }[];
    expectValid('GatewayResponse', responses);
    expect(responses.map(r => r.id)).toEqual([1, 2, 3, 4]);
    expect(responses[0].error.data?.code).toBe('unknown-interface');
    expectValid('Problem', responses[0].error.data);
    expect(responses[2].error.data?.code).toBe('confirmation-stale');

    const tooMany = wire(
      await handleRpc(
        Array.from({ length: 21 }, (_, i) => ({
          jsonrpc: '2.0',
          id: i,
          method: 'project.capabilities'
        })),
        ctx
      )
    );
    expectValid('GatewayResponse', tooMany);
    const empty = wire(await handleRpc([], ctx));
    expectValid('GatewayResponse', empty);
  });

  test('refuses responses with both or neither of result and error, or a broken error', () => {
    const error = {
      code: -32000,
      message: 'Stale',
      data: wire(
        new ProblemError('confirmation-stale', 'Reload.').toProblem(
          '/project/gateway'
        )
      )
    };
    expectValid('GatewayResponse', { jsonrpc: '2.0', id: 1, error });
    expectInvalid(
      'GatewayResponse',
      { jsonrpc: '2.0', id: 1 },
      'neither result nor error'
    );
    expectInvalid(
      'GatewayResponse',
      { jsonrpc: '2.0', id: 1, result: service.manifest.manifest, error },
      'both result and error'
    );
    expectInvalid(
      'GatewayResponse',
      { jsonrpc: '2.0', id: 1, error: { ...error, code: 'stale' } },
      'error code not an integer'
    );
    expectInvalid(
      'GatewayResponse',
      {
        jsonrpc: '2.0',
        id: 1,
        error: { ...error, data: { ...error.data, status: 200 } }
      },
      'error.data not a problem'
    );
    expectInvalid(
      'GatewayResponse',
      { jsonrpc: '2.0', id: 1, result: { hello: 'world' } },
      'result of no method'
    );
    expectInvalid(
      'GatewayResponse',
      { jsonrpc: '2.0', result: service.manifest.manifest },
      'id missing'
    );
    expectInvalid('GatewayResponse', [], 'empty batch of responses');
  });
});

// ========================================================================= OpenAPI

describe('OpenAPI document', () => {
  const doc = buildOpenApi('/', '0.1.0') as {
    openapi: string;
    info: { version: string };
    components: { schemas: Record<string, unknown> };
  };

  test('is OpenAPI 3.1 with the package version', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('0.1.0');
  });

  const files = Object.fromEntries(
    Object.entries(SCHEMA_FILES).map(([name, file]) => [
      name,
      JSON.parse(fs.readFileSync(path.join(SCHEMA_DIR, file), 'utf8'))
    ])
  ) as Record<SchemaName, { $id: string; $defs?: Record<string, unknown> }>;
  /** component name -> how the schema files spell a reference to it from file `owner`. */
  const spelling = (component: string, owner: SchemaName): string => {
    if (component in files) {
      return files[component as SchemaName].$id;
    }
    for (const [name, schema] of Object.entries(files) as [
      SchemaName,
      (typeof files)[SchemaName]
    ][]) {
      for (const def of Object.keys(schema.$defs ?? {})) {
        if (defComponentName(name, def) === component) {
          return name === owner
            ? `#/$defs/${def}`
            : `${schema.$id}#/$defs/${def}`;
        }
      }
    }
    throw new Error(`no schema file or definition is component ${component}`);
  };
  /** The component with its references spelled back as in the file: must give the file's text. */
  const unmap = (value: unknown, owner: SchemaName): unknown => {
    if (Array.isArray(value)) {
      return value.map(item => unmap(item, owner));
    }
    if (value === null || typeof value !== 'object') {
      return value;
    }
    return Object.fromEntries(
      Object.entries(value).map(([key, child]) =>
        key === '$ref' && typeof child === 'string'
          ? [key, spelling(child.replace('#/components/schemas/', ''), owner)]
          : key === 'const' || key === 'enum'
            ? [key, child]
            : [key, unmap(child, owner)]
      )
    );
  };

  test.each(Object.entries(SCHEMA_FILES))(
    'component %s is %s, its references pointing into the document',
    name => {
      const { $id, $schema, $defs, ...rest } = files[
        name as SchemaName
      ] as Record<string, unknown>;
      expect([$id, $schema]).toEqual([
        expect.stringMatching(/^urn:/),
        'https://json-schema.org/draft/2020-12/schema'
      ]);
      expect(unmap(doc.components.schemas[name], name as SchemaName)).toEqual(
        rest
      );
      for (const [def, definition] of Object.entries(
        ($defs ?? {}) as Record<string, unknown>
      )) {
        expect(
          unmap(
            doc.components.schemas[defComponentName(name as SchemaName, def)],
            name as SchemaName
          )
        ).toEqual(definition);
      }
    }
  );

  test('has exactly one component per schema file and per definition', () => {
    const expected = Object.entries(files).flatMap(([name, schema]) => [
      name,
      ...Object.keys(schema.$defs ?? {}).map(def =>
        defComponentName(name as SchemaName, def)
      )
    ]);
    expect(Object.keys(doc.components.schemas).sort()).toEqual(expected.sort());
  });

  test('every $ref is a reference to a component of the document, and no $id or $defs is left', () => {
    const refs: string[] = [];
    const walk = (value: unknown, at: string): void => {
      if (Array.isArray(value)) {
        value.forEach((item, i) => walk(item, `${at}/${i}`));
      } else if (value !== null && typeof value === 'object') {
        for (const [key, child] of Object.entries(value)) {
          expect([at, key]).not.toEqual([
            at,
            expect.stringMatching(/^\$(id|defs|schema)$/)
          ]);
          if (key === '$ref') {
            refs.push(child as string);
          } else if (key !== 'const' && key !== 'enum') {
            walk(child, `${at}/${key}`);
          }
        }
      }
    };
    walk(doc, '#');
    expect(refs.length).toBeGreaterThan(50);
    for (const ref of refs) {
      expect(ref).toMatch(/^#\/components\/schemas\/[A-Za-z]+$/);
      expect(Object.keys(doc.components.schemas)).toContain(
        ref.slice('#/components/schemas/'.length)
      );
    }
  });

  test('a reference the build cannot map stops it, naming the file and the reference', () => {
    const broken = (name: SchemaName) => {
      const schema = loadSchema(name);
      return name === 'Health'
        ? {
            ...schema,
            properties: {
              ...(schema.properties as object),
              extra: { $ref: '#/$defs/missing' }
            }
          }
        : schema;
    };
    expect(() => schemaComponents(broken)).toThrow(
      /health\.schema\.json.*\$ref #\/\$defs\/missing/
    );
  });
});
