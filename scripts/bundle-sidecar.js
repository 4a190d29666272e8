#!/usr/bin/env node
// Bundles the compiled sidecar (sidecar/dist, from `tsc -p sidecar/tsconfig.json`) for
// production: sidecar/dist/bundle/project-startup.js, which bin/project-startup.js runs when it
// exists. One file to read instead of a module tree to find, read and compile. The HTTP layer is
// in the bundle because a request must never read code from disk (under a flood of connections
// no descriptor may be left to read it); it is evaluated, from memory, when the app is made, once
// the server listens (sidecar/src/http/server.ts), as what only other commands need (the client,
// the jupyter installer) is evaluated only by them. Last, it starts the bundle once and saves V8's
// code cache of that start beside it (sidecar/dist/bundle/project-startup.cache), which the bin
// hands to V8.
//
//   node scripts/bundle-sidecar.js [--no-minify]      (npm run build:sidecar runs it after tsc)
//
// Development and the unit tests use the TypeScript build; the bundle changes no behaviour.
// sidecar/dist/bundle is two directories below sidecar/, like the compiled http/ modules, so the
// paths they compute from __dirname (../../static, ../../schemas) hold in both layouts; the
// jupyter installer finds the package root by its package.json.
'use strict';

const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const ENTRY = path.join(ROOT, 'sidecar', 'dist', 'cli', 'main.js');
// What `serve` runs before the bundle is loaded (sidecar/src/http/listen-first.ts): its own file.
const LISTEN_FIRST_ENTRY = path.join(
  ROOT,
  'sidecar',
  'dist',
  'http',
  'listen-first.js'
);
const OUT_DIR = path.join(ROOT, 'sidecar', 'dist', 'bundle');
const OUT_NAME = 'project-startup';

function fail(message) {
  process.stderr.write(`bundle-sidecar: ${message}\n`);
  process.exit(1);
}

function main(argv) {
  const unknown = argv.filter(
    a => a !== '--no-minify' && a !== '--code-cache-only'
  );
  if (unknown.length > 0) {
    fail(
      `unknown argument(s) ${unknown.join(' ')}. Usage: node scripts/bundle-sidecar.js [--no-minify]`
    );
  }
  if (argv.includes('--code-cache-only')) {
    writeCodeCache();
    return;
  }
  const minify = !argv.includes('--no-minify');
  if (!fs.existsSync(ENTRY)) {
    fail(
      `${path.relative(ROOT, ENTRY)} is missing: run \`tsc -p sidecar/tsconfig.json\` (npm run build:sidecar) first.`
    );
  }
  let webpack;
  try {
    webpack = require('webpack');
  } catch {
    fail('webpack is not installed: run `npm ci` (it is a devDependency).');
  }
  // terser-webpack-plugin comes with webpack; asked for by name to keep function and class
  // names, which error reports read.
  const TerserPlugin = require(
    require.resolve('terser-webpack-plugin', {
      paths: [path.dirname(require.resolve('webpack'))]
    })
  );

  const compiler = webpack({
    mode: 'production',
    target: 'node20',
    context: ROOT,
    entry: { [OUT_NAME]: ENTRY, 'listen-first': LISTEN_FIRST_ENTRY },
    output: {
      path: OUT_DIR,
      filename: '[name].js',
      library: { type: 'commonjs2' },
      clean: true,
      // Always written, so the bundle is never older than the compiled code it was made from
      // (bin/project-startup.js falls back to sidecar/dist when the bundle looks stale).
      compareBeforeEmit: false
    },
    // The real __dirname of the bundle file, as the compiled modules see theirs.
    node: { __dirname: false, __filename: false },
    devtool: false,
    performance: { hints: false },
    optimization: {
      minimize: minify,
      minimizer: [
        new TerserPlugin({
          extractComments: false,
          terserOptions: {
            keep_classnames: true,
            keep_fnames: true,
            format: { comments: false }
          }
        })
      ],
      // Module ids from module paths: the same input gives the same bundle (and code cache).
      moduleIds: 'deterministic'
    },
    stats: 'errors-warnings'
  });

  compiler.run((error, stats) => {
    compiler.close(() => undefined);
    if (error) {
      fail(error.stack || String(error));
    }
    if (stats.hasErrors()) {
      fail(stats.toString('errors-only'));
    }
    if (stats.hasWarnings()) {
      process.stderr.write(`${stats.toString('errors-warnings')}\n`);
    }
    // What the bundle still requires at run time must be Node's own modules: the bin hands the
    // bundle its own `require` (bin/project-startup.js, loadWithCodeCache).
    const { isBuiltin } = require('node:module');
    const required = [...stats.compilation.modules]
      .filter(m => m instanceof webpack.ExternalModule)
      .map(m => String(m.userRequest ?? m.request));
    const notBuiltin = required.filter(request => !isBuiltin(request));
    if (notBuiltin.length > 0 || required.length === 0) {
      fail(
        `the bundle requires ${notBuiltin.join(', ') || 'nothing from Node'} at run time; it may require only Node's own modules.`
      );
    }
    // The bundle's input files, for scripts/third-party-licenses.js (the bundled packages' licenses).
    fs.writeFileSync(
      path.join(ROOT, 'sidecar', 'dist', 'bundle-inputs.json'),
      JSON.stringify(
        [...stats.compilation.modules]
          .flatMap(m => (m.modules ?? [m]).map(x => x.resource))
          .filter(Boolean)
          .sort(),
        null,
        1
      )
    );
    // The code cache runs the bundle's `serve`: in a process of its own, ended when written.
    const cache = spawnSync(
      process.execPath,
      [__filename, '--code-cache-only'],
      { stdio: 'inherit', timeout: 60000 }
    );
    if (cache.status !== 0) {
      fail(
        `writing the code cache failed (${cache.error ? cache.error.message : `exit ${cache.status}`}).`
      );
    }
    const info = stats.toJson({ all: false, chunks: true });
    for (const chunk of info.chunks) {
      const file = path.join(OUT_DIR, chunk.files[0]);
      process.stdout.write(
        `bundle-sidecar: ${path.relative(ROOT, file)} (${Math.round(fs.statSync(file).size / 1024)} KiB${
          minify ? ', minified' : ''
        })\n`
      );
    }
  });
}

