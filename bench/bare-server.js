#!/usr/bin/env node
'use strict';
// The baseline: a bare node:http server that answers the sidecar's routes with the very bytes
// the sidecar served (read once from a JSON file), with nothing else to do: no routing beyond
// a string compare, no authentication, no work per request. On this machine, no Node HTTP
// service can answer faster, so the sidecar's figures are compared with it.
//
//   node bench/bare-server.js PORT [BODIES.json]            (bench/run.js: TCP on 127.0.0.1)
//   node bench/bare-server.js /path/to/socket [BODIES.json]  (bench/jupyter-proxy.js: the proxy
//                                                            launches it on a Unix socket)
//
// BODIES.json maps request keys ("GET /project/capabilities", "POST /project/gateway", ...) to
// {type, body} or, to replay a captured answer byte for byte, {status, headers, body} (headers
// as the sidecar sent them, hop-by-hop ones left out). Without it only GET /project/health
// answers (for the cold-start comparison). Every other request gets an empty 404 (the proxy's
// readiness check asks for / and takes any answer). Ends on SIGTERM/SIGINT.
const http = require('node:http');
const fs = require('node:fs');

const HEALTH_ONLY = {
  'GET /project/health': {
    type: 'application/health+json; charset=utf-8',
    body: '{"status":"pass"}'
  }
};

/**
 * Answers `bodies` (an answers file's content) on `where` (a port on 127.0.0.1 or a Unix socket
 * path) until SIGTERM or SIGINT; says where once it listens.
 */
function serveBare(where, bodies) {
  const routes = new Map();
  for (const [key, { status, headers, type, body }] of Object.entries(bodies)) {
    routes.set(key, {
      status: status || 200,
      headers: Object.entries(headers || { 'content-type': type }),
      body: Buffer.from(body, 'utf8')
    });
  }
  const server = http.createServer((request, response) => {
    const route = routes.get(`${request.method} ${request.url}`);
    if (route === undefined) {
      response.statusCode = 404;
      response.end();
      return;
    }
    const answer = () => {
      response.statusCode = route.status;
      for (const [name, value] of route.headers) {
        response.setHeader(name, value);
      }
      response.end(route.body);
    };
    if (request.method === 'POST') {
      // Like any JSON-RPC endpoint, take the whole body before answering.
      request.on('data', () => undefined);
      request.on('end', answer);
    } else {
      answer();
    }
  });
  if (/^\d+$/.test(where)) {
    server.listen(Number(where), '127.0.0.1', () => {
      process.stdout.write(
        `Listening: http://127.0.0.1:${server.address().port}/\n`
      );
    });
  } else {
    server.listen(where, () => {
      process.stdout.write(`Listening: unix:${where}\n`);
    });
  }
  const stop = () => server.close(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  return server;
}

if (require.main === module) {
  const file = process.argv[3];
  serveBare(
    process.argv[2] || '0',
    file ? JSON.parse(fs.readFileSync(file, 'utf8')) : HEALTH_ONLY
  );
}

module.exports = { serveBare };
