// The setup page, the API docs page and their files. The setup page's files are read once when
// the app is made: no request opens a file (a request can arrive when no descriptor is left).
// Swagger UI's 2 MB a person may never ask for are streamed from disk, never kept.
import * as fs from 'node:fs';
import type { ServerResponse } from 'node:http';
import * as nodePath from 'node:path';
import { ProblemError } from '../core/problems';
import type { Exchange, Route, RouteFile } from './types';
import { sendJson } from './respond';

const STATIC_DIR = nodePath.join(__dirname, '..', '..', 'static');
/** sidecar/dist/api-docs, from dist/http, dist/bundle and (tests) src/http alike. */
const DOCS_DIR = nodePath.join(__dirname, '..', '..', 'dist', 'api-docs');

export const PAGE_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
/**
 * The API docs page's policy: the setup page's, except that images may be data: URLs, which is
 * how Swagger UI's stylesheet draws its icons. Scripts stay 'self' only.
 */
export const DOCS_POLICY = PAGE_POLICY.replace(
  "img-src 'self'",
  "img-src 'self' data:"
);

const SIGN_IN_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sign in: project startup</title>
<link rel="icon" href="favicon.svg" type="image/svg+xml"></head>
<body><main><h1>Sign in to the project startup page</h1>
<p>This page needs the service's token. In a terminal on this machine, run</p>
<pre>project-startup url</pre>
<p>and open the address it prints. The token is then kept in a private cookie.</p></main></body></html>
`;

/** The 401 a person opening the setup page without a session sees: how to get the address. */
export function sendSignInPage(response: ServerResponse): void {
  response.setHeader('Content-Security-Policy', PAGE_POLICY);
  sendJson(response, 401, SIGN_IN_PAGE, 'text/html');
}

/** The bytes of every route's file from sidecar/static, read now (at start-up). */
export function readStaticFiles(routes: readonly Route[]): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  for (const route of routes) {
    if (route.file?.from === 'static') {
      files.set(
        route.path,
        fs.readFileSync(nodePath.join(STATIC_DIR, route.file.name))
      );
    }
  }
  return files;
}

/** A file route's answer: its bytes from start-up, or its API docs asset streamed. */
export async function sendFile(exchange: Exchange): Promise<void> {
  const { route, response, app } = exchange;
  const file = route.file;
  if (file === undefined) {
    throw new Error(`route ${route.path} names no file`);
  }
  const body = app.files.get(route.path);
  if (body === undefined) {
    await streamDocsAsset(file, response);
    return;
  }
  setFileHeaders(file, response);
  response.statusCode = 200;
  response.end(body);
}

function setFileHeaders(file: RouteFile, response: ServerResponse): void {
  response.setHeader('Content-Security-Policy', file.policy);
  response.setHeader('Referrer-Policy', 'no-referrer');
  response.setHeader('Content-Type', `${file.type}; charset=utf-8`);
}

async function streamDocsAsset(
  route: RouteFile,
  response: ServerResponse
): Promise<void> {
  const file = nodePath.join(DOCS_DIR, route.name);
  let size: number;
  try {
    size = (await fs.promises.stat(file)).size;
  } catch (error) {
    const errno = (error as NodeJS.ErrnoException).code ?? '';
    if (errno === 'EMFILE' || errno === 'ENFILE') {
      throw error; // no descriptor left: answered 503 overloaded, not "not built"
    }
    throw new ProblemError(
      'not-found',
      'The API docs page is not built here: run `npm run build:sidecar`; the description itself is at openapi.json.'
    );
  }
  setFileHeaders(route, response);
  response.setHeader('Content-Length', size);
  response.statusCode = 200;
  await new Promise<void>((resolve, reject) => {
    const stream = fs.createReadStream(file);
    stream.once('error', reject);
    response.once('close', resolve);
    stream.pipe(response);
  }).catch(() => response.destroy());
}
