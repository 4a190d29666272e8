'use strict';
// The sidecar's heap after garbage collection, asked for by bench/idle-panels.js between
// batches of startup requests: RSS alone moves with V8's heap sizing, the live heap after a
// full collection shows whether anything is kept per request.
//
// Forked by idle-panels.js with --expose-gc: it runs the built service (sidecar/dist) in this
// process as `serve` does (generic platform, loopback, token, logging at info: no request
// log), sends { url, token } once it listens, and answers each 'measure' message with the
// heap after two full collections. Its runtime probes go to a closed loopback port.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const DIST = path.resolve(__dirname, '..', 'sidecar', 'dist');

async function main() {
  if (typeof global.gc !== 'function') {
    throw new Error('run with --expose-gc');
  }
  const { resolveConfig } = require(path.join(DIST, 'config.js'));
  const { createLogger } = require(path.join(DIST, 'log.js'));
  const { startService } = require(path.join(DIST, 'http', 'server.js'));
  const root = fs.realpathSync(
    fs.mkdtempSync(path.join(os.tmpdir(), 'ps-bench-heap-'))
  );
  const projectDir = path.join(root, 'project');
  fs.mkdirSync(projectDir);
  fs.mkdirSync(path.join(root, 'home'));
  const closed = process.argv[2];
  const env = {
    HOME: path.join(root, 'home'),
    PATH: path.join(root, 'home'), // no scheduler or D-Bus client to find
    PROJECT_STARTUP_PLATFORM: 'generic',
    PROJECT_STARTUP_RUNTIME_DIR: path.join(root, 'run'),
    PROJECT_STARTUP_LOCAL_RUNTIME_URL: closed,
    PROJECT_STARTUP_SERVING_RUNTIME_URL: closed
  };
  const config = resolveConfig({ projectDir }, env, projectDir);
  const running = await startService({
    config,
    env,
    fileExists: () => false,
    logger: createLogger('info', () => undefined)
  });
  const stop = async () => {
    await running.close();
    fs.rmSync(root, { recursive: true, force: true });
    process.exit(0);
  };
  process.on('disconnect', stop);
  process.on('message', message => {
    if (message === 'measure') {
      global.gc();
      global.gc();
      const m = process.memoryUsage();
      process.send({ heapUsed: m.heapUsed, external: m.external, rss: m.rss });
    } else if (message && typeof message.snapshot === 'string') {
      // For finding what grows: two snapshots compared in Chrome's DevTools (Comparison view).
      global.gc();
      process.send({
        snapshot: require('node:v8').writeHeapSnapshot(message.snapshot)
      });
    } else if (message === 'stop') {
      void stop();
    }
  });
  process.send({ url: running.url, token: running.token });
}

main().catch(error => {
  process.send?.({ error: error && error.stack ? error.stack : String(error) });
  process.exit(1);
});
