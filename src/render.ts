// Pure rendering of the Project Startup panel and of the confirmation dialog's body: plain DOM
// from the model's state, no JupyterLab import, so every state is tested under jsdom. Text that
// comes from the service (titles, details, remedies, paths) is shown as it is; every other
// visible string goes through the translation bundle.
import { canConfirmHere, ConfirmationTargets, PanelState, View } from './model';
import { checkStatusLabel, interfaceLabel, phaseLabel, reportedProblems } from './labels';
import { problemNextAction } from './responses';

export { checkStatusLabel, interfaceLabel, phaseLabel, statusMessage } from './labels';
import {
  Diagnostics,
  Failure,
  ITranslationBundle,
  ReadinessCheck,
  StartupProjection,
  SUPPORTED_SCHEMA_MAJOR
} from './tokens';

/** What the panel's buttons do. */
export interface PanelActions {
  refresh(): void;
  initialize(): void;
}

/** data-action values of the panel's buttons (also used to keep focus across renders). */
export const ACTION_REFRESH = 'refresh';
export const ACTION_INITIALIZE = 'initialize';

export const CLASS_PREFIX = 'jp-ProjectStartup';

type Child = Node | string | null | undefined | false;

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (name === 'class') {
      node.className = value;
    } else {
      node.setAttribute(name, value);
    }
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) {
      continue;
    }
    node.appendChild(typeof child === 'string' ? document.createTextNode(child) : child);
  }
  return node;
}

/**
 * Text from the service, where `backticks` mark a command or a path: shown as code, never as
 * markup (each piece is a text node).
 */
function serviceText(text: string): DocumentFragment {
  const fragment = document.createDocumentFragment();
  text.split('`').forEach((piece, i, pieces) => {
    if (piece === '') {
      return;
    }
    // Odd pieces lie between a pair of backticks; a lone trailing backtick stays literal.
    const quoted = i % 2 === 1 && i < pieces.length - 1;
    fragment.appendChild(quoted ? code(piece) : document.createTextNode(i % 2 === 1 ? `\`${piece}` : piece));
  });
  return fragment;
}

function cls(...names: string[]): string {
  return names.map(n => (n.startsWith('jp-') ? n : `${CLASS_PREFIX}-${n}`)).join(' ');
}

let idCounter = 0;
function uniqueId(base: string): string {
  idCounter += 1;
  return `${CLASS_PREFIX}-${base}-${idCounter}`;
}

/** A section with a heading that names it for assistive technology. */
function section(className: string, heading: string, ...children: Child[]): HTMLElement {
  const id = uniqueId(className);
  return el(
    'section',
    { class: cls('section', className), 'aria-labelledby': id },
    el('h3', { id, class: cls('sectionTitle') }, heading),
    ...children
  );
}

/** Stands in for an element inside a translated sentence (see withNodes). */
const MARK = '\u0001';

/** A translated sentence whose MARK arguments become the given nodes, in order. */
function withNodes(translated: string, ...nodes: Node[]): Child[] {
  const parts = translated.split(MARK);
  const out: Child[] = [];
  parts.forEach((part, i) => {
    if (part) {
      out.push(part);
    }
    if (i < parts.length - 1) {
      out.push(nodes[i] ?? null);
    }
  });
  return out;
}

function code(text: string): HTMLElement {
  return el('code', { class: cls('code') }, text);
}

function button(action: string, label: string, options: { primary?: boolean; disabled?: boolean } = {}): HTMLButtonElement {
  const node = el(
    'button',
    { type: 'button', 'data-action': action, class: cls('button', ...(options.primary ? ['jp-mod-accept'] : [])) },
    label
  );
  if (options.disabled) {
    node.disabled = true;
  }
  return node;
}

/** A description list of label / value rows. */
function definitions(rows: [string, Child | Child[]][], className = 'facts'): HTMLElement {
  const list = el('dl', { class: cls(className) });
  for (const [term, value] of rows) {
    const dd = el('dd', {});
    for (const child of Array.isArray(value) ? value : [value]) {
      if (child !== null && child !== undefined && child !== false) {
        dd.appendChild(typeof child === 'string' ? document.createTextNode(child) : child);
      }
    }
    list.appendChild(el('div', { class: cls('fact') }, el('dt', {}, term), dd));
  }
  return list;
}

