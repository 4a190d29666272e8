#!/usr/bin/env node
// Builds the Jupyter Notebook 7 front end that test/e2e/notebook7.test.ts runs: its tree page,
// made from Notebook 7.6's npm packages (@jupyter-notebook/application's NotebookApp and shell,
// the @jupyter-notebook/* extensions) and the JupyterLab 4.6.4 packages it is built on, composed
// the way Notebook's own app (jupyter/notebook app/: index.template.js, rspack.config.js) composes
// them: the plugins by page (extensions.js), NotebookApp started with a PluginRegistry, and
// JupyterLab's module-federation share scope, so prebuilt (federated) extensions load as in a
// real Notebook 7. The `notebook` Python package does not exist for Debian 12 (python3-notebook
// is 6.4), so test/e2e/notebook7_server.py stands in for its page handlers.
//
//   node test/e2e/notebook7/build.js [--force]          (npm run build:e2e-notebook)
//
// Skips the build when build/ was made from the same inputs (package-lock.json, these source
// files, the app's bootstrap.js, the mode); --force (or E2E_APP_FORCE=1) builds anyway.
//
// Output (gitignored), served by test/e2e/notebook7_server.py through jupyterlab_server:
//   build/static/   bundle.js and its chunks      build/schemas/  settings schemas
//   build/themes/   light and dark themes         build/staging/  generated entry files
//   build/build-info.json  what was built, when, and how long it took
'use strict';

const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const webpack = require('webpack');
const { Build } = require('@jupyterlab/builder');
const baseConfig = require('@jupyterlab/builder/lib/webpack.config.base');
const corePackage = require('@jupyterlab/core-meta/core.package.json');
const {
  pages: PAGES,
  sharedByLeftOut: SHARED_BY_LEFT_OUT
} = require('./extensions');

const HERE = __dirname;
const OUT = path.join(HERE, 'build');
const STAGING = path.join(OUT, 'staging');
const STATIC = path.join(OUT, 'static');
const MODE =
  process.env.E2E_APP_MODE === 'production' ? 'production' : 'development';
