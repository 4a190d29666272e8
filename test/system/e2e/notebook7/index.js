// The e2e Notebook 7 host proper, imported by ../app/bootstrap.js once the share scope is
// complete (every federated extension the server listed has registered what it provides). As
// Notebook 7's own entry point does: the plugins every page loads plus those of this page
// (PageConfig `notebookPage`), then the federated extensions, minus disabled plugins; a
// PluginRegistry resolves the service manager; NotebookApp starts. window.jupyterapp is set only
// when the page config says `exposeAppInBrowser` (Notebook's --expose-app-in-browser flag; the
// stand-in server sets it). window.e2eHost says how loading went.
import { NotebookApp } from '@jupyter-notebook/application';
import { PageConfig } from '@jupyterlab/coreutils';
import { IServiceManager } from '@jupyterlab/services';
import { PluginRegistry } from '@lumino/coreutils';
import {
  NOTEBOOK_VERSION,
  PAGES,
  SHARED_BY_LEFT_OUT
} from './extensions.gen.js';
import { federatedExtensions, loadFederated, pluginsOf } from './federated.js';
import './style.js';

export async function main(failedFederated) {
  void SHARED_BY_LEFT_OUT; // provided to the share scope, never loaded by the host itself
  const host = {
    notebook: NOTEBOOK_VERSION,
    page: PageConfig.getOption('notebookPage'),
    federated: [],
    failedFederated: [...failedFederated],
    disabled: [],
    missing: [],
    errors: [],
    started: false,
    restored: false
  };
  window.e2eHost = host;

  const plugins = [];
  const mimeExtensions = [];
  const availablePlugins = [];
  const take = (module, wanted, into, scope) => {
    const found = new Set();
    for (const plugin of pluginsOf(module)) {
      if (wanted !== true && !wanted.includes(plugin.id)) {
        continue;
      }
      found.add(plugin.id);
      const enabled = !PageConfig.Extension.isDisabled(plugin.id);
      availablePlugins.push({
        id: plugin.id,
        description: plugin.description,
        requires: plugin.requires ?? [],
        optional: plugin.optional ?? [],
        provides: plugin.provides ?? null,
        autoStart: plugin.autoStart,
        enabled,
        extension: scope
      });
      if (!enabled) {
        host.disabled.push(plugin.id);
        continue;
      }
      into.push(plugin);
    }
    // A plugin the page list names but the package no longer has: the list has drifted.
    if (wanted !== true) {
      host.missing.push(...wanted.filter(id => !found.has(id)));
    }
  };

  const page = `/${host.page}`;
  const builtIn = [
    ...(PAGES['/'] ?? []),
    ...(page !== '/' ? (PAGES[page] ?? []) : [])
  ];
  for (const { name, plugins: wanted, load } of builtIn) {
    try {
      take(await load(), wanted, plugins, name);
    } catch (error) {
      host.errors.push(`${name}: ${error}`);
      console.error(error);
    }
  }

  await loadFederated(federatedExtensions(failedFederated), host, {
    plugins: (module, name) => take(module, true, plugins, name),
    mimePlugins: (module, name) => take(module, true, mimeExtensions, name),
    // A disabled extension's style is not loaded, as in Notebook 7.
    style: name => !PageConfig.Extension.isDisabled(name)
  });

  const pluginRegistry = new PluginRegistry();
  pluginRegistry.registerPlugins(plugins);
  const serviceManager =
    await pluginRegistry.resolveRequiredService(IServiceManager);
  const app = new NotebookApp({
    pluginRegistry,
    serviceManager,
    mimeExtensions,
    availablePlugins
  });
  if (
    String(PageConfig.getOption('exposeAppInBrowser')).toLowerCase() === 'true'
  ) {
    window.jupyterapp = app;
  }
  await app.start();
  host.started = true;
  await app.restored;
  host.restored = true;
  document.body.dataset.e2eHost = 'restored';
}
