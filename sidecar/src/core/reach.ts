// How a person reaches each interface: the one model. Every text that names a route (the
// projection's next actions and remedies, serve's banner, `project-startup url`, the command
// line's advice, and through the projection the setup page and the Python client) comes from
// reach() here, so no two outputs can disagree about the same situation. Pure.
//
// The setup page IS offered behind Jupyter, on a platform that offers the
// web interface. Through the notebook-server proxy, `GET {base_url}project/` serves it with
// Jupyter's sign-in and its button creates the state, so saying "Jupyter serves no setup page"
// was false; every output now names `{base_url}project/` on that Jupyter server (and
// `project-startup url` prints its full address). Where the platform has no web interface
// (hosted notebook, cluster) no output names a setup page, wherever the service listens.
import { adapterFor } from './platforms';
import type { IngressMode, InterfaceId, PlatformId } from './vocabulary';
import { labelOf } from './vocabulary';

/** Who reads the words: the command line, the setup page, the notebook panel or a notebook. */
export type ReachClient =
  'command-line' | 'setup-page' | 'notebook-panel' | 'python-client';

export const REACH_CLIENTS: readonly ReachClient[] = [
  'command-line',
  'setup-page',
  'notebook-panel',
  'python-client'
];

export type Transport = 'tcp' | 'unix-socket';

export interface ReachContext {
  platform: PlatformId;
  /** How the service listens; undefined when none runs (the command line reads the project). */
  ingress?: IngressMode;
  transport?: Transport;
  /** The service's URL prefix: Jupyter's base_url behind the notebook-server proxy. */
  baseUrl: string;
  /** The Jupyter server's own address (http://host:port{base_url}), when the asker knows it. */
  jupyterUrl?: string;
  /** The setup page address a self-probe verified (direct loopback on TCP only). */
  setupPageUrl?: string;
}

export type Route =
  | { kind: 'command'; command: string }
  | { kind: 'url'; url: string }
  | { kind: 'palette'; command: 'Open Project Startup' };

export interface Reach {
  iface: InterfaceId;
  /** The way in; undefined when there is none from here. */
  route?: Route;
  /** Why there is no route (undefined when there is one). */
  why?: string;
  /** What a person does, in words, for `client`. */
  how: string;
}

/** The reader of a projection for each interface: the person using that interface. */
export function readerOf(iface: InterfaceId): ReachClient {
  return iface === 'terminal'
    ? 'command-line'
    : iface === 'web'
      ? 'setup-page'
      : 'notebook-panel';
}

const STATUS = 'project-startup status';
const TERMINAL_ELSEWHERE = 'Run `project-startup status` in a terminal.';
const TERMINAL_HERE =
  'Run `project-startup status` without `--interface`: this command line is the terminal interface.';
const PALETTE =
  'Open JupyterLab and run "Open Project Startup" from the command palette.';
const SERVE_THEN_URL =
  'Run `project-startup serve` (loopback TCP, the default), then `project-startup url`, and open the address it prints in a browser on this machine.';

/** Where the setup page is, when it is, and in which words for `client`. */
function webReach(ctx: ReachContext, client: ReachClient): Reach {
  const iface = 'web';
  if (ctx.ingress === 'notebook-server-proxy') {
    const url = ctx.jupyterUrl
      ? `${ctx.jupyterUrl}project/`
      : `${ctx.baseUrl}project/`;
    const where = ctx.jupyterUrl
      ? url
      : `${url} on the Jupyter server that runs JupyterLab`;
    return {
      iface,
      route: { kind: 'url', url },
      how:
        client === 'command-line'
          ? `Run \`project-startup url\` and open the address it prints (the setup page, ${where}) in the browser signed in to that Jupyter server.`
          : `Open the setup page, ${where}, in the browser signed in to that Jupyter server.`
    };
  }
  if (ctx.ingress === 'trusted-proxy') {
    const url = `${ctx.baseUrl}project/`;
    return {
      iface,
      route: { kind: 'url', url },
      how: `Open the setup page, ${url} at the trusted proxy's address, in a browser; the proxy signs you in.`
    };
  }
  if (ctx.ingress === 'direct-loopback' && ctx.transport === 'unix-socket') {
    return {
      iface,
      why: 'a browser cannot open a Unix socket',
      how: SERVE_THEN_URL
    };
  }
  if (ctx.ingress === 'direct-loopback') {
    return {
      iface,
      route: ctx.setupPageUrl
        ? { kind: 'url', url: ctx.setupPageUrl }
        : { kind: 'command', command: 'project-startup url' },
      how:
        client === 'command-line' || !ctx.setupPageUrl
          ? 'Run `project-startup url` and open the address it prints in a browser on this machine.'
          : `Open ${ctx.setupPageUrl} in a browser on this machine (\`project-startup url\` prints an address that signs you in).`
    };
  }
  return {
    iface,
    route: { kind: 'command', command: 'project-startup serve' },
    how: SERVE_THEN_URL
  };
}

/**
 * The Project Startup panel talks to the service jupyter-server-proxy runs behind JupyterLab's
 * own Jupyter server: a service on direct loopback or a trusted proxy is not that one.
 */
function notebookReach(ctx: ReachContext): Reach {
  const iface = 'notebook';
  if (ctx.ingress === 'direct-loopback' || ctx.ingress === 'trusted-proxy') {
    return {
      iface,
      route: { kind: 'palette', command: 'Open Project Startup' },
      why: `the Project Startup panel talks to the service behind JupyterLab's Jupyter server, not to this one (${labelOf(ctx.ingress).toLowerCase()})`,
      how: `${PALETTE} Its panel talks to the service behind that Jupyter server, not to this one (${labelOf(ctx.ingress).toLowerCase()}).`
    };
  }
  return {
    iface,
    route: { kind: 'palette', command: 'Open Project Startup' },
    how: PALETTE
  };
}

/** How `client` reaches interface `iface` in the situation `ctx`. */
export function reach(
  ctx: ReachContext,
  iface: InterfaceId,
  client: ReachClient
): Reach {
  const adapter = adapterFor(ctx.platform);
  if (!adapter.interfaces.includes(iface)) {
    return {
      iface,
      why: `the ${labelOf(ctx.platform)} does not offer the ${labelOf(iface)} interface`,
      how: `Use ${adapter.interfaces.map(labelOf).join(' or ')} instead.`
    };
  }
  switch (iface) {
    case 'terminal':
      return {
        iface,
        route: { kind: 'command', command: STATUS },
        how: client === 'command-line' ? TERMINAL_HERE : TERMINAL_ELSEWHERE
      };
    case 'web':
      return webReach(ctx, client);
    case 'notebook':
      return notebookReach(ctx);
  }
}

/**
 * Service text written for the reader of another interface, shown at the command line
 * (`status --interface web`): the way to the terminal worded for someone already there.
 */
export function forTheCommandLine(text: string): string {
  return text.split(TERMINAL_ELSEWHERE).join(TERMINAL_HERE);
}