// ---------------------------------------------------------------------------------- labels

/** Items as separate text nodes with separators, so each stays a translated unit. */
function listOf(items: string[]): Child[] {
  return items.flatMap((item, i) => (i === 0 ? [item] : [', ', item]));
}

function yesNo(value: boolean, trans: ITranslationBundle): string {
  return value ? trans.__('Yes') : trans.__('No');
}

function platformLabel(projection: StartupProjection): string {
  return projection.manifest?.platform.label ?? projection.platform;
}

// ---------------------------------------------------------------------------------- failures

/** What went wrong, for a person: one or two sentences, without the fix. */
export function describeFailure(failure: Failure, trans: ITranslationBundle): HTMLElement[] {
  switch (failure.kind) {
    case 'not-enabled':
      return [
        el(
          'p',
          {},
          trans.__(
            'The Jupyter server answered "not found" (HTTP %1) for %2: no Project Startup service is set up behind it.',
            failure.status,
            failure.url
          )
        )
      ];
    case 'network':
      return [
        el(
          'p',
          {},
          failure.url
            ? trans.__('JupyterLab got no answer from %1 (%2).', failure.url, failure.message)
            : trans.__('JupyterLab got no answer from the Jupyter server (%1).', failure.message)
        )
      ];
    case 'http': {
      const problem = failure.problem;
      if (problem) {
        return [
          el('p', {}, trans.__('The service answered HTTP %1: %2', failure.status, problem.title)),
          el('p', { class: cls('problemDetail') }, serviceText(problem.detail)),
          el('p', { class: cls('problemCode') }, trans.__('Problem code:'), ' ', code(problem.code))
        ];
      }
      return [
        el(
          'p',
          {},
          trans.__('The request to %1 failed with HTTP %2 %3.', failure.url, failure.status, failure.statusText).replace(/ \.$/, '.')
        )
      ];
    }
    case 'unexpected-body':
      return [
        el(
          'p',
          {},
          failure.reason === 'not-json'
            ? trans.__(
                'The answer from %1 (HTTP %2, %3) is not what the service sends; a sign-in page or a proxy error page may have answered instead.',
                failure.url,
                failure.status,
                failure.contentType || trans.__('no content type')
              )
            : trans.__('The answer from %1 lacks fields the panel needs: %2.', failure.url, failure.reason)
        )
      ];
    case 'incompatible':
      return [
        el(
          'p',
          {},
          trans.__(
            'The service sends version %1 of the startup projection; this extension understands version %2.x.',
            failure.schemaVersion,
            SUPPORTED_SCHEMA_MAJOR
          )
        )
      ];
  }
}

/**
 * What the server extension's diagnostics route said about a sidecar that did not answer: each
 * problem with its detail and fix, and the sidecar's last log lines; or that there is no such
 * route (the npm package alone) and where the log is instead.
 */
export function diagnosticsSection(diagnostics: Diagnostics | undefined, trans: ITranslationBundle): HTMLElement | null {
  const where = (): HTMLElement =>
    el(
      'p',
      { class: cls('logHint') },
      ...withNodes(
        trans.__("The service's log is in the Jupyter server's log: the output (stderr) of %1 or %2.", MARK, MARK),
        code('jupyter server'),
        code('jupyter lab')
      )
    );
  if (diagnostics === undefined) {
    return null;
  }
  switch (diagnostics.kind) {
    case 'unavailable':
      return el(
        'div',
        { class: cls('diagnostics', 'jp-mod-unavailable') },
        el(
          'p',
          {},
          trans.__(
            'Diagnostics are unavailable: %1 answered HTTP %2, so the server extension of jupyterlab-project-startup is not installed on this Jupyter server (as with an npm-only install).',
            diagnostics.url,
            diagnostics.status
          )
        ),
        where()
      );
    case 'failed':
      return el(
        'div',
        { class: cls('diagnostics', 'jp-mod-failed') },
        el('p', {}, trans.__('The diagnostics could not be read either (%1: %2).', diagnostics.url, diagnostics.reason)),
        where()
      );
    case 'report': {
      const report = diagnostics.report;
      if (report.problems.length === 0) {
        return el(
          'div',
          { class: cls('diagnostics', 'jp-mod-ok') },
          el(
            'p',
            {},
            trans.__(
              'The server extension found nothing wrong: Node.js %1, jupyter-server-proxy %2, service %3.',
              report.node.version ?? '?',
              report.serverProxy.version ?? '?',
              report.sidecar.state
            )
          ),
          where()
        );
      }
      const tail = report.sidecar.logTail;
      return section(
        'diagnostics',
        trans.__('Why the service cannot start'),
        el(
          'ul',
          { class: cls('problems') },
          ...report.problems.map(p =>
            el(
              'li',
              { class: cls('problem'), 'data-problem-code': p.code },
              el('p', { class: cls('problemTitle') }, el('strong', {}, p.title)),
              el('p', { class: cls('problemDetail') }, serviceText(p.detail)),
              el('p', { class: cls('fix') }, trans.__('Fix:'), ' ', serviceText(p.fix))
            )
          )
        ),
        tail.length > 0 ? el('p', {}, trans.__("The service's last log lines:")) : null,
        tail.length > 0 ? el('pre', { class: cls('logTail') }, tail.join('\n')) : null,
        where()
      );
    }
  }
}

