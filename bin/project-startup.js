#!/usr/bin/env node
'use strict';
// Entry point of the `project-startup` command. The code is compiled to sidecar/dist (tsc);
// `npm run build` also bundles it into sidecar/dist/bundle/project-startup.js (one file, with
// the V8 code cache of its start-up beside it), which starts much faster. The bundle is used
// when present and not older than the compiled code (a later `tsc` alone would otherwise leave
// a stale bundle in charge); otherwise sidecar/dist/cli.js is.
const fs = require('node:fs');
const path = require('node:path');

const DIST = path.join(__dirname, '..', 'sidecar', 'dist');
const BUNDLE = path.join(DIST, 'bundle', 'project-startup.js');
const CODE_CACHE = path.join(DIST, 'bundle', 'project-startup.cache');

function entry() {
  const bundle = fs.statSync(BUNDLE, { throwIfNoEntry: false });
  if (bundle !== undefined) {
    const compiled = fs.statSync(path.join(DIST, 'cli.js'), { throwIfNoEntry: false });
    if (compiled === undefined || bundle.mtimeMs >= compiled.mtimeMs) {
      return BUNDLE;
    }
  }
  return path.join(DIST, 'cli.js');
}

/**
 * Runs a CommonJS file as require() would, compiled with `cachedData` when given: V8 checks
 * that the cache was made from this very source by this very V8, and compiles afresh if not.
 * Returns the module's exports and the compiled script (whose code cache the build writes).
 */
function loadWithCodeCache(file, cachedData) {
  const vm = require('node:vm');
  const { createRequire } = require('node:module');
  const source = fs.readFileSync(file, 'utf8');
  const wrapped = `(function (exports, require, module, __filename, __dirname) { ${source}\n});`;
  const script = new vm.Script(wrapped, { filename: file, cachedData });
  const loaded = { exports: {} };
  script.runInThisContext().call(loaded.exports, loaded.exports, createRequire(file), loaded, file, path.dirname(file));
  return { exports: loaded.exports, script };
}

function load(file) {
  if (file !== BUNDLE) {
    return require(file);
  }
  let cachedData;
  try {
    cachedData = fs.readFileSync(CODE_CACHE);
  } catch {
    cachedData = undefined; // no cache: compile as usual
  }
  return loadWithCodeCache(file, cachedData).exports;
}

if (require.main === module) {
  const { main } = load(entry());
  main(process.argv.slice(2), {
    stdout: process.stdout,
    stderr: process.stderr,
    // Opened only by the commands that read it (init's prompt), not by `serve`.
    get stdin() {
      return process.stdin;
    },
    env: process.env,
    cwd: process.cwd()
  }).then(code => {
    process.exitCode = code;
    if (process.argv[2] !== 'serve' || code !== 0) {
      setImmediate(() => process.exit(code));
    }
  });
}

module.exports = { BUNDLE, CODE_CACHE, entry, loadWithCodeCache };
