// The product's own icon: a project folder with a check mark, drawn with JupyterLab's icon
// classes (jp-icon3 / jp-icon-accent0) so every theme recolours it. Kept inline rather than as
// an .svg import so the pure modules and their jsdom tests need no loader for it.
import { LabIcon } from '@jupyterlab/ui-components';

export const PROJECT_STARTUP_ICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" viewBox="0 0 24 24">' +
  '<path class="jp-icon3" fill="#616161" d="M10 4H4c-1.1 0-2 .9-2 2v12c0 1.1.9 2 2 2h16c1.1 0 2-.9 2-2V8c0-1.1-.9-2-2-2h-8l-2-2zm10 14H4V8h16v10z"/>' +
  '<path class="jp-icon3" fill="#616161" d="M10.6 16.2 7.4 13l1.4-1.4 1.8 1.8 4.6-4.6 1.4 1.4z"/>' +
  '</svg>';

export const projectStartupIcon = new LabIcon({
  name: 'jupyterlab-project-startup:icon',
  svgstr: PROJECT_STARTUP_ICON_SVG
});
