// Every command in the README's shell blocks runs or resolves. The safe ones
// run here against the built checkout (`project-startup --version`, `npm pack` as a dry run,
// the usage of `jupyter install` and of the wheel build); a command that installs into a
// Jupyter environment is mapped to the suite that runs it; a name is checked against the
// package metadata it must match. A command this table does not know fails the test: a new
// command in the README needs a way to be checked.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPO_ROOT, runProcess } from '../helpers/cli';

const read = (file: string) =>
  fs.readFileSync(path.join(REPO_ROOT, file), 'utf8');
const pkg = JSON.parse(read('package.json')) as {
  name: string;
  version: string;
  homepage: string;
};
const ENV = {
  PATH: `${path.dirname(process.execPath)}:/usr/bin:/bin`,
  HOME: process.env.HOME ?? '/tmp',
  npm_config_offline: 'true'
};

/** The commands of the README's ```sh blocks: comments dropped, continuations joined. */
function readmeCommands(): string[] {
  const readme = read('README.md');
  return [...readme.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].flatMap(m =>
    m[1]
      .replace(/\\\n\s*/g, ' ')
      .split('\n')
      .map(line => line.replace(/\s+#.*$/, '').trim())
      .filter(line => line !== '' && !line.startsWith('#'))
  );
}

/** The suite that runs a command: it exists and holds the text that runs it. */
function ranBy(suite: string, text: string | RegExp): void {
  const source = read(suite);
  if (typeof text === 'string') {
    expect(source).toContain(text);
  } else {
    expect(source).toMatch(text);
  }
}

async function run(file: string, args: string[]) {
  return runProcess(file, args, { cwd: REPO_ROOT, env: ENV, timeoutMs: 60000 });
}

/** The Python distribution name pyproject.toml declares. */
function pythonName(): string {
  const match = /^name\s*=\s*"([^"]+)"/m.exec(read('pyproject.toml'));
  return (match as RegExpExecArray)[1];
}

interface CommandCheck {
  command: RegExp;
  check(command: string): void | Promise<void>;
}

const CHECKS: CommandCheck[] = [
  {
    command: /^git clone (\S+)$/,
    check: c => expect(c.split(' ')[2]).toBe(`${pkg.homepage}.git`)
  },
  {
    command: /^cd \S+$/,
    check: c => expect(c.slice(3)).toBe(path.basename(pkg.homepage))
  },
  {
    command: /^npm ci$/,
    // .ci/run runs it as a timed step: `timed "npm ci" npm ci ...`.
    check: () => ranBy('.ci/run', /^(timed "[^"]*" )?npm ci\b/m)
  },
  {
    command: /^npm run lab$/,
    check: async () => {
      // The script npm runs, its options as it parses them (a wrong one prints the usage), and
      // the suite that runs it from a fresh clone.
      const scripts = (
        JSON.parse(read('package.json')) as { scripts: Record<string, string> }
      ).scripts;
      expect(scripts.lab).toBe('node scripts/lab.js');
      const usage = await run(process.execPath, [
        'scripts/lab.js',
        '--no-such-option'
      ]);
      expect(usage.code).not.toBe(0);
      expect(usage.stderr).toContain('[--proxy-source SRC]');
      expect(usage.stderr).toContain('[--notebook]');
      ranBy('test/system/install/fresh-clone-lab.test.ts', "'run', 'lab'");
    }
  },
  {
    // CI's one command (test/service/readme.test.ts checks docs/testing.md names it too).
    command: /^bash \.ci\/run$/,
    check: () =>
      expect(fs.existsSync(path.join(REPO_ROOT, '.ci', 'run'))).toBe(true)
  },
  {
    command: /^node scripts\/build-wheel\.js --out-dir dist$/,
    check: async () => {
      // Its arguments as the script parses them (a wrong one prints the usage), and the suite
      // that builds and installs the wheel.
      const usage = await run(process.execPath, [
        'scripts/build-wheel.js',
        '--no-such-option'
      ]);
      expect(usage.code).not.toBe(0);
      expect(usage.stderr).toContain('[--out-dir DIR]');
      ranBy('test/helpers/real-stack-setup.js', 'build-wheel');
    }
  },
  {
    command: /^pip install dist\/(\S+)\.whl$/,
    check: c => {
      // The wheel's file name: the distribution name normalized (PEP 427), any version.
      const glob = /dist\/(\S+)-\*\.whl$/.exec(c) as RegExpExecArray;
      expect(glob[1]).toBe(pythonName().replace(/-/g, '_'));
      ranBy('test/system/install/python.ts', 'pip');
    }
  },
  {
    command: /^npm pack$/,
    check: async () => {
      const packed = await run('npm', [
        'pack',
        '--dry-run',
        '--json',
        '--ignore-scripts'
      ]);
      expect(packed.code).toBe(0);
      const [pack] = JSON.parse(packed.stdout) as { filename: string }[];
      expect(pack.filename).toBe(`${pkg.name}-${pkg.version}.tgz`);
    }
  },
  {
    command: /^npm install -g \.\/(\S+)-\*\.tgz$/,
    check: c => {
      expect(c).toBe(`npm install -g ./${pkg.name}-*.tgz`);
      ranBy('test/system/install/npm-package.test.ts', "'install',");
    }
  },
  {
    command: /^project-startup jupyter (install|uninstall) --sys-prefix$/,
    check: async c => {
      const usage = await run(process.execPath, [
        'bin/project-startup.js',
        'jupyter',
        c.split(' ')[2],
        '--help'
      ]);
      expect(usage.code).toBe(0);
      expect(usage.stdout).toContain('--sys-prefix');
      ranBy(
        'test/system/install/npm-package.test.ts',
        `'jupyter', '${c.split(' ')[2]}'`
      );
      ranBy('test/service/jupyter-install.test.ts', '--sys-prefix');
    }
  },
  {
    command: /^jupyter server extension list$/,
    check: () =>
      ranBy(
        'test/system/install/wheel.test.ts',
        '`jupyter server extension list`'
      )
  },
  {
    command: /^jupyter labextension list$/,
    check: () =>
      ranBy('test/system/install/wheel.test.ts', 'lists the labextension')
  },
  {
    command: /^project-startup --version$/,
    check: async () => {
      const version = await run(process.execPath, [
        'bin/project-startup.js',
        '--version'
      ]);
      expect(version.code).toBe(0);
      expect(version.stdout.trim()).toBe(pkg.version);
    }
  },
  {
    command: /^pip uninstall (\S+)$/,
    check: c => expect(c.split(' ')[2]).toBe(pythonName())
  },
  {
    command: /^npm uninstall -g (\S+)$/,
    check: c => expect(c.split(' ')[3]).toBe(pkg.name)
  }
];

describe("the README's commands", () => {
  const commands = readmeCommands();

  it('are found: the quick start, install, verify and uninstall blocks', () => {
    expect(commands.length).toBeGreaterThanOrEqual(10);
  });

  it('are each known to exactly one check, and every check is used', () => {
    const unknown = commands.filter(
      c => CHECKS.filter(k => k.command.test(c)).length !== 1
    );
    expect(unknown).toEqual([]);
    const unused = CHECKS.filter(k => !commands.some(c => k.command.test(c)));
    expect(unused.map(k => String(k.command))).toEqual([]);
  });

  it.each(commands)(
    '`%s` runs or resolves',
    async command => {
      const check = CHECKS.find(k => k.command.test(command));
      expect(check).toBeDefined();
      await (check as CommandCheck).check(command);
    },
    70000
  );
});
