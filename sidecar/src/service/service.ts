// The service core shared by the HTTP layer and the command line: evidence is gathered and the
// platform selected once; each projection gathers fresh observations and applies the pure rules.
import { randomUUID } from 'node:crypto';
import type { ServiceConfig } from '../config/config';
import type {
  CredentialObservation,
  InitializationRecord,
  ProjectPathObservation,
  StateInspection
} from '../core/observations';
import {
  FileExists,
  gatherPlatformEvidence,
  realFileExists
} from '../observe/evidence';
import {
  buildManifest,
  modelSourcesOf,
  PreparedManifest,
  prepareManifest
} from '../core/manifest';
import { adapterFor } from '../core/platforms';
import {
  PLATFORM_SETTING,
  PlatformDecision,
  selectPlatform,
  siteFilePlatformSetting
} from '../core/platforms/rules';
import type {
  AllocationObservation,
  PlatformAdapter,
  StatePlacement
} from '../core/platforms/types';
import { ProblemError } from '../core/problems';
import {
  directoryIdentity,
  DirectoryIdentity,
  NOT_READY,
  observeProjectPath,
  SingleFlight
} from '../observe/probes';
import { lstatOnce } from '../observe/lstat';
import {
  ConfirmationChannel,
  confirmationInterfaces,
  decideConfirmation
} from '../core/confirmation';
import type { AllocationClaim } from '../core/allocation-claim';
import {
  buildProjection,
  IngressObservation,
  Projection,
  ProjectionInputs,
  RuntimeProbe,
  sameProjectionInputs
} from '../core/projection';
import type { InitializeResponse } from '../core/api-types';
import { parseInitializeRequest } from '../core/requests';
import { fileSystemProblem, refuseUnconfirmable } from '../core/initialization';
import {
  createState,
  DirectoryTraversal,
  pathsToCreate,
  StateInspector,
  StepHook
} from '../observe/state';
import { VERSION } from './version';
import { ClaimAdmission, ServiceProbes } from './cached-probes';
import {
  IngressMode,
  InterfaceId,
  labelOf,
  SCHEMA_VERSION
} from '../core/vocabulary';
import type { Env } from '../core/env';

export type { ClaimAdmission } from './cached-probes';

export interface StartupResult extends Projection {
  manifest: PreparedManifest['manifest'];
}

/** A projection, the observations it was built from, and its JSON once asked for. */
interface ProjectionMemo {
  /** What the projection was built from: the cache key (sameProjectionInputs). */
  inputs: ProjectionInputs;
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

export class StartupService {
  readonly instanceId = randomUUID();
  readonly version = VERSION;
  readonly decision: PlatformDecision;
  readonly adapter: PlatformAdapter;
  readonly manifest: PreparedManifest;
  readonly placement: StatePlacement;
  readonly config: ServiceConfig;
  private readonly inspector: StateInspector;
  private readonly probes: ServiceProbes;
  private readonly onCreationStep: StepHook | undefined;
  /** The project directory this service started with (see observeProjectPath). */
  private readonly projectIdentity: DirectoryIdentity | undefined;
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
    const gathered = gatherPlatformEvidence(
      env,
      options.fileExists ?? realFileExists
    );
    // The platform setting is the variable's, else the site configuration file's (config.ts).
    const platformOrigin = config.origins[PLATFORM_SETTING];
    const evidence = {
      ...gathered,
      operatorSetting: config.platform ?? gathered.operatorSetting,
      ...(config.platform !== undefined && platformOrigin?.source === 'file'
        ? { operatorSettingName: siteFilePlatformSetting(platformOrigin.path) }
        : {})
    };
    this.decision = selectPlatform(evidence);
    this.adapter = adapterFor(this.decision.platform);
    this.manifest = prepareManifest(
      buildManifest(
        this.adapter,
        this.decision,
        config.lowRiskAutomation ?? this.adapter.defaultLowRiskAutomation,
        config.modelSources
      )
    );
    this.placement = this.adapter.placeState(config.projectDir, config.homeDir);
    this.inspector = new StateInspector(
      this.placement,
      config.projectDir,
      options.stateTraversal
    );
    this.onCreationStep = options.onCreationStep;
    this.projectIdentity = directoryIdentity(config.projectDir);

