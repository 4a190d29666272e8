// Accessibility scans in the browser tests: axe-core (npm devDependency, pinned) is injected
// into the page and run on one part of it (the panel, the dialog, the setup page) under the WCAG
// 2.1 A and AA rules. A scan fails on any serious or critical violation; a moderate or minor one
// fails too unless test/system/e2e/axe-allowlist.json records it with its reason, and so does a node axe
// could not decide ("incomplete", e.g. text over an image, whose contrast it cannot measure). Each scan writes its full result to test-artifacts/e2e/axe-<name>.json.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { ARTIFACTS, E2E_DIR } from './helpers';

/** The WCAG 2.1 level A and AA rules (axe-core tags). */
export const WCAG21_AA_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

const AXE_PACKAGE = path.dirname(require.resolve('axe-core/package.json'));
export const AXE_VERSION = (
  JSON.parse(
    fs.readFileSync(path.join(AXE_PACKAGE, 'package.json'), 'utf8')
  ) as { version: string }
).version;
const AXE_SOURCE = fs.readFileSync(
  path.join(AXE_PACKAGE, 'axe.min.js'),
  'utf8'
);

export const ALLOWLIST_FILE = path.join(E2E_DIR, 'axe-allowlist.json');

/** One recorded moderate or minor finding: the rule, where (a CSS selector axe reports), why. */
export interface AllowedFinding {
  rule: string;
  /** axe's target selector of the node, or "*" for every node of that rule. */
  target: string;
  reason: string;
}

export interface AxeNode {
  target: string[];
  html: string;
  failureSummary?: string;
}

export interface AxeViolation {
  id: string;
  impact: 'minor' | 'moderate' | 'serious' | 'critical' | null;
  help: string;
  helpUrl: string;
  tags: string[];
  nodes: AxeNode[];
}

export interface AxeScan {
  name: string;
  violations: AxeViolation[];
  /** What axe could not decide (e.g. a colour over an image), listed in the artifact for a human. */
  incomplete: AxeViolation[];
  /** How many rules passed (a scan that checked nothing is a failure too). */
  passes: number;
}

export function readAllowlist(): AllowedFinding[] {
  const parsed = JSON.parse(fs.readFileSync(ALLOWLIST_FILE, 'utf8')) as {
    findings: AllowedFinding[];
  };
  for (const entry of parsed.findings) {
    if (
      !entry.rule ||
      !entry.target ||
      !entry.reason ||
      entry.reason.trim().length < 20
    ) {
      throw new Error(
        `${ALLOWLIST_FILE}: every finding needs a rule, a target and a reason (got ${JSON.stringify(entry)})`
      );
    }
  }
  return parsed.findings;
}

/** Runs axe-core on `include` (CSS selectors) in the page; the raw result, also written as an artifact. */
export async function runAxe(
  page: Page,
  name: string,
  include: string[]
): Promise<AxeScan> {
  // page.evaluate runs outside the page's Content-Security-Policy (the setup page allows no
  // inline script), so the source is injected this way, not with a <script> tag.
  const loaded = await page.evaluate(
    () =>
      typeof (globalThis as unknown as { axe?: unknown }).axe !== 'undefined'
  );
  if (!loaded) {
    await page.evaluate(AXE_SOURCE);
  }
  const result = await page.evaluate(
    async ([selectors, tags]) => {
      const g = globalThis as unknown as {
        axe: {
          run(
            context: unknown,
            options: unknown
          ): Promise<{
            violations: unknown[];
            incomplete: unknown[];
            passes: unknown[];
          }>;
        };
      };
      const found = selectors.filter(
        selector => document.querySelector(selector) !== null
      );
      if (found.length !== selectors.length) {
        return {
          missing: selectors.filter(s => !found.includes(s)),
          violations: [],
          incomplete: [],
          passes: 0
        };
      }
      const r = await g.axe.run(
        { include: selectors.map(s => [s]) },
        {
          runOnly: { type: 'tag', values: tags },
          resultTypes: ['violations', 'incomplete']
        }
      );
      return {
        missing: [] as string[],
        violations: r.violations,
        incomplete: r.incomplete,
        passes: r.passes.length
      };
    },
    [include, WCAG21_AA_TAGS] as const
  );
  if (result.missing.length > 0) {
    throw new Error(
      `axe scan "${name}": nothing in the page matches ${result.missing.join(', ')}`
    );
  }
  const simplify = (v: AxeViolation): AxeViolation => ({
    id: v.id,
    impact: v.impact,
    help: v.help,
    helpUrl: v.helpUrl,
    tags: v.tags,
    nodes: v.nodes.map(n => ({
      target: n.target.map(String),
      html: n.html,
      failureSummary: n.failureSummary
    }))
  });
  const violations = (result.violations as AxeViolation[]).map(simplify);
  const incomplete = (result.incomplete as AxeViolation[]).map(simplify);
  const scan = { name, violations, incomplete, passes: result.passes };
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  fs.writeFileSync(
    path.join(ARTIFACTS, `axe-${name}.json`),
    JSON.stringify(
      { axe: AXE_VERSION, tags: WCAG21_AA_TAGS, include, ...scan },
      null,
      2
    )
  );
  return scan;
}

