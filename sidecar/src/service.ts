// The service core shared by the HTTP layer and the command line: evidence is gathered and the
// platform selected once; each projection gathers fresh observations and applies the pure rules.
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import type { ServiceConfig } from './config';
import type {
  AllocationEvidence,
  CredentialObservation,
  HttpProbe,
  InitializationRecord,
  ProjectPathObservation,
  StateInspection
} from './core/observations';
import {
  FileExists,
  gatherAllocationEvidence,
  gatherPlatformEvidence,
  realFileExists
} from './observe/evidence';
import {
  buildManifest,
  PreparedManifest,
  prepareManifest
} from './core/manifest';
import { adapterFor } from './core/platforms';
import { PlatformDecision, selectPlatform } from './core/platforms/rules';
import type {
  AllocationObservation,
  PlatformAdapter,
  StatePlacement
} from './core/platforms/types';
import { ProblemError } from './core/problems';
import {
  ChildEnvironments,
  childEnvironments,
  ConcurrencyLimit,
  credentialVariableNames,
  currentJobUser,
  MountedSecretsObserver,
  NOT_READY,
  observeProjectPath,
  probeAllocation,
  probeHttp,
  probeSecretService,
  SingleFlight
} from './observe/probes';
import {
  ConfirmationChannel,
  confirmationInterfaces,
  decideConfirmation
} from './core/confirmation';
import {
  AllocationClaim,
  JobUser,
  parseAllocationClaim
} from './core/allocation-claim';
import {
  buildProjection,
  IngressObservation,
  Projection,
  RuntimeProbe
} from './core/projection';
import type { InitializeResponse } from './core/api-types';
import {
  createState,
  DirectoryTraversal,
  StateInspector,
  StepHook
} from './observe/state';
import { VERSION } from './version';
import {
  classifyProcessCredentials,
  describeProcessCredentials,
  ProcessCredentials
} from './observe/provider-credentials';
import {
  INTERFACE_IDS,
  IngressMode,
  InterfaceId,
  isInterfaceId,
  labelOf,
  SCHEMA_VERSION
} from './core/vocabulary';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Called before a job id the service has not asked about yet costs a scheduler query: the
 * HTTP layer's per-client rate limit (it throws a rate-limited problem).
 */
export type ClaimAdmission = () => void;

/** Scheduler queries about named jobs at once (the service's own allocation has its own one). */
const CLAIM_QUERIES_AT_ONCE = 2;

export interface StartupResult extends Projection {
  manifest: PreparedManifest['manifest'];
}

/** A projection, the observations it was built from, and its JSON once asked for. */
interface ProjectionMemo {
  key: unknown[];
  projection: Projection;
  json?: string;
  /** What startup() answers: the projection with the manifest. */
  result?: StartupResult;
}

export interface InitializeResult {
  status: 200 | 201;
  body: InitializeResponse;
}

export interface ServiceOptions {
  config: ServiceConfig;
  env: Env;
  fileExists?: FileExists;
  /** Test-only hook between the steps of state creation; never reachable from a request. */
  onCreationStep?: StepHook;
  /** How the state's directories are traversed (default auto; tests run `cwd` on Linux). */
  stateTraversal?: DirectoryTraversal;
}

export function parseInterface(raw: unknown): InterfaceId {
  if (raw === undefined || raw === '' || raw === null) {
    throw new ProblemError(
      'missing-interface',
      `Say which interface asks: interface is one of ${INTERFACE_IDS.join(', ')}.`,
      {
        allowedValues: [...INTERFACE_IDS]
      }
    );
  }
  if (typeof raw !== 'string' || !isInterfaceId(raw)) {
    throw new ProblemError(
      'unknown-interface',
      `The interface must be one of ${INTERFACE_IDS.join(', ')} ("web" is the browser interface).`,
      { allowedValues: [...INTERFACE_IDS] }
    );
  }
  return raw;
}

