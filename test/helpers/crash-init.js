#!/usr/bin/env node
// TEST-ONLY entry of the crash-safety tests (test/service/reliability/crash.test.ts): runs the real
// `project-startup init` (the compiled sidecar/dist, as the command does) with a hook that kills
// the process with SIGKILL when the state creation of its in-process initialize route reaches
// the named step. The shipped program has no such switch: only this file, which is not in the
// package, passes the hook.
//
//   node test/helpers/crash-init.js <creation step> [init options ...]
'use strict';

const path = require('node:path');

const DIST = path.join(__dirname, '..', '..', 'sidecar', 'dist');
const { main } = require(path.join(DIST, 'cli', 'main.js'));
const { CREATION_STEPS } = require(path.join(DIST, 'observe', 'state.js'));

const [step, ...initArgs] = process.argv.slice(2);
if (!CREATION_STEPS.includes(step)) {
  process.stderr.write(
    `crash-init: the first argument must be one of ${CREATION_STEPS.join(', ')}\n`
  );
  process.exit(2);
}
process.stderr.write(
  `TEST-ONLY fault injection armed: the process kills itself at ${step}\n`
);
main(['init', ...initArgs], {
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
