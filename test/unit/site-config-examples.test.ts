// The site files the docs show mean what they seem to: once a file marks any source arranged,
// a source it leaves out is not arranged, so every example that arranges anything names each
// source of its platform with `arranged`, and the page operators read states the rule.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { adapterFor } from '../../sidecar/src/core/platforms';
import { arrangedByDefault } from '../../sidecar/src/core/site-names';
import { PLATFORM_IDS, PlatformId } from '../../sidecar/src/core/vocabulary';

const DOCS = path.resolve(__dirname, '..', '..', 'docs');
const PAGE = fs.readFileSync(path.join(DOCS, 'site-configuration.md'), 'utf8');

type Sources = Record<string, { arranged?: boolean }>;

/** The platform and model sources of the Zero to JupyterHub block (YAML, read by indentation). */
function zeroToJupyterHubExample(): { platform: string; sources: Sources } {
  const section = PAGE.slice(PAGE.indexOf('## Zero to JupyterHub'));
  const block = section.slice(
    section.indexOf('```yaml'),
    section.indexOf('```\n', 8)
  );
  const lines = block.split('\n');
  const platform = /platform: (\S+)/.exec(block)?.[1] ?? '';
  const start = lines.findIndex(line => /^\s*modelSources:/.test(line));
  const indent = (line: string) => line.length - line.trimStart().length;
  const sourceIndent = indent(lines[start]) + 2;
  const sources: Sources = {};
  let current: string | undefined;
  for (const line of lines.slice(start + 1)) {
    if (line.trim() === '' || line.trim().startsWith('#')) {
      continue;
    }
    if (indent(line) < sourceIndent) {
      break;
    }
    const name = /^\s*([a-z0-9-]+):/.exec(line);
    if (indent(line) === sourceIndent && name) {
      current = name[1];
      sources[current] = {};
    }
    const arranged = /arranged: (true|false)/.exec(line);
    if (current !== undefined && arranged) {
      sources[current].arranged = arranged[1] === 'true';
    }
  }
  return { platform, sources };
}

/** The sources a file arranging anything left without an explicit `arranged`. */
function leftImplicit(platform: string, sources: Sources): string[] {
  if (arrangedByDefault(sources)) {
    return [];
  }
  return adapterFor(platform as PlatformId).modelSources.filter(
    id => typeof sources[id]?.arranged !== 'boolean'
  );
}

describe("the docs' site files say which sources are arranged", () => {
  test('the Zero to JupyterHub example names every source of its platform, each with arranged', () => {
    const { platform, sources } = zeroToJupyterHubExample();
    expect(PLATFORM_IDS).toContain(platform);
    expect(Object.values(sources).some(source => source.arranged)).toBe(true);
    expect(Object.keys(sources).sort()).toEqual(
      [...adapterFor(platform as PlatformId).modelSources].sort()
    );
    expect(leftImplicit(platform, sources)).toEqual([]);
  });

  test.each(['generic', 'hosted-notebook', 'cluster'])(
    'docs/examples/site-config/%s.json leaves no source to the rule unsaid',
    name => {
      const file = JSON.parse(
        fs.readFileSync(
          path.join(DOCS, 'examples', 'site-config', `${name}.json`),
          'utf8'
        )
      ) as { platform?: string; modelSources?: Sources };
      expect(
        leftImplicit(file.platform ?? name, file.modelSources ?? {})
      ).toEqual([]);
    }
  );

  test('the page states the rule where operators read it', () => {
    expect(PAGE).toMatch(/## Which sources are arranged/);
    expect(PAGE.replace(/\s+/g, ' ')).toMatch(
      /Once the file marks any source `arranged: true`, it has said which sources the site arranged: every source it does not mark `arranged: true` is not arranged/
    );
  });
});
