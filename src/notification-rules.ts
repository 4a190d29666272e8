// What needs a person's attention, decided from the panel's state alone: whether the panel
// opens by itself, and which notification (kind, severity, problem and fix) a state gives.
// Pure: no JupyterLab import, so every state is tested without a browser (notification-display.ts shows
// the decision through JupyterLab's Notification).
import { canConfirmHere, IPanelState } from './model';
import { interfaceLabel, reportedProblems } from './labels';
import {
  Failure,
  ITranslationBundle,
  NotificationKind,
  StartupProjection,
  SUPPORTED_SCHEMA_MAJOR
} from './tokens';

/** JupyterLab cuts a notification's message after 140 characters (apputils-extension's MAX_MESSAGE_LENGTH). */
export const MESSAGE_LIMIT = 140;

/** A problem line shortened to make room for the fix keeps at least this many characters. */
const PROBLEM_ROOM = 60;

export type NotificationSeverity = 'info' | 'warning' | 'error';

export interface INotificationDecision {
  kind: NotificationKind;
  /** error: the service is broken or mismatched; warning: setup cannot go on; info: setup goes on elsewhere or later. */
  type: NotificationSeverity;
  /** What is wrong, in one line. */
  problem: string;
  /** What to do about it, in one line. */
  fix: string;
  /** problem and fix on two lines, at most MESSAGE_LIMIT characters (both shortened if need be, never the fix dropped). */
  message: string;
}

/**
 * Whether the panel should open by itself: only when the one step left is the person's own and
 * can be taken here (confirming initialization through this interface), and the setting allows it.
 */
export function shouldOpenPanel(
  state: IPanelState,
  openWhenAwaitingConfirmation: boolean
): boolean {
  return (
    openWhenAwaitingConfirmation &&
    state.view.kind === 'loaded' &&
    canConfirmHere(state.view.projection)
  );
}

