// What the command line says about reaching the service: serve's banner and `project-startup
// url`, both worded by the one model of routes (reach.ts), so that no output names a browser
// route the manifest does not offer, and `url` prints the route the projection names.
import { adapterFor } from './platforms';
import { reach, ReachContext } from './reach';
import type { IngressMode, PlatformId } from './vocabulary';
import { isPlatformId, labelOf } from './vocabulary';

export interface Listener {
  platform: PlatformId;
  ingress: IngressMode;
  /** http://host:port{base}project/ for a TCP listener; undefined on a Unix socket. */
  url?: string;
  socket?: string;
}

function contextOf(listener: Listener): ReachContext {
  return {
    platform: listener.platform,
    ingress: listener.ingress,
    transport: listener.url !== undefined ? 'tcp' : 'unix-socket',
    baseUrl: '/',
    setupPageUrl: listener.url
  };
}

/** serve's "how to reach me" line. */
export function signInLine(listener: Listener, tokenWhere: string): string {
  if (listener.ingress === 'notebook-server-proxy' && listener.url) {
    // Only --allow-unauthenticated-tcp gets here: nothing in front of this port checks anyone.
    return 'Requests are NOT authenticated: every local user can call this port (--allow-unauthenticated-tcp). Use --unix-socket behind Jupyter.';
  }
  if (listener.ingress !== 'direct-loopback') {
    return `Requests are authenticated by the ${labelOf(listener.ingress).toLowerCase()}.`;
  }
  const scripts = `scripts send "Authorization: Bearer <token>" (token in ${tokenWhere})`;
  const web = reach(contextOf(listener), 'web', 'command-line');
  if (web.route?.kind === 'url') {
    return `Sign in: run \`project-startup url\` for a browser address; ${scripts}.`;
  }
  return `Terminal: run \`project-startup status\` in this project (${web.why ?? 'no browser route'}); ${scripts}.`;
}

export type UrlAnswer =
  { ok: true; url: string } | { ok: false; exit: 1 | 3; message: string };

export interface UrlInputs {
  /** The running service's runtime file, if one runs for this project. */
  info?: {
    url?: string;
    socket?: string;
    ingress: string;
    platform?: string;
    baseUrl?: string;
    tokenSource: string;
    token?: string;
  };
  envToken: string | undefined;
  /** The Jupyter server whose proxied service serves this project (found and asked). */
  jupyter?: { url: string; platform: PlatformId };
}

/** `url` where the platform offers no web interface: what does instead, in the model's words. */
function noBrowserRoute(platform: PlatformId, ctx: ReachContext): UrlAnswer {
  const adapter = adapterFor(platform);
  return {
    ok: false,
    exit: 3,
    message: `the ${labelOf(platform)} has no browser route. Use ${adapter.interfaces
      .map(labelOf)
      .join(' or ')}: ${adapter.interfaces
      .map(i => reach(ctx, i, 'command-line').how)
      .join(' ')}`
  };
}

/** `url` beside JupyterLab: the setup page through that Jupyter server, which signs the person in. */
function throughJupyter(jupyter: {
  url: string;
  platform: PlatformId;
}): UrlAnswer {
  const ctx: ReachContext = {
    platform: jupyter.platform,
    ingress: 'notebook-server-proxy',
    transport: 'unix-socket',
    baseUrl: new URL(jupyter.url).pathname,
    jupyterUrl: jupyter.url
  };
  const web = reach(ctx, 'web', 'command-line');
  return web.route?.kind === 'url'
    ? { ok: true, url: web.route.url }
    : noBrowserRoute(jupyter.platform, ctx);
}

/** The answer of `project-startup url`. Exit 1: nothing to sign in to yet; 3: not offered here. */
export function urlAnswer({ info, envToken, jupyter }: UrlInputs): UrlAnswer {
  if (jupyter && (!info || info.ingress === 'notebook-server-proxy')) {
    return throughJupyter(jupyter);
  }
  if (!info) {
    return {
      ok: false,
      exit: 1,
      message:
        'no service runs for this project; start one with `project-startup serve`, then run `project-startup url` again.'
    };
  }
  const platform =
    info.platform !== undefined && isPlatformId(info.platform)
      ? info.platform
      : 'generic';
  const ctx: ReachContext = {
    platform,
    ingress: info.ingress as IngressMode,
    transport: info.url ? 'tcp' : 'unix-socket',
    baseUrl: info.baseUrl ?? '/',
    setupPageUrl: info.url
  };
  const web = reach(ctx, 'web', 'command-line');
  if (!adapterFor(platform).interfaces.includes('web')) {
    return noBrowserRoute(platform, ctx);
  }
  if (!web.route) {
    return {
      ok: false,
      exit: 3,
      message: `the service for this project listens on the Unix socket ${info.socket ?? '(unknown)'}: ${web.why ?? 'a browser cannot open it'}. ${web.how}`
    };
  }
  if (info.ingress !== 'direct-loopback') {
    // Worded for whoever opens the page: this is `url` already, so not "run `project-startup url`".
    return {
      ok: false,
      exit: 3,
      message: `the service for this project runs behind the ${labelOf(info.ingress).toLowerCase()}, which signs people in itself. ${reach(ctx, 'web', 'setup-page').how}`
    };
  }
  const token = info.tokenSource === 'environment' ? envToken : info.token;
  if (!token) {
    return {
      ok: false,
      exit: 1,
      message:
        info.tokenSource === 'environment'
          ? 'the service took its token from PROJECT_STARTUP_TOKEN, which is not set in this shell: set it to the same value here and run `project-startup url` again.'
          : 'the runtime file of the service holds no token; restart `project-startup serve`.'
    };
  }
  return { ok: true, url: `${info.url}?token=${encodeURIComponent(token)}` };
}

/** What a `token` parameter in a request's address means (see addressTokenRule). */
export type AddressToken = 'sign-in' | 'refused' | 'not-ours';

/**
 * The one sign-in route, decided here only: a token in the address is traded for a session
 * only at the setup page itself (`{base}project/`), only where the platform's browser route is
 * direct loopback and the service listens there (reach.ts names it). Anywhere else on direct
 * loopback it is refused, whatever its value, before any credential is looked at: no session,
 * no cookie. Behind the notebook-server proxy `?token=` is Jupyter's own token (Jupyter checked
 * it), and the trusted proxy reads no address: not ours to judge.
 */
export function addressTokenRule(
  platform: PlatformId,
  ingress: IngressMode,
  route: string
): AddressToken {
  if (ingress !== 'direct-loopback') {
    return 'not-ours';
  }
  return route === '/' &&
    adapterFor(platform).browserRoute === 'direct-loopback'
    ? 'sign-in'
    : 'refused';
}

/** The detail of the 401 a refused address token gets. */
export function addressTokenRefusal(
  platform: PlatformId,
  setupPage: string
): string {
  const scripts =
    'send the token as "Authorization: Bearer <token>" instead, and keep it out of addresses';
  return adapterFor(platform).browserRoute === 'direct-loopback'
    ? `A token in the address signs in only at the setup page ${setupPage} (the address \`project-startup url\` prints); elsewhere ${scripts}.`
    : `The ${labelOf(platform)} has no browser sign-in, so no address takes a token: ${scripts}.`;
}
