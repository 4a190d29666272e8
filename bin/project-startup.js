#!/usr/bin/env node
'use strict';
// Entry point of the `project-startup` command; the code is compiled to sidecar/dist.
const { main } = require('../sidecar/dist/cli.js');

main(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  env: process.env,
  cwd: process.cwd()
}).then(code => {
  process.exitCode = code;
  if (process.argv[2] !== 'serve' || code !== 0) {
    setImmediate(() => process.exit(code));
  }
});
