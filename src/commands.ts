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

  /** Open the user guide (docs/user-guide.md, shipped with the extension): Help menu. */
  export const userGuide = 'project-startup:user-guide';
}

/**
 * The commands' arguments as JSON Schema (describedBy), for what lists and calls commands
 * (JupyterLab's command list, tools and agents that execute commands). No command takes one of
 * its own: `isPalette` is what the command palette passes, and the commands with an icon hide
 * it there. A Lumino older than describedBy (an early JupyterLab 4) copies only the command
 * options it knows, so there the key is simply left out.
 */
export namespace CommandArgs {
  /** The refresh and initialize commands: no arguments. */
  export const none = { args: { type: 'object', properties: {} } };

  /** The open command: the palette's `isPalette`, and `beside` when the panel opens by itself. */
  export const open = {
    args: {
      type: 'object',
      properties: {
        isPalette: {
          type: 'boolean',
          description:
            'Set by the command palette: the item is shown without the icon.'
        },
        beside: {
          type: 'boolean',
          description:
            'Open beside the current tab (split to its right) without taking the focus: the panel opening by itself.'
        }
      }
    }
  };

  /** The user guide command: only the palette's `isPalette`. */
  export const iconHiddenInPalette = {
    args: {
      type: 'object',
      properties: {
        isPalette: {
          type: 'boolean',
          description:
            'Set by the command palette: the item is shown without the icon.'
        }
      }
    }
  };
}
