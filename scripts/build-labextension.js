#!/usr/bin/env node
// Builds the prebuilt (federated) JupyterLab extension without Python: `jupyter labextension
// build` only finds JupyterLab's core package.json and runs @jupyterlab/builder, so this script
// gives the builder a temporary core directory holding @jupyterlab/core-meta's
// core.package.json (the same JupyterLab version as the host) and runs it directly.
//
//   node scripts/build-labextension.js [--development]
//
// Needs lib/ (npm run build:lib). Production mode unless --development is given. The output
// goes to package.json's jupyterlab.outputDir and is checked before the script succeeds.
'use strict';

const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');

function fail(message) {
  process.stderr.write(`build-labextension: ${message}\n`);
  process.exit(1);
}

function resolveFrom(request) {
  try {
    return require.resolve(request, { paths: [ROOT] });
  } catch {
    return undefined;
  }
}

function main(argv) {
  const known = new Set(['--development']);
  const unknown = argv.filter(a => !known.has(a));
  if (unknown.length > 0) {
    fail(
      `unknown argument(s) ${unknown.join(' ')}. Usage: node scripts/build-labextension.js [--development]`
    );
  }
  const development = argv.includes('--development');

  const pkg = JSON.parse(
    fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')
  );
  const outputDir = pkg.jupyterlab && pkg.jupyterlab.outputDir;
  if (!outputDir) {
    fail(
      'package.json has no jupyterlab.outputDir; it says where the labextension goes.'
    );
  }
  const main = path.join(ROOT, pkg.main || 'lib/index.js');
  if (!fs.existsSync(main)) {
    fail(
      `${path.relative(ROOT, main)} is missing: run \`npm run build:lib\` first.`
    );
  }

  const builder = resolveFrom('@jupyterlab/builder/lib/build-labextension.js');
  if (!builder) {
    fail(
      '@jupyterlab/builder is not installed: run `npm ci` (it is a devDependency).'
    );
  }
  const coreMeta = resolveFrom('@jupyterlab/core-meta/core.package.json');
  if (!coreMeta) {
    fail(
      '@jupyterlab/core-meta is not installed: run `npm ci` (it is a devDependency).'
    );
  }

  // The builder reads only <core-path>/package.json: JupyterLab's singletons and versions.
  const coreDir = fs.mkdtempSync(
    path.join(os.tmpdir(), 'project-startup-core-')
  );
  let status;
  try {
    fs.copyFileSync(coreMeta, path.join(coreDir, 'package.json'));
    const args = [
      builder,
      '--core-path',
      coreDir,
      ...(development ? ['--development'] : []),
      '.'
    ];
    process.stdout.write(
      `build-labextension: ${development ? 'development' : 'production'} build into ${outputDir}\n`
    );
    const run = spawnSync(process.execPath, args, {
      cwd: ROOT,
      stdio: 'inherit'
    });
    if (run.error) {
      fail(`could not run @jupyterlab/builder: ${run.error.message}`);
    }
    status = run.status === null ? `signal ${run.signal}` : run.status;
  } finally {
    fs.rmSync(coreDir, { recursive: true, force: true });
  }
  if (status !== 0) {
    fail(
      `@jupyterlab/builder failed (exit ${status}); its errors are printed above.`
    );
  }

  verify(path.join(ROOT, outputDir), pkg);
}

/** The output must be loadable by JupyterLab: package.json with _build and the remote entry. */
function verify(out, pkg) {
  const built = path.join(out, 'package.json');
  if (!fs.existsSync(built)) {
    fail(
      `${path.relative(ROOT, built)} was not written; the build did not finish.`
    );
  }
  const data = JSON.parse(fs.readFileSync(built, 'utf8'));
  if (data.name !== pkg.name) {
    fail(`${path.relative(ROOT, built)} names ${data.name}, not ${pkg.name}.`);
  }
  const build = data.jupyterlab && data.jupyterlab._build;
  if (!build || typeof build.load !== 'string') {
    fail(
      `${path.relative(ROOT, built)} has no jupyterlab._build.load: JupyterLab could not load the extension.`
    );
  }
  if (build.extension !== './extension') {
    fail(
      `${path.relative(ROOT, built)} does not expose ./extension: check jupyterlab.extension in package.json.`
    );
  }
  const staticDir = path.join(out, 'static');
  const entries = fs.existsSync(staticDir)
    ? fs
        .readdirSync(staticDir)
        .filter(f => /^remoteEntry\.[0-9a-f]+\.js$/.test(f))
    : [];
  if (entries.length !== 1) {
    fail(
      `expected one static/remoteEntry.<hash>.js in ${path.relative(ROOT, out)}, found ${entries.length}.`
    );
  }
  if (path.posix.normalize(build.load) !== `static/${entries[0]}`) {
    fail(
      `jupyterlab._build.load is ${build.load}, but the remote entry is static/${entries[0]}.`
    );
  }
  const schemaDir = pkg.jupyterlab.schemaDir;
  if (schemaDir) {
    for (const file of fs
      .readdirSync(path.join(ROOT, schemaDir))
      .filter(f => f.endsWith('.json'))) {
      const copied = path.join(out, 'schemas', pkg.name, file);
      if (!fs.existsSync(copied)) {
        fail(
          `the settings schema ${path.relative(ROOT, copied)} is missing from the output.`
        );
      }
    }
  }
  const total = fs
    .readdirSync(staticDir)
    .reduce((sum, f) => sum + fs.statSync(path.join(staticDir, f)).size, 0);
  process.stdout.write(
    `build-labextension: ${pkg.name} ${data.version} ready in ${path.relative(ROOT, out)} ` +
      `(load ${build.load}, ${Math.round(total / 1024)} KiB static)\n`
  );
}

main(process.argv.slice(2));
