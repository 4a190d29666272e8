// The plugins of the Notebook 7 tree page built into the e2e Notebook host (test/system/e2e/notebook7),
// by page as Notebook 7.6 lists them in its app's package.json (`jupyterlab.plugins`: "/" holds
// the plugins every page loads, "/tree" those only the tree page adds; `true` takes every plugin
// of the package, a list only those ids). Read from jupyter/notebook's 7.6.x branch, app/package.json.
//
// Left out, because the tree page works without them and they would only add build time: the
// document and kernel front ends Notebook 7 also loads on every page (notebook, console,
// terminal, code editors, completer, LSP, debugger, renderers, viewers, extension and plugin
// managers, the JupyterHub menu). None of them provides a service this project's extension
// asks for. The project's extension arrives as a prebuilt (federated) extension.
//
// Notebook 7.6 also names `@jupyterlab/application-extension:top-spacer` and
// `@jupyterlab/filebrowser-extension:search`, which JupyterLab 4.6.4 does not have: left out here
// (index.js reports any listed plugin that a package lacks, and the tests fail on it).
'use strict';

const pages = {
  '/': [
    { name: '@jupyter-notebook/application-extension', plugins: true },
    { name: '@jupyter-notebook/docmanager-extension', plugins: true },
    { name: '@jupyter-notebook/help-extension', plugins: true },
    {
      name: '@jupyterlab/application-extension',
      plugins: [
        '@jupyterlab/application-extension:context-menu',
        '@jupyterlab/application-extension:faviconbusy',
        '@jupyterlab/application-extension:router',
        '@jupyterlab/application-extension:top-bar'
      ]
    },
    {
      name: '@jupyterlab/apputils-extension',
      plugins: [
        '@jupyterlab/apputils-extension:kernels-settings',
        '@jupyterlab/apputils-extension:palette',
        '@jupyterlab/apputils-extension:notification',
        '@jupyterlab/apputils-extension:sanitizer',
        '@jupyterlab/apputils-extension:sessionDialogs',
        '@jupyterlab/apputils-extension:settings',
        '@jupyterlab/apputils-extension:state',
        '@jupyterlab/apputils-extension:themes',
        '@jupyterlab/apputils-extension:themes-palette-menu',
        '@jupyterlab/apputils-extension:toolbar-registry',
        '@jupyterlab/apputils-extension:utilityCommands'
      ]
    },
    // The editor services (the settings editor's JSON view needs them); Notebook takes every
    // plugin, but `commands` requires the notebook tracker and `line-col-status` the status bar,
    // which only the left-out notebook page provides.
    {
      name: '@jupyterlab/codemirror-extension',
      plugins: [
        '@jupyterlab/codemirror-extension:binding',
        '@jupyterlab/codemirror-extension:extensions',
        '@jupyterlab/codemirror-extension:languages',
        '@jupyterlab/codemirror-extension:services',
        '@jupyterlab/codemirror-extension:themes'
      ]
    },
    {
      name: '@jupyterlab/docmanager-extension',
      plugins: [
        '@jupyterlab/docmanager-extension:plugin',
        '@jupyterlab/docmanager-extension:download',
        '@jupyterlab/docmanager-extension:contexts',
        '@jupyterlab/docmanager-extension:manager'
      ]
    },
    {
      name: '@jupyterlab/filebrowser-extension',
      plugins: [
        '@jupyterlab/filebrowser-extension:factory',
        '@jupyterlab/filebrowser-extension:default-file-browser'
      ]
    },
    {
      name: '@jupyterlab/mainmenu-extension',
      plugins: ['@jupyterlab/mainmenu-extension:plugin']
    },
    { name: '@jupyterlab/markedparser-extension', plugins: true },
    { name: '@jupyterlab/services-extension', plugins: true },
    { name: '@jupyterlab/shortcuts-extension', plugins: true },
    { name: '@jupyterlab/theme-light-extension', plugins: true },
    { name: '@jupyterlab/theme-dark-extension', plugins: true },
    { name: '@jupyterlab/translation-extension', plugins: true },
    { name: '@jupyterlab/ui-components-extension', plugins: true }
  ],
  '/tree': [
    {
      name: '@jupyterlab/application-extension',
      plugins: ['@jupyterlab/application-extension:commands']
    },
    {
      name: '@jupyterlab/filebrowser-extension',
      plugins: [
        '@jupyterlab/filebrowser-extension:browser',
        '@jupyterlab/filebrowser-extension:create-new-language-file',
        '@jupyterlab/filebrowser-extension:download',
        '@jupyterlab/filebrowser-extension:file-upload-status',
        '@jupyterlab/filebrowser-extension:open-with',
        '@jupyterlab/filebrowser-extension:share-file'
      ]
    },
    { name: '@jupyter-notebook/tree-extension', plugins: true },
    {
      name: '@jupyterlab/running-extension',
      plugins: ['@jupyterlab/running-extension:plugin']
    },
    { name: '@jupyterlab/settingeditor-extension', plugins: true }
  ]
};

/**
 * Packages the left-out plugins import, so that a real Notebook 7 shares them (its share scope
 * holds what its built-in extensions import): @jupyterlab/launcher (console-, terminal-,
 * notebook- and fileeditor-extension take the ILauncher) and @jupyterlab/statusbar
 * (notebook- and fileeditor-extension). build.js makes this host provide them as well, so a
 * federated extension that asks for them loads here as it would there.
 */
const sharedByLeftOut = ['@jupyterlab/launcher', '@jupyterlab/statusbar'];

module.exports = { pages, sharedByLeftOut };
