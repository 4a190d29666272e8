// Realistic inputs for the extension's tests: startup projections built by the sidecar's own
// pure functions (buildProjection, buildManifest, selectPlatform), passed through JSON as the
// wire does, so the extension is tested against what the service really sends. Only the tests
// import the sidecar; src/ never does.
import { buildManifest } from '../../../sidecar/src/core/manifest';
import { clusterPlatform } from '../../../sidecar/src/core/platforms/cluster';
import { genericPlatform } from '../../../sidecar/src/core/platforms/generic';
import { hostedNotebookPlatform } from '../../../sidecar/src/core/platforms/hosted-notebook';
import {
  PlatformEvidence,
  selectPlatform
} from '../../../sidecar/src/core/platforms/rules';
import type { PlatformAdapter } from '../../../sidecar/src/core/platforms/types';
import { ProblemCode, problemOf } from '../../../sidecar/src/core/problems';
import {
  buildProjection,
  ProjectionInputs
} from '../../../sidecar/src/core/projection';
import type {
  InitializeResult,
  StartupResult
} from '../../../sidecar/src/service/service';
import type {
  InitializationRecord,
  StateInspection
} from '../../../sidecar/src/core/observations';
import type {
  IDiagnosticsProblem,
  IDiagnosticsReport,
  InitializeResponse,
  ITranslationBundle,
  Problem,
  StartupProjection
} from '../../../src/tokens';

export const PROJECT = '/home/alice/work/alpha';
export const HOME = '/home/alice';
export const BASE_URL = '/user/alice/';

function wire<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

const EVIDENCE: Record<string, PlatformEvidence> = {
  generic: { present: new Set(['/.dockerenv']) },
  'hosted-notebook': {
    present: new Set(['JUPYTERHUB_API_URL', 'JUPYTERHUB_USER'])
  },
  cluster: { present: new Set(['/etc/slurm/slurm.conf']) }
};

function record(
  adapter: PlatformAdapter,
  statePath: string
): InitializationRecord {
  return {
    schemaVersion: '1.0.0',
    kind: 'project-startup-state',
    projectPath: PROJECT,
    statePath,
    platform: adapter.id,
    confirmation: {
      interface: 'notebook',
      method: 'jupyterlab-dialog',
      ingress: 'notebook-server-proxy',
      confirmedAt: '2025-05-01T09:30:00.000Z'
    },
    service: { version: '0.1.0' }
  };
}

interface Options {
  state?: StateInspection['kind'];
  projectOk?: boolean;
  approvedStorage?: string[];
  /** Every runtime configured, the ones after the first not answering. */
  brokenRuntime?: boolean;
}

/** The startup projection the service would send for the notebook interface. */
export function projectionFor(
  adapter: PlatformAdapter,
  options: Options = {}
): StartupResult {
  const evidence = EVIDENCE[adapter.id] ?? EVIDENCE.cluster;
  const decision = selectPlatform(evidence);
  const placement = adapter.placeState(PROJECT, HOME);
  const stateKind = options.state ?? 'absent';
  const state: StateInspection =
    stateKind === 'absent'
      ? { kind: 'absent', detail: 'No project state yet.' }
      : stateKind === 'initialized'
        ? {
            kind: 'initialized',
            record: record(adapter, placement.statePath),
            detail: 'Initialized.'
          }
        : {
            kind: 'unsafe',
            detail: `${placement.statePath} is a symbolic link.`,
            remedy: `Inspect ${placement.statePath} and move it aside (the service never changes it for you); then check again.`
          };
  const inputs: ProjectionInputs = {
    adapter,
    decision,
    iface: 'notebook',
    baseUrl: BASE_URL,
    projectPath: PROJECT,
    statePath: placement.statePath,
    creates:
      stateKind === 'absent'
        ? [...placement.parentsToCreate, placement.statePath]
        : [],
    project:
      options.projectOk === false
        ? {
            ok: false,
            observed: 'does not exist',
            remedy: `Create ${PROJECT} or start the service in an existing project directory (--project-dir).`
          }
        : { ok: true, observed: 'is a writable directory' },
    state,
    approvedStorage: options.approvedStorage ?? ['/home/alice/work'],
    compute: adapter.assessCompute(undefined),
    ingress: {
      mode: 'notebook-server-proxy',
      listening: 'unix socket in a private directory',
      offered: adapter.ingressModes.includes('notebook-server-proxy')
    },
    browserUrl: undefined,
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
      // The runtime the site pointed the service at, which does not answer: an administrator's fix.
      configured: i === 0 || options.brokenRuntime === true,
      observed: i === 0 ? 'answered HTTP 200' : 'not reachable'
    }))
  };
  const manifest = buildManifest(
    adapter,
    decision,
    adapter.defaultLowRiskAutomation
  );
  return wire({ ...buildProjection(inputs), manifest });
}