export class StartupService {
  readonly instanceId = randomUUID();
  readonly version = VERSION;
  readonly decision: PlatformDecision;
  readonly adapter: PlatformAdapter;
  readonly manifest: PreparedManifest;
  readonly placement: StatePlacement;
  readonly config: ServiceConfig;
  private readonly inspector: StateInspector;
  private readonly allocation: AllocationEvidence | undefined;
  private readonly allocationProbe:
    SingleFlight<AllocationObservation> | undefined;
  /** The scheduler's answers about jobs callers named (the terminal's allocation), newest last. */
  private readonly claimProbes = new Map<
    string,
    SingleFlight<AllocationObservation>
  >();
  private readonly childEnvs: ChildEnvironments;
  /** Who the scheduler must name as the owner of a job for it to count as this person's. */
  private readonly jobUser: JobUser | undefined;
  /**
   * Scheduler queries about named jobs running at once: a fixed few, so no number of callers
   * or job ids makes more processes (each is a process here and a call on the scheduler's
   * controller, which sites rate-limit).
   */
  private readonly claimQueries = new ConcurrencyLimit(
    CLAIM_QUERIES_AT_ONCE,
    () =>
      new ProblemError(
        'rate-limited',
        `The scheduler is already being asked about ${CLAIM_QUERIES_AT_ONCE} other jobs; try again in 1 s.`,
        { retryAfterSeconds: 1 },
        { 'Retry-After': '1' }
      )
  );
  private readonly runtimeProbe: SingleFlight<RuntimeProbe[]>;
  private readonly identityProbe: SingleFlight<HttpProbe> | undefined;
  private readonly processCredentials: ProcessCredentials;
  private readonly keyringProbe:
    SingleFlight<CredentialObservation> | undefined;
  private readonly mountedSecrets: MountedSecretsObserver;
  private readonly onCreationStep: StepHook | undefined;
  private ingress: IngressObservation | undefined;
  private browserUrlProbe: SingleFlight<string | undefined> | undefined;
  /** The file observations of the current turn of the event loop (see observeFiles). */
  private files:
    | {
        creates: string[];
        project: ProjectPathObservation;
        state: StateInspection;
      }
    | undefined;
  /** The last projection built for each interface, with the observations it came from. */
  private readonly projections = new Map<InterfaceId, ProjectionMemo>();

  constructor(options: ServiceOptions) {
    const { config, env } = options;
    this.config = config;
    const evidence = gatherPlatformEvidence(
      env,
      options.fileExists ?? realFileExists
    );
    this.decision = selectPlatform(evidence);
    this.adapter = adapterFor(this.decision.platform);
    this.manifest = prepareManifest(
      buildManifest(
        this.adapter,
        this.decision,
        config.lowRiskAutomation ?? this.adapter.defaultLowRiskAutomation
      )
    );
    this.placement = this.adapter.placeState(config.projectDir, config.homeDir);
    this.inspector = new StateInspector(
      this.placement,
      config.projectDir,
      options.stateTraversal
    );
    this.onCreationStep = options.onCreationStep;

    this.allocation =
      this.adapter.computeModel === 'batch-allocation'
        ? gatherAllocationEvidence(evidence, env)
        : undefined;
    this.jobUser =
      this.adapter.computeModel === 'batch-allocation'
        ? currentJobUser()
        : undefined;
    // Each child process (scheduler and D-Bus clients) gets only what it needs: no credential
    // of another client, no provider credential.
    const childEnvs = childEnvironments(env);
    this.childEnvs = childEnvs;
    const allocation = this.allocation;
    this.allocationProbe = allocation
      ? new SingleFlight(2000, () =>
          probeAllocation(
            allocation,
            config.probeTimeoutMs * 2,
            childEnvs,
            this.jobUser
          )
        )
      : undefined;
    this.runtimeProbe = new SingleFlight(
      5000,
      () =>
        Promise.all(
          this.adapter.inferenceRuntimes.map(async id => ({
            id,
            ...(await probeHttp(config.runtimeUrls[id], config.probeTimeoutMs))
          }))
        ),
      true
    );
    const identityUrl = config.managedIdentityUrl;
    this.identityProbe =
      identityUrl &&
      this.adapter.credentialBackends.includes('managed-identity')
        ? new SingleFlight(
            5000,
            () => probeHttp(identityUrl, config.probeTimeoutMs),
            true
          )
        : undefined;
    this.processCredentials = classifyProcessCredentials(
      env,
      credentialVariableNames(env)
    );
    this.keyringProbe = this.adapter.credentialBackends.includes(
      'system-keyring'
    )
      ? new SingleFlight(
          5000,
          () => probeSecretService(childEnvs, config.probeTimeoutMs),
          true
        )
      : undefined;
    this.mountedSecrets = new MountedSecretsObserver(config.secretsDir);
  }