/** How to fix a failing service, for a person. */
function failingFix(failure: Failure, trans: ITranslationBundle): HTMLElement {
  if (failure.kind === 'incompatible') {
    return el(
      'p',
      { class: cls('fix') },
      trans.__(
        'Ask an operator to install the same version of jupyterlab-project-startup for the service and for JupyterLab, then restart Jupyter and press Refresh.'
      )
    );
  }
  return el(
    'p',
    { class: cls('fix') },
    trans.__(
      'Press Refresh to try again. If it keeps failing, check the Jupyter server log: the service and jupyter-server-proxy write their errors there.'
    )
  );
}

function notEnabledView(failure: Failure, trans: ITranslationBundle): HTMLElement {
  // With the Python package installed, its server extension says what is missing (such as
  // jupyter-server-proxy); otherwise the generic steps follow.
  const diagnostics = failure.kind === 'not-enabled' && reportedProblems(failure).length > 0 ? failure.diagnostics : undefined;
  return section(
    'notEnabled',
    trans.__('The Project Startup service is not enabled'),
    ...describeFailure(failure, trans),
    diagnosticsSection(diagnostics, trans),
    el('p', {}, trans.__('An operator enables it in the environment that runs the Jupyter server:')),
    el(
      'ol',
      { class: cls('steps') },
      el('li', {}, trans.__('Install jupyter-server-proxy in that environment.')),
      el('li', {}, ...withNodes(trans.__('Run %1 in that environment.', MARK), code('project-startup jupyter install --sys-prefix'))),
      el('li', {}, trans.__('Restart the Jupyter server, then press Refresh.'))
    ),
    el('p', {}, trans.__('The operator guide in the README of jupyterlab-project-startup has the details.'))
  );
}

function failingView(failure: Failure, trans: ITranslationBundle): HTMLElement {
  return section(
    'failing',
    trans.__('The Project Startup service is failing'),
    ...describeFailure(failure, trans),
    diagnosticsSection('diagnostics' in failure ? failure.diagnostics : undefined, trans),
    failingFix(failure, trans)
  );
}

/** How to go on after a failed initialize; the panel stays usable. */
function initializeFix(failure: Failure, trans: ITranslationBundle): Child[] {
  const install = (): HTMLElement => code('project-startup jupyter install --sys-prefix');
  if (failure.kind === 'not-enabled') {
    return withNodes(
      trans.__(
        'The Project Startup service is no longer reachable through Jupyter. Ask an operator to install jupyter-server-proxy, run %1 and restart Jupyter.',
        MARK
      ),
      install()
    );
  }
  if (failure.kind === 'network') {
    return [trans.__('Check the connection to the Jupyter server, then press "Initialize project" again.')];
  }
  const codeOf = failure.kind === 'http' ? failure.problem?.code : undefined;
  switch (codeOf) {
    case 'confirmation-stale':
      return [trans.__('The paths changed after the panel showed them. The panel now shows the current ones: check them and initialize again.')];
    case 'wrong-phase':
      return [trans.__('Setup is not at the confirmation step any more: follow the next action below.')];
    case 'confirmation-not-allowed':
      return [trans.__('This platform takes the confirmation through another interface: see the next action below.')];
    case 'state-unsafe':
      return [trans.__('Follow the remedy of the failing readiness check below, then press Refresh.')];
    case 'rate-limited':
      return [trans.__('Wait a minute, then press "Initialize project" again.')];
    case 'unauthorized':
    case 'forbidden-host':
    case 'cross-origin':
      return withNodes(
        trans.__('The service refused the request from JupyterLab. Ask an operator to check that it runs behind jupyter-server-proxy (%1).', MARK),
        install()
      );
    default:
      return [trans.__('Press Refresh, then try again. If it keeps failing, check the Jupyter server log.')];
  }
}

