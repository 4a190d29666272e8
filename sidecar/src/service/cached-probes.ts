// The service's slow observations, each behind a cache (SingleFlight): the allocation (its own
// and the ones callers name), the inference runtimes, the credential backends. StartupService
// asks them; nothing here decides anything.
import { DEFAULT_RUNTIME_URLS, type ServiceConfig } from '../config/config';
import type {
  AllocationEvidence,
  CredentialObservation,
  HttpProbe
} from '../core/observations';
import { siteSourceName } from '../core/site-names';
import type { PlatformEvidence } from '../core/platforms/rules';
import { gatherAllocationEvidence } from '../observe/evidence';
import type {
  AllocationObservation,
  PlatformAdapter
} from '../core/platforms/types';
import { ProblemError } from '../core/problems';
import {
  ChildEnvironments,
  childEnvironments,
  ConcurrencyLimit,
  credentialVariableNames,
  currentJobUser,
  MountedSecretsObserver,
  probeAllocation,
  probeHttp,
  probeSecretService,
  SingleFlight
} from '../observe/probes';
import type { AllocationClaim, JobUser } from '../core/allocation-claim';
import type { RuntimeProbe } from '../core/projection';
import {
  classifyProcessCredentials,
  describeProcessCredentials,
  ProcessCredentials
} from '../observe/provider-credentials';
import type { Env } from '../core/env';

/**
 * Called before a job id the service has not asked about yet costs a scheduler query: the
 * HTTP layer's per-client rate limit (it throws a rate-limited problem).
 */
export type ClaimAdmission = () => void;

/** Scheduler queries about named jobs at once (the service's own allocation has its own one). */
const CLAIM_QUERIES_AT_ONCE = 2;

/** Cached answers about jobs callers named: a caller naming many jobs costs only the newest. */
const CLAIMS_KEPT = 32;

export class ServiceProbes {
  readonly allocationProbe: SingleFlight<AllocationObservation> | undefined;
  readonly runtimeProbe: SingleFlight<RuntimeProbe[]>;
  readonly identityProbe: SingleFlight<HttpProbe> | undefined;
  readonly keyringProbe: SingleFlight<CredentialObservation> | undefined;
  private readonly allocation: AllocationEvidence | undefined;
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
  private readonly processCredentials: ProcessCredentials;
  private readonly mountedSecrets: MountedSecretsObserver;

  constructor(
    private readonly adapter: PlatformAdapter,
    evidence: PlatformEvidence,
    env: Env,
    private readonly config: ServiceConfig
  ) {
    const batch = adapter.computeModel === 'batch-allocation';
    this.allocation = batch
      ? gatherAllocationEvidence(evidence, env)
      : undefined;
    this.jobUser = batch ? currentJobUser() : undefined;
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
          adapter.inferenceRuntimes.map(async id => ({
            id,
            configured: config.runtimeUrls[id] !== DEFAULT_RUNTIME_URLS[id],
            ...(await probeHttp(config.runtimeUrls[id], config.probeTimeoutMs))
          }))
        ),
      true
    );
    const identityUrl = config.managedIdentityUrl;
    this.identityProbe =
      identityUrl && adapter.credentialBackends.includes('managed-identity')
        ? new SingleFlight(
            5000,
            () => probeHttp(identityUrl, config.probeTimeoutMs),
            true
          )
        : undefined;
    this.processCredentials = classifyProcessCredentials(
      env,
      credentialVariableNames(env),
      adapter.modelSources.includes('institution-ai-gateway') &&
        siteSourceName('institution-ai-gateway', config.modelSources).arranged
    );
    this.keyringProbe = adapter.credentialBackends.includes('system-keyring')
      ? new SingleFlight(
          5000,
          () => probeSecretService(childEnvs, config.probeTimeoutMs),
          true
        )
      : undefined;
    this.mountedSecrets = new MountedSecretsObserver(config.secretsDir);
  }

  /** Starts the slow probes in the background so the first request does not wait for them. */
  warmUp(): void {
    void this.runtimeProbe.get();
    void this.identityProbe?.get();
    void this.keyringProbe?.get();
  }

  async observeCredentials(): Promise<CredentialObservation[]> {
    const [identity, keyring] = await Promise.all([
      this.identityProbe?.get(),
      this.keyringProbe?.get()
    ]);
    return this.credentialsFrom(identity, keyring);
  }

  credentialsFrom(
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
              configured: this.processCredentials.provider.length > 0,
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
                  configured: true,
                  observed: `identity endpoint ${identity.observed}`
                }
              : {
                  backend,
                  available: false,
                  configured: false,
                  observed:
                    'not configured (PROJECT_STARTUP_MANAGED_IDENTITY_URL)'
                };
        }
      }
    );
  }

  /**
   * The probe of an allocation a caller named: on the cluster, the terminal's allocation is the
   * caller's job, verified with the scheduler, not this process's environment. Elsewhere (or
   * without a claim) undefined: the service's own compute decides. A job id not asked about
   * yet is admitted first (`admitNewClaim` throws a rate-limited problem when the caller has
   * named too many); a known one is answered from its cache.
   */
  claimProbe(
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
      if (this.claimProbes.size >= CLAIMS_KEPT) {
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
}
