// The Help menu's "Project Startup user guide": docs/user-guide.md's section, shipped with the
// extension (src/generated/user-guide.ts, generated from docs/user-guide.md) because hub users often have no
// network and there is no published URL. Rendered by JupyterLab's own Markdown renderer
// (untrusted, so sanitized) when the app has a rendermime registry, else shown as plain text.
// The Help entry is registered at start; the guide's text loads (import()) when first opened.
import type { JupyterFrontEnd } from '@jupyterlab/application';
import { ICommandPalette, MainAreaWidget } from '@jupyterlab/apputils';
import type { IMainMenu } from '@jupyterlab/mainmenu';
import { IRenderMimeRegistry, MimeModel } from '@jupyterlab/rendermime';
import { Widget } from '@lumino/widgets';
import { CommandArgs, CommandIDs } from './commands';
import { projectStartupIcon } from './icon';
import { showInMainArea } from './shell';
import { ITranslationBundle } from './tokens';

/** The id of the user guide's tab. */
export const USER_GUIDE_ID = 'jp-project-startup-user-guide';

const MARKDOWN = 'text/markdown';

/** The guide's content: rendered Markdown, or the Markdown as plain text. */
function guideContent(
  rendermime: IRenderMimeRegistry | null,
  markdown: string
): Widget {
  if (rendermime && rendermime.mimeTypes.includes(MARKDOWN)) {
    const renderer = rendermime.createRenderer(MARKDOWN);
    // Untrusted: the renderer sanitizes the HTML the Markdown becomes.
    void renderer.renderModel(
      new MimeModel({
        data: { [MARKDOWN]: markdown },
        trusted: false
      })
    );
    return renderer;
  }
  const content = new Widget();
  const text = document.createElement('div');
  text.className = 'jp-ProjectStartup-guideText';
  text.textContent = markdown;
  content.node.appendChild(text);
  return content;
}

/** The guide's tab; `markdown` is USER_GUIDE_MARKDOWN (src/generated/user-guide.ts). */
export function createUserGuide(
  trans: ITranslationBundle,
  rendermime: IRenderMimeRegistry | null,
  markdown: string
): MainAreaWidget {
  const content = guideContent(rendermime, markdown);
  content.addClass('jp-ProjectStartup-guide');
  const widget = new MainAreaWidget({ content });
  widget.id = USER_GUIDE_ID;
  widget.title.label = trans.__('Project Startup user guide');
  widget.title.icon = projectStartupIcon;
  widget.title.closable = true;
  return widget;
}

export interface IUserGuideOptions {
  trans: ITranslationBundle;
  mainMenu: IMainMenu | null;
  rendermime: IRenderMimeRegistry | null;
  palette: ICommandPalette | null;
}

/** Registers CommandIDs.userGuide, in the Help menu and the command palette. */
export function addUserGuide(
  app: JupyterFrontEnd,
  options: IUserGuideOptions
): void {
  const { trans } = options;
  let guide: MainAreaWidget | null = null;
  /** The guide's text loading: a second click meanwhile waits for the same tab. */
  let loading: Promise<MainAreaWidget> | null = null;
  const loadGuide = (): Promise<MainAreaWidget> => {
    if (guide !== null && !guide.isDisposed) {
      return Promise.resolve(guide);
    }
    loading ??= import('./generated/user-guide')
      .then(({ USER_GUIDE_MARKDOWN }) => {
        guide = createUserGuide(trans, options.rendermime, USER_GUIDE_MARKDOWN);
        return guide;
      })
      .finally(() => {
        loading = null;
      });
    return loading;
  };
  app.commands.addCommand(CommandIDs.userGuide, {
    label: trans.__('Project Startup user guide'),
    caption: trans.__('How Project Startup works in JupyterLab and Notebook'),
    icon: args => (args['isPalette'] ? undefined : projectStartupIcon),
    describedBy: CommandArgs.iconHiddenInPalette,
    execute: async () => {
      const shown = await loadGuide();
      // JupyterLab's main area, or a tab of Notebook 7's tree page (see shell.ts).
      showInMainArea(app, shown);
      return shown;
    }
  });
  options.mainMenu?.helpMenu.addGroup([{ command: CommandIDs.userGuide }], 60);
  options.palette?.addItem({
    command: CommandIDs.userGuide,
    category: trans.__('Help')
  });
}
