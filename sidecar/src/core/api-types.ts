// The shapes of what the service sends and accepts, as TypeScript: generated from
// sidecar/schemas/*.json (through the OpenAPI document, by `npm run api:generate`) into
// sidecar/schemas/api-types.d.ts, so a schema and the code that fills it cannot drift apart.
// Types only: nothing here exists at run time.
import type { components } from '../../schemas/api-types';

type Schemas = components['schemas'];

export type Manifest = Schemas['Manifest'];
export type ModelSourceValue = Schemas['ManifestModelSourceValue'];
export type StartupProjection = Schemas['StartupProjection'];
export type NextAction = Schemas['StartupProjectionNextAction'];
export type ReadinessCheck = Schemas['StartupProjectionReadinessCheck'];
export type ComputeStatus = Schemas['StartupProjectionCompute'];
export type CheckId = Schemas['StartupProjectionCheckId'];
export type InitializeRequestBody = Schemas['InitializeRequest'];
export type InitializeResponse = Schemas['InitializeResponse'];
export type InitializationRecord = Schemas['InitializationRecord'];
export type Problem = Schemas['Problem'];
export type Health = Schemas['Health'];