  /** Called by the server once it listens, so projections can report the ingress. */
  setIngress(
    ingress: IngressObservation,
    browserUrlProbe?: SingleFlight<string | undefined>
  ): void {
    this.ingress = ingress;
    this.browserUrlProbe = browserUrlProbe;
  }

  /** Starts the slow probes in the background so the first request does not wait for them. */
  warmUp(): void {
    void this.runtimeProbe.get();
    void this.identityProbe?.get();
    void this.keyringProbe?.get();
  }

  private async observeCredentials(): Promise<CredentialObservation[]> {
    const [identity, keyring] = await Promise.all([
      this.identityProbe?.get(),
      this.keyringProbe?.get()
    ]);
    return this.credentialsFrom(identity, keyring);
  }

  private credentialsFrom(
    identity: HttpProbe | undefined,
    keyring: CredentialObservation | undefined
  ): CredentialObservation[] {
    return this.adapter.credentialBackends.map(
      (backend): CredentialObservation => {
        switch (backend) {
          case 'process':
            return {
              backend,
              available: this.processCredentials.provider.length > 0,
              observed: describeProcessCredentials(this.processCredentials)
            };
          case 'mounted-file':
            return this.mountedSecrets.observe();
          case 'system-keyring':
            return keyring as CredentialObservation;
          case 'managed-identity':
            return identity
              ? {
                  backend,
                  available: identity.reachable,
                  observed: `identity endpoint ${identity.observed}`
                }
              : {
                  backend,
                  available: false,
                  observed:
                    'not configured (PROJECT_STARTUP_MANAGED_IDENTITY_URL)'
                };
        }
      }
    );
  }

  /**
   * The project's files as they are now: what initialize would create, the project directory,
   * the state. Requests that arrived together (handled in one turn of the event loop, all read
   * from their sockets before this look) share one look; the next turn looks again, and so does
   * anything after this service changed the state itself. Under load that saves most of the
   * stat calls; a single client sees no difference.
   */
  private observeFiles(): {
    creates: string[];
    project: ProjectPathObservation;
    state: StateInspection;
  } {
    if (this.files === undefined) {
      this.files = {
        creates: this.pathsToCreate(),
        project: observeProjectPath(this.config.projectDir),
        state: this.inspector.inspect()
      };
      setImmediate(() => {
        this.files = undefined;
      });
    }
    return this.files;
  }

  /**
   * Directories initialize would create now, outermost first. Stops at the first component
   * that exists but is no real directory: looking below a symbolic link would follow it.
   */
  private pathsToCreate(): string[] {
    const chain = [...this.placement.parentsToCreate, this.placement.statePath];
    for (let i = 0; i < chain.length; i++) {
      let stat: fs.Stats | undefined;
      try {
        // Absent is the usual answer: say so without the cost of an exception.
        stat = fs.lstatSync(chain[i], { throwIfNoEntry: false });
      } catch {
        stat = undefined;
      }
      if (stat === undefined) {
        return chain.slice(i);
      }
      if (!stat.isDirectory()) {
        return [];
      }
    }
    return [];
  }

  /**
   * The probe of an allocation a caller named: on the cluster, the terminal's allocation is the
   * caller's job, verified with the scheduler, not this process's environment. Elsewhere (or
   * without a claim) undefined: the service's own compute decides. A job id not asked about
   * yet is admitted first (`admitNewClaim` throws a rate-limited problem when the caller has
   * named too many); a known one is answered from its cache.
   */
  private claimProbe(
    claim: AllocationClaim | undefined,
    admitNewClaim: ClaimAdmission | undefined
  ): SingleFlight<AllocationObservation> | undefined {
    if (
      claim === undefined ||
      this.adapter.computeModel !== 'batch-allocation'
    ) {
      return undefined;
    }
    if (
      this.allocation?.scheduler === claim.scheduler &&
      this.allocation.jobId === claim.jobId
    ) {
      // The caller's job is the service's own: one probe, so both always say the same.
      return this.allocationProbe;
    }
    const key = `${claim.scheduler}:${claim.jobId}`;
    let probe = this.claimProbes.get(key);
    if (probe === undefined) {
      admitNewClaim?.();
      // Bounded: a caller naming many jobs only ever costs the newest 32 cached answers.
      if (this.claimProbes.size >= 32) {
        this.claimProbes.delete(this.claimProbes.keys().next().value as string);
      }
      probe = new SingleFlight(2000, () =>
        this.claimQueries.run(() =>
          probeAllocation(
            claim,
            this.config.probeTimeoutMs * 2,
            this.childEnvs,
            this.jobUser
          )
        )
      );
      this.claimProbes.set(key, probe);
    }
    return probe;
  }