function initializeFailureAlert(failure: Failure, trans: ITranslationBundle): HTMLElement {
  const id = uniqueId('alert');
  const problem = failure.kind === 'http' ? failure.problem : undefined;
  const next = problemNextAction(problem);
  return el(
    'div',
    { class: cls('alert'), role: 'alert', 'aria-labelledby': id },
    el('h3', { id, class: cls('sectionTitle') }, trans.__('Initialization failed')),
    ...describeFailure(failure, trans),
    next ? el('p', {}, trans.__('Next action from the service:'), ' ', next.title) : null,
    diagnosticsSection('diagnostics' in failure && failure.kind !== 'not-enabled' ? failure.diagnostics : undefined, trans),
    el('p', { class: cls('fix') }, ...initializeFix(failure, trans))
  );
}

// ---------------------------------------------------------------------------------- loaded

function phaseIntro(projection: StartupProjection, state: PanelState, trans: ITranslationBundle): HTMLElement {
  const platform = platformLabel(projection);
  switch (projection.phase) {
    case 'unsupported-interface': {
      const ways = projection.nextAction.interfaces ?? [];
      return section(
        'phase',
        trans.__('The notebook interface is not available here'),
        el('p', {}, trans.__('The %1 does not offer setup through JupyterLab. Use one of these interfaces instead:', platform)),
        ways.length > 0
          ? el(
              'ul',
              { class: cls('interfaces') },
              ...ways.map(w => el('li', {}, el('strong', {}, interfaceLabel(w.id, trans)), ': ', serviceText(w.how)))
            )
          : el('p', {}, projection.interfaceSupport.detail)
      );
    }
    case 'blocked':
      return section(
        'phase',
        trans.__('Setup is blocked'),
        el('p', {}, trans.__('A required readiness check fails. Fix it as the next action says, then press Refresh.'))
      );
    case 'needs-compute':
      return section(
        'phase',
        trans.__('Setup needs compute'),
        el('p', {}, trans.__('Get compute as the next action says, then press Refresh.'))
      );
    case 'awaiting-confirmation': {
      if (!canConfirmHere(projection)) {
        return section(
          'phase',
          trans.__('Confirmation is given elsewhere'),
          el('p', {}, serviceText(projection.confirmation.detail))
        );
      }
      const targets = projection.confirmation.creates;
      return section(
        'phase',
        trans.__('Ready to initialize'),
        el(
          'p',
          {},
          trans.__('Everything is in place. Initializing creates the private state of this project in %1.', projection.statePath)
        ),
        targets.length > 0
          ? el('p', { class: cls('muted') }, trans.__('You will see every path it creates before anything happens.'))
          : null,
        el(
          'div',
          { class: cls('actions') },
          button(ACTION_INITIALIZE, trans.__('Initialize project'), { primary: true, disabled: state.initializing })
        )
      );
    }
    case 'ready': {
      const record = projection.confirmation.record;
      return section(
        'phase',
        trans.__('The project is set up'),
        el('p', {}, trans.__('Nothing to do: the private state of this project is in %1.', projection.statePath)),
        record
          ? el(
              'p',
              { class: cls('muted') },
              trans.__(
                'Confirmed through %1 at %2.',
                interfaceLabel(record.confirmation.interface, trans),
                record.confirmation.confirmedAt
              )
            )
          : null
      );
    }
  }
}

