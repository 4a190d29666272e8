// What the observers (observe/) find and the decisions (core/) read: the shapes only, so that
// the pure layer names its inputs without importing the code that gathers them.
import type { InitializationRecord as GeneratedRecord } from './api-types';
import type { SchedulerId } from './platforms/types';
import type { CredentialBackendId } from './vocabulary';

/** The allocation the environment names, first scheduler first; or the login node's scheduler. */
export interface AllocationEvidence {
  scheduler: SchedulerId;
  jobId?: string;
}

/** The variables a scheduler sets inside an allocation, in the order they are believed. */
export const ALLOCATION_VARIABLES: ReadonlyArray<[string, SchedulerId]> = [
  ['SLURM_JOB_ID', 'slurm'],
  ['PBS_JOBID', 'pbs'],
  ['LSB_JOBID', 'lsf'],
  ['FLUX_JOB_ID', 'flux']
];

/** How initialize was confirmed, as the record stores it. */
export type ConfirmationMethod = GeneratedRecord['confirmation']['method'];

/** What initialize records: sidecar/schemas/initialization-record.schema.json. */
export type InitializationRecord = GeneratedRecord;

/** The private state as read, never written, by a projection. */
export type StateInspection =
  | { kind: 'absent'; detail: string }
  | { kind: 'initialized'; record: InitializationRecord; detail: string }
  | { kind: 'unsafe'; detail: string; remedy: string };

/** The project directory as observed. */
export interface ProjectPathObservation {
  ok: boolean;
  observed: string;
  remedy?: string;
}

/** One bounded HTTP GET's outcome. */
export interface HttpProbe {
  /** The URL without query or credentials, safe to show. */
  url: string;
  reachable: boolean;
  observed: string;
}

/** Whether one credential backend answered. */
export interface CredentialObservation {
  backend: CredentialBackendId;
  available: boolean;
  /** Whether the site set this backend up; one it did not is no warning when it is missing. */
  configured: boolean;
  observed: string;
}
