// jupyter-server-proxy at both ends of the claimed range (docs/compatibility.md): 4.1.2, the lowest
// (vendored in ../shared/vendor/python-jsp-4.1, with simpervisor from the 4.4.0 directory), and
// 4.4.0, the highest here, each under the real stack's `jupyter lab` (JupyterLab 4.6.4,
// jupyter_server 2.21.1) with this checkout's wheel pip-installed. The proxy finds the wheel's
// `jupyter_serverproxy_servers` entry point and launches the sidecar on a Unix socket; the
// manifest and the panel's startup answer come back through it, and the panel opens in the real
// JupyterLab (Debian's Chromium) with what it got through that proxy.
//
// And the culling caveat, measured: jupyter-server-proxy < 4.3 has no `update_last_activity`, so
// every proxied request (each poll of an open panel) moves the server's last activity, which
// JupyterHub's idle culler reads; 4.3 and later honour the wheel's `update_last_activity: False`.
import * as fs from 'node:fs';
import {
  realStack,
  VENDORED_SERVER_PROXY,
  VENDORED_SERVER_PROXY_4_1
} from '../../helpers/real-stack';
import { expectValid } from '../../helpers/schemas';
import * as os from 'node:os';
import * as path from 'node:path';
import { chromium } from 'playwright-core';
import { CHROMIUM, CHROMIUM_FLAGS } from '../e2e/helpers';
import { Jupyter, serverProxyVersion, startJupyter } from './jupyter';
import { delay, waitFor } from '../../helpers/wait';

interface Cell {
  version: string;
  /** What its `__version__` says: the v4.1.2 tag never bumped `_version.py` (../shared/vendor/README.md). */
  reports: string;
  /** PYTHONPATH: the proxy first, then simpervisor (the 4.4.0 directory has both). */
  pythonPath: string;
  /** Whether proxied requests move jupyter_server's last activity. */
  pollsCountAsActivity: boolean;
}

const CELLS: Cell[] = [
  {
    version: '4.1.2',
    reports: '4.1.1-0.dev',
    pythonPath: `${VENDORED_SERVER_PROXY_4_1}:${VENDORED_SERVER_PROXY}`,
    pollsCountAsActivity: true
  },
  {
    version: '4.4.0',
    reports: '4.4.0',
    pythonPath: VENDORED_SERVER_PROXY,
    pollsCountAsActivity: false
  }
];

/** The processes whose parent is `parent` and whose command line holds every one of `words`. */
function children(parent: number, words: string[]): number[] {
  const found: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) {
      continue;
    }
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const argv = fs
        .readFileSync(`/proc/${entry}/cmdline`, 'utf8')
        .split('\0');
      if (ppid === parent && words.every(w => argv.includes(w))) {
        found.push(Number(entry));
      }
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

async function lastActivity(jupyter: Jupyter): Promise<string> {
  const status = await jupyter.request('api/status');
  expect(status.status).toBe(200);
  return (status.json as { last_activity: string }).last_activity;
}

describe.each(CELLS)(
  'jupyter-server-proxy $version on the real stack, with the wheel',
  cell => {
    let jupyter: Jupyter | undefined;
    const j = () => jupyter as Jupyter;

    beforeAll(async () => {
      jupyter = await startJupyter({
        stack: realStack(),
        serverProxyPath: cell.pythonPath,
        label: `server-proxy-${cell.version}`
      });
    }, 90000);

    afterAll(async () => {
      await jupyter?.stop();
    }, 30000);

    test('the proxy launches the sidecar from the entry point on a Unix socket; capabilities and startup answer through it', async () => {
      expect(serverProxyVersion(realStack().python, cell.pythonPath)).toBe(
        cell.reports
      );
      // The wheel's server extension found this proxy at start.
      expect(j().logs()).toMatch(
        new RegExp(
          `jupyterlab-project-startup \\S+: jupyter-server-proxy ${cell.reports.replace(/\./g, '\\.')}, Node\\.js`
        )
      );
      const capabilities = await j().request('project/capabilities');
      expect([capabilities.status, capabilities.text.slice(0, 300)]).toEqual([
        200,
        expect.any(String)
      ]);
      expectValid('Manifest', capabilities.json);
      const startup = await j().request('project/startup?interface=notebook');
      expect(startup.status).toBe(200);
      expect(startup.json).toMatchObject({
        phase: 'awaiting-confirmation'
      });
      // The proxy's child, serving on a Unix socket it chose.
      const sidecars = children(j().pid, ['serve', '--unix-socket']);
      expect(sidecars).toHaveLength(1);
      const argv = fs
        .readFileSync(`/proc/${sidecars[0]}/cmdline`, 'utf8')
        .split('\0');
      const socket = argv[argv.indexOf('--unix-socket') + 1];
      expect(fs.statSync(socket).isSocket()).toBe(true);
    }, 60000);

    test('the panel opens itself in the real JupyterLab through this proxy, awaiting confirmation', async () => {
      // Debian's Chromium with a fresh profile (the e2e helpers' launcher also wants their npm host app).
      const profile = fs.mkdtempSync(
        path.join(os.tmpdir(), 'ps-matrix-chromium-')
      );
      const browser = await chromium.launchPersistentContext(profile, {
        executablePath: CHROMIUM,
        headless: true,
        args: CHROMIUM_FLAGS,
        timeout: 60000,
        env: { PATH: '/usr/bin:/bin', HOME: profile, LANG: 'C.UTF-8' }
      });
      try {
        const page = await browser.newPage();
        await page.goto(
          `${j().origin}${j().base}lab/workspaces/matrix-${cell.version}?token=${j().token}`,
          { waitUntil: 'domcontentloaded', timeout: 60000 }
        );
        const badge = page.locator(
          '#jp-project-startup-panel .jp-ProjectStartup-phaseBadge'
        );
        await badge.waitFor({ state: 'visible', timeout: 60000 });
        expect((await badge.textContent())?.trim()).toBe(
          'Awaiting confirmation'
        );
      } finally {
        await browser.close().catch(() => undefined);
        fs.rmSync(profile, { recursive: true, force: true });
      }
    }, 120000);

    test(`proxied polls ${cell.pollsCountAsActivity ? 'move' : 'leave'} the server's last activity (what a hub's idle culler reads)`, async () => {
      // The sidecar is up (the test above); a first proxied request, then the mark.
      expect((await j().request('project/health')).status).toBe(200);
      // The page of the test above may still have requests of its own in flight when its browser
      // closed: take the mark once the server's last activity has stopped moving (two reads a
      // second apart agree), so only the polls below can move it.
      const before = await waitFor(
        async () => {
          const first = await lastActivity(j());
          await delay(1000);
          return first === (await lastActivity(j())) ? first : false;
        },
        { what: 'a still last activity', timeoutMs: 30000, intervalMs: 100 }
      );
      for (let poll = 0; poll < 5; poll += 1) {
        const answer = await j().request('project/startup?interface=notebook');
        expect(answer.status).toBe(200);
      }
      const after = await lastActivity(j());
      if (cell.pollsCountAsActivity) {
        expect(Date.parse(after)).toBeGreaterThan(Date.parse(before));
      } else {
        expect(after).toBe(before);
      }
    }, 60000);
  }
);