/**
 * The findings the scan may not have: serious or critical violations, and other violations or
 * undecided nodes the allow-list does not record.
 */
export function unacceptable(
  scan: AxeScan,
  allowlist: AllowedFinding[] = readAllowlist()
): string[] {
  const out: string[] = [];
  for (const undecided of scan.incomplete) {
    for (const node of undecided.nodes) {
      const target = node.target.join(' ');
      if (
        !allowlist.some(
          a =>
            a.rule === `${undecided.id} (incomplete)` &&
            (a.target === '*' || a.target === target)
        )
      ) {
        out.push(
          `undecided ${undecided.id} (${undecided.help}) at ${target}: ${(node.failureSummary ?? '').replace(/\s+/g, ' ').trim()}`
        );
      }
    }
  }
  for (const violation of scan.violations) {
    for (const node of violation.nodes) {
      const target = node.target.join(' ');
      const severe =
        violation.impact === 'serious' || violation.impact === 'critical';
      const allowed =
        !severe &&
        allowlist.some(
          a =>
            a.rule === violation.id && (a.target === '*' || a.target === target)
        );
      if (!allowed) {
        out.push(
          `${violation.impact} ${violation.id} (${violation.help}) at ${target}: ${(node.failureSummary ?? '').replace(/\s+/g, ' ').trim()}`
        );
      }
    }
  }
  return out;
}

/**
 * The WCAG contrast ratio of the focused element's outline against the background of
 * `backgroundSelector` (WCAG 2.1 1.4.11 asks 3:1 of a focus indicator), with what was measured.
 */
export function focusRingContrast(
  page: Page,
  backgroundSelector: string
): Promise<{
  id: string;
  outline: string;
  background: string;
  width: string;
  ratio: number;
}> {
  return page.evaluate(selector => {
    const parse = (color: string): number[] =>
      (color.match(/[\d.]+/g) ?? []).map(Number);
    const luminance = ([r, g, b]: number[]): number => {
      const lin = (v: number) =>
        v / 255 <= 0.03928
          ? v / 255 / 12.92
          : ((v / 255 + 0.055) / 1.055) ** 2.4;
      return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
    };
    const active = document.activeElement as HTMLElement;
    const style = getComputedStyle(active);
    const background = getComputedStyle(
      document.querySelector(selector) as Element
    ).backgroundColor;
    const [a, b] = [
      luminance(parse(style.outlineColor)),
      luminance(parse(background))
    ];
    return {
      id: active.id,
      outline: `${style.outlineStyle} ${style.outlineColor}`,
      background,
      width: style.outlineWidth,
      ratio: (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05)
    };
  }, backgroundSelector);
}

/**
 * Scans `include` and fails, listing each finding, on any serious or critical violation under
 * WCAG 2.1 A/AA, or a moderate or minor one (or an undecided node) the allow-list does not
 * record. With `fit` (the selector of the element that scrolls, "html" for the page) the
 * viewport first grows to show all of its content, and is put back after: in JupyterLab's
 * nested scrolling layout axe did not report the low-contrast warning rows at the bottom of
 * the panel's checks table until they were in view (measured with the first scans).
 */
export async function expectAccessible(
  page: Page,
  name: string,
  include: string[],
  options: { fit?: string } = {}
): Promise<AxeScan> {
  const size = page.viewportSize();
  if (options.fit && size) {
    const content = await page.evaluate(
      selector =>
        (document.querySelector(selector) as HTMLElement).scrollHeight,
      options.fit
    );
    await page.setViewportSize({
      width: size.width,
      height: Math.min(6000, Math.max(size.height, content + 300))
    });
    await page.waitForFunction(
      selector => {
        const node = document.querySelector(selector) as HTMLElement;
        return (
          node.scrollHeight <=
          (selector === 'html' ? window.innerHeight : node.clientHeight)
        );
      },
      options.fit,
      { timeout: 10000, polling: 100 }
    );
  }
  let scan: AxeScan;
  try {
    scan = await runAxe(page, name, include);
  } finally {
    if (options.fit && size) {
      await page.setViewportSize(size);
    }
  }
  if (scan.passes === 0) {
    throw new Error(
      `axe scan "${name}" checked no rule at all in ${include.join(', ')}`
    );
  }
  const bad = unacceptable(scan);
  if (bad.length > 0) {
    throw new Error(
      `axe-core ${AXE_VERSION} (WCAG 2.1 A/AA) found in "${name}":\n  ${bad.join('\n  ')}`
    );
  }
  return scan;
}