const REPO = path.resolve(HERE, '..', '..', '..');
// The JupyterLab host app's bootstrap (load the federated extensions, then import index.js) is
// what Notebook's index does first too; it is shared, not copied.
const BOOTSTRAP = path.join(HERE, '..', 'app', 'bootstrap.js');
const INPUTS = [
  path.join(REPO, 'package-lock.json'),
  BOOTSTRAP,
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

function inputKey() {
  const hash = crypto.createHash('sha256').update(`mode=${MODE}\n`);
  for (const file of INPUTS) {
    hash.update(`${path.relative(REPO, file)}\n`).update(fs.readFileSync(file));
  }
  return hash.digest('hex');
}

function upToDate(key) {
  try {
    const info = JSON.parse(
      fs.readFileSync(path.join(OUT, 'build-info.json'), 'utf8')
    );
    return (
      info.inputKey === key && fs.existsSync(path.join(STATIC, 'bundle.js'))
    );
  } catch {
    return false;
  }
}

function packageJson(name) {
  return JSON.parse(
    fs.readFileSync(require.resolve(`${name}/package.json`), 'utf8')
  );
}

/** Every extension package, once, in page order. */
function extensionNames() {
  return [
    ...new Set(Object.values(PAGES).flatMap(list => list.map(e => e.name)))
  ];
}

/**
 * The module-federation `shared` configuration, as Notebook's createShared makes it: JupyterLab's
 * resolutions (core-meta), Notebook's packages at their installed versions, then the
 * dependencies of every extension; JupyterLab's and Notebook's singletons; none eager.
 */
function createShared(names) {
  const shared = {};
  for (const [name, requiredVersion] of Object.entries(
    corePackage.resolutions
  )) {
    shared[name] = { requiredVersion };
  }
  for (const name of [...NOTEBOOK_PACKAGES, ...SHARED_BY_LEFT_OUT, ...names]) {
    const data = packageJson(name);
    shared[name] = shared[name] ?? { requiredVersion: `~${data.version}` };
    for (const [dep, requiredVersion] of Object.entries(
      data.dependencies ?? {}
    )) {
      shared[dep] = shared[dep] ?? { requiredVersion };
    }
  }
  for (const name of [
    ...corePackage.jupyterlab.singletonPackages,
    ...NOTEBOOK_SINGLETONS
  ]) {
    shared[name] = { ...(shared[name] ?? {}), singleton: true };
  }
  return shared;
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

function writeEntryFiles() {
  const pages = Object.entries(PAGES).map(([page, list]) => {
    const lines = list.map(({ name, plugins }) => {
      const { extension } = packageJson(name).jupyterlab;
      const specifier = extension === true ? name : `${name}/${extension}`;
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
    path.join(STAGING, 'extensions.gen.js'),
    '// Generated by test/e2e/notebook7/build.js from extensions.js.\n' +
      `export const NOTEBOOK_VERSION = ${JSON.stringify(notebook)};\n` +
      `export const PAGES = {\n${pages.join(',\n')}\n};\n` +
      `export const SHARED_BY_LEFT_OUT = [\n${provided.join(',\n')}\n];\n`
  );
  fs.copyFileSync(BOOTSTRAP, path.join(STAGING, 'bootstrap.js'));
  fs.copyFileSync(path.join(HERE, 'index.js'), path.join(STAGING, 'index.js'));
}

function run(configs) {
  return new Promise((resolve, reject) => {
    webpack(configs, (error, stats) => {
      if (error) {
        reject(error);
        return;
      }
      if (stats.hasErrors()) {
        reject(
          new Error(
            stats.toString({
              all: false,
              errors: true,
              errorDetails: true,
              colors: false
            })
          )
        );
        return;
      }
      resolve(stats);
    });
  });
}

function directorySize(dir) {
  let bytes = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    bytes += entry.isDirectory() ? directorySize(p) : fs.statSync(p).size;
  }
  return bytes;
}

async function main() {
  const started = Date.now();
  const names = extensionNames();
  checkVersions(names);
  const key = inputKey();
  const force =
    process.argv.includes('--force') || process.env.E2E_APP_FORCE === '1';
  if (!force && upToDate(key)) {
    console.log(
      `e2e Notebook 7 app is up to date (${path.relative(process.cwd(), OUT) || OUT}); --force rebuilds it`
    );
    return;
  }
  fs.rmSync(OUT, { recursive: true, force: true });
  fs.mkdirSync(STAGING, { recursive: true });

  const themeConfigs = Build.ensureAssets({
    packageNames: names,
    output: STAGING,
    schemaOutput: OUT,
    themeOutput: OUT
  });
  writeEntryFiles();

  const appConfig = {
    ...baseConfig,
    mode: MODE,
    devtool: false,
    context: HERE,
    entry: { bundle: path.join(STAGING, 'bootstrap.js') },
    output: {
      ...baseConfig.output,
      path: STATIC,
      filename: '[name].js',
      chunkFilename: '[name].[contenthash].js',
      publicPath: '',
      library: { type: 'var', name: ['_JUPYTERLAB', 'CORE_OUTPUT'] }
    },
    module: {
      rules: [
        ...baseConfig.module.rules,
        { test: /\.m?js$/, resolve: { fullySpecified: false } }
      ]
    },
    resolve: {
      ...(baseConfig.resolve ?? {}),
      fallback: { ...(baseConfig.resolve?.fallback ?? {}), util: false }
    },
    optimization: { splitChunks: { chunks: 'async' } },
    performance: { hints: false },
    infrastructureLogging: { level: 'error' },
    plugins: [
      ...baseConfig.plugins,
      new webpack.container.ModuleFederationPlugin({
        name: 'CORE_FEDERATION',
        library: {
          type: 'var',
          name: ['_JUPYTERLAB', 'CORE_LIBRARY_FEDERATION']
        },
        shared: createShared(names)
      })
    ]
  };
  for (const config of themeConfigs) {
    config.performance = { hints: false };
    config.infrastructureLogging = { level: 'error' };
  }

  const stats = await run([appConfig, ...themeConfigs]);
  const warnings = stats.stats.flatMap(s =>
    s.compilation.warnings.map(w => w.message.split('\n')[0])
  );
  const info = {
    notebook: packageJson('@jupyter-notebook/application').version,
    jupyterlab: corePackage.version,
    mode: MODE,
    pages: Object.fromEntries(
      Object.entries(PAGES).map(([page, list]) => [page, list.map(e => e.name)])
    ),
    seconds: Math.round((Date.now() - started) / 100) / 10,
    staticBytes: directorySize(STATIC),
    bundleBytes: fs.statSync(path.join(STATIC, 'bundle.js')).size,
    warnings: warnings.length,
    inputKey: key,
    builtAt: new Date().toISOString()
  };
  fs.writeFileSync(
    path.join(OUT, 'build-info.json'),
    JSON.stringify(info, null, 2) + '\n'
  );
  for (const warning of warnings.slice(0, 10)) {
    console.warn(`webpack warning: ${warning}`);
  }
  console.log(
    `e2e Notebook 7 app (Notebook ${info.notebook}, JupyterLab ${info.jupyterlab}, ${MODE}): ` +
      `${(info.staticBytes / 1048576).toFixed(1)} MiB in ${path.relative(process.cwd(), STATIC) || STATIC}, built in ${info.seconds} s`
  );
}

main().catch(error => {
  console.error(`e2e Notebook 7 app build failed: ${error.stack || error}`);
  process.exit(1);
});
