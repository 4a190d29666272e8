/**
 * The command ids of the Project Startup extension.
 */
export namespace CommandIDs {
  /** Open (or reveal) the Project Startup panel: "Open Project Startup" in the palette. */
  export const open = 'project-startup:open';

  /** Ask the service for the startup projection again. */
  export const refresh = 'project-startup:refresh';

  /** Show the confirmation dialog and, on accept, initialize the project. */
  export const initialize = 'project-startup:initialize';

  /** Open the user guide (the README's user section, shipped with the extension): Help menu. */
  export const userGuide = 'project-startup:user-guide';
}
