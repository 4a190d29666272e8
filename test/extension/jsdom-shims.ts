// What jsdom lacks and @lumino/dragdrop (imported by @lumino/widgets) needs at load time:
// a DragEvent class, as JupyterLab's own jest shim provides. Import this before Lumino.
if (typeof (globalThis as { DragEvent?: unknown }).DragEvent === 'undefined') {
  class DragEvent extends MouseEvent {
    readonly dataTransfer: DataTransfer | null = null;
  }
  Object.assign(globalThis, { DragEvent });
}

export {};
