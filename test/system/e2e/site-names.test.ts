// The panel names the model sources as the site configuration file does, end
// to end: the operator's `project-startup jupyter install --user`, the site file named by
// PROJECT_STARTUP_CONFIG in the Jupyter server's environment (and so the sidecar's, which
// jupyter-server-proxy launches), the real JupyterLab front end in Debian's Chromium. The panel
// renders what the manifest says: the site's labels as written, the gateway's address, and a
// source the site has not arranged as not arranged at this site. Screenshot:
// test-artifacts/e2e/panel-site-names.png.
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  jupyterInstall,
  LabServer,
  openLab,
  screenshot,
  startLabServer
} from './helpers';
import {
  BASE_URL,
  expectPanelAccessible,
  pageSuite,
  openDisclosure,
  panel,
  waitForPhase,
  writePluginSetting
} from './panel-helpers';
import {
  GATEWAY_ADDRESS,
  GATEWAY_LABEL,
  siteFile,
  VENDOR_A_LABEL,
  VENDOR_B_LABEL
} from '../../helpers/site-names';

describe('the panel at a site with its own names for the model sources (Chromium, jupyter_server 1.23)', () => {
  let server: LabServer | undefined;
  const { newPage, expectOnlyProblems } = pageSuite({
    server: () => server,
    forgetServer: () => (server = undefined)
  });

  test('the site labels, the gateway address and a source not arranged, in the panel', async () => {
    server = await startLabServer({
      baseUrl: BASE_URL,
      label: 'panel-site-names-server',
      prepare: dirs => {
        jupyterInstall(dirs);
        // No poll: the page asks when it opens, and the panel opens by itself to confirm.
        writePluginSetting(dirs, { refreshInterval: 0 });
        const file = path.join(dirs.root, 'site.json');
        fs.writeFileSync(file, siteFile(), { mode: 0o644 });
        return { PROJECT_STARTUP_CONFIG: file };
      }
    });
    const p = await newPage();
    await openLab(p, server);
    await panel(p).waitFor({ state: 'visible', timeout: 30000 });
    await waitForPhase(p, 'awaiting-confirmation');

    const section = await openDisclosure(p, 'offers');
    const sources = section.locator('table.jp-ProjectStartup-modelSources');
    const row = (id: string) =>
      sources.locator(`tbody tr[data-source-id="${id}"]`).evaluate(tr => ({
        arranged: tr.getAttribute('data-arranged'),
        cells: Array.from(tr.children).map(c => c.textContent)
      }));
    await expect(row('institution-ai-gateway')).resolves.toEqual({
      arranged: 'true',
      cells: [
        `${GATEWAY_LABEL}${GATEWAY_ADDRESS}`,
        'Yes',
        'Review Every Action'
      ]
    });
    await expect(row('vendor-api-a')).resolves.toEqual({
      arranged: 'true',
      cells: [VENDOR_A_LABEL, 'Yes', 'Review Every Action']
    });
    await expect(row('vendor-api-b')).resolves.toEqual({
      arranged: 'false',
      cells: [VENDOR_B_LABEL, 'Not arranged at this site']
    });
    // The row header is the name a screen reader reads with each cell of the row.
    await expect(
      sources
        .getByRole('rowheader', { name: new RegExp(`^${VENDOR_B_LABEL}`) })
        .count()
    ).resolves.toBe(1);
    await expect(
      section
        .locator('tr[data-capability-id="built-in-connections"] td')
        .textContent()
    ).resolves.toBe(GATEWAY_LABEL);
    // The sources are listed once, in their own table above: the capability table does not
    // repeat them.
    await expect(
      section.locator('tr[data-capability-id="model-sources"]').count()
    ).resolves.toBe(0);
    const text = (await section.textContent()) ?? '';
    expect(text).not.toMatch(
      /Vendor API A|Vendor API B|Institution AI gateway/
    );

    await section.evaluate(node => node.scrollIntoView({ block: 'start' }));
    await screenshot(p, 'panel-site-names');
    await expectPanelAccessible(p, 'panel-site-names');
    expectOnlyProblems();
  }, 180000);
});
