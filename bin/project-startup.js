#!/usr/bin/env node
'use strict';
// Entry point of the `project-startup` command. The code is compiled to sidecar/dist (tsc);
// `npm run build` also bundles it into sidecar/dist/bundle/project-startup.js (one file, with
// the V8 code cache of its start-up beside it), which starts much faster. The bundle is used
// when present and not older than the compiled code (a later `tsc` alone would otherwise leave
// a stale bundle in charge); otherwise sidecar/dist/cli/main.js is.
const fs = require('node:fs');
const path = require('node:path');

const DIST = path.join(__dirname, '..', 'sidecar', 'dist');
const BUNDLE = path.join(DIST, 'bundle', 'project-startup.js');
const CODE_CACHE = path.join(DIST, 'bundle', 'project-startup.cache');
const LISTEN_FIRST = path.join(DIST, 'bundle', 'listen-first.js');

function entry() {
  const bundle = fs.statSync(BUNDLE, { throwIfNoEntry: false });
  if (bundle !== undefined) {
    const compiled = fs.statSync(path.join(DIST, 'cli', 'main.js'), {
      throwIfNoEntry: false
    });
    if (compiled === undefined || bundle.mtimeMs >= compiled.mtimeMs) {
      return BUNDLE;
    }
  }
  return path.join(DIST, 'cli', 'main.js');
}

// `serve` runs all day, one per hub user: its memory is the fleet's. Under load V8 doubles its
// young generation (up to 16 MiB a semi-space) and keeps it: through jupyter-server-proxy, not
// pinned, RSS after bench:jupyter's load was 87.8 MiB against a bare node:http backend's 60.9.
// With the growth factor at 1 the young generation keeps its first size: 61.2 against 62.1, for
// the same CPU per request as bare's (bench/README.md). The flag is outside V8's flag hash, so it
// would not cost the code caches, but node:v8 takes about 2.5 ms to load: it is set a second
// after start-up, off the path to the first answer. A command that ends sooner never needs it.
// `--optimize-for-size`, the bin's flag until 2026-11-26, kept memory down too, but V8 then
// dropped optimized code after collections ("weak objects") and compiled it again: under steady
// load TurboFan never settled, a quarter of the sidecar's CPU behind the pinned proxy.
const V8_FLAGS = '--semi-space-growth-factor=1';
const V8_FLAGS_AFTER_MS = 1000;

function setV8Flags() {
  require('node:v8').setFlagsFromString(V8_FLAGS);
  if (nodeCompileCache) {
    // `serve` runs until stopped: its compile cache is written now, not at exit.
    flushNodeCompileCache();
  }
}

/**
 * Runs a CommonJS file as require() would, compiled with `cachedData` when given: V8 checks
 * that the cache was made from this very source by this very V8, and compiles afresh if not.
 * Returns the module's exports and the compiled script (whose code cache the build writes).
 */
function loadWithCodeCache(file, cachedData) {
  const vm = require('node:vm');
  const source = fs.readFileSync(file, 'utf8');
  const wrapped = `(function (exports, require, module, __filename, __dirname) { ${source}\n});`;
  const script = new vm.Script(wrapped, { filename: file, cachedData });
  const loaded = { exports: {} };
  script.runInThisContext().call(
    loaded.exports,
    loaded.exports,
    // The bundle requires Node's built-in modules only (scripts/bundle-sidecar.js bundles the
    // rest), which any require finds; createRequire would load node:module and its ES module
    // loader first, about 2.5 ms before the first answer.
    require,
    loaded,
    file,
    path.dirname(file)
  );
  return { exports: loaded.exports, script };
}

// The code cache file: a header naming the V8 that made it and the SHA-256 of the payload, then
// V8's cache data. V8 refuses a cache from another V8 version by itself, but in release builds it
// does not checksum the payload: a damaged cache can abort the process (seen on Node 20). So the
// cache is handed to V8 only when this very V8 made it and it is intact; otherwise the bundle is
// compiled afresh, as if there were no cache.
const CACHE_MAGIC = 'project-startup-code-cache/1';