  async startup(
    iface: InterfaceId,
    claim?: AllocationClaim,
    admitNewClaim?: ClaimAdmission
  ): Promise<StartupResult> {
    const memo = await this.project(iface, claim, admitNewClaim);
    // One result object per projection: callers read it, none changes it.
    memo.result ??= { ...memo.projection, manifest: this.manifest.manifest };
    return memo.result;
  }

  /**
   * The startup result as JSON: exactly `JSON.stringify(await startup(iface))`. A string at once
   * when no probe has to be waited for, else a promise of it.
   */
  startupJson(
    iface: InterfaceId,
    claim?: AllocationClaim,
    admitNewClaim?: ClaimAdmission
  ): string | Promise<string> {
    const memo = this.project(iface, claim, admitNewClaim);
    return memo instanceof Promise
      ? memo.then(m => this.memoJson(m))
      : this.memoJson(memo);
  }

  /**
   * `JSON.stringify(value)` for a value this service handed out (the manifest, a startup
   * result) when it is known without serializing again, with what it is (the same JSON as the
   * capabilities route's, or the startup route's for that interface); undefined otherwise.
   */
  preparedJson(
    value: unknown
  ):
    | { json: string; kind: 'capabilities' | `startup ${InterfaceId}` }
    | undefined {
    if (value === this.manifest.manifest) {
      return { json: this.manifest.json, kind: 'capabilities' };
    }
    if (value !== null && typeof value === 'object') {
      for (const memo of this.projections.values()) {
        if (memo.result === value) {
          return {
            json: this.memoJson(memo),
            kind: `startup ${memo.projection.interface}`
          };
        }
      }
    }
    return undefined;
  }

  private memoJson(memo: ProjectionMemo): string {
    // The manifest's prepared bytes are spliced in as the last member, not serialized again.
    memo.json ??= `${JSON.stringify(memo.projection).slice(0, -1)},"manifest":${this.manifest.json}}`;
    return memo.json;
  }

  /**
   * Gathers fresh observations on every call; the pure projection (and its JSON) is built
   * again only when an observation differs from the last call's for the same interface. When
   * every probe already has its answer (the usual case: they are cached), no promise is made.
   */
  private project(
    iface: InterfaceId,
    claim: AllocationClaim | undefined,
    admitNewClaim: ClaimAdmission | undefined
  ): ProjectionMemo | Promise<ProjectionMemo> {
    const allocationProbe =
      this.claimProbe(claim, admitNewClaim) ?? this.allocationProbe;
    const allocation = allocationProbe ? allocationProbe.now() : undefined;
    const runtimes = this.runtimeProbe.now();
    const identity = this.identityProbe ? this.identityProbe.now() : undefined;
    const keyring = this.keyringProbe ? this.keyringProbe.now() : undefined;
    const browserUrl = this.browserUrlProbe
      ? this.browserUrlProbe.now()
      : undefined;
    if (
      allocation === NOT_READY ||
      runtimes === NOT_READY ||
      identity === NOT_READY ||
      keyring === NOT_READY ||
      browserUrl === NOT_READY
    ) {
      return this.projectLater(iface, allocationProbe);
    }
    return this.projectFrom(
      iface,
      allocation,
      runtimes,
      this.credentialsFrom(identity, keyring),
      browserUrl
    );
  }

  /** project() when a probe is still running: waits for the answers, as the first request does. */
  private async projectLater(
    iface: InterfaceId,
    allocationProbe: SingleFlight<AllocationObservation> | undefined
  ): Promise<ProjectionMemo> {
    const [allocation, runtimes, credentials, browserUrl] = await Promise.all([
      allocationProbe?.get(),
      this.runtimeProbe.get(),
      this.observeCredentials(),
      this.browserUrlProbe?.get()
    ]);
    return this.projectFrom(
      iface,
      allocation,
      runtimes,
      credentials,
      browserUrl
    );
  }

