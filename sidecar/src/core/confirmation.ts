// Who may confirm initialization, and how the record names the way a confirmation came in.
// Pure: the HTTP layer and the command line hand in what they observed; nothing here reads a
// request body's claims about itself.
import type { PlatformAdapter } from './platforms/types';
import type { ConfirmationMethod } from './observations';
import { BROWSER_INTERFACES, IngressMode, InterfaceId } from './vocabulary';

/** Header through which `project-startup init` proves its prompt was answered on a TTY. */
export const PROMPT_KEY_HEADER = 'x-project-startup-prompt-key';

/** How a request proved itself, as the ingress guard saw it (see http/ingress-guards.ts). */
export type CredentialKind =
  | 'bearer'
  | 'cookie'
  | 'query-token'
  | 'notebook-server'
  | 'trusted-proxy'
  | 'none';

/** What the code that carried out a confirmation observed about where it came from. */
export type ConfirmationChannel =
  /** The setup page's own session on direct loopback: the cookie that only the sign-in route
   * (`{base}project/?token=`, sign-in.ts) sets, on a same-origin request. Proves the caller
   * signed in with the token through that route; not that a person clicked. */
  | { kind: 'setup-page-session' }
  /** Through the notebook-server proxy, with an X-XSRFToken header equal to Jupyter's `_xsrf`
   * cookie, as JupyterLab's ServerConnection and the setup page send it: only a page of
   * Jupyter's origin can read that cookie. A standalone `jupyter lab` also puts its token in the page config, so the same
   * page sends "Authorization: token" too; the token does not make it a script (a script that
   * holds the token may confirm anyway, recorded as `http-api`). jupyter-server-proxy itself checks
   * no XSRF token (its handler's check_xsrf_cookie defers to the proxied app), so this is the
   * sidecar's own check (http/jupyter-xsrf.ts). */
  | { kind: 'jupyter-page' }
  /** The command line's prompt, answered on a TTY: seen by the process that asked (in-process),
   * or the prompt key of the 0600 runtime file sent to a running service. The key proves that the
   * caller can read that file (this user's processes), not that a person typed. */
  | { kind: 'terminal-prompt' }
  /** Anything else a credential holder sends: a script, curl, a client library. */
  | { kind: 'api' };

/** Interfaces through which the person may confirm: browsers, or the terminal where none exists. */
export function confirmationInterfaces(
  adapter: PlatformAdapter
): InterfaceId[] {
  const browsers = adapter.interfaces.filter(i =>
    BROWSER_INTERFACES.includes(i)
  );
  return browsers.length > 0 ? browsers : ['terminal'];
}

/**
 * Where a plain API call (`http-api`) may confirm. Decision: on a platform with a browser
 * interface, a holder of the service's credential (the 0600 runtime file's token or
 * PROJECT_STARTUP_TOKEN, Jupyter's own token through the notebook server, the trusted proxy's
 * secret) acts for the person in the same way the person's browser does, so it may confirm for
 * the browser interfaces, through every ingress the platform offers; the record says `http-api`.
 * On a platform without a browser interface (the cluster) the one explicit act is the terminal
 * prompt, so an API call does not confirm there.
 */
export function apiMayConfirm(
  iface: InterfaceId,
  adapter: PlatformAdapter
): boolean {
  return (
    BROWSER_INTERFACES.includes(iface) && adapter.interfaces.includes(iface)
  );
}

/**
 * The request's channel, from the ingress it came through, the credential it proved, and
 * whether it carried Jupyter's XSRF token (see ConfirmationChannel). Decided here only: the
 * body's interface never picks the channel.
 */
export function channelOf(
  ingress: IngressMode,
  credential: CredentialKind,
  promptKey: boolean,
  jupyterXsrf: boolean
): ConfirmationChannel {
  if (promptKey) {
    return { kind: 'terminal-prompt' };
  }
  if (ingress === 'direct-loopback' && credential === 'cookie') {
    return { kind: 'setup-page-session' };
  }
  if (
    ingress === 'notebook-server-proxy' &&
    credential === 'notebook-server' &&
    jupyterXsrf
  ) {
    return { kind: 'jupyter-page' };
  }
  return { kind: 'api' };
}

export type ConfirmationDecision =
  | { allowed: true; method: ConfirmationMethod }
  | { allowed: false; detail: string };

/** The method the record keeps for this channel and interface, or why it may not confirm. */
export function decideConfirmation(
  adapter: PlatformAdapter,
  iface: InterfaceId,
  channel: ConfirmationChannel,
  labels: { platform: string; allowed: string; iface: string }
): ConfirmationDecision {
  const allowed = confirmationInterfaces(adapter);
  if (!allowed.includes(iface)) {
    return {
      allowed: false,
      detail: `On the ${labels.platform} initialization is confirmed through ${labels.allowed}, not ${labels.iface}.`
    };
  }
  switch (channel.kind) {
    case 'terminal-prompt':
      return iface === 'terminal'
        ? { allowed: true, method: 'terminal-prompt' }
        : {
            allowed: false,
            detail: `The terminal prompt confirms the terminal interface, not ${labels.iface}.`
          };
    case 'setup-page-session':
      return iface === 'web'
        ? { allowed: true, method: 'setup-page' }
        : {
            allowed: false,
            detail: `The setup page's session confirms the Browser interface, not ${labels.iface}: confirm ${labels.iface} where it runs, or send the token as "Authorization: Bearer <token>".`
          };
    case 'jupyter-page':
      // Both of Jupyter's pages that confirm: JupyterLab's dialog (notebook), and the setup page
      // served through Jupyter (web), which is the same page as on loopback, signed in by Jupyter.
      return iface === 'notebook'
        ? { allowed: true, method: 'jupyterlab-dialog' }
        : iface === 'web'
          ? { allowed: true, method: 'setup-page' }
          : {
              allowed: false,
              detail: `A page of the Jupyter server confirms the Notebook or Browser interface (JupyterLab's dialog, the setup page), not ${labels.iface}.`
            };
    case 'api':
      return apiDecision(adapter, iface, labels);
  }
}

/** A plain API call's confirmation: `http-api` where apiMayConfirm allows it. */
function apiDecision(
  adapter: PlatformAdapter,
  iface: InterfaceId,
  labels: { platform: string; iface: string }
): ConfirmationDecision {
  if (apiMayConfirm(iface, adapter)) {
    return { allowed: true, method: 'http-api' };
  }
  return {
    allowed: false,
    detail:
      iface === 'terminal'
        ? `On the ${labels.platform} a person confirms at the interactive prompt of \`project-startup init\` in a terminal (a TTY); a plain API call cannot confirm.`
        : `A plain API call cannot confirm ${labels.iface} on the ${labels.platform}.`
  };
}
