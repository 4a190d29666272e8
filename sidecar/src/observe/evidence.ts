// Gathers platform evidence from the environment and the file system: names only, read once.
import * as fs from 'node:fs';
import {
  PLATFORM_SETTING,
  PlatformEvidence,
  SIGNAL_DEFINITIONS
} from '../core/platforms/rules';
import { ALLOCATION_VARIABLES, AllocationEvidence } from '../core/observations';
import type { Env } from '../core/env';

export type FileExists = (absolutePath: string) => boolean;

export const realFileExists: FileExists = p => {
  try {
    fs.statSync(p);
    return true;
  } catch {
    return false;
  }
};

export function gatherPlatformEvidence(
  env: Env,
  fileExists: FileExists = realFileExists
): PlatformEvidence {
  const present = new Set<string>();
  for (const definition of SIGNAL_DEFINITIONS) {
    const seen =
      definition.kind === 'env'
        ? env[definition.name] !== undefined && env[definition.name] !== ''
        : fileExists(definition.name);
    if (seen) {
      present.add(definition.name);
    }
  }
  const setting = env[PLATFORM_SETTING];
  return {
    present,
    operatorSetting:
      setting === undefined || setting === '' ? undefined : setting
  };
}

export function gatherAllocationEvidence(
  evidence: PlatformEvidence,
  env: Env
): AllocationEvidence | undefined {
  for (const [name, scheduler] of ALLOCATION_VARIABLES) {
    const value = env[name];
    if (value !== undefined && value !== '') {
      return { scheduler, jobId: value };
    }
  }
  if (
    evidence.present.has('SLURM_CONF') ||
    evidence.present.has('/etc/slurm/slurm.conf')
  ) {
    return { scheduler: 'slurm' };
  }
  return undefined;
}