    this.probes = new ServiceProbes(this.adapter, evidence, env, config);
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
    this.probes.warmUp();
  }

  /**
   * The project's files as they are now: what initialize would create, the project directory,
   * the state. Requests that arrived together (handled in one turn of the event loop, all read
   * from their sockets before this look) share one look; the next turn looks again, and so does
   * anything after this service changed the state itself. Under load that saves most of the
   * stat calls; a single client sees no difference. Within a look each path is asked once.
   */
  private observeFiles(): {
    creates: string[];
    project: ProjectPathObservation;
    state: StateInspection;
  } {
    if (this.files === undefined) {
      const lstat = lstatOnce();
      this.files = {
        creates: pathsToCreate(this.placement, lstat),
        project: observeProjectPath(
          this.config.projectDir,
          this.projectIdentity,
          lstat
        ),
        state: this.inspector.inspect(lstat)
      };
      setImmediate(() => {
        this.files = undefined;
      });
    }
    return this.files;
  }

  async startup(
    iface: InterfaceId,
    claim?: AllocationClaim,
    admitNewClaim?: ClaimAdmission
  ): Promise<StartupResult> {
    return this.memoResult(await this.project(iface, claim, admitNewClaim));
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

  private memoResult(memo: ProjectionMemo): StartupResult {
    // One result object per projection: callers read it, none changes it.
    memo.result ??= { ...memo.projection, manifest: this.manifest.manifest };
    return memo.result;
  }

  private memoJson(memo: ProjectionMemo): string {
    // Serialized once per projection, which changes only when an observation did.
    memo.json ??= JSON.stringify(this.memoResult(memo));
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
      this.probes.claimProbe(claim, admitNewClaim) ??
      this.probes.allocationProbe;
    const allocation = allocationProbe ? allocationProbe.now() : undefined;
    const runtimes = this.probes.runtimeProbe.now();
    const identity = this.probes.identityProbe
      ? this.probes.identityProbe.now()
      : undefined;
    const keyring = this.probes.keyringProbe
      ? this.probes.keyringProbe.now()
      : undefined;
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
      this.probes.credentialsFrom(identity, keyring),
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
      this.probes.runtimeProbe.get(),
      this.probes.observeCredentials(),
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
    const inputs: ProjectionInputs = {
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
      modelSources: modelSourcesOf(this.manifest.manifest),
      runtimes
    };
    const last = this.projections.get(iface);
    if (last && sameProjectionInputs(last.inputs, inputs)) {
      return last;
    }
    const memo: ProjectionMemo = {
      inputs,
      projection: buildProjection(inputs)
    };
    this.projections.set(iface, memo);
    return memo;
  }

  /**
   * How the confirmation came, as the record names it; a confirmation-not-allowed problem when
   * this ingress changes nothing or this interface may not confirm through this channel.
   */
  private confirmationMethod(
    iface: InterfaceId,
    channel: ConfirmationChannel | undefined
  ): InitializationRecord['confirmation']['method'] {
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
      iface,
      channel ?? { kind: 'api' },
      {
        platform: labelOf(this.adapter.id),
        allowed: allowed.map(labelOf).join(' or '),
        iface: labelOf(iface)
      }
    );
    if (!decision.allowed) {
      throw new ProblemError('confirmation-not-allowed', decision.detail, {
        allowedInterfaces: allowed
      });
    }
    return decision.method;
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
    const request = parseInitializeRequest(body);
    const method = this.confirmationMethod(request.interface, via.channel);
    const projection = await this.startup(
      request.interface,
      request.allocation,
      via.admitNewClaim
    );
    refuseUnconfirmable(projection, request.confirm);
    const record: InitializationRecord = {
      schemaVersion: SCHEMA_VERSION,
      kind: 'project-startup-state',
      projectPath: projection.projectPath,
      statePath: projection.statePath,
      platform: this.adapter.id,
      confirmation: {
        interface: request.interface,
        method,
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
