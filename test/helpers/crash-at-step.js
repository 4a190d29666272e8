#!/usr/bin/env node
// TEST-ONLY entry of the crash-safety tests (test/service/reliability/crash.test.ts): runs the real
// `project-startup serve` or `init` (the compiled sidecar/dist, as the command does) with a hook
// that kills the process with SIGKILL when initialize's state creation reaches the named step
// (for `init`, the in-process initialize route's). The shipped program has no such switch: only
// this file, which is not in the package, passes the hook.
//
//   node test/helpers/crash-at-step.js serve|init <creation step> [options ...]
'use strict';

const path = require('node:path');

const DIST = path.join(__dirname, '..', '..', 'sidecar', 'dist');
const { main } = require(path.join(DIST, 'cli', 'main.js'));
const { CREATION_STEPS } = require(path.join(DIST, 'observe', 'state.js'));

const [command, step, ...options] = process.argv.slice(2);
if (!['serve', 'init'].includes(command) || !CREATION_STEPS.includes(step)) {
  process.stderr.write(
    `crash-at-step: usage: crash-at-step.js serve|init <${CREATION_STEPS.join('|')}> [options]\n`
  );
  process.exit(2);
}
process.stderr.write(
  `TEST-ONLY fault injection armed: the process kills itself at ${step}\n`
);
main([command, ...options], {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  env: process.env,
  cwd: process.cwd(),
  onCreationStep: reached => {
    if (reached === step) {
      process.kill(process.pid, 'SIGKILL');
    }
  }
}).then(code => {
  process.exitCode = code;
});