function summary(projection: StartupProjection, trans: ITranslationBundle): HTMLElement {
  const supported = projection.interfaceSupport.supported;
  return section(
    'summary',
    trans.__('Overview'),
    definitions([
      [trans.__('Platform'), platformLabel(projection)],
      [
        trans.__('Notebook interface'),
        [
          el('span', { class: cls('support', supported ? 'jp-mod-supported' : 'jp-mod-unsupported') }, supported ? trans.__('Supported') : trans.__('Not supported')),
          ' — ',
          projection.interfaceSupport.detail
        ]
      ],
      [trans.__('Setup phase'), el('span', { class: cls('phaseBadge', `jp-mod-${projection.phase}`) }, phaseLabel(projection.phase, trans))],
      [trans.__('Project directory'), code(projection.projectPath)],
      [trans.__('Private state'), code(projection.statePath)]
    ])
  );
}

function nextActionSection(projection: StartupProjection, trans: ITranslationBundle): HTMLElement {
  const action = projection.nextAction;
  const failing = action.checkId ? projection.readinessChecks.find(c => c.id === action.checkId) : undefined;
  return section(
    'nextAction',
    trans.__('Next action'),
    el('p', { class: cls('actionTitle') }, el('strong', {}, action.title)),
    el('p', { class: cls('actionDetail') }, serviceText(action.detail)),
    action.command ? el('p', {}, trans.__('Command:'), ' ', code(action.command)) : null,
    failing ? el('p', { class: cls('muted') }, trans.__('It is the readiness check "%1" below.', failing.title)) : null
  );
}

function computeSection(projection: StartupProjection, trans: ITranslationBundle): HTMLElement {
  const compute = projection.compute;
  const rows: [string, Child | Child[]][] = [
    [trans.__('Compute model'), compute.label],
    [trans.__('Requirement met'), yesNo(compute.satisfied, trans)],
    [trans.__('Detail'), serviceText(compute.detail)]
  ];
  if (compute.allocation) {
    const a = compute.allocation;
    rows.push([
      trans.__('Allocation'),
      a.jobId === null
        ? trans.__('%1: no job', a.scheduler)
        : a.state
          ? trans.__('%1 job %2 (%3)', a.scheduler, a.jobId, a.state)
          : trans.__('%1 job %2', a.scheduler, a.jobId)
    ]);
  }
  if (compute.command) {
    rows.push([trans.__('Command'), code(compute.command)]);
  }
  return section('compute', trans.__('Compute requirements'), definitions(rows));
}

function confirmationSection(projection: StartupProjection, trans: ITranslationBundle): HTMLElement {
  const c = projection.confirmation;
  const rows: [string, Child | Child[]][] = [
    [trans.__('Required'), yesNo(c.required, trans)],
    [trans.__('Confirmed'), yesNo(c.confirmed, trans)],
    [trans.__('Confirm through'), listOf(c.allowedInterfaces.map(i => interfaceLabel(i, trans)))],
    [trans.__('Detail'), serviceText(c.detail)]
  ];
  if (c.creates.length > 0) {
    rows.push([trans.__('Creates'), el('ul', { class: cls('paths') }, ...c.creates.map(p => el('li', {}, code(p))))]);
  }
  if (c.record) {
    rows.push([
      trans.__('Record'),
      trans.__(
        'confirmed through %1 (%2) at %3',
        interfaceLabel(c.record.confirmation.interface, trans),
        c.record.confirmation.method,
        c.record.confirmation.confirmedAt
      )
    ]);
  }
  return section('confirmation', trans.__('Confirmation requirements'), definitions(rows));
}

