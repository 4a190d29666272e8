// The docs' examples, tested as written: the fenced code blocks of one section of README.md or a
// file in docs/ (the README is short; the examples the suites run live in docs/).
import * as fs from 'node:fs';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');

export const README = path.join(ROOT, 'README.md');

/** The doc files whose sections the suites run, by what they hold. */
export const DOC = {
  commandLine: path.join(ROOT, 'docs', 'command-line.md'),
  contributing: path.join(ROOT, 'docs', 'contributing.md'),
  httpApi: path.join(ROOT, 'docs', 'http-api.md'),
  notebooksAndTerminals: path.join(ROOT, 'docs', 'notebooks-and-terminals.md'),
  operatorGuide: path.join(ROOT, 'docs', 'operator-guide.md'),
  testing: path.join(ROOT, 'docs', 'testing.md')
} as const;

/**
 * The fenced code blocks (``` + `lang`) of the section of `file` whose heading text is `heading`
 * (any level), up to the next heading of the same or a higher level. Throws, naming the file and
 * the heading, when there is no such section.
 */
export function readmeCodeBlocks(
  heading: string,
  lang: string,
  file = README
): string[] {
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  const start = lines.findIndex(
    line => /^#{1,6} /.test(line) && line.replace(/^#+ /, '').trim() === heading
  );
  if (start < 0) {
    throw new Error(
      `${path.relative(ROOT, file)} has no section "${heading}" (the examples this test runs live there)`
    );
  }
  const level = (lines[start].match(/^#+/) as RegExpMatchArray)[0].length;
  const blocks: string[] = [];
  let current: string[] | undefined;
  for (const line of lines.slice(start + 1)) {
    if (current === undefined) {
      const heading = line.match(/^(#{1,6}) /);
      if (heading && heading[1].length <= level) {
        break;
      }
      if (line.trim() === '```' + lang) {
        current = [];
      }
    } else if (line.trim() === '```') {
      blocks.push(current.join('\n'));
      current = undefined;
    } else {
      current.push(line);
    }
  }
  return blocks;
}