/**
 * A cluster-like platform that offered notebooks: the only way the notebook interface meets
 * phase needs-compute (on the real cluster platform notebooks are unsupported).
 */
export const clusterWithNotebooks: PlatformAdapter = {
  ...clusterPlatform,
  interfaces: ['terminal', 'notebook']
};

/** Every phase the panel shows, as the service builds it for interface notebook. */
export const PHASE_CASES = {
  'awaiting-confirmation': () => projectionFor(genericPlatform),
  'awaiting-confirmation (hosted, parents created)': () =>
    projectionFor(hostedNotebookPlatform),
  ready: () => projectionFor(genericPlatform, { state: 'initialized' }),
  blocked: () => projectionFor(genericPlatform, { state: 'unsafe' }),
  'blocked (missing project directory)': () =>
    projectionFor(hostedNotebookPlatform, { projectOk: false }),
  'unsupported-interface': () => projectionFor(clusterPlatform),
  'needs-compute': () => projectionFor(clusterWithNotebooks),
  'blocked (administrator: no approved storage)': () =>
    projectionFor(clusterWithNotebooks, { approvedStorage: [] })
};

/** The extension's type must accept what the service sends (checked by `npm run typecheck`). */
export function asExtensionProjection(
  result: StartupResult
): StartupProjection {
  const projection: StartupProjection = result;
  return projection;
}

/** The body of a successful initialize, as the service builds it. */
export function initializeAnswer(
  before: StartupResult,
  created = true
): InitializeResponse {
  const after = projectionFor(genericPlatform, { state: 'initialized' });
  const body: InitializeResult['body'] = {
    schemaVersion: '1.0.0',
    created,
    record: record(genericPlatform, before.statePath),
    phase: after.phase,
    nextAction: after.nextAction
  };
  const answer: InitializeResponse = wire(body);
  return answer;
}

/** Problem details exactly as the sidecar writes them. */
export function problem(
  code: ProblemCode,
  detail: string,
  extensions: Record<string, unknown> = {}
): Problem {
  const value: Problem = wire(
    problemOf(code, detail, extensions, '/user/alice/project/initialize')
  );
  return value;
}

/** A translation bundle like JupyterLab's null translator: %1, %2 ... are replaced. */
export const trans: ITranslationBundle = {
  __: (msgid: string, ...args: (string | number)[]) =>
    msgid.replace(/%(\d+)/g, (_m, n: string) => String(args[Number(n) - 1]))
};

/** A bundle that records every string it returns, to prove nothing visible bypasses it. */
export function recordingTrans(): {
  trans: ITranslationBundle;
  outputs: string[];
} {
  const outputs: string[] = [];
  return {
    outputs,
    trans: {
      __: (msgid: string, ...args: (string | number)[]) => {
        const out = trans.__(msgid, ...args);
        outputs.push(out);
        return out;
      }
    }
  };
}

/** Every string leaf of a value (what came from the service). */
export function stringLeaves(
  value: unknown,
  into: Set<string> = new Set()
): Set<string> {
  if (typeof value === 'string') {
    into.add(value);
    // The panel shows `quoted` parts of service text as code: each piece is service text too.
    for (const piece of value.split('`')) {
      if (piece.trim()) {
        into.add(piece.trim());
      }
    }
  } else if (Array.isArray(value)) {
    value.forEach(v => stringLeaves(v, into));
  } else if (value !== null && typeof value === 'object') {
    Object.values(value).forEach(v => stringLeaves(v, into));
  }
  return into;
}

/** The visible text nodes under a node, trimmed, without empty ones. */
export function textNodes(root: Node): string[] {
  const out: string[] = [];
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const text = (n.textContent ?? '').trim();
    if (text) {
      out.push(text);
    }
  }
  return out;
}

// ------------------------------------------------------------------------ fake HTTP

/** Minimal Headers/Request/Response for ServerConnection under jsdom (which has no fetch). */
export class FakeHeaders {
  private map = new Map<string, string>();
  constructor(init?: Record<string, string> | FakeHeaders) {
    if (init instanceof FakeHeaders) {
      init.forEach((v, k) => this.map.set(k, v));
    } else if (init) {
      Object.entries(init).forEach(([k, v]) =>
        this.map.set(k.toLowerCase(), v)
      );
    }
  }
  append(name: string, value: string): void {
    const key = name.toLowerCase();
    this.map.set(
      key,
      this.map.has(key) ? `${this.map.get(key)}, ${value}` : value
    );
  }
  set(name: string, value: string): void {
    this.map.set(name.toLowerCase(), value);
  }
  get(name: string): string | null {
    return this.map.get(name.toLowerCase()) ?? null;
  }
  has(name: string): boolean {
    return this.map.has(name.toLowerCase());
  }
  forEach(fn: (value: string, key: string) => void): void {
    this.map.forEach((v, k) => fn(v, k));
  }
}

