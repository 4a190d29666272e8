// Which of the panel's disclosure sections (the checks, this project, what the platform offers)
// a person left open, kept in JupyterLab's state database so a reload or a reopened panel shows
// them as they were. Without the state database they are remembered for the page's life.
import type { IStateDB } from '@jupyterlab/statedb';
import type { ReadonlyJSONObject } from '@lumino/coreutils';
import { ISignal, Signal } from '@lumino/signaling';
import { PLUGIN_ID } from './tokens';

/** The state database key of the open sections. */
export const DISCLOSURES_KEY = `${PLUGIN_ID}:disclosures`;

export class DisclosureMemory {
  constructor(state: IStateDB | null = null) {
    this._state = state;
    this.ready = state
      ? state
          .fetch(DISCLOSURES_KEY)
          .then(value => {
            const open = (value as ReadonlyJSONObject | undefined)?.['open'];
            if (Array.isArray(open)) {
              for (const id of open) {
                if (typeof id === 'string') {
                  this._open.add(id);
                }
              }
              this._changed.emit();
            }
          })
          .catch(() => undefined)
      : Promise.resolve();
  }

  /** Settles once what was saved is read (or could not be). */
  readonly ready: Promise<void>;

  get changed(): ISignal<this, void> {
    return this._changed;
  }

  isOpen(id: string): boolean {
    return this._open.has(id);
  }

  setOpen(id: string, open: boolean): void {
    if (this._open.has(id) === open) {
      return;
    }
    if (open) {
      this._open.add(id);
    } else {
      this._open.delete(id);
    }
    this._changed.emit();
    void this._state
      ?.save(DISCLOSURES_KEY, { open: [...this._open].sort() })
      .catch(() => undefined);
  }

  private _state: IStateDB | null;
  private _open = new Set<string>();
  private _changed = new Signal<this, void>(this);
}
