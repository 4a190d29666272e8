// Terminal renderings of the manifest and the projection: plain text a person reads at a
// login node, no colour codes, lines short enough for an 80-column terminal. Every value that
// comes from the service or the file system is escaped (terminal-text.ts).
import type { Manifest } from '../core/manifest';
import type { Problem } from '../core/problems';
import type { Projection } from '../core/projection';
import { forTheCommandLine } from '../core/reach';
import {
  fillWords,
  MANIFEST_WORDS,
  modelSourceWords
} from '../core/manifest-words';
import { line, terminalSafe, terminalSafeLines } from '../core/terminal-text';
import { labelOf } from '../core/vocabulary';

const MARK: Readonly<Record<string, string>> = {
  pass: '[ok]  ',
  warn: '[warn]',
  fail: '[FAIL]',
  skip: '[skip]'
};

function indent(text: string, by: string): string {
  return text
    .split('\n')
    .map(line => by + line)
    .join('\n');
}

export function formatProjection(
  p: Projection & { manifest: Manifest },
  source: string
): string {
  const lines: string[] = [];
  lines.push(
    line`Project startup: ${labelOf(p.platform)} (${p.platform}), ${labelOf(p.interface).toLowerCase()} interface`
  );
  lines.push(line`  ${source}`);
  lines.push('');
  lines.push(line`Project    ${p.projectPath}`);
  lines.push(line`State      ${p.statePath}`);
  lines.push(line`Phase      ${p.phase}`);
  lines.push(
    line`Compute    ${p.compute.label}: ${p.compute.satisfied ? 'available' : 'missing'}`
  );
  if (p.browserUrl) {
    lines.push(line`Browser    ${p.browserUrl}`);
  }
  lines.push('');
  lines.push(line`Next: ${p.nextAction.title}`);
  lines.push(
    indent(terminalSafeLines(forTheCommandLine(p.nextAction.detail)), '  ')
  );
  if (p.nextAction.command) {
    lines.push(line`  $ ${p.nextAction.command}`);
  }
  lines.push('');
  lines.push('Readiness checks');
  for (const check of p.readinessChecks) {
    lines.push(
      line`  ${MARK[check.status]} ${check.title}${check.required ? '' : ' (optional)'}: ${check.observed}`
    );
    if (check.remedy && check.status !== 'pass' && check.status !== 'skip') {
      // A fix only the site's administrator can make is theirs to act on, not the person's.
      lines.push(
        check.remedyBy === 'administrator'
          ? line`         your administrator needs to fix this: ${forTheCommandLine(check.remedy)}`
          : line`         fix: ${forTheCommandLine(check.remedy)}`
      );
    }
  }
  return `${lines.join('\n')}\n`;
}

/**
 * The whole manifest in words a person reads: every capability and its values, each model
 * source with whether it is secret-backed and its approval modes (by label), and the boundary
 * with both of its sentences. The setup page renders the same manifest by the same rules.
 */
export function formatManifest(m: Manifest): string {
  const evidence = m.platform.evidence;
  const lines: string[] = [
    terminalSafe(
      fillWords('heading', {
        platform: labelOf(m.platform.id),
        platformId: m.platform.id
      })
    ),
    `  ${terminalSafe(
      fillWords('evidence', {
        decidedBy: evidence.decidedBy,
        signals:
          evidence.signals.map(s => s.name).join(', ') ||
          MANIFEST_WORDS.noSignals,
        host: evidence.host
      })
    )}`
  ];
  if (evidence.overruled.length > 0) {
    const overruled = evidence.overruled
      .map(s => `${s.name} (${s.platform})`)
      .join(', ');
    lines.push(`  ${terminalSafe(fillWords('overruled', { overruled }))}`);
  }
  lines.push(
    `  ${terminalSafe(fillWords('policy', { policy: m.policy.lowRiskAutomation }))}`,
    ''
  );
  const width = Math.max(...m.capabilities.map(c => c.label.length));
  for (const capability of m.capabilities) {
    lines.push(...capabilityLines(capability, width));
  }
  return `${lines.join('\n')}\n`;
}

/**
 * One capability: its values on one line, or each model source, connection and the boundary on
 * its own lines. A site's name for a source is a line of its own and what the source is at this
 * site the line below it, so no label can run into (or pass for) a classification.
 */
function capabilityLines(
  capability: Manifest['capabilities'][number],
  width: number
): string[] {
  // Read as records: the model sources and the boundary carry members beyond id and label.
  const values: ReadonlyArray<
    { id: string; label: string } & Record<string, unknown>
  > = capability.values;
  const detailed = values.some(
    v =>
      Array.isArray(v.approvalModeLabels) ||
      typeof v.excludes === 'string' ||
      v.arranged === false
  );
  if (!detailed) {
    const plain = values
      .map(v =>
        'default' in capability && capability.default === v.id
          ? fillWords('defaultValue', { label: v.label })
          : v.label
      )
      .join('; ');
    return [line`  ${capability.label.padEnd(width)}  ${plain}`];
  }
  return [
    line`  ${capability.label}`,
    ...values.flatMap(v => {
      if (typeof v.excludes === 'string') {
        return [
          line`    ${fillWords('boundary', {
            label: v.label,
            excludes: v.excludes,
            doesNotIsolate: String(v.doesNotIsolate ?? '')
          }).trimEnd()}`
        ];
      }
      const words = Array.isArray(v.approvalModeLabels)
        ? modelSourceWords({
            label: v.label,
            arranged: typeof v.arranged === 'boolean' ? v.arranged : undefined,
            address: typeof v.address === 'string' ? v.address : undefined,
            secretBacked: v.secretBacked === true,
            approvalModeLabels: v.approvalModeLabels as string[]
          })
        : {
            name: v.label,
            classification:
              v.arranged === false ? MANIFEST_WORDS.notArranged : undefined
          };
      return words.classification === undefined
        ? [line`    ${words.name}`]
        : [line`    ${words.name}`, line`      ${words.classification}`];
    })
  ];
}

export function formatProblem(problem: Problem): string {
  const lines = [line`Error (${problem.code}): ${problem.detail}`];
  const remedy = problem.remedy;
  if (typeof remedy === 'string') {
    lines.push(line`  fix: ${remedy}`);
  }
  return `${lines.join('\n')}\n`;
}
