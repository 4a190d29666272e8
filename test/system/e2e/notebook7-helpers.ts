// Helpers for the Notebook 7 browser tests: the Notebook 7 tree page that
// test/system/e2e/notebook7/build.js builds from Notebook 7.6's npm packages (`npm run
// build:e2e-notebook`), served by test/system/e2e/notebook7_server.py (a stand-in for the `notebook` 7
// Python package's page handlers, which Debian 12 does not have) on Debian's jupyter_server 1.23
// with the real jupyter-server-proxy, driven in Debian's Chromium (./helpers.ts does the rest).
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import {
  E2E_DIR,
  LabServer,
  LabServerOptions,
  PageProblem,
  startLabServer
} from './helpers';

export const NOTEBOOK7_BUILD = path.join(E2E_DIR, 'notebook7', 'build');
export const NOTEBOOK7_SERVER = path.join(E2E_DIR, 'notebook7_server.py');

/**
 * The one page error this Notebook 7 front end raises by itself, with no federated extension at
 * all (checked): JupyterLab 4.6.4's shortcuts-extension reads `registry.plugins[id].schema` when
 * the settings registry announces '@jupyterlab/docmanager-extension:plugin' before that plugin's
 * transformed settings are in `plugins`. Nothing of this project is involved.
 */
export function isNotebook7HostRace(problem: PageProblem): boolean {
  return (
    problem.kind === 'page-error' &&
    problem.text ===
      "page error: Cannot read properties of undefined (reading 'schema')"
  );
}

/** What build.js wrote in build-info.json. */
export interface Notebook7BuildInfo {
  notebook: string;
  jupyterlab: string;
  seconds: number;
}

/** Throws, with what to do, when the Notebook 7 front end is not built. */
export function checkNotebook7Built(): Notebook7BuildInfo {
  const info = path.join(NOTEBOOK7_BUILD, 'build-info.json');
  if (
    !fs.existsSync(path.join(NOTEBOOK7_BUILD, 'static', 'bundle.js')) ||
    !fs.existsSync(info)
  ) {
    throw new Error(
      'The e2e Notebook 7 front end is not built: run `npm run build:e2e-notebook` (`npm test` does it).'
    );
  }
  return JSON.parse(fs.readFileSync(info, 'utf8')) as Notebook7BuildInfo;
}

/** A Notebook 7 server: the lab server's directories and process, with the tree page's address. */
export interface Notebook7Server extends LabServer {
  /** {base}tree, without the token. */
  treeUrl: string;
}

/** Starts notebook7_server.py (same options as startLabServer) and resolves once it answers. */
export async function startNotebook7Server(
  options: Omit<LabServerOptions, 'script'> = {}
): Promise<Notebook7Server> {
  checkNotebook7Built();
  const server = await startLabServer({
    label: 'notebook7-server',
    ...options,
    script: NOTEBOOK7_SERVER
  });
  return Object.assign(server, { treeUrl: `${server.base}tree` });
}

/** window.e2eHost of the Notebook 7 host (test/system/e2e/notebook7/index.js). */
export interface Notebook7Host {
  notebook: string;
  page: string;
  federated: string[];
  failedFederated: string[];
  disabled: string[];
  missing: string[];
  errors: string[];
  started: boolean;
  restored: boolean;
}

/**
 * Opens Notebook 7's tree page signed in with the token and waits (bounded) until the app is
 * restored (or failed to load: then the host's errors say why).
 */
export async function openNotebookTree(
  page: Page,
  server: Notebook7Server,
  timeoutMs = 60000
): Promise<Notebook7Host> {
  await page.goto(`${server.treeUrl}?token=${server.token}`, {
    waitUntil: 'domcontentloaded',
    timeout: timeoutMs
  });
  await page.waitForFunction(
    () => {
      const g = globalThis as unknown as { e2eHost?: Notebook7Host };
      return (
        g.e2eHost?.restored === true || (g.e2eHost?.errors.length ?? 0) > 0
      );
    },
    undefined,
    { timeout: timeoutMs, polling: 100 }
  );
  return page.evaluate(
    () => (globalThis as unknown as { e2eHost: Notebook7Host }).e2eHost
  );
}