function sha256(payload) {
  return require('node:crypto')
    .createHash('sha256')
    .update(payload)
    .digest('hex');
}

function codeCacheFile(payload) {
  return Buffer.concat([
    Buffer.from(
      `${CACHE_MAGIC} ${process.versions.v8}\n${sha256(payload)}\n`,
      'latin1'
    ),
    payload
  ]);
}

function readCodeCache(file = CODE_CACHE) {
  let data;
  try {
    data = fs.readFileSync(file);
  } catch {
    return undefined; // no cache: compile as usual
  }
  const firstLine = data.indexOf(0x0a);
  const headerEnd = firstLine < 0 ? -1 : data.indexOf(0x0a, firstLine + 1);
  if (
    headerEnd < 0 ||
    data.toString('latin1', 0, firstLine) !==
      `${CACHE_MAGIC} ${process.versions.v8}`
  ) {
    return undefined;
  }
  const payload = data.subarray(headerEnd + 1);
  return sha256(payload) === data.toString('latin1', firstLine + 1, headerEnd)
    ? payload
    : undefined;
}

/**
 * Whether Node's own compile cache is on (Node 22.8 and later, where NODE_COMPILE_CACHE names a
 * directory: the operator's choice; the bin writes no cache by itself, so a command that
 * promises to create nothing keeps its word).
 */
function nodeCompileCacheOn() {
  const { getCompileCacheDir } = require('node:module');
  return (
    typeof getCompileCacheDir === 'function' &&
    getCompileCacheDir() !== undefined
  );
}

/** Writes what Node's compile cache holds now (Node 22.10 and later), not only at exit. */
function flushNodeCompileCache() {
  const { flushCompileCache } = require('node:module');
  if (typeof flushCompileCache === 'function') {
    flushCompileCache();
  }
}

let nodeCompileCache = false;

function load(file) {
  if (file !== BUNDLE) {
    return require(file);
  }
  // The shipped code cache is made by the Node that built the package: a user's Node of another
  // V8 (often 22 or 24) refuses it. Node's compile cache, when on, covers require() but not
  // vm.Script, so the bundle is then required: about 10 ms less to load it (bench/README.md).
  const cache = readCodeCache();
  if (cache === undefined && nodeCompileCacheOn()) {
    nodeCompileCache = true;
    return require(file);
  }
  return loadWithCodeCache(file, cache).exports;
}

/**
 * `serve --unix-socket PATH` listens before the service is loaded (about 35 ms earlier), so
 * jupyter-server-proxy's readiness check that connects meanwhile waits for the answer rather than
 * being refused and retried later (sidecar/src/http/listen-first.ts). Resolves at once for
 * anything else; never rejects: the service then listens by itself and says what is wrong.
 */
function listenFirst(file, argv) {
  if (argv[0] !== 'serve') {
    return Promise.resolve(undefined);
  }
  try {
    const early = require(
      file === BUNDLE
        ? LISTEN_FIRST
        : path.join(DIST, 'http', 'listen-first.js')
    );
    return early
      .listenFirst(argv.slice(1), process.cwd())
      .catch(() => undefined);
  } catch {
    return Promise.resolve(undefined);
  }
}

async function run(argv) {
  const file = entry();
  const listeningFirst = await listenFirst(file, argv);
  const { main } = load(file);
  setTimeout(setV8Flags, V8_FLAGS_AFTER_MS).unref();
  return main(argv, {
    stdout: process.stdout,
    stderr: process.stderr,
    // Opened only by the commands that read it (init's prompt), not by `serve`.
    get stdin() {
      return process.stdin;
    },
    env: process.env,
    cwd: process.cwd(),
    listeningFirst
  });
}

if (require.main === module) {
  run(process.argv.slice(2)).then(code => {
    process.exitCode = code;
    if (process.argv[2] !== 'serve' || code !== 0) {
      setImmediate(() => process.exit(code));
    }
  });
}

module.exports = {
  BUNDLE,
  CODE_CACHE,
  LISTEN_FIRST,
  codeCacheFile,
  entry,
  loadWithCodeCache,
  readCodeCache
};
