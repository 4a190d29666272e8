// The JupyterLab 4.6.4 extensions built into the e2e host app (test/system/e2e/app), with plugins left
// out. Enough for the shell, command palette, dialogs, launcher, menus, status bar, file browser,
// Markdown rendering,
// themes, translations, settings and layout restoration; the project's own extension arrives as
// a prebuilt (federated) extension, like in a real JupyterLab.
module.exports = [
  { name: '@jupyterlab/application-extension' },
  // announcements: a news pop-up that asks to fetch news from the internet.
  {
    name: '@jupyterlab/apputils-extension',
    exclude: ['@jupyterlab/apputils-extension:announcements']
  },
  { name: '@jupyterlab/docmanager-extension' },
  { name: '@jupyterlab/filebrowser-extension' },
  { name: '@jupyterlab/launcher-extension' },
  { name: '@jupyterlab/mainmenu-extension' },
  // Markdown as JupyterLab renders it: marked, and the rendermime registry (the user guide).
  { name: '@jupyterlab/markedparser-extension' },
  { name: '@jupyterlab/rendermime-extension' },
  { name: '@jupyterlab/shortcuts-extension' },
  // Two apputils plugins need IStatusBar.
  { name: '@jupyterlab/statusbar-extension' },
  { name: '@jupyterlab/theme-dark-extension' },
  { name: '@jupyterlab/theme-light-extension' },
  { name: '@jupyterlab/translation-extension' },
  { name: '@jupyterlab/ui-components-extension' }
];
