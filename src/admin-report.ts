// The plain-text report behind "Copy details for your administrator": what an operator needs to
// act (the problem's code, the setting, the file and line, the versions) and nothing a person
// should not pass on. The service never puts a secret in its answers; this report still strips
// what could carry one (a URL's user and password, its query, a token or a bearer value), so a
// pasted report is safe in a ticket or a chat.
import { reportedProblems } from './labels';
import { problemFix } from './responses';
import type { IPanelState } from './model';
import type { Failure, ReadinessCheck, StartupProjection } from './tokens';

/** What the page knows about the versions around the panel. */
export interface IReportVersions {
  /** JupyterLab's (or Notebook 7's) application version. */
  application?: string;
  applicationName?: string;
}

/** Text that may carry a credential, with the credential taken out. */
export function redactSecrets(text: string): string {
  return (
    text
      // scheme://user:password@host → scheme://[redacted]@host
      .replace(/(\b[a-z][a-z0-9+.-]*:\/\/)[^\s/@]*@/gi, '$1[redacted]@')
      // a URL's query and fragment may hold tokens
      .replace(/(\b[a-z][a-z0-9+.-]*:\/\/[^\s?#]*)[?#][^\s`'")]*/gi, '$1')
      // token=…, password: …, secret=…, api_key=…
      .replace(
        /\b([\w-]*(?:token|password|passwd|secret|api[_-]?key|credential)[\w-]*)(\s*[=:]\s*)([^\s,;'"`]+)/gi,
        '$1$2[redacted]'
      )
      .replace(/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/g, '$1 [redacted]')
  );
}

/** The PROJECT_STARTUP_* settings (or flags) a text names: what an operator changes. */
export function settingsNamed(text: string): string[] {
  const found = text.match(/\bPROJECT_STARTUP_[A-Z0-9_]+/g) ?? [];
  return [...new Set(found)];
}

function checkLines(check: ReadinessCheck): string[] {
  const lines = [
    `- check ${check.id}: ${check.title} (${check.status}${check.required ? ', required' : ''})`,
    `  observed: ${check.observed}`
  ];
  if (check.remedy) {
    lines.push(`  fix: ${check.remedy}`);
  }
  const settings = settingsNamed(`${check.observed} ${check.remedy ?? ''}`);
  if (settings.length > 0) {
    lines.push(`  setting: ${settings.join(', ')}`);
  }
  return lines;
}

function failureLines(failure: Failure): string[] {
  const lines: string[] = [];
  switch (failure.kind) {
    case 'not-enabled':
      lines.push(
        `- not-enabled: ${failure.url} answered HTTP ${failure.status}: no Project Startup service is behind it`,
        '  fix: install jupyter-server-proxy, run `project-startup jupyter install --sys-prefix`, restart the Jupyter server'
      );
      break;
    case 'network':
      lines.push(
        `- network: no answer from ${failure.url} (${failure.message})`
      );
      break;
    case 'http': {
      const problem = failure.problem;
      if (problem) {
        lines.push(
          `- problem ${problem.code}: HTTP ${failure.status} ${problem.title}`
        );
        for (const part of problem.detail.split('\n')) {
          lines.push(`  ${part}`);
        }
        const extra = problem as Record<string, unknown>;
        if (typeof extra['setting'] === 'string') {
          lines.push(`  setting: ${extra['setting']}`);
        }
        if (typeof extra['file'] === 'string') {
          const line =
            typeof extra['line'] === 'number' ? `:${extra['line']}` : '';
          lines.push(`  file: ${extra['file']}${line}`);
        }
        const fix = problemFix(problem);
        if (fix) {
          lines.push(`  fix: ${fix}`);
        }
      } else {
        lines.push(
          `- http: ${failure.url} answered HTTP ${failure.status} ${failure.statusText}`
        );
      }
      break;
    }
    case 'unexpected-body':
      lines.push(
        `- unexpected answer from ${failure.url} (HTTP ${failure.status}): ${failure.reason}`
      );
      break;
    case 'incompatible':
      lines.push(
        `- incompatible: the service sends schema ${failure.schemaVersion}; the extension reads 1.x`
      );
      break;
  }
  for (const problem of reportedProblems(failure)) {
    lines.push(
      `- diagnostics ${problem.code}: ${problem.title}`,
      `  ${problem.detail}`,
      `  fix: ${problem.fix}`
    );
  }
  return lines;
}

function versionLines(state: IPanelState, versions: IReportVersions): string[] {
  const parts: string[] = [];
  if (versions.application) {
    parts.push(
      `${versions.applicationName ?? 'JupyterLab'} ${versions.application}`
    );
  }
  const view = state.view;
  if (view.kind === 'loaded') {
    parts.push(`startup schema ${view.projection.schemaVersion}`);
  }
  const failure =
    view.kind === 'loaded' || view.kind === 'loading'
      ? undefined
      : view.failure;
  const diagnostics =
    failure && 'diagnostics' in failure ? failure.diagnostics : undefined;
  if (diagnostics?.kind === 'report') {
    const r = diagnostics.report;
    parts.push(`jupyterlab-project-startup ${r.version}`);
    parts.push(
      `Node.js ${r.node.version ?? 'missing'} (needs ${r.node.required})`
    );
    parts.push(
      `jupyter-server-proxy ${r.serverProxy.version ?? 'missing'} (needs ${r.serverProxy.required})`
    );
    parts.push(`service ${r.sidecar.state}`);
  }
  return parts.length > 0 ? [`Versions: ${parts.join('; ')}`] : [];
}

function projectionLines(projection: StartupProjection): string[] {
  return [
    `Platform: ${projection.platform}; interface: ${projection.interface}; phase: ${projection.phase}`,
    `Project directory: ${projection.projectPath}`
  ];
}

/** The checks an administrator must act on. */
export function administratorChecks(
  projection: StartupProjection
): ReadinessCheck[] {
  return projection.readinessChecks.filter(
    c =>
      c.remedyBy === 'administrator' &&
      (c.status === 'fail' || c.status === 'warn')
  );
}

/**
 * The report, in English whatever the page's language (an operator reads it with the logs and
 * the docs), every line stripped of what could carry a credential.
 */
export function administratorReport(
  state: IPanelState,
  versions: IReportVersions,
  now: Date = new Date()
): string {
  const lines = [
    'Project Startup: details for the administrator',
    `Reported: ${now.toISOString()}`,
    ...versionLines(state, versions)
  ];
  const view = state.view;
  if (view.kind === 'loaded') {
    lines.push(...projectionLines(view.projection));
    const checks = administratorChecks(view.projection);
    lines.push('', 'Problems:');
    lines.push(
      ...(checks.length > 0 ? checks.flatMap(checkLines) : ['- none'])
    );
  } else if (view.kind !== 'loading') {
    lines.push('', 'Problems:', ...failureLines(view.failure));
  }
  if (state.initializeFailure) {
    lines.push(...failureLines(state.initializeFailure));
  }
  return `${lines.map(redactSecrets).join('\n')}\n`;
}