  private projectFrom(
    iface: InterfaceId,
    allocation: AllocationObservation | undefined,
    runtimes: RuntimeProbe[],
    credentials: CredentialObservation[],
    browserUrl: string | undefined
  ): ProjectionMemo {
    const { creates, project, state } = this.observeFiles();
    // Everything buildProjection reads that can change while the service runs. Probe results
    // are compared by identity (a cached probe answers the same object); the rest by value.
    const key: unknown[] = [
      allocation,
      runtimes,
      browserUrl,
      this.ingress,
      creates.join('\0'),
      project.ok,
      project.observed,
      project.remedy,
      state.kind,
      state.detail,
      state.kind === 'unsafe' ? state.remedy : undefined,
      state.kind === 'initialized' ? state.record : undefined
    ];
    for (const c of credentials) {
      key.push(c.backend, c.available, c.observed);
    }
    const last = this.projections.get(iface);
    if (
      last &&
      last.key.length === key.length &&
      last.key.every((value, i) => value === key[i])
    ) {
      return last;
    }
    const memo: ProjectionMemo = {
      key,
      projection: buildProjection({
        adapter: this.adapter,
        decision: this.decision,
        iface,
        baseUrl: this.config.baseUrl,
        projectPath: this.config.projectDir,
        statePath: this.placement.statePath,
        creates,
        project,
        state,
        approvedStorage: this.config.approvedStorage,
        compute: this.adapter.assessCompute(allocation),
        ingress: this.ingress,
        browserUrl,
        credentials,
        runtimes
      })
    };
    this.projections.set(iface, memo);
    return memo;
  }

  /**
   * Creates the state after a confirmation. `via.channel` is what the caller's transport
   * observed (a browser session, the command line's TTY prompt, or a plain API call); the
   * record's method comes from it, never from the body.
   */
  async initialize(
    body: unknown,
    via: {
      ingress: IngressMode | 'command-line';
      channel?: ConfirmationChannel;
      admitNewClaim?: ClaimAdmission;
    }
  ): Promise<InitializeResult> {
    const request = parseInitializeBody(body);
    const allowed = confirmationInterfaces(this.adapter);
    if (this.ingress && !this.ingress.offered) {
      throw new ProblemError(
        'confirmation-not-allowed',
        `The ${labelOf(this.adapter.id)} does not offer the ${labelOf(this.ingress.mode)} ingress, so nothing is changed through it. Confirm through ${allowed.map(labelOf).join(' or ')}.`,
        { allowedInterfaces: allowed }
      );
    }
    // Nothing observed is the least: a plain API call.
    const decision = decideConfirmation(
      this.adapter,
      request.interface,
      via.channel ?? { kind: 'api' },
      {
        platform: labelOf(this.adapter.id),
        allowed: allowed.map(labelOf).join(' or '),
        iface: labelOf(request.interface)
      }
    );
    if (!decision.allowed) {
      throw new ProblemError('confirmation-not-allowed', decision.detail, {
        allowedInterfaces: allowed
      });
    }
    const projection = await this.startup(
      request.interface,
      request.allocation,
      via.admitNewClaim
    );
    const unsafeState = projection.readinessChecks.find(
      c => c.id === 'state-path' && c.status === 'fail'
    );
    if (unsafeState) {
      throw new ProblemError('state-unsafe', unsafeState.observed, {
        remedy: unsafeState.remedy,
        phase: projection.phase,
        nextAction: projection.nextAction
      });
    }
    if (
      projection.phase !== 'awaiting-confirmation' &&
      projection.phase !== 'ready'
    ) {
      throw new ProblemError(
        'wrong-phase',
        `Initialization needs phase awaiting-confirmation; the project is in phase ${projection.phase}. ${projection.nextAction.detail}`,
        { phase: projection.phase, nextAction: projection.nextAction }
      );
    }
    if (
      request.confirm.projectPath !== projection.projectPath ||
      request.confirm.statePath !== projection.statePath
    ) {
      throw new ProblemError(
        'confirmation-stale',
        'The confirmed paths differ from the ones the service shows now. Reload the startup projection and confirm again.',
        {
          current: {
            projectPath: projection.projectPath,
            statePath: projection.statePath
          }
        }
      );
    }
    const record: InitializationRecord = {
      schemaVersion: SCHEMA_VERSION,
      kind: 'project-startup-state',
      projectPath: projection.projectPath,
      statePath: projection.statePath,
      platform: this.adapter.id,
      confirmation: {
        interface: request.interface,
        method: decision.method,
        ingress: via.ingress,
        confirmedAt: new Date().toISOString()
      },
      service: { version: this.version }
    };
    let outcome: { created: boolean; record: InitializationRecord };
    try {
      outcome = createState(
        this.placement,
        this.inspector,
        record,
        this.onCreationStep
      );
    } catch (error) {
      throw fileSystemProblem(error, this.placement.statePath);
    } finally {
      // This service changed the files: whatever it saw of them before is out of date.
      this.files = undefined;
    }
    const after = await this.startup(request.interface, request.allocation);
    return {
      status: outcome.created ? 201 : 200,
      body: {
        schemaVersion: SCHEMA_VERSION,
        created: outcome.created,
        record: outcome.record,
        phase: after.phase,
        nextAction: after.nextAction
      }
    };
  }
}