function checksTable(projection: StartupProjection, trans: ITranslationBundle): HTMLElement {
  const highlighted = projection.nextAction.checkId;
  const head = el(
    'thead',
    {},
    el(
      'tr',
      {},
      el('th', { scope: 'col' }, trans.__('Status')),
      el('th', { scope: 'col' }, trans.__('Check')),
      el('th', { scope: 'col' }, trans.__('Observed')),
      el('th', { scope: 'col' }, trans.__('Remedy'))
    )
  );
  const rows = projection.readinessChecks.map((check: ReadinessCheck) =>
    el(
      'tr',
      {
        class: cls('check', `jp-mod-${check.status}`, ...(check.id === highlighted ? ['jp-mod-highlight'] : [])),
        'data-check-id': check.id
      },
      el('td', {}, el('span', { class: cls('checkStatus', `jp-mod-${check.status}`) }, checkStatusLabel(check.status, trans))),
      el(
        'th',
        { scope: 'row' },
        check.title,
        check.required ? el('span', { class: cls('required') }, ' ', trans.__('(required)')) : null
      ),
      el('td', {}, serviceText(check.observed)),
      el('td', {}, check.remedy ? serviceText(check.remedy) : '—')
    )
  );
  const captionId = uniqueId('checks');
  return el(
    'section',
    { class: cls('section', 'checks'), 'aria-labelledby': captionId },
    el('h3', { id: captionId, class: cls('sectionTitle') }, trans.__('Readiness checks')),
    el(
      'div',
      { class: cls('tableScroll') },
      el('table', { class: cls('checksTable') }, el('caption', { class: cls('visuallyHidden') }, trans.__('Readiness checks')), head, el('tbody', {}, ...rows))
    )
  );
}

function initializedNotice(state: PanelState, trans: ITranslationBundle): HTMLElement | null {
  const answer = state.initialized;
  if (!answer) {
    return null;
  }
  return el(
    'p',
    { class: cls('success') },
    answer.created
      ? trans.__('Project initialized: %1 was created.', answer.record.statePath)
      : trans.__('The project was already initialized in %1.', answer.record.statePath)
  );
}

function loadedView(projection: StartupProjection, state: PanelState, trans: ITranslationBundle): HTMLElement[] {
  return [
    ...(state.initializeFailure ? [initializeFailureAlert(state.initializeFailure, trans)] : []),
    ...[initializedNotice(state, trans)].filter((n): n is HTMLElement => n !== null),
    phaseIntro(projection, state, trans),
    summary(projection, trans),
    nextActionSection(projection, trans),
    checksTable(projection, trans),
    computeSection(projection, trans),
    confirmationSection(projection, trans)
  ];
}

function viewContent(view: View, state: PanelState, trans: ITranslationBundle): HTMLElement[] {
  switch (view.kind) {
    case 'loading':
      return [el('p', { class: cls('loading') }, trans.__('Checking the project setup…'))];
    case 'not-enabled':
      return [notEnabledView(view.failure, trans)];
    case 'failing':
      return [failingView(view.failure, trans)];
    case 'loaded':
      return loadedView(view.projection, state, trans);
  }
}

/**
 * The panel's content for a state: a header with the Refresh button and the view. Buttons
 * carry data-action; a click calls the matching action.
 */
export function renderPanel(state: PanelState, trans: ITranslationBundle, actions: PanelActions): HTMLElement {
  const busy = state.refreshing || state.initializing || state.view.kind === 'loading';
  const root = el(
    'div',
    { class: cls('content'), 'aria-busy': busy ? 'true' : 'false' },
    el(
      'div',
      { class: cls('header') },
      el('h2', { class: cls('title'), tabindex: '-1' }, trans.__('Project Startup')),
      button(ACTION_REFRESH, trans.__('Refresh'), { disabled: false })
    ),
    ...viewContent(state.view, state, trans)
  );
  root.addEventListener('click', event => {
    const target = event.target instanceof Element ? event.target.closest('button[data-action]') : null;
    if (!(target instanceof HTMLButtonElement) || target.disabled) {
      return;
    }
    const action = target.dataset.action;
    if (action === ACTION_REFRESH) {
      actions.refresh();
    } else if (action === ACTION_INITIALIZE) {
      actions.initialize();
    }
  });
  return root;
}

// ---------------------------------------------------------------------------------- dialog

/** The body of the confirmation dialog: the project, then every path that will be created. */
export function renderConfirmationBody(targets: ConfirmationTargets, trans: ITranslationBundle): HTMLElement {
  return el(
    'div',
    { class: cls('dialogBody') },
    el('p', {}, trans.__('Initialize the project in this directory?')),
    el('p', { class: cls('dialogPath') }, code(targets.projectPath)),
    el('p', {}, trans.__('These paths will be created, private to you:')),
    el('ul', { class: cls('paths') }, ...targets.creates.map(p => el('li', {}, code(p)))),
    el('p', { class: cls('muted') }, trans.__('Nothing is created if you cancel.'))
  );
}

export function confirmationTitle(trans: ITranslationBundle): string {
  return trans.__('Initialize project');
}
