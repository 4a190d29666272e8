import { labelOf } from '../vocabulary';
import { placeStateOn } from './placement';
import {
  AllocationObservation,
  ComputeStatus,
  PlatformAdapter,
  SchedulerId
} from './types';

/** The command that gets an interactive allocation from each scheduler. */
export const ALLOCATION_COMMANDS: Readonly<Record<SchedulerId, string>> = {
  slurm: 'salloc --nodes=1 --time=01:00:00',
  pbs: 'qsub -I -l select=1 -l walltime=01:00:00',
  lsf: 'bsub -Is -W 60 $SHELL',
  flux: 'flux alloc -N1 -t 60m'
};

/** An HPC login node or a batch job: work needs a live scheduler allocation. */
export const clusterPlatform: PlatformAdapter = {
  id: 'cluster',
  interfaces: ['terminal'],
  browserRoute: 'unavailable',
  ingressModes: ['direct-loopback', 'trusted-proxy'],
  defaultIngress: 'direct-loopback',
  inferenceRuntimes: ['high-throughput-serving'],
  computeModel: 'batch-allocation',
  durableStorage: 'approved-project-storage',
  credentialBackends: ['process', 'mounted-file'],
  modelSources: ['service-managed', 'institution-ai-gateway'],
  builtInConnections: ['institution-ai-gateway'],
  defaultLowRiskAutomation: 'denied',
  requiresApprovedStorage: true,
  placeState(projectPath, homeDir) {
    return placeStateOn('cluster', projectPath, homeDir);
  },
  assessCompute(allocation) {
    return assessAllocation(allocation);
  }
};

function assessAllocation(
  allocation: AllocationObservation | undefined
): ComputeStatus {
  const base = {
    model: 'batch-allocation' as const,
    label: labelOf('batch-allocation')
  };
  const scheduler = allocation?.scheduler ?? 'slurm';
  const command = ALLOCATION_COMMANDS[scheduler];
  if (!allocation || allocation.jobId === undefined) {
    return {
      ...base,
      satisfied: false,
      detail: `No batch allocation: this looks like a login node. Get an allocation with \`${command}\` and run again inside it.`,
      command
    };
  }
  const summary = {
    scheduler: allocation.scheduler,
    jobId: allocation.jobId,
    live: allocation.live,
    ...(allocation.state ? { state: allocation.state } : {})
  };
  if (allocation.otherOwner !== undefined) {
    return {
      ...base,
      satisfied: false,
      detail: `Job ${allocation.jobId} is not your allocation: ${allocation.detail}. Run inside a job of your own, or get one with \`${command}\`.`,
      allocation: summary,
      command
    };
  }
  if (allocation.live === false) {
    return {
      ...base,
      satisfied: false,
      detail: `Allocation ${allocation.jobId} is not live: ${allocation.detail}. Get a new one with \`${command}\`.`,
      allocation: summary,
      command
    };
  }
  // Liveness unknown (no scheduler client here): the allocation variable is the best evidence.
  return {
    ...base,
    satisfied: true,
    detail: allocation.detail,
    allocation: summary
  };
}
