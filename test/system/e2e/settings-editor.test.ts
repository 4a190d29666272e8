// The extension's settings in JupyterLab's own Settings Editor (its form, rendered from
// schema/plugin.json by @jupyterlab/settingeditor-extension), in the real `jupyter lab`
// (JupyterLab 4.6.4 on jupyter_server 2.21.1), in Debian's Chromium at base_url /user/alice/:
//   - "Silenced notifications" offers each kind by its title (the schema's oneOf choices), not
//     by its id;
//   - choosing one is saved through the Jupyter server's settings API, which validates with JSON
//     Schema draft 4 (test/service/extension/settings-schema.test.ts says why that matters).
// Screenshot: test-artifacts/e2e/settings-editor.png.
import * as fs from 'node:fs';
import type { Page } from 'playwright-core';
import {
  jupyterInstall,
  LabServer,
  openLab,
  screenshot,
  startLabServer
} from './helpers';
import {
  BASE_URL,
  pageSuite,
  pause,
  pluginSettingsFile,
  writePluginSetting
} from './panel-helpers';

/** The titles of schema/plugin.json's mutedNotifications choices. */
const KIND_TITLES = (
  JSON.parse(
    fs.readFileSync(`${__dirname}/../../../schema/plugin.json`, 'utf8')
  ) as {
    properties: {
      mutedNotifications: { items: { oneOf: { title: string }[] } };
    };
  }
).properties.mutedNotifications.items.oneOf.map(choice => choice.title);

async function openSettingsEditor(page: Page): Promise<void> {
  await page.evaluate(() => {
    const g = globalThis as unknown as {
      jupyterapp: {
        commands: { execute(id: string, args: unknown): Promise<unknown> };
      };
    };
    // Without a search: the plugin list's highlighting of a query renders <mark>s without React
    // keys (a console error of JupyterLab's own).
    void g.jupyterapp.commands.execute('settingeditor:open', {});
  });
}

describe('the settings in the Settings Editor (JupyterLab; Chromium, jupyter_server 2.21.1, base_url /user/alice/)', () => {
  let server: LabServer | undefined;
  const { newPage, expectOnlyProblems } = pageSuite({
    server: () => server,
    forgetServer: () => (server = undefined)
  });

  test('"Silenced notifications" shows each kind by its title, and a choice is saved', async () => {
    server = await startLabServer({
      baseUrl: BASE_URL,
      label: 'settings-editor-server',
      prepare: dirs => {
        jupyterInstall(dirs);
        writePluginSetting(dirs, { openWhenAwaitingConfirmation: false });
      }
    });
    const s = server;
    const p = await newPage();
    await openLab(p, s);
    await openSettingsEditor(p);
    const plugin = p
      .locator('.jp-PluginList-entry')
      .filter({ hasText: 'Project Startup' });
    await plugin.first().waitFor({ state: 'visible', timeout: 30000 });
    await plugin.first().click();
    // JupyterLab's form renders the array of choices as a multiple select, one option per kind.
    const select = p.locator(
      'select[multiple][id$="jupyterlab-project-startup:plugin_mutedNotifications"]'
    );
    await select.waitFor({ state: 'visible', timeout: 20000 });
    expect(await select.locator('option').allInnerTexts()).toEqual(KIND_TITLES);
    await screenshot(p, 'settings-editor');

    // Choosing one saves it (the Jupyter server validates the save against the schema).
    await select.selectOption({ label: 'Setup needs a compute allocation' });
    const file = pluginSettingsFile(s.dirs);
    const saved = (): boolean =>
      fs.existsSync(file) &&
      /"mutedNotifications":\s*\[\s*"needs-compute"\s*\]/.test(
        fs.readFileSync(file, 'utf8')
      );
    for (let i = 0; i < 100 && !saved(); i++) {
      await pause(200);
    }
    expect(saved()).toBe(true);
    expectOnlyProblems();
  }, 180000);
});