export class FakeRequest {
  readonly url: string;
  readonly method: string;
  readonly headers: FakeHeaders;
  readonly body: string | undefined;
  readonly credentials: string | undefined;
  constructor(
    url: string,
    init: {
      method?: string;
      headers?: Record<string, string>;
      body?: string;
      credentials?: string;
    } = {}
  ) {
    this.url = url;
    this.method = init.method ?? 'GET';
    this.headers = new FakeHeaders(init.headers);
    this.body = init.body;
    this.credentials = init.credentials;
  }
}

export interface FakeAnswer {
  status: number;
  statusText?: string;
  contentType?: string;
  body?: string;
  etag?: string;
}

export function fakeResponse(answer: FakeAnswer): Response {
  const headers = new FakeHeaders({
    ...(answer.contentType ? { 'Content-Type': answer.contentType } : {}),
    ...(answer.etag ? { ETag: answer.etag } : {})
  });
  const response = {
    status: answer.status,
    statusText: answer.statusText ?? '',
    ok: answer.status >= 200 && answer.status < 300,
    headers,
    text: () => Promise.resolve(answer.body ?? '')
  };
  return response as unknown as Response;
}

export const json = (
  status: number,
  value: unknown,
  contentType = 'application/json; charset=utf-8'
): FakeAnswer => ({
  status,
  contentType,
  body: JSON.stringify(value)
});

export const problemAnswer = (value: Problem): FakeAnswer => ({
  status: value.status,
  contentType: 'application/problem+json; charset=utf-8',
  body: JSON.stringify(value)
});

/** Tornado's 404 page: what Jupyter answers when nothing is proxied at {base_url}project/. */
export const JUPYTER_404: FakeAnswer = {
  status: 404,
  statusText: 'Not Found',
  contentType: 'text/html',
  body: '<!DOCTYPE HTML><html><head><title>404: Not Found</title></head><body>404 : Not Found</body></html>'
};

// ------------------------------------------------------------------------ diagnostics

/**
 * Reports of the Python package's diagnostics route ({base_url}api/project-startup/diagnostics),
 * as jupyterlab_project_startup/checks.py writes them (test/system/install/wheel.test.ts checks the
 * real route's answers against the same interpreter).
 */
export const DIAGNOSTICS_URL =
  'http://localhost:8888/user/alice/api/project-startup/diagnostics';

export function diagnosticsReport(
  problems: IDiagnosticsProblem[],
  sidecar: Partial<IDiagnosticsReport['sidecar']> = {},
  node: IDiagnosticsReport['node'] = {
    path: '/usr/bin/node',
    version: '20.20.2',
    required: '>=20'
  }
): IDiagnosticsReport {
  return {
    version: '0.1.0',
    ok: problems.length === 0,
    problems,
    node,
    serverProxy: { version: '4.4.0', required: '>=4.1' },
    sidecar: {
      state: 'not-started',
      lastError: null,
      logTail: [],
      diagnosticsFile:
        '/home/alice/.local/share/jupyter/runtime/project-startup-4242.json',
      ...sidecar
    }
  };
}

export const NODE_MISSING: IDiagnosticsProblem = {
  code: 'node-missing',
  title: 'Node.js was not found',
  detail:
    "Node.js 20 or newer is needed to run the Project Startup service, and there is no `node` on the Jupyter server's PATH and no PROJECT_STARTUP_NODE.",
  fix: 'Install Node.js 20 or newer (22 or 24 recommended) where the Jupyter server runs and put it on its PATH, or set PROJECT_STARTUP_NODE to the path of that node executable; then restart the Jupyter server.'
};

export const PLATFORM_MESSAGE =
  'PROJECT_STARTUP_PLATFORM must be one of generic, hosted-notebook, cluster; it is set to an unknown value. Unset it to select the platform from evidence.';

export const SIDECAR_FAILED: IDiagnosticsProblem = {
  code: 'sidecar-failed',
  title: 'The Project Startup service could not start',
  detail: PLATFORM_MESSAGE,
  fix: "Correct what the message names (often a PROJECT_STARTUP_* variable in the Jupyter server's environment, such as the single-user image or the hub's extraEnv), then restart the Jupyter server. The full log is in the Jupyter server's output (stderr)."
};

export const SERVER_PROXY_MISSING: IDiagnosticsProblem = {
  code: 'server-proxy-missing',
  title: 'jupyter-server-proxy is not installed',
  detail:
    'The Project Startup service runs behind jupyter-server-proxy (4.1 or newer), which the Python of this Jupyter server (/opt/conda/bin/python) cannot import.',
  fix: "Install it in the same environment as the Jupyter server (`pip install 'jupyter-server-proxy>=4.1'` or `conda install -c conda-forge jupyter-server-proxy`), then restart the Jupyter server."
};
