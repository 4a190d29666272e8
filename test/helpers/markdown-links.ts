// The links of the repository's Markdown, as GitHub renders them: which headings give which
// anchors (GitHub's slug rules), which links a file holds outside code, and which of them do not
// resolve. Pure: it reads the files it is asked about, nothing else.
import * as fs from 'node:fs';
import * as path from 'node:path';

/** GitHub's anchor for a heading's text: inline markup dropped, lower case, punctuation removed, spaces to hyphens. */
export function githubSlug(heading: string): string {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // a link or image: its text
    .replace(/<[^>]+>/g, '') // inline HTML
    .replace(/[`*]/g, '')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
    .replace(/ /g, '-');
}

/** The lines of `markdown` outside fenced code blocks, with their 1-based numbers. */
function proseLines(markdown: string): { line: string; number: number }[] {
  const out: { line: string; number: number }[] = [];
  let fence: string | undefined;
  markdown.split('\n').forEach((line, i) => {
    const opener = /^\s*(```|~~~)/.exec(line);
    if (opener) {
      if (fence === undefined) {
        fence = opener[1];
      } else if (line.trim().startsWith(fence)) {
        fence = undefined;
      }
      return;
    }
    if (fence === undefined) {
      out.push({ line, number: i + 1 });
    }
  });
  return out;
}

/** Every anchor the headings of `markdown` give, duplicates numbered as GitHub does (-1, -2, …). */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const { line } of proseLines(markdown)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) {
      continue;
    }
    const slug = githubSlug(heading[1]);
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

export interface MarkdownLink {
  target: string;
  line: number;
}

/** The link and image targets of `markdown` (inline `[..](..)` and `<scheme://..>`), outside code. */
export function markdownLinks(markdown: string): MarkdownLink[] {
  const links: MarkdownLink[] = [];
  for (const { line, number } of proseLines(markdown)) {
    const prose = line.replace(/`[^`]*`/g, '');
    for (const m of prose.matchAll(
      /\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g
    )) {
      links.push({ target: m[1], line: number });
    }
    for (const m of prose.matchAll(/<([a-z][a-z0-9+.-]*:[^>\s]+)>/gi)) {
      links.push({ target: m[1], line: number });
    }
  }
  return links;
}

/** A host no reader outside this machine or network can reach. */
function isPrivateHost(host: string): boolean {
  return (
    host === 'localhost' ||
    host.endsWith('.localhost') ||
    host.endsWith('.local') ||
    host.endsWith('.internal') ||
    /^127\./.test(host) ||
    /^10\./.test(host) ||
    /^192\.168\./.test(host) ||
    /^172\.(1[6-9]|2\d|3[01])\./.test(host) ||
    host === '[::1]' ||
    !host.includes('.')
  );
}

/**
 * What is wrong with the links of `file` (a path inside `root`): a relative target that leaves
 * the repository or does not exist, an anchor no heading of its file gives, a link to anything
 * but an https address of a public host. One message per bad link, naming file and line.
 */
export function linkProblems(file: string, root: string): string[] {
  const problems: string[] = [];
  const where = (line: number) => `${path.relative(root, file)}:${line}`;
  for (const { target, line } of markdownLinks(fs.readFileSync(file, 'utf8'))) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) {
      let url: URL | undefined;
      try {
        url = new URL(target);
      } catch {
        url = undefined;
      }
      if (url === undefined || url.protocol !== 'https:') {
        problems.push(`${where(line)}: ${target} is not an https address`);
      } else if (isPrivateHost(url.hostname)) {
        problems.push(`${where(line)}: ${target} is not a public site`);
      }
      continue;
    }
    const [rawPath, anchor] = target.split('#', 2) as [string, string?];
    const resolved =
      rawPath === ''
        ? file
        : path.resolve(path.dirname(file), decodeURIComponent(rawPath));
    const inside = path.relative(root, resolved);
    if (inside.startsWith('..') || path.isAbsolute(inside)) {
      problems.push(`${where(line)}: ${target} leaves the repository`);
      continue;
    }
    if (!fs.existsSync(resolved)) {
      problems.push(`${where(line)}: ${target}: ${inside} does not exist`);
      continue;
    }
    if (anchor !== undefined && anchor !== '') {
      if (!resolved.endsWith('.md') || fs.statSync(resolved).isDirectory()) {
        problems.push(
          `${where(line)}: ${target}: an anchor into a non-Markdown file`
        );
      } else if (
        !headingAnchors(fs.readFileSync(resolved, 'utf8')).has(anchor)
      ) {
        problems.push(
          `${where(line)}: ${target}: ${inside} has no heading #${anchor}`
        );
      }
    }
  }
  return problems;
}