/**
 * V8's code cache of the bundle after a start: `serve` is started from the bundle (compiled
 * without a cache) in a private temporary directory on a free loopback port, answers one request
 * of each kind it serves all day, and the compiled code is then saved beside the bundle, where
 * bin/project-startup.js hands it to V8 (with a header naming this V8 and the payload's SHA-256,
 * which the bin checks first: see readCodeCache there). A stale, foreign or damaged cache costs a
 * compilation, never a wrong result or a crash.
 */
function writeCodeCache() {
  // Under V8's default flags, as the bin compiles the bundle (it sets its flag only after).
  const { BUNDLE, CODE_CACHE, codeCacheFile, loadWithCodeCache } = require(
    path.join(ROOT, 'bin', 'project-startup.js')
  );
  const os = require('node:os');
  const http = require('node:http');
  const root = fs.mkdtempSync(
    path.join(os.tmpdir(), 'project-startup-code-cache-')
  );
  const finish = (code, message) => {
    fs.rmSync(root, { recursive: true, force: true });
    if (message) {
      process.stderr.write(`bundle-sidecar: ${message}\n`);
    }
    process.exit(code);
  };
  const timer = setTimeout(
    () =>
      finish(1, 'the bundle did not start within 30 s to make its code cache.'),
    30000
  );
  const project = path.join(root, 'project');
  fs.mkdirSync(project);
  fs.mkdirSync(path.join(root, 'home'));
  const token = require('node:crypto').randomBytes(32).toString('hex');
  const env = {
    HOME: path.join(root, 'home'),
    PATH: path.join(root, 'no-bin'),
    PROJECT_STARTUP_PLATFORM: 'generic',
    PROJECT_STARTUP_RUNTIME_DIR: path.join(root, 'run'),
    PROJECT_STARTUP_TOKEN: token,
    // A loopback port nothing listens on: the runtime probes fail at once.
    PROJECT_STARTUP_LOCAL_RUNTIME_URL: 'http://127.0.0.1:9/',
    PROJECT_STARTUP_SERVING_RUNTIME_URL: 'http://127.0.0.1:9/',
    PROJECT_STARTUP_LOG_LEVEL: 'error'
  };
  let out = '';
  const { exports: bundle, script } = loadWithCodeCache(BUNDLE, undefined);
  const io = {
    stdout: { write: chunk => ((out += chunk), true) },
    stderr: { write: () => true },
    get stdin() {
      return process.stdin; // never read by serve
    },
    env,
    cwd: project
  };
  bundle
    .main(
      ['serve', '--host', '127.0.0.1', '--port', '0', '--project-dir', project],
      io
    )
    .then(code =>
      finish(
        1,
        `serve ended (exit ${code}) while the code cache was being made.`
      )
    );
  const ask = (url, method = 'GET', body) =>
    new Promise((resolve, reject) => {
      const request = http.request(
        url,
        {
          method,
          headers: {
            authorization: `Bearer ${token}`,
            ...(body ? { 'content-type': 'application/json' } : {})
          },
          timeout: 5000
        },
        response => {
          response.resume();
          response.on('end', () => resolve(response.statusCode));
        }
      );
      request.on('timeout', () => request.destroy(new Error('timeout')));
      request.on('error', reject);
      request.end(body);
    });
  const poll = setInterval(() => {
    const match = /^Listening: (http:\/\/\S+)$/m.exec(out);
    if (!match) {
      return;
    }
    clearInterval(poll);
    const base = match[1];
    const calls = [
      () => ask(`${base}health`),
      () => ask(`${base}capabilities`),
      () => ask(`${base}startup?interface=terminal`),
      () => ask(`${base}startup?interface=notebook`),
      () =>
        ask(
          `${base}gateway`,
          'POST',
          '{"jsonrpc":"2.0","id":1,"method":"project.startup","params":{"interface":"web"}}'
        )
    ];
    calls
      .reduce((previous, call) => previous.then(call), Promise.resolve())
      .then(() => {
        clearTimeout(timer);
        const data = script.createCachedData();
        fs.writeFileSync(CODE_CACHE, codeCacheFile(data));
        process.stdout.write(
          `bundle-sidecar: ${path.relative(ROOT, CODE_CACHE)} (${Math.round(data.length / 1024)} KiB code cache)\n`
        );
        finish(0);
      })
      .catch(error =>
        finish(
          1,
          `a request to the bundle failed while making its code cache: ${error.message}`
        )
      );
  }, 5);
}

main(process.argv.slice(2));
