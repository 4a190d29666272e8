// What the two browser-test host apps' builders share (test/system/e2e/app/build.js, the JupyterLab
// host; test/system/e2e/notebook7/build.js, the Notebook 7 host): both are JupyterLab 4.6.4 front ends
// built from npm packages with @jupyterlab/builder and webpack, with JupyterLab's
// module-federation share scope, skipped when build/ was made from the same inputs.
//
// Each builder says what differs (its extensions, entry files, share-scope additions, version
// checks, what build-info.json records); buildHostApp does the rest:
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

const REPO = path.resolve(__dirname, '..', '..', '..');
const MODE =
  process.env.E2E_APP_MODE === 'production' ? 'production' : 'development';

function packageJson(name) {
  return JSON.parse(
    fs.readFileSync(require.resolve(`${name}/package.json`), 'utf8')
  );
}

/**
 * The module-federation `shared` configuration (what dev_mode's and Notebook's createShared
 * make): JupyterLab's resolutions (core-meta), then each of `packageNames` at its installed
 * version with its dependencies; core-meta's singletons plus `extraSingletons`; none eager.
 */
function createShared(packageNames, extraSingletons = []) {
  const shared = {};
  for (const [name, requiredVersion] of Object.entries(
    corePackage.resolutions
  )) {
    shared[name] = { requiredVersion };
  }
  for (const name of packageNames) {
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
    ...extraSingletons
  ]) {
    shared[name] = { ...(shared[name] ?? {}), singleton: true };
  }
  return shared;
}

/** The import specifier of an extension package's plugins (its jupyterlab.extension). */
function extensionSpecifier(name) {
  const { extension } = packageJson(name).jupyterlab;
  return extension === true ? name : `${name}/${extension}`;
}

/** A digest of everything the build depends on. */
function inputKey(inputs) {
  const hash = crypto.createHash('sha256').update(`mode=${MODE}\n`);
  for (const file of inputs) {
    hash.update(`${path.relative(REPO, file)}\n`).update(fs.readFileSync(file));
  }
  return hash.digest('hex');
}

function upToDate(out, key) {
  try {
    const info = JSON.parse(
      fs.readFileSync(path.join(out, 'build-info.json'), 'utf8')
    );
    return (
      info.inputKey === key &&
      fs.existsSync(path.join(out, 'static', 'bundle.js'))
    );
  } catch {
    return false;
  }
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

/**
 * Builds a host app into `<here>/build` unless it is up to date (--force or E2E_APP_FORCE=1
 * builds anyway).
 * - title: what the messages call it ("e2e host app").
 * - here: the app's folder (webpack's context; build/ goes there).
 * - inputs: the app's own files the build depends on (package-lock.json, this module and the
 *   mode are added).
 * - extensionNames: the extension packages (their schemas and themes are collected).
 * - shared: the module-federation `shared` configuration (createShared).
 * - writeEntryFiles(staging): writes bootstrap.js, index.js and what they import into staging.
 * - resolve: webpack's resolve configuration, if the app needs one beyond the builder's.
 * - info: what build-info.json records besides the common fields, first.
 * - describe(info): the words after the title in the line that says it was built.
 */
async function buildHostApp({
  title,
  here,
  inputs,
  extensionNames,
  shared,
  writeEntryFiles,
  resolve,
  info: appInfo,
  describe
}) {
  const started = Date.now();
  const out = path.join(here, 'build');
  const staging = path.join(out, 'staging');
  const staticDir = path.join(out, 'static');
  const key = inputKey([
    path.join(REPO, 'package-lock.json'),
    __filename,
    ...inputs
  ]);
  const force =
    process.argv.includes('--force') || process.env.E2E_APP_FORCE === '1';
  if (!force && upToDate(out, key)) {
    console.log(
      `${title} is up to date (${path.relative(process.cwd(), out) || out}); --force rebuilds it`
    );
    return;
  }
  fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(staging, { recursive: true });

  // Schemas to build/schemas, themes (as webpack configs) to build/themes, style.js to staging.
  const themeConfigs = Build.ensureAssets({
    packageNames: extensionNames,
    output: staging,
    schemaOutput: out,
    themeOutput: out
  });
  writeEntryFiles(staging);

  const appConfig = {
    ...baseConfig,
    mode: MODE,
    devtool: false,
    context: here,
    entry: { bundle: path.join(staging, 'bootstrap.js') },
    output: {
      ...baseConfig.output,
      path: staticDir,
      filename: '[name].js',
      chunkFilename: '[name].[contenthash].js',
      // Set at run time from the page config (bootstrap.js); the server decides the prefix.
      publicPath: '',
      library: { type: 'var', name: ['_JUPYTERLAB', 'CORE_OUTPUT'] }
    },
    module: {
      rules: [
        ...baseConfig.module.rules,
        // @jupyter/web-components imports without file extensions.
        { test: /\.m?js$/, resolve: { fullySpecified: false } }
      ]
    },
    ...(resolve ? { resolve } : {}),
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
        shared
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
    ...appInfo,
    seconds: Math.round((Date.now() - started) / 100) / 10,
    staticBytes: directorySize(staticDir),
    bundleBytes: fs.statSync(path.join(staticDir, 'bundle.js')).size,
    warnings: warnings.length,
    inputKey: key,
    builtAt: new Date().toISOString()
  };
  fs.writeFileSync(
    path.join(out, 'build-info.json'),
    JSON.stringify(info, null, 2) + '\n'
  );
  for (const warning of warnings.slice(0, 10)) {
    console.warn(`webpack warning: ${warning}`);
  }
  console.log(
    `${title} (${describe(info)}, ${MODE}): ${(info.staticBytes / 1048576).toFixed(1)} MiB in ` +
      `${path.relative(process.cwd(), staticDir) || staticDir}, built in ${info.seconds} s`
  );
}

/** Runs a builder's main, reporting a failure in one line and exit status 1. */
function runBuild(title, main) {
  main().catch(error => {
    console.error(`${title} build failed: ${error.stack || error}`);
    process.exit(1);
  });
}

module.exports = {
  MODE,
  buildHostApp,
  corePackage,
  createShared,
  extensionSpecifier,
  packageJson,
  runBuild
};
