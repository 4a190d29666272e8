// The system lane's globalSetup: the Debian packages' check, then the real Jupyter stack with
// this checkout's wheel (real-stack-setup.js), once per run before any worker starts.
'use strict';
const prerequisites = require('./prerequisites');
const { prepareRealStack } = require('./real-stack-setup');

module.exports = async function systemSetup(globalConfig, projectConfig) {
  await prerequisites(globalConfig, projectConfig);
  const stack = prepareRealStack();
  process.stderr.write(
    `\n== real stack: JupyterLab ${stack.versions.jupyterlab}, Notebook ${stack.versions.notebook}, jupyter_server ${stack.versions.jupyter_server}, Python ${stack.versions.python} (${stack.venv})\n`
  );
};