/** The service's own text, without the Markdown backticks it puts around commands. */
function plain(text: string): string {
  return text.replace(/`/g, '');
}

/** A command, marked as the service marks its own, so that no shortening cuts inside it. */
function command(text: string): string {
  return `\`${text}\``;
}

/**
 * Where `text` (backticks marking commands) may be cut, as lengths of its plain text: before
 * each space outside a command, and before each command (the cut never falls inside one).
 */
function cutPoints(text: string): number[] {
  const points: number[] = [];
  let shown = 0;
  let inCommand = false;
  for (const character of text) {
    if (character === '`') {
      if (!inCommand) {
        points.push(shown);
      }
      inCommand = !inCommand;
      continue;
    }
    if (character === ' ' && !inCommand) {
      points.push(shown);
    }
    shown += 1;
  }
  return points;
}

/**
 * `text` shown plain (see `plain`), at most `room` characters: when it is longer, cut at the
 * last word boundary that leaves room for "…", never inside a command in backticks (before it
 * instead); cut mid-word only when its first word alone is longer than the room.
 */
export function shorten(text: string, room: number): string {
  const shown = plain(text);
  if (shown.length <= room) {
    return shown;
  }
  const fitting = cutPoints(text).filter(p => p > 0 && p + 1 <= room);
  const cut = fitting.length > 0 ? fitting[fitting.length - 1] : room - 1;
  const kept = shown.slice(0, Math.max(0, cut)).replace(/[\s,;:.(]+$/, '');
  return `${kept}…`;
}

/**
 * The problem and the fix on two lines within `limit`: the fix keeps its whole length when the
 * problem still has PROBLEM_ROOM characters; otherwise both are shortened at word boundaries,
 * the problem taking what the shortened fix leaves.
 * Both may mark commands with backticks (shown without them).
 */
export function fitMessage(
  problem: string,
  fix: string,
  limit = MESSAGE_LIMIT
): string {
  const problemLength = plain(problem).length;
  const fixLength = plain(fix).length;
  if (problemLength + 1 + fixLength <= limit) {
    return `${plain(problem)}\n${plain(fix)}`;
  }
  const fixRoom = Math.min(
    fixLength,
    limit - 1 - Math.min(problemLength, PROBLEM_ROOM)
  );
  // A fix cut before a command leaves room unused: the problem gets it back.
  const fixLine = shorten(fix, fixRoom);
  return `${shorten(problem, limit - 1 - fixLine.length)}\n${fixLine}`;
}

function decision(
  kind: NotificationKind,
  type: NotificationSeverity,
  problem: string,
  fix: string
): INotificationDecision {
  // The texts keep their commands' backticks until fitted, so no cut falls inside a command.
  return {
    kind,
    type,
    problem: plain(problem),
    fix: plain(fix),
    message: fitMessage(problem, fix)
  };
}

/**
 * The fix line when only the site's administrator can make the fix: said to the person as whose
 * job it is, never as their task (the panel, one click away, has the details to copy for them).
 */
function administratorFix(trans: ITranslationBundle): string {
  return trans.__('Your administrator needs to fix this.');
}

/**
 * The cause named by the server extension's diagnostics or by the service itself, when one of
 * them named it; null otherwise.
 */
function namedCauseDecision(
  kind: 'not-enabled' | 'failing',
  failure: Failure,
  trans: ITranslationBundle
): INotificationDecision | null {
  // The server extension's diagnostics name the real cause (Node, jupyter-server-proxy, a
  // setting that stops the service) when the service did not answer.
  const reported = reportedProblems(failure)[0];
  if (reported) {
    const cause =
      reported.code === 'sidecar-failed' && reported.detail
        ? reported.detail
        : reported.title;
    return decision(
      kind,
      'error',
      trans.__('Project Startup cannot start: %1', cause.replace(/\.?$/, '.')),
      // Node, jupyter-server-proxy, a setting: each is fixed where the Jupyter server runs.
      administratorFix(trans)
    );
  }
  if (failure.kind === 'http' && failure.problem?.code === 'misconfigured') {
    // A setting the service refused, said by the service itself (launched by the notebook
    // server's proxy, it stays up to say so): as a sidecar-failed report says it; the panel
    // shows the whole fix.
    return decision(
      kind,
      'error',
      trans.__(
        'Project Startup cannot start: %1',
        failure.problem.detail.replace(/\.?$/, '.')
      ),
      administratorFix(trans)
    );
  }
  return null;
}

function failureDecision(
  kind: 'not-enabled' | 'failing',
  failure: Failure,
  trans: ITranslationBundle
): INotificationDecision {
  const named = namedCauseDecision(kind, failure, trans);
  if (named) {
    return named;
  }
  switch (failure.kind) {
    case 'not-enabled':
      return decision(
        'not-enabled',
        'warning',
        trans.__('Project Startup is not enabled on this Jupyter server.'),
        trans.__(
          'Your administrator needs to enable it on this Jupyter server.'
        )
      );
    case 'incompatible':
      return decision(
        'incompatible',
        'error',
        trans.__(
          'The Project Startup service sends schema %1; this extension understands %2.x.',
          failure.schemaVersion,
          SUPPORTED_SCHEMA_MAJOR
        ),
        trans.__(
          'Your administrator needs to install matching versions, then restart Jupyter.'
        )
      );
    case 'network':
      return decision(
        'failing',
        'error',
        trans.__('The Project Startup service could not be reached.'),
        trans.__(
          'Check that the Jupyter server is running; the panel asks again by itself.'
        )
      );
    case 'http':
      return decision(
        'failing',
        'error',
        failure.problem
          ? trans.__(
              'The Project Startup service failed: %1',
              failure.problem.detail
            )
          : trans.__(
              'The Project Startup service failed (HTTP %1).',
              failure.status
            ),
        trans.__(
          "Your administrator can find the cause in the Jupyter server's log."
        )
      );
    case 'unexpected-body':
      return decision(
        'failing',
        'error',
        trans.__(
          'The Project Startup service did not answer; something else did (%1).',
          failure.contentType || failure.status
        ),
        trans.__(
          'Your administrator needs to enable it on this Jupyter server.'
        )
      );
  }
}

function projectionDecision(
  projection: StartupProjection,
  trans: ITranslationBundle
): INotificationDecision | null {
  const action = projection.nextAction;
  switch (projection.phase) {
    case 'unsupported-interface': {
      const way = action.interfaces?.[0];
      return decision(
        'unsupported-interface',
        'info',
        trans.__(
          'Project setup is not offered in JupyterLab on this platform.'
        ),
        way
          ? trans.__('%1: %2', interfaceLabel(way.id, trans), way.how)
          : projection.interfaceSupport.detail
      );
    }
    case 'blocked': {
      // The check's title names what blocks; its remedy is the fix (the panel shows what was observed).
      const check =
        projection.readinessChecks.find(c => c.id === action.checkId) ??
        projection.readinessChecks.find(c => c.required && c.status === 'fail');
      return decision(
        'blocked',
        'warning',
        trans.__(
          'Project setup is blocked: %1.',
          (check?.title ?? action.title).replace(/\.$/, '')
        ),
        check?.remedyBy === 'administrator'
          ? administratorFix(trans)
          : (check?.remedy ?? action.detail)
      );
    }
    case 'needs-compute':
      return decision(
        'needs-compute',
        'info',
        trans.__('Project setup needs compute: %1', action.title),
        action.command
          ? trans.__(
              'Run %1, then work in that allocation.',
              command(action.command)
            )
          : action.detail
      );
    case 'awaiting-confirmation':
      if (canConfirmHere(projection)) {
        return null; // the panel opens for this (shouldOpenPanel), or the person turned that off
      }
      // The one step left is the person's, but through another interface (a terminal prompt):
      // worth saying once, since nothing in JupyterLab can finish setup.
      return decision(
        'confirm-elsewhere',
        'info',
        trans.__(
          'Project setup waits for your confirmation in another interface.'
        ),
        action.command
          ? trans.__(
              'Run %1 in a terminal and confirm.',
              command(action.command)
            )
          : projection.confirmation.detail
      );
    case 'ready':
      return null;
  }
}

/** The notification the state calls for, or null (loading, ready, or the panel opens instead). */
export function notificationFor(
  state: IPanelState,
  trans: ITranslationBundle
): INotificationDecision | null {
  const view = state.view;
  switch (view.kind) {
    case 'loading':
      return null;
    case 'not-enabled':
      return failureDecision('not-enabled', view.failure, trans);
    case 'failing':
      return failureDecision('failing', view.failure, trans);
    case 'loaded':
      return projectionDecision(view.projection, trans);
  }
}
