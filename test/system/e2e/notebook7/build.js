#!/usr/bin/env node
// Builds the Jupyter Notebook 7 front end that test/system/e2e/notebook7.test.ts runs: its tree page,
// made from Notebook 7.6's npm packages (@jupyter-notebook/application's NotebookApp and shell,
// the @jupyter-notebook/* extensions) and the JupyterLab 4.6.4 packages it is built on, composed
// the way Notebook's own app (jupyter/notebook app/: index.template.js, rspack.config.js) composes
// them: the plugins by page (extensions.js), NotebookApp started with a PluginRegistry, and
// JupyterLab's module-federation share scope, so prebuilt (federated) extensions load as in a
// real Notebook 7. The `notebook` Python package does not exist for Debian 12 (python3-notebook
// is 6.4), so test/system/e2e/notebook7_server.py stands in for its page handlers.
//
//   node test/system/e2e/notebook7/build.js [--force]          (npm run build:e2e-notebook)
//
// Skips the build when build/ was made from the same inputs (package-lock.json, these source
// files, the app's bootstrap.js and federated.js, ../host-build.js, the mode); --force (or
// E2E_APP_FORCE=1) builds anyway. What this builder shares with the JupyterLab host's
// (test/system/e2e/app/build.js) is in ../host-build.js.
//
// Output (gitignored), served by test/system/e2e/notebook7_server.py through jupyterlab_server:
//   build/static/   bundle.js and its chunks      build/schemas/  settings schemas
//   build/themes/   light and dark themes         build/staging/  generated entry files
//   build/build-info.json  what was built, when, and how long it took
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const baseConfig = require('@jupyterlab/builder/lib/webpack.config.base');
const {
  MODE,
  buildHostApp,
  corePackage,
  createShared,
  extensionSpecifier,
  packageJson,
  runBuild
} = require('../host-build');
const {
  pages: PAGES,
  sharedByLeftOut: SHARED_BY_LEFT_OUT
} = require('./extensions');

const HERE = __dirname;
// The JupyterLab host app's bootstrap (load the federated extensions, then import index.js) is
// what Notebook's index does first too, and its federated.js takes their plugins: both are
// shared, not copied.
const BOOTSTRAP = path.join(HERE, '..', 'app', 'bootstrap.js');
const FEDERATED = path.join(HERE, '..', 'app', 'federated.js');
const INPUTS = [
  BOOTSTRAP,
  FEDERATED,
  ...['build.js', 'extensions.js', 'index.js'].map(f => path.join(HERE, f))
];
/** Notebook's application package: not an extension, but shared (its tokens and shell). */
const NOTEBOOK_PACKAGES = [
  '@jupyter-notebook/application',
  '@jupyter-notebook/tree',
  '@jupyter-notebook/ui-components'
];
/** Notebook 7's own singletons beyond JupyterLab's (app/package.json singletonPackages). */
const NOTEBOOK_SINGLETONS = ['@jupyter-notebook/tree'];

/** Every extension package, once, in page order. */
function extensionNames() {
  return [
    ...new Set(Object.values(PAGES).flatMap(list => list.map(e => e.name)))
  ];
}

/**
 * Checks the JupyterLab packages are the versions core-meta pins, and that every Notebook
 * package was made for this JupyterLab (its @jupyterlab/application range admits core-meta's).
 */
function checkVersions(names) {
  const wrong = [];
  const lab = corePackage.version;
  for (const name of names.filter(n => n.startsWith('@jupyterlab/'))) {
    const range = corePackage.resolutions[name];
    const version = packageJson(name).version;
    if (range && range.replace(/^[~^]/, '') !== version) {
      wrong.push(`${name} ${version} (core-meta ${lab} wants ${range})`);
    }
  }
  for (const name of [
    ...NOTEBOOK_PACKAGES,
    ...names.filter(n => n.startsWith('@jupyter-notebook/'))
  ]) {
    const data = packageJson(name);
    const range = (data.dependencies ?? {})['@jupyterlab/application'];
    // Notebook pins ~4.6.x: the same minor line as JupyterLab, at most this patch.
    const m = /^~(\d+)\.(\d+)\.(\d+)$/.exec(range ?? '');
    const [major, minor, patch] = lab.split('.').map(Number);
    if (
      range &&
      (!m ||
        Number(m[1]) !== major ||
        Number(m[2]) !== minor ||
        Number(m[3]) > patch)
    ) {
      wrong.push(
        `${name} ${data.version} wants @jupyterlab/application ${range}, not ${lab}`
      );
    }
  }
  if (wrong.length > 0) {
    throw new Error(
      `installed packages do not make one Notebook 7 front end:\n  ${wrong.join('\n  ')}`
    );
  }
}

function writeEntryFiles(staging) {
  const pages = Object.entries(PAGES).map(([page, list]) => {
    const lines = list.map(({ name, plugins }) => {
      const specifier = extensionSpecifier(name);
      return `    { name: ${JSON.stringify(name)}, plugins: ${JSON.stringify(plugins)}, load: () => import(${JSON.stringify(specifier)}) }`;
    });
    return `  ${JSON.stringify(page)}: [\n${lines.join(',\n')}\n  ]`;
  });
  const notebook = packageJson('@jupyter-notebook/application').version;
  // webpack provides a shared package only where the build imports it: these imports (never
  // run) put the packages the left-out plugins import into the share scope, as in Notebook 7.
  const provided = SHARED_BY_LEFT_OUT.map(
    name => `  () => import(${JSON.stringify(name)})`
  );
  fs.writeFileSync(
    path.join(staging, 'extensions.gen.js'),
    '// Generated by test/system/e2e/notebook7/build.js from extensions.js.\n' +
      `export const NOTEBOOK_VERSION = ${JSON.stringify(notebook)};\n` +
      `export const PAGES = {\n${pages.join(',\n')}\n};\n` +
      `export const SHARED_BY_LEFT_OUT = [\n${provided.join(',\n')}\n];\n`
  );
  for (const file of [BOOTSTRAP, FEDERATED, path.join(HERE, 'index.js')]) {
    fs.copyFileSync(file, path.join(staging, path.basename(file)));
  }
}

async function main() {
  const names = extensionNames();
  checkVersions(names);
  await buildHostApp({
    title: 'e2e Notebook 7 app',
    here: HERE,
    inputs: INPUTS,
    extensionNames: names,
    // As Notebook's createShared makes it: JupyterLab's resolutions, Notebook's packages at their
    // installed versions, then the dependencies of every extension; Notebook's singletons too.
    shared: createShared(
      [...NOTEBOOK_PACKAGES, ...SHARED_BY_LEFT_OUT, ...names],
      NOTEBOOK_SINGLETONS
    ),
    writeEntryFiles,
    resolve: {
      ...(baseConfig.resolve ?? {}),
      fallback: { ...(baseConfig.resolve?.fallback ?? {}), util: false }
    },
    info: {
      notebook: packageJson('@jupyter-notebook/application').version,
      jupyterlab: corePackage.version,
      mode: MODE,
      pages: Object.fromEntries(
        Object.entries(PAGES).map(([page, list]) => [
          page,
          list.map(e => e.name)
        ])
      )
    },
    describe: info => `Notebook ${info.notebook}, JupyterLab ${info.jupyterlab}`
  });
}

runBuild('e2e Notebook 7 app', main);
