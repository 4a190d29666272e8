// What jsdom lacks and @lumino/dragdrop (imported by @lumino/widgets) needs at load time:
// a DragEvent class, as JupyterLab's own jest shim provides. Import this before Lumino.
if (typeof (globalThis as { DragEvent?: unknown }).DragEvent === 'undefined') {
  class DragEvent extends MouseEvent {
    readonly dataTransfer: DataTransfer | null = null;
  }
  Object.assign(globalThis, { DragEvent });
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
if (typeof window !== 'undefined' && typeof window.requestIdleCallback !== 'function') {
  Object.assign(window, {
    requestIdleCallback: (callback: IdleRequestCallback): number =>
      window.setTimeout(() => callback({ didTimeout: false, timeRemaining: () => 0 })),
    cancelIdleCallback: (handle: number): void => window.clearTimeout(handle)
  });
}
