#!/usr/bin/env node
// Builds the JupyterLab 4.6.4 front end that the browser (e2e) tests run: a small host app made
// from the npm packages the way JupyterLab's examples/federated and dev_mode make theirs.
//
//   node test/e2e/app/build.js [--force]          (npm run build:e2e-app)
//
// Skips the build when build/ was made from the same inputs (package-lock.json, these source
// files, the mode); --force (or E2E_APP_FORCE=1) builds anyway.
//
// Output (gitignored), served by test/e2e/lab_server.py through jupyterlab_server:
//   build/static/   bundle.js and its chunks (LabServerApp.static_dir)
//   build/schemas/  settings schemas of the built-in extensions (schemas_dir)
//   build/themes/   compiled light and dark themes (themes_dir)
//   build/staging/  generated entry files (input of webpack, kept for debugging)
//   build/build-info.json  what was built, when, and how long it took
//
// The share scope is JupyterLab's: every package of @jupyterlab/core-meta's resolutions (and the
// dependencies of the built-in extensions), with core-meta's singletonPackages as singletons,
// none eager. So a prebuilt extension made by `build-labextension --core-path <core-meta>`
// loads against it exactly as it would in JupyterLab 4.6.
'use strict';

const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const webpack = require('webpack');
const { Build } = require('@jupyterlab/builder');
const baseConfig = require('@jupyterlab/builder/lib/webpack.config.base');
const corePackage = require('@jupyterlab/core-meta/core.package.json');
const BUILTIN = require('./extensions');

const HERE = __dirname;
const OUT = path.join(HERE, 'build');
const STAGING = path.join(OUT, 'staging');
const STATIC = path.join(OUT, 'static');
const MODE =
  process.env.E2E_APP_MODE === 'production' ? 'production' : 'development';
const REPO = path.resolve(HERE, '..', '..', '..');
const INPUTS = [
  path.join(REPO, 'package-lock.json'),
  ...['build.js', 'extensions.js', 'bootstrap.js', 'index.js'].map(f =>
    path.join(HERE, f)
  )
];

/** A digest of everything the build depends on. */
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

/** The module-federation `shared` configuration (what dev_mode's createShared makes). */
function createShared(extensionNames) {
  const shared = {};
  for (const [name, requiredVersion] of Object.entries(
    corePackage.resolutions
  )) {
    shared[name] = { requiredVersion };
  }
  for (const name of extensionNames) {
    const data = packageJson(name);
    shared[name] = shared[name] ?? { requiredVersion: `~${data.version}` };
    for (const [dep, requiredVersion] of Object.entries(
      data.dependencies ?? {}
    )) {
      shared[dep] = shared[dep] ?? { requiredVersion };
    }
  }
  for (const name of corePackage.jupyterlab.singletonPackages) {
    shared[name] = { ...(shared[name] ?? {}), singleton: true };
  }
  return shared;
}

/** Checks every built-in extension is the version core-meta pins (no silent drift). */
function checkVersions(extensionNames) {
  const wrong = [];
  for (const name of extensionNames) {
    const range = corePackage.resolutions[name];
    const version = packageJson(name).version;
    if (range && range.replace(/^[~^]/, '') !== version) {
      wrong.push(
        `${name} ${version} (core-meta ${corePackage.version} wants ${range})`
      );
    }
  }
  // @microsoft/fast-foundation 2.50.0 (allowed by core-meta's ^2.49.2) makes jp-toolbar's design
  // tokens notify each other forever: "RangeError: Maximum call stack size exceeded" at start and
  // on every theme change. package.json pins 2.49.6 (a devDependency) for this host app.
  const fast = packageJson('@microsoft/fast-foundation').version;
  if (!/^2\.49\./.test(fast)) {
    wrong.push(
      `@microsoft/fast-foundation ${fast} (this host app needs 2.49.x: 2.50 loops in its design tokens)`
    );
  }
  if (wrong.length > 0) {
    throw new Error(
      `installed packages do not match what the host app needs (@jupyterlab/core-meta):\n  ${wrong.join('\n  ')}`
    );
  }
}

function writeEntryFiles() {
  const lines = BUILTIN.map(({ name, exclude = [] }) => {
    const { extension } = packageJson(name).jupyterlab;
    const specifier = extension === true ? name : `${name}/${extension}`;
    return `  { name: ${JSON.stringify(name)}, exclude: ${JSON.stringify(exclude)}, load: () => import(${JSON.stringify(specifier)}) }`;
  });
  fs.writeFileSync(
    path.join(STAGING, 'extensions.gen.js'),
    `// Generated by test/e2e/app/build.js from extensions.js.\nexport const BUILTIN_EXTENSIONS = [\n${lines.join(',\n')}\n];\n`
  );
  for (const file of ['bootstrap.js', 'index.js']) {
    fs.copyFileSync(path.join(HERE, file), path.join(STAGING, file));
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

async function main() {
  const started = Date.now();
  const names = BUILTIN.map(e => e.name);
  checkVersions(names);
  const key = inputKey();
  const force =
    process.argv.includes('--force') || process.env.E2E_APP_FORCE === '1';
  if (!force && upToDate(key)) {
    console.log(
      `e2e host app is up to date (${path.relative(process.cwd(), OUT) || OUT}); --force rebuilds it`
    );
    return;
  }
  fs.rmSync(OUT, { recursive: true, force: true });
  fs.mkdirSync(STAGING, { recursive: true });

  // Schemas to build/schemas, themes (as webpack configs) to build/themes, style.js to staging.
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
    jupyterlab: corePackage.version,
    mode: MODE,
    extensions: names,
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
    `e2e host app (JupyterLab ${info.jupyterlab}, ${MODE}): ${(info.staticBytes / 1048576).toFixed(1)} MiB in ` +
      `${path.relative(process.cwd(), STATIC) || STATIC}, built in ${info.seconds} s`
  );
}

main().catch(error => {
  console.error(`e2e host app build failed: ${error.stack || error}`);
  process.exit(1);
});
