// Entry point of the e2e host app. It imports nothing shared (no @jupyterlab, @lumino or react
// package): those live in the module-federation share scope, which is only complete once every
// prebuilt extension listed by the server has registered what it provides. So: set the public
// path, load each federated extension's remoteEntry and initialise it against the share scope,
// and only then import the app (index.js), whose shared imports resolve from that scope.

// The page config, read without @jupyterlab/coreutils (which is shared).
let configData = null;
function getOption(name) {
  if (configData === null) {
    const element = document.getElementById('jupyter-config-data');
    configData = element ? JSON.parse(element.textContent || '{}') : {};
  }
  return configData[name] ?? '';
}

// eslint-disable-next-line no-undef
__webpack_public_path__ = getOption('fullStaticUrl') + '/';

function loadScript(url) {
  return new Promise((resolve, reject) => {
    const script = document.createElement('script');
    script.onerror = () => reject(new Error(`could not load ${url}`));
    script.onload = resolve;
    script.async = true;
    document.head.appendChild(script);
    script.src = url;
  });
}

async function loadFederatedExtension(url, name) {
  await loadScript(url);
  // eslint-disable-next-line no-undef
  await __webpack_init_sharing__('default');
  const container = window._JUPYTERLAB[name];
  // The container may provide shared modules, and consume ours.
  // eslint-disable-next-line no-undef
  await container.init(__webpack_share_scopes__.default);
}

void (async function bootstrap() {
  const federated = getOption('federated_extensions') || [];
  const base = getOption('fullLabextensionsUrl');
  const results = await Promise.allSettled(
    federated.map(data =>
      loadFederatedExtension(`${base}/${data.name}/${data.load}`, data.name)
    )
  );
  const failed = [];
  results.forEach((result, i) => {
    if (result.status === 'rejected') {
      failed.push(federated[i].name);
      console.error(
        `federated extension ${federated[i].name} did not load:`,
        result.reason
      );
    }
  });
  const { main } = await import('./index.js');
  const start = () => void main(failed);
  if (document.readyState === 'complete') {
    start();
  } else {
    window.addEventListener('load', start);
  }
})();