interface InitializeRequest {
  interface: InterfaceId;
  /** The caller's own allocation (the terminal's job on the cluster), verified with the scheduler. */
  allocation: AllocationClaim | undefined;
  confirm: { projectPath: string; statePath: string };
}

export function parseInitializeBody(body: unknown): InitializeRequest {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw validationFailed([{ pointer: '', detail: 'must be a JSON object' }]);
  }
  const b = body as Record<string, unknown>;
  const errors: { pointer: string; detail: string }[] = [];
  for (const key of Object.keys(b)) {
    if (!['interface', 'confirm', 'method', 'allocation'].includes(key)) {
      errors.push({
        pointer: `/${escapePointer(key)}`,
        detail: 'is not a known field'
      });
    }
  }
  const iface = parseInterface(b.interface);
  const confirm = b.confirm as Record<string, unknown> | undefined;
  if (
    confirm === null ||
    typeof confirm !== 'object' ||
    Array.isArray(confirm)
  ) {
    errors.push({
      pointer: '/confirm',
      detail:
        'must be an object with the projectPath and statePath you were shown'
    });
  } else {
    for (const key of ['projectPath', 'statePath']) {
      if (typeof confirm[key] !== 'string') {
        errors.push({ pointer: `/confirm/${key}`, detail: 'must be a string' });
      }
    }
    for (const key of Object.keys(confirm)) {
      if (key !== 'projectPath' && key !== 'statePath') {
        errors.push({
          pointer: `/confirm/${escapePointer(key)}`,
          detail: 'is not a known field'
        });
      }
    }
  }
  // Kept for the clients that send it: any string, ignored (the transport decides the method).
  if (b.method !== undefined && typeof b.method !== 'string') {
    errors.push({ pointer: '/method', detail: 'must be a string' });
  }
  let allocation: AllocationClaim | undefined;
  try {
    allocation = parseAllocationClaim(b.allocation, '/allocation');
  } catch {
    errors.push({
      pointer: '/allocation',
      detail: 'must be <scheduler>:<job id>, such as slurm:1234'
    });
  }
  if (errors.length > 0) {
    throw validationFailed(errors);
  }
  const c = confirm as { projectPath: string; statePath: string };
  return {
    interface: iface,
    allocation,
    confirm: { projectPath: c.projectPath, statePath: c.statePath }
  };
}

function escapePointer(key: string): string {
  return key.slice(0, 64).replace(/~/g, '~0').replace(/\//g, '~1');
}

function validationFailed(
  errors: { pointer: string; detail: string }[]
): ProblemError {
  return new ProblemError(
    'validation-failed',
    `The request body is not what initialize takes: ${errors.map(e => `${e.pointer || '(body)'} ${e.detail}`).join('; ')}.`,
    { errors }
  );
}

const ERRNO_TEXT: Readonly<Record<string, string>> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENOSPC: 'no space left on the device',
  EROFS: 'the file system is read-only',
  ENOENT: 'a directory above it does not exist',
  ENOTDIR: 'a path above it is not a directory',
  ELOOP: 'a symbolic link is in the way',
  EDQUOT: 'the disk quota is exhausted'
};

function fileSystemProblem(error: unknown, statePath: string): ProblemError {
  if (error instanceof ProblemError) {
    return error;
  }
  const code = (error as NodeJS.ErrnoException).code ?? '';
  const reason = ERRNO_TEXT[code];
  if (code === 'ELOOP') {
    return new ProblemError(
      'state-unsafe',
      `Could not create ${statePath}: ${reason}.`,
      {
        remedy: `Inspect ${statePath} and move the link aside; the service never follows links.`
      }
    );
  }
  return new ProblemError(
    'internal',
    reason
      ? `Could not create ${statePath}: ${reason}.`
      : `Could not create ${statePath}.`,
    code ? { errno: code } : {}
  );
}
