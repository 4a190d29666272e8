// Terminal renderings of the manifest and the projection: plain text a person reads at a
// login node, no colour codes, lines short enough for an 80-column terminal.
import type { Manifest } from './manifest';
import type { Problem } from './problems';
import type { Projection } from './projection';
import { labelOf } from './vocabulary';

const MARK: Readonly<Record<string, string>> = { pass: '[ok]  ', warn: '[warn]', fail: '[FAIL]', skip: '[skip]' };

function indent(text: string, by: string): string {
  return text
    .split('\n')
    .map(line => by + line)
    .join('\n');
}

export function formatProjection(p: Projection & { manifest: Manifest }, source: string): string {
  const lines: string[] = [];
  lines.push(`Project startup: ${labelOf(p.platform)} (${p.platform}), ${labelOf(p.interface).toLowerCase()} interface`);
  lines.push(`  ${source}`);
  lines.push('');
  lines.push(`Project    ${p.projectPath}`);
  lines.push(`State      ${p.statePath}`);
  lines.push(`Phase      ${p.phase}`);
  lines.push(`Compute    ${p.compute.label}: ${p.compute.satisfied ? 'available' : 'missing'}`);
  if (p.browserUrl) {
    lines.push(`Browser    ${p.browserUrl}`);
  }
  lines.push('');
  lines.push(`Next: ${p.nextAction.title}`);
  lines.push(indent(p.nextAction.detail, '  '));
  if (p.nextAction.command) {
    lines.push(`  $ ${p.nextAction.command}`);
  }
  lines.push('');
  lines.push('Readiness checks');
  for (const check of p.readinessChecks) {
    lines.push(`  ${MARK[check.status]} ${check.title}${check.required ? '' : ' (optional)'}: ${check.observed}`);
    if (check.remedy && check.status !== 'pass' && check.status !== 'skip') {
      lines.push(`         fix: ${check.remedy}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

export function formatManifest(m: Manifest): string {
  const lines: string[] = [];
  lines.push(`Capabilities of the ${labelOf(m.platform.id)} (${m.platform.id})`);
  const signals = m.platform.evidence.signals.map(s => s.name).join(', ') || 'none';
  lines.push(`  selected by ${m.platform.evidence.decidedBy}; evidence: ${signals}; host: ${m.platform.evidence.host}`);
  if (m.platform.evidence.overruled.length > 0) {
    lines.push(`  overruled: ${m.platform.evidence.overruled.map(s => `${s.name} (${s.platform})`).join(', ')}`);
  }
  lines.push(`  low-risk automation: ${m.policy.lowRiskAutomation}`);
  lines.push('');
  const width = Math.max(...m.capabilities.map(c => c.label.length));
  for (const capability of m.capabilities) {
    const values = capability.values
      .map(v => ('default' in capability && capability.default === v.id ? `${v.label} (default)` : v.label))
      .join('; ');
    lines.push(`  ${capability.label.padEnd(width)}  ${values}`);
  }
  return `${lines.join('\n')}\n`;
}

export function formatProblem(problem: Problem): string {
  const lines = [`Error (${problem.code}): ${problem.detail}`];
  const remedy = problem.remedy;
  if (typeof remedy === 'string') {
    lines.push(`  fix: ${remedy}`);
  }
  return `${lines.join('\n')}\n`;
}
