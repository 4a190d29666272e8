// Server calls of the extension. Every request goes through ServerConnection.makeRequest, so it
// carries Jupyter's token and XSRF headers; the sidecar is reached through the notebook-server
// proxy at {base_url}project/ (docs/http-api.md, "Authentication").
import { URLExt } from '@jupyterlab/coreutils';
import { ServerConnection } from '@jupyterlab/services';
import {
  interpretDiagnostics,
  interpretInitialize,
  interpretStartup,
  networkFailure,
  IRawResponse,
  wantsDiagnostics
} from './responses';
import {
  API_PREFIX,
  Diagnostics,
  DIAGNOSTICS_ENDPOINT,
  Failure,
  INITIALIZE_ENDPOINT,
  InitializeRequest,
  InitializeResponse,
  INTERFACE,
  IStartupClient,
  Result,
  STARTUP_ENDPOINT,
  StartupProjection
} from './tokens';

/** {base_url}project/startup?interface=notebook */
export function startupUrl(settings: ServerConnection.ISettings): string {
  return (
    URLExt.join(settings.baseUrl, API_PREFIX, STARTUP_ENDPOINT) +
    URLExt.objectToQueryString({ interface: INTERFACE })
  );
}

/** {base_url}project/initialize */
export function initializeUrl(settings: ServerConnection.ISettings): string {
  return URLExt.join(settings.baseUrl, API_PREFIX, INITIALIZE_ENDPOINT);
}

/** {base_url}api/project-startup/diagnostics */
export function diagnosticsUrl(settings: ServerConnection.ISettings): string {
  return URLExt.join(settings.baseUrl, DIAGNOSTICS_ENDPOINT);
}

type Sent = { ok: true; raw: IRawResponse } | { ok: false; error: unknown };

async function send(
  url: string,
  init: RequestInit,
  settings: ServerConnection.ISettings
): Promise<Sent> {
  let response: Response;
  try {
    response = await ServerConnection.makeRequest(url, init, settings);
  } catch (error) {
    return { ok: false, error };
  }
  let text = '';
  try {
    text = await response.text();
  } catch (error) {
    return { ok: false, error };
  }
  return {
    ok: true,
    raw: {
      url,
      status: response.status,
      statusText: response.statusText,
      contentType: response.headers.get('Content-Type') ?? '',
      text,
      etag: response.headers.get('ETag') ?? undefined
    }
  };
}

/** GET the server extension's diagnostics. Never throws. */
export async function fetchDiagnostics(
  settings: ServerConnection.ISettings
): Promise<Diagnostics> {
  const url = diagnosticsUrl(settings);
  const sent = await send(
    url,
    { method: 'GET', headers: { Accept: 'application/json' } },
    settings
  );
  if (!sent.ok) {
    return {
      kind: 'failed',
      url,
      reason:
        sent.error instanceof Error ? sent.error.message : String(sent.error)
    };
  }
  return interpretDiagnostics(sent.raw);
}

/** A failure where the sidecar did not answer gets the real cause from the diagnostics route. */
async function withDiagnostics<T>(
  result: Result<T>,
  settings: ServerConnection.ISettings
): Promise<Result<T>> {
  if (result.ok || !wantsDiagnostics(result.failure)) {
    return result;
  }
  const diagnostics = await fetchDiagnostics(settings);
  return { ok: false, failure: { ...result.failure, diagnostics } as Failure };
}

/** The last startup answer and its ETag: what an empty 304 stands for. */
export interface IStartupValidator {
  etag: string;
  result: Result<StartupProjection>;
}

/**
 * GET the startup projection for the notebook interface. Never throws. With `known` (the last
 * answer and its ETag) it asks with If-None-Match, and the service's empty 304 means that very
 * answer again: an open panel's poll moves no projection through the proxy while nothing
 * changed. A 304 without `known` is not the service's answer.
 */
export async function fetchStartup(
  settings: ServerConnection.ISettings,
  known?: IStartupValidator
): Promise<Result<StartupProjection>> {
  const url = startupUrl(settings);
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (known) {
    headers['If-None-Match'] = known.etag;
  }
  const sent = await send(url, { method: 'GET', headers }, settings);
  if (sent.ok && sent.raw.status === 304 && known) {
    return known.result;
  }
  return withDiagnostics(
    sent.ok
      ? interpretStartup(sent.raw)
      : { ok: false, failure: networkFailure(url, sent.error) },
    settings
  );
}

/** POST the confirmation. Never throws. */
export async function postInitialize(
  body: InitializeRequest,
  settings: ServerConnection.ISettings
): Promise<Result<InitializeResponse>> {
  const url = initializeUrl(settings);
  const sent = await send(
    url,
    {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/json'
      },
      body: JSON.stringify(body)
    },
    settings
  );
  return withDiagnostics(
    sent.ok
      ? interpretInitialize(sent.raw)
      : { ok: false, failure: networkFailure(url, sent.error) },
    settings
  );
}

/**
 * The client the model uses, bound to one set of server settings. It keeps the last good
 * startup answer with its ETag for revalidation; any other answer forgets it.
 */
export function createClient(
  settings: ServerConnection.ISettings
): IStartupClient {
  let known: IStartupValidator | undefined;
  return {
    startup: async () => {
      const asked = known;
      const result = await fetchStartup(settings, asked);
      if (result !== asked?.result) {
        known =
          result.ok && result.etag ? { etag: result.etag, result } : undefined;
      }
      return result;
    },
    initialize: body => postInitialize(body, settings)
  };
}
