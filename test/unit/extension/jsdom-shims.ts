// What jsdom lacks and JupyterLab's front-end packages need at load time, as JupyterLab's own
// jest shim (@jupyterlab/testing) provides. Import this before Lumino or JupyterLab:
// - a DragEvent class (@lumino/dragdrop, imported by @lumino/widgets);
// - window.matchMedia (@microsoft/fast-foundation, under @jupyterlab/ui-components' toolkit);
// - requestIdleCallback (ReactWidget.renderDOM resolves its promise with it).
if (typeof (globalThis as { DragEvent?: unknown }).DragEvent === 'undefined') {
  class DragEvent extends MouseEvent {
    readonly dataTransfer: DataTransfer | null = null;
  }
  Object.assign(globalThis, { DragEvent });
}

if (typeof window !== 'undefined' && typeof window.matchMedia !== 'function') {
  // No media query ever matches in jsdom (no screen): a list that never changes.
  window.matchMedia = (query: string): MediaQueryList =>
    ({
      matches: false,
      media: query,
      onchange: null,
      addListener: () => undefined,
      removeListener: () => undefined,
      addEventListener: () => undefined,
      removeEventListener: () => undefined,
      dispatchEvent: () => false
    }) as MediaQueryList;
}

if (
  typeof (globalThis as { requestIdleCallback?: unknown })
    .requestIdleCallback === 'undefined'
) {
  Object.assign(globalThis, {
    requestIdleCallback: (callback: () => void): number =>
      setTimeout(callback, 0) as unknown as number,
    cancelIdleCallback: (handle: number): void => clearTimeout(handle)
  });
}

export {};

// What @jupyterlab/ui-components (loaded for real by the status bar and settings tests) reads
// at load time: window.matchMedia, which jsdom lacks (JupyterLab's own jest shim fakes it too).
if (typeof window !== 'undefined' && typeof window.matchMedia !== 'function') {
  const matchMedia = (media: string): MediaQueryList =>
    ({
      matches: false,
      media,
      onchange: null,
      addListener: () => undefined,
      removeListener: () => undefined,
      addEventListener: () => undefined,
      removeEventListener: () => undefined,
      dispatchEvent: () => false
    }) as MediaQueryList;
  Object.assign(window, { matchMedia });
}

// ReactWidget (ui-components) resolves its render promise through requestIdleCallback.
if (
  typeof window !== 'undefined' &&
  typeof window.requestIdleCallback !== 'function'
) {
  Object.assign(window, {
    requestIdleCallback: (callback: IdleRequestCallback): number =>
      window.setTimeout(() =>
        callback({ didTimeout: false, timeRemaining: () => 0 })
      ),
    cancelIdleCallback: (handle: number): void => window.clearTimeout(handle)
  });
}
