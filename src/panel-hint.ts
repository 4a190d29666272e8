// Whether the panel is likely to open by itself on this page, remembered in the browser from
// the last start-up answer at the same Jupyter server. Where it is, the panel's chunk loads
// beside the start-up GET instead of after its answer: on a busy page the chunk waits 60 to 170
// ms behind JupyterLab's own start-up, and the panel with it (bench/panel-first-paint.js). A
// project that is set up loads nothing more than before. Unknown (a first visit, a browser that
// refuses the storage) counts as likely: a first visit is when the panel opens by itself.

/** The key's prefix; the Jupyter server's base URL completes it. */
export const PANEL_HINT_KEY_PREFIX =
  'jupyterlab-project-startup:panel-stays-closed:';

/** The remembered hint for one Jupyter server. */
export interface IPanelHint {
  /** Whether the panel is likely to open by itself on this page. */
  readonly likely: boolean;
  /** Remembers what this page's answer decided, for the next page. */
  remember(opens: boolean): void;
}

/** The browser's localStorage, or null where the page may not use it. */
export function browserStorage(): Storage | null {
  try {
    return typeof window === 'undefined' ? null : window.localStorage;
  } catch {
    return null; // a sandboxed frame, or storage turned off
  }
}

/**
 * The hint for the Jupyter server at `serverUrl`, read once now. Only "stays closed" is stored;
 * a storage that cannot be read or written leaves the hint at likely.
 */
export function panelHint(
  storage: Storage | null,
  serverUrl: string
): IPanelHint {
  const key = PANEL_HINT_KEY_PREFIX + serverUrl;
  let likely = true;
  try {
    likely = storage?.getItem(key) !== '1';
  } catch {
    // a refused storage: likely, as unknown
  }
  return {
    likely,
    remember: opens => {
      try {
        if (opens) {
          storage?.removeItem(key);
        } else {
          storage?.setItem(key, '1');
        }
      } catch {
        // a full or refused storage: the next page guesses "likely" again
      }
    }
  };
}
