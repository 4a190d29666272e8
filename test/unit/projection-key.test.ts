// The projection's cache key is its inputs: sameProjectionInputs tells the service when a
// memoized projection still stands. Every field of ProjectionInputs, and every value inside
// one, must change the answer, or an observation that changed would leave a stale check.
import { clusterPlatform } from '../../sidecar/src/core/platforms/cluster';
import { buildManifest, modelSourcesOf } from '../../sidecar/src/core/manifest';
import { selectPlatform } from '../../sidecar/src/core/platforms/rules';
import {
  ProjectionInputs,
  sameProjectionInputs
} from '../../sidecar/src/core/projection';

const PROJECT = '/home/alice/work/demo';
const STATE = `${PROJECT}/.project-startup`;

// Required: a field added to ProjectionInputs does not compile here until it has a value,
// and from then on the walk below changes it like every other.
function sample(): Required<ProjectionInputs> {
  const adapter = clusterPlatform;
  const decision = selectPlatform({
    present: new Set(['/etc/slurm/slurm.conf'])
  });
  const manifest = buildManifest(
    adapter,
    decision,
    adapter.defaultLowRiskAutomation
  );
  return {
    adapter,
    decision,
    iface: 'terminal',
    baseUrl: '/',
    projectPath: PROJECT,
    statePath: STATE,
    creates: [STATE],
    project: { ok: true, observed: 'is a writable directory' },
    state: { kind: 'absent', detail: 'No project state yet.' },
    approvedStorage: ['/home/alice/work'],
    compute: adapter.assessCompute({
      scheduler: 'slurm',
      jobId: '42',
      live: true,
      state: 'RUNNING',
      detail: 'squeue: RUNNING'
    }),
    ingress: {
      mode: 'direct-loopback',
      listening: 'http://127.0.0.1:8123',
      offered: true
    },
    browserUrl: 'http://127.0.0.1:8123/setup',
    credentials: [
      {
        backend: 'process',
        available: true,
        configured: true,
        observed: 'present'
      }
    ],
    modelSources: modelSourcesOf(manifest),
    runtimes: [
      {
        id: 'local-lightweight',
        url: 'http://127.0.0.1:11434/',
        reachable: true,
        configured: true,
        observed: 'answered HTTP 200'
      }
    ],
    foreignRecord: {
      schemaVersion: 1,
      projectPath: PROJECT,
      statePath: STATE,
      platform: 'generic',
      confirmation: {
        interface: 'web',
        method: 'browser',
        ingress: 'direct-loopback',
        confirmedAt: '2025-05-01T09:30:00.000Z'
      },
      service: { version: '0.1.0' }
    } as unknown as Required<ProjectionInputs>['foreignRecord']
  };
}

type Path = (string | number)[];

function isPlain(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return false;
  }
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** A copy of plain data (objects, arrays) with anything else shared, as a fresh observation is. */
function copy<T>(value: T): T {
  if (Array.isArray(value)) {
    return value.map(copy) as T;
  }
  if (isPlain(value)) {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, copy(v)])
    ) as T;
  }
  return value;
}

/** Every place in the inputs a change can happen: each value, and each array or object itself. */
function paths(value: unknown, at: Path = []): Path[] {
  const found: Path[] = [at];
  if (Array.isArray(value)) {
    value.forEach((v, i) => found.push(...paths(v, [...at, i])));
  } else if (isPlain(value)) {
    for (const [k, v] of Object.entries(value)) {
      found.push(...paths(v, [...at, k]));
    }
  }
  return found;
}

function changed(value: unknown): unknown {
  switch (typeof value) {
    case 'string':
      return `${value} (changed)`;
    case 'number':
      return value + 1;
    case 'boolean':
      return !value;
    case 'function':
      return () => undefined;
    case 'undefined':
      return 'now set';
    default:
      if (Array.isArray(value)) {
        return [...value, 'one more'];
      }
      if (isPlain(value)) {
        return { ...value, oneMore: true };
      }
      return { replaced: true };
  }
}

/** The inputs, copied, with the value at `path` changed. */
function changeAt(inputs: ProjectionInputs, path: Path): ProjectionInputs {
  const result = copy(inputs);
  let parent = result as unknown as Record<string | number, unknown>;
  for (const step of path.slice(0, -1)) {
    parent = parent[step] as Record<string | number, unknown>;
  }
  const last = path[path.length - 1];
  parent[last] = changed(parent[last]);
  return result;
}

describe('sameProjectionInputs, the projection cache key', () => {
  test('inputs equal by value are the same, though gathered afresh', () => {
    expect(sameProjectionInputs(sample(), sample())).toBe(true);
    expect(sameProjectionInputs(sample(), copy(sample()))).toBe(true);
  });

  test('the walk reaches every field of the inputs', () => {
    const reached = new Set(
      paths(sample())
        .filter(p => p.length > 0)
        .map(p => p[0])
    );
    expect([...reached].sort()).toEqual(Object.keys(sample()).sort());
  });

  const cases = paths(sample())
    .filter(p => p.length > 0)
    .map(p => [p.join('.')] as const);
  test.each(cases)('a change to %s is a different key', name => {
    const path = paths(sample()).find(p => p.join('.') === name) as Path;
    const before = sample();
    const after = changeAt(before, path);
    expect(sameProjectionInputs(before, after)).toBe(false);
    expect(sameProjectionInputs(after, before)).toBe(false);
  });

  test('a field that is left out is a different key from one that is set', () => {
    for (const field of Object.keys(sample()) as (keyof ProjectionInputs)[]) {
      const without: Partial<ProjectionInputs> = sample();
      delete without[field];
      expect(sameProjectionInputs(sample(), without as ProjectionInputs)).toBe(
        false
      );
    }
  });
});
