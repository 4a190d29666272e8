// The e2e host app proper, imported by bootstrap.js once the share scope is complete. Like
// JupyterLab's own entry point: the built-in extensions (extensions.gen.js, written by build.js)
// plus the federated extensions the server listed, minus disabled plugins; then start the app.
// The app is exposed as window.jupyterapp (a test host: always), and window.e2eHost says how
// loading went.
import { JupyterLab } from '@jupyterlab/application';
import { Dialog, showDialog } from '@jupyterlab/apputils';
import {
  EditorLanguageRegistry,
  IEditorLanguageRegistry
} from '@jupyterlab/codemirror';
import { PageConfig } from '@jupyterlab/coreutils';
import { BUILTIN_EXTENSIONS } from './extensions.gen.js';
import { federatedExtensions, loadFederated, pluginsOf } from './federated.js';
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
        }).then(result => ({
          accept: result.button.accept,
          label: result.button.label
        }))
    });
  }
};

/**
 * The editor language registry that @jupyterlab/codemirror-extension provides (JupyterLab's
 * default languages), which marked needs to highlight code blocks: the host app has no code
 * editor, so only this registry of the codemirror extension is built in.
 */
const languagesPlugin = {
  id: 'e2e-host:languages',
  description: "JupyterLab's editor language registry for the test host.",
  autoStart: true,
  provides: IEditorLanguageRegistry,
  activate: () => {
    const languages = new EditorLanguageRegistry();
    for (const language of EditorLanguageRegistry.getDefaultLanguages()) {
      languages.addLanguage(language);
    }
    return languages;
  }
};

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

  const federated = federatedExtensions(failedFederated);
  const federatedNames = new Set(federated.map(data => data.name));
  const plugins = [hostPlugin, languagesPlugin];
  const mimeExtensions = [];
  const deferred = [];
  const ignorePlugins = [];

  const take = (module, excluded, into) => {
    for (const plugin of pluginsOf(module)) {
      if (
        excluded.includes(plugin.id) ||
        PageConfig.Extension.isDisabled(plugin.id)
      ) {
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

  await loadFederated(federated, host, {
    plugins: module => take(module, [], plugins),
    mimePlugins: module => take(module, [], mimeExtensions)
  });

  const lab = new JupyterLab({
    mimeExtensions,
    disabled: {
      matches: host.disabled,
      patterns: PageConfig.Extension.disabled.map(value => value.raw)
    },
    deferred: {
      matches: deferred,
      patterns: PageConfig.Extension.deferred.map(value => value.raw)
    }
  });
  lab.registerPlugins(plugins);
  window.jupyterapp = lab;
  await lab.start({ ignorePlugins });
  host.started = true;
  await lab.restored;
  host.restored = true;
  document.body.dataset.e2eHost = 'restored';
}
