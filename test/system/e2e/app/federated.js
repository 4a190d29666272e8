// Taking plugins from extension modules and from the federated (prebuilt) extensions the server
// listed: the part of loading that the JupyterLab host (index.js) and the Notebook 7 host
// (../notebook7/index.js) share. Each build copies this file next to its index.js.
import { PageConfig } from '@jupyterlab/coreutils';

/** The plugins an extension module exports (its default export, one or a list). */
export function pluginsOf(module) {
  const exported = Object.prototype.hasOwnProperty.call(module, '__esModule')
    ? module.default
    : module;
  return Array.isArray(exported) ? exported : [exported];
}

async function fromContainer(scope, module) {
  const factory = await window._JUPYTERLAB[scope].get(module);
  return factory();
}

/** The federated extensions the page config lists, but those whose remoteEntry failed. */
export function federatedExtensions(failedFederated) {
  return JSON.parse(
    PageConfig.getOption('federated_extensions') || '[]'
  ).filter(data => !failedFederated.includes(data.name));
}

/**
 * Loads every federated extension: hands its plugins to `plugins(module, name)`, its mime
 * plugins to `mimePlugins(module, name)`, loads its style if `style(name)` says so; records in
 * `host` (window.e2eHost) which loaded and which failed, with the error.
 */
export async function loadFederated(
  federated,
  host,
  { plugins, mimePlugins, style = () => true }
) {
  for (const data of federated) {
    try {
      if (data.extension) {
        plugins(await fromContainer(data.name, data.extension), data.name);
      }
      if (data.mimeExtension) {
        mimePlugins(
          await fromContainer(data.name, data.mimeExtension),
          data.name
        );
      }
      if (data.style && style(data.name)) {
        await fromContainer(data.name, data.style);
      }
      host.federated.push(data.name);
    } catch (error) {
      host.failedFederated.push(data.name);
      host.errors.push(`${data.name}: ${error}`);
      console.error(`federated extension ${data.name} failed:`, error);
    }
  }
}
