// The README's examples, tested as written: the fenced code blocks of one section.
import * as fs from 'node:fs';
import * as path from 'node:path';

export const README = path.resolve(__dirname, '..', '..', 'README.md');

/**
 * The fenced code blocks (``` + `lang`) of the README section whose heading text is `heading`
 * (any level), up to the next heading of the same or a higher level. Throws, naming the heading,
 * when there is no such section.
 */
export function readmeCodeBlocks(
  heading: string,
  lang: string,
  readme = README
): string[] {
  const lines = fs.readFileSync(readme, 'utf8').split('\n');
  const start = lines.findIndex(
    line => /^#{1,6} /.test(line) && line.replace(/^#+ /, '').trim() === heading
  );
  if (start < 0) {
    throw new Error(
      `README.md has no section "${heading}" (the examples this test runs live there)`
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
