// The e2e host app proper, imported by bootstrap.js once the share scope is complete. Like
// JupyterLab's own entry point: the built-in extensions (extensions.gen.js, written by build.js)
// plus the federated extensions the server listed, minus disabled plugins; then start the app.
// The app is exposed as window.jupyterapp (a test host: always), and window.e2eHost says how
// loading went.
import { JupyterLab } from '@jupyterlab/application';
import { Dialog, ISanitizer, showDialog } from '@jupyterlab/apputils';
import { PageConfig } from '@jupyterlab/coreutils';
import { IRenderMimeRegistry, RenderMimeRegistry, standardRendererFactories } from '@jupyterlab/rendermime';
import { compiler } from 'markdown-to-jsx';
import { renderToStaticMarkup } from 'react-dom/server';
// The rendered outputs' styles, as @jupyterlab/rendermime-extension brings them.
import '@jupyterlab/rendermime/style/index.js';
import { BUILTIN_EXTENSIONS } from './extensions.gen.js';
import './style.js';

/** The test host's own plugin: a command that shows an apputils dialog (for the tests). */
const hostPlugin = {
  id: 'e2e-host:commands',
  description: 'Commands the browser tests use.',
  autoStart: true,
  activate: app => {
    app.commands.addCommand('e2e-host:show-dialog', {
      label: 'Show a test dialog',
      execute: args =>
        showDialog({
          title: String(args.title ?? 'Test dialog'),
          body: String(args.body ?? ''),
          buttons: [Dialog.cancelButton(), Dialog.okButton()]
        }).then(result => ({ accept: result.button.accept, label: result.button.label }))
    });
  }
};

/**
 * JupyterLab's rendermime registry, as @jupyterlab/rendermime-extension provides it: the
 * standard renderers (Markdown, HTML, images, ...) with the app's sanitizer. JupyterLab parses
 * Markdown with marked (@jupyterlab/markedparser-extension), which is not installed here; the
 * Markdown parser already installed (markdown-to-jsx, a dependency of @rjsf/core) stands in.
 * The rendering, sanitizing and header anchors are JupyterLab's own.
 */
const rendermimePlugin = {
  id: 'e2e-host:rendermime',
  description: "JupyterLab's rendermime registry for the test host.",
  autoStart: true,
  requires: [ISanitizer],
  provides: IRenderMimeRegistry,
  activate: (app, sanitizer) =>
    new RenderMimeRegistry({
      initialFactories: standardRendererFactories,
      sanitizer,
      markdownParser: { render: source => Promise.resolve(renderToStaticMarkup(compiler(source, { forceBlock: true }))) }
    })
};

function pluginsOf(module) {
  const exported = Object.prototype.hasOwnProperty.call(module, '__esModule') ? module.default : module;
  return Array.isArray(exported) ? exported : [exported];
}

async function fromContainer(scope, module) {
  const factory = await window._JUPYTERLAB[scope].get(module);
  return factory();
}

export async function main(failedFederated) {
  const host = {
    federated: [],
    failedFederated: [...failedFederated],
    disabled: [],
    errors: [],
    started: false,
    restored: false
  };
  window.e2eHost = host;

  const federated = JSON.parse(PageConfig.getOption('federated_extensions') || '[]').filter(
    data => !failedFederated.includes(data.name)
  );
  const federatedNames = new Set(federated.map(data => data.name));
  const plugins = [hostPlugin, rendermimePlugin];
  const mimeExtensions = [];
  const deferred = [];
  const ignorePlugins = [];

  const take = (module, excluded, into) => {
    for (const plugin of pluginsOf(module)) {
      if (excluded.includes(plugin.id) || PageConfig.Extension.isDisabled(plugin.id)) {
        host.disabled.push(plugin.id);
        continue;
      }
      if (PageConfig.Extension.isDeferred(plugin.id)) {
        deferred.push(plugin.id);
        ignorePlugins.push(plugin.id);
      }
      into.push(plugin);
    }
  };

  for (const { name, exclude, load } of BUILTIN_EXTENSIONS) {
    if (federatedNames.has(name)) {
      continue; // a prebuilt extension of the same name replaces the built-in one
    }
    try {
      take(await load(), exclude, plugins);
    } catch (error) {
      host.errors.push(`${name}: ${error}`);
      console.error(error);
    }
  }

  for (const data of federated) {
    try {
      if (data.extension) {
        take(await fromContainer(data.name, data.extension), [], plugins);
      }
      if (data.mimeExtension) {
        take(await fromContainer(data.name, data.mimeExtension), [], mimeExtensions);
      }
      if (data.style) {
        await fromContainer(data.name, data.style);
      }
      host.federated.push(data.name);
    } catch (error) {
      host.failedFederated.push(data.name);
      host.errors.push(`${data.name}: ${error}`);
      console.error(`federated extension ${data.name} failed:`, error);
    }
  }

  const lab = new JupyterLab({
    mimeExtensions,
    disabled: { matches: host.disabled, patterns: PageConfig.Extension.disabled.map(value => value.raw) },
    deferred: { matches: deferred, patterns: PageConfig.Extension.deferred.map(value => value.raw) }
  });
  lab.registerPlugins(plugins);
  window.jupyterapp = lab;
  await lab.start({ ignorePlugins });
  host.started = true;
  await lab.restored;
  host.restored = true;
  document.body.dataset.e2eHost = 'restored';
}
