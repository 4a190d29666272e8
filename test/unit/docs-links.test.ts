// The docs hold together as GitHub renders them: every relative link of the
// README, the changelog and docs/ reaches a file of the repository and, with an anchor, one of
// its headings; nothing links outside the repository but https addresses of public sites; the
// README, which is also the PyPI page, stays short; every variable the code reads is documented.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  githubSlug,
  headingAnchors,
  linkProblems,
  markdownLinks
} from '../helpers/markdown-links';

const ROOT = path.resolve(__dirname, '..', '..');

/** README.md, CHANGELOG.md and every Markdown file under docs/. */
function docFiles(): string[] {
  const under = (dir: string): string[] =>
    fs.readdirSync(dir, { withFileTypes: true }).flatMap(entry => {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        return under(full);
      }
      return entry.name.endsWith('.md') ? [full] : [];
    });
  return [
    path.join(ROOT, 'README.md'),
    path.join(ROOT, 'CHANGELOG.md'),
    ...under(path.join(ROOT, 'docs'))
  ];
}

describe("the docs' links", () => {
  it('every link of README.md, CHANGELOG.md and docs/ resolves, and none leaves the repository but for a public https site', () => {
    const files = docFiles();
    expect(files.length).toBeGreaterThanOrEqual(12);
    const links = files.flatMap(f => markdownLinks(fs.readFileSync(f, 'utf8')));
    expect(links.length).toBeGreaterThanOrEqual(30);
    expect(files.flatMap(f => linkProblems(f, ROOT))).toEqual([]);
  });

  it('the README is at most 300 lines and links into docs/', () => {
    const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    expect(readme.trimEnd().split('\n').length).toBeLessThanOrEqual(300);
    const targets = markdownLinks(readme).map(l => l.target.split('#')[0]);
    for (const doc of [
      'docs/user-guide.md',
      'docs/operator-guide.md',
      'docs/configuration.md',
      'docs/http-api.md',
      'docs/command-line.md',
      'docs/security.md',
      'docs/performance.md',
      'docs/contributing.md',
      'docs/testing.md',
      'docs/architecture.md'
    ]) {
      expect(targets).toContain(doc);
    }
  });

  it('docs/configuration.md names every PROJECT_STARTUP_* variable the code reads', () => {
    const reference = fs.readFileSync(
      path.join(ROOT, 'docs', 'configuration.md'),
      'utf8'
    );
    const read = new Set<string>();
    const scan = (dir: string): void => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) {
          scan(full);
        } else if (/\.(ts|js|py)$/.test(entry.name)) {
          const text = fs.readFileSync(full, 'utf8');
          for (const m of text.matchAll(/["'`](PROJECT_STARTUP_[A-Z0-9_]+)/g)) {
            read.add(m[1]);
          }
        }
      }
    };
    for (const dir of ['sidecar/src', 'bin', 'jupyterlab_project_startup']) {
      scan(path.join(ROOT, dir));
    }
    expect(read.size).toBeGreaterThanOrEqual(20);
    const missing = [...read].filter(
      name => !new RegExp(`\`${name}\``).test(reference)
    );
    expect(missing).toEqual([]);
  });
});

describe('the link checker', () => {
  it("gives GitHub's anchors: markup dropped, punctuation removed, duplicates numbered", () => {
    expect(githubSlug('Operator guide: install with pip (recommended)')).toBe(
      'operator-guide-install-with-pip-recommended'
    );
    expect(githubSlug("The terminal's allocation on a cluster")).toBe(
      'the-terminals-allocation-on-a-cluster'
    );
    expect(githubSlug('Zero to JupyterHub on Kubernetes (`config.yaml`)')).toBe(
      'zero-to-jupyterhub-on-kubernetes-configyaml'
    );
    expect(githubSlug('A bad `PROJECT_STARTUP_*` setting')).toBe(
      'a-bad-project_startup_-setting'
    );
    expect([...headingAnchors('# A\n## B\n```sh\n## B\n```\n### B\n')]).toEqual(
      ['a', 'b', 'b-1']
    );
  });

  it('finds links outside code only, and reports each kind of bad link', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-links-'));
    try {
      fs.mkdirSync(path.join(dir, 'docs'));
      fs.writeFileSync(path.join(dir, 'docs', 'b.md'), '# B\n\n## Here\n');
      fs.writeFileSync(
        path.join(dir, 'a.md'),
        [
          '# A',
          '[ok](docs/b.md#here) [self](#a) [public](https://jupyter.org/)',
          '[gone](docs/c.md) [anchor](docs/b.md#there) [up](../outside.md)',
          '[plain](http://jupyter.org/) [private](https://hub.local/x) <https://localhost:8888/>',
          '`[code](nowhere.md)`',
          '```md',
          '[fenced](nowhere.md)',
          '```'
        ].join('\n')
      );
      const problems = linkProblems(path.join(dir, 'a.md'), dir);
      expect(problems).toEqual([
        'a.md:3: docs/c.md: docs/c.md does not exist',
        'a.md:3: docs/b.md#there: docs/b.md has no heading #there',
        'a.md:3: ../outside.md leaves the repository',
        'a.md:4: http://jupyter.org/ is not an https address',
        'a.md:4: https://hub.local/x is not a public site',
        'a.md:4: https://localhost:8888/ is not a public site'
      ]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
