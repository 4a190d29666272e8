// Server calls of the extension. Every request goes through ServerConnection.makeRequest, so it
// carries Jupyter's token and XSRF headers; the sidecar is reached through the notebook-server
// proxy at {base_url}project/ (design.md "Paths, ingress and authentication").
import { URLExt } from '@jupyterlab/coreutils';
import { ServerConnection } from '@jupyterlab/services';
import { interpretInitialize, interpretStartup, networkFailure, RawResponse } from './responses';
import {
  API_PREFIX,
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
  return URLExt.join(settings.baseUrl, API_PREFIX, STARTUP_ENDPOINT) + URLExt.objectToQueryString({ interface: INTERFACE });
}

/** {base_url}project/initialize */
export function initializeUrl(settings: ServerConnection.ISettings): string {
  return URLExt.join(settings.baseUrl, API_PREFIX, INITIALIZE_ENDPOINT);
}

type Sent = { ok: true; raw: RawResponse } | { ok: false; error: unknown };

async function send(url: string, init: RequestInit, settings: ServerConnection.ISettings): Promise<Sent> {
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
      text
    }
  };
}

/** GET the startup projection for the notebook interface. Never throws. */
export async function fetchStartup(settings: ServerConnection.ISettings): Promise<Result<StartupProjection>> {
  const url = startupUrl(settings);
  const sent = await send(url, { method: 'GET', headers: { Accept: 'application/json' } }, settings);
  return sent.ok ? interpretStartup(sent.raw) : { ok: false, failure: networkFailure(url, sent.error) };
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
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify(body)
    },
    settings
  );
  return sent.ok ? interpretInitialize(sent.raw) : { ok: false, failure: networkFailure(url, sent.error) };
}

/** The client the model uses, bound to one set of server settings. */
export function createClient(settings: ServerConnection.ISettings): IStartupClient {
  return {
    startup: () => fetchStartup(settings),
    initialize: body => postInitialize(body, settings)
  };
}
