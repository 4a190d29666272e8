// The sidecar's bundle and V8 code cache are built by one Node and may be run by another (a wheel
// or npm tarball built on CI's Node runs on the user's Node 20, 22 or 24). .ci/run runs this
// suite, with the other sidecar suites, on each supported Node line. The bin hands the cache to
// V8 only when this very V8 made it and its payload is intact (V8 itself checks the version but,
// in release builds, not the payload: a damaged cache aborted Node 20 with a fatal error).
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as nodeModule from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import { REPO_ROOT } from '../helpers/cli';

const BIN = path.join(REPO_ROOT, 'bin', 'project-startup.js');
const CACHE = path.join(
  REPO_ROOT,
  'sidecar',
  'dist',
  'bundle',
  'project-startup.cache'
);

interface LoadReport {
  /** Whether the bin found a cache it may hand to V8. */
  handedToV8: boolean;
  /** V8's verdict on what it was handed. */
  rejectedByV8: boolean;
  hasMain: boolean;
}

/** Loads the bundle with the given cache file in a fresh process of this Node, as the bin does. */
function loadWithCache(cacheFile: string): LoadReport {
  const script = `
    const { BUNDLE, loadWithCodeCache, readCodeCache } = require(${JSON.stringify(BIN)});
    const cache = readCodeCache(${JSON.stringify(cacheFile)});
    const { exports, script } = loadWithCodeCache(BUNDLE, cache);
    process.stdout.write(JSON.stringify({
      handedToV8: cache !== undefined,
      rejectedByV8: script.cachedDataRejected === true,
      hasMain: typeof exports.main === 'function'
    }));
  `;
  const result = spawnSync(process.execPath, ['-e', script], {
    encoding: 'utf8',
    timeout: 20000
  });
  if (result.status !== 0) {
    throw new Error(
      `loading the bundle failed (status ${result.status}, signal ${result.signal}): ${result.stderr.slice(0, 2000)}`
    );
  }
  return JSON.parse(result.stdout) as LoadReport;
}

function withTemporaryCache(
  contents: Buffer,
  run: (file: string) => void
): void {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ps-code-cache-'));
  try {
    const file = path.join(dir, 'project-startup.cache');
    fs.writeFileSync(file, contents);
    run(file);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe(`the bundle and its code cache on Node ${process.version} (V8 ${process.versions.v8})`, () => {
  const cache = fs.readFileSync(CACHE);
  const madeByV8 = /^project-startup-code-cache\/1 (\S+)\n/.exec(
    cache.toString('latin1', 0, 200)
  )?.[1];

  it('uses the code cache exactly when this very V8 made it', () => {
    expect(madeByV8).toBeDefined();
    const sameV8 = madeByV8 === process.versions.v8;
    expect(loadWithCache(CACHE)).toEqual({
      handedToV8: sameV8,
      rejectedByV8: false,
      hasMain: true
    });
  });

  it('never hands V8 a damaged cache, and still loads the bundle', () => {
    const damaged = Buffer.from(cache);
    for (
      let i = cache.indexOf(0x0a, cache.indexOf(0x0a) + 1) + 64;
      i < damaged.length;
      i += 997
    ) {
      damaged[i] ^= 0xff;
    }
    withTemporaryCache(damaged, file =>
      expect(loadWithCache(file)).toEqual({
        handedToV8: false,
        rejectedByV8: false,
        hasMain: true
      })
    );
  });

  it('never hands V8 a cache another V8 made, and still loads the bundle', () => {
    const foreign = Buffer.from(
      cache
        .toString('latin1')
        .replace(/^(project-startup-code-cache\/1) \S+/, '$1 0.0.0-another-v8'),
      'latin1'
    );
    withTemporaryCache(foreign, file =>
      expect(loadWithCache(file)).toEqual({
        handedToV8: false,
        rejectedByV8: false,
        hasMain: true
      })
    );
  });

  it('runs the command line from the bundle on this Node', () => {
    const result = spawnSync(process.execPath, [BIN, '--version'], {
      encoding: 'utf8',
      timeout: 20000
    });
    expect(result.status).toBe(0);
    const pkg = JSON.parse(
      fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')
    ) as { version: string };
    expect(result.stdout.trim()).toContain(pkg.version);
  });

  it("takes Node's own compile cache where the shipped one is not of this V8 and NODE_COMPILE_CACHE is set", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ps-node-cache-'));
    try {
      const compileCache = path.join(dir, 'compile-cache');
      const result = spawnSync(process.execPath, [BIN, '--version'], {
        encoding: 'utf8',
        timeout: 20000,
        env: {
          PATH: process.env.PATH,
          HOME: dir,
          NODE_COMPILE_CACHE: compileCache
        }
      });
      expect(result.status).toBe(0);
      const cached = fs.existsSync(compileCache)
        ? (fs.readdirSync(compileCache, { recursive: true }) as string[])
            .map(name => path.join(compileCache, name))
            .filter(file => fs.statSync(file).isFile())
        : [];
      const { getCompileCacheDir } = nodeModule as {
        getCompileCacheDir?: () => string | undefined;
      };
      // Node caches the bin it runs; the bundle too only when the bin requires it.
      const expected =
        getCompileCacheDir === undefined
          ? 0
          : madeByV8 === process.versions.v8
            ? 1
            : 2;
      expect(cached).toHaveLength(expected);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('is a Node line that package.json supports', () => {
    const pkg = JSON.parse(
      fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')
    ) as { engines: { node: string } };
    const minimum = Number(/^>=(\d+)$/.exec(pkg.engines.node)?.[1]);
    expect(Number(process.versions.node.split('.')[0])).toBeGreaterThanOrEqual(
      minimum
    );
  });
});
