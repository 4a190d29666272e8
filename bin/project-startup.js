#!/usr/bin/env node
'use strict';
// Entry point of the `project-startup` command. The code is compiled to sidecar/dist (tsc);
// `npm run build` also bundles it into one file, sidecar/dist/bundle/project-startup.js, which
// starts much faster. The bundle is used when present and not older than the compiled code
// (a later `tsc` alone would otherwise leave a stale bundle in charge).
const fs = require('node:fs');
const path = require('node:path');

const DIST = path.join(__dirname, '..', 'sidecar', 'dist');
const BUNDLE = path.join(DIST, 'bundle', 'project-startup.js');

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

const { main } = require(entry());

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
