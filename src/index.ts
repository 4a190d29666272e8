// The JupyterLab front end arrives with its own issue; until then the package exports the
// plugin's identity so the id stays fixed (design.md: jupyterlab-project-startup:plugin).
export const PLUGIN_ID = 'jupyterlab-project-startup:plugin';
