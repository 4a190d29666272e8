/** @jest-environment jsdom */
// The panel (src/panel.tsx) with the real @jupyterlab/apputils and ui-components under jsdom: a
// MainAreaWidget with the product's icon and a toolbar whose Refresh is a ToolbarButton; a
// labelled region holding one live region that announces each phase once; buttons wired to the
// model; keyboard focus that React keeps on the same button across updates (or that lands on
// the heading when the button goes or is disabled); a quiet refresh on activation.
import './jsdom-shims';
import {
  MainAreaWidget,
  ReactWidget,
  ToolbarButton
} from '@jupyterlab/apputils';
import { refreshIcon } from '@jupyterlab/ui-components';
import { StateDB } from '@jupyterlab/statedb';
import { MessageLoop } from '@lumino/messaging';
import { Widget } from '@lumino/widgets';
import { genericPlatform } from '../../../sidecar/src/core/platforms/generic';
import { projectStartupIcon } from '../../../src/icon';
import { StartupModel } from '../../../src/model';
import { DISCLOSURES_KEY } from '../../../src/disclosures';
import { StartupPanel } from '../../../src/panel';
import {
  InitializeRequest,
  InitializeResponse,
  IStartupClient,
  Result,
  StartupProjection
} from '../../../src/tokens';
import { initializeAnswer, projectionFor, trans } from './fixtures';

type Answer<T> = Result<T> | Promise<Result<T>>;

function client(
  answers: Answer<StartupProjection>[],
  init: Answer<InitializeResponse>[] = []
): IStartupClient & { bodies: InitializeRequest[]; gets: number } {
  const c = {
    bodies: [] as InitializeRequest[],
    gets: 0,
    startup: () => {
      c.gets += 1;
      const next = answers.shift();
      return next
        ? Promise.resolve(next)
        : Promise.reject(new Error('no answer'));
    },
    initialize: (body: InitializeRequest) => {
      c.bodies.push(body);
      const next = init.shift();
      return next
        ? Promise.resolve(next)
        : Promise.reject(new Error('no answer'));
    }
  };
  return c;
}

/** An answer the test gives when it chooses: the panel shows what happens meanwhile. */
function later<T>(): {
  promise: Promise<Result<T>>;
  give(value: Result<T>): void;
} {
  let give: (value: Result<T>) => void = () => undefined;
  const promise = new Promise<Result<T>>(resolve => (give = resolve));
  return { promise, give };
}

const ok = <T>(value: T): Result<T> => ({ ok: true, status: 200, value });

/** Lumino's posted messages and React's scheduled renders, run until nothing is left (bounded). */
async function settle(): Promise<void> {
  for (let i = 0; i < 10; i++) {
    MessageLoop.flush();
    await new Promise(resolve => setTimeout(resolve, 0));
  }
}

async function mount(
  model: StartupModel,
  actions?: { refresh?: () => void; initialize?: () => void }
): Promise<StartupPanel> {
  const panel = new StartupPanel({ model, trans, actions });
  Widget.attach(panel, document.body);
  await settle();
  return panel;
}

/** A panel on a model whose first answer has been read and shown; `confirms`: the dialog's answer. */
async function shown(
  c: IStartupClient,
  confirms = false,
  actions?: { refresh?: () => void; initialize?: () => void }
): Promise<{ model: StartupModel; panel: StartupPanel }> {
  const model = new StartupModel({
    client: c,
    confirm: () => Promise.resolve(confirms)
  });
  const panel = await mount(model, actions);
  await model.refresh();
  await settle();
  return { model, panel };
}

/** The panel's buttons: native ones and the toolbar's jp-button (ui-components' toolkit button). */
const buttons = (panel: StartupPanel): HTMLButtonElement[] =>
  Array.from(panel.node.querySelectorAll('button, jp-button'));
const button = (
  panel: StartupPanel,
  label: string
): HTMLButtonElement | undefined =>
  buttons(panel).find(b => (b.textContent ?? '').trim() === label);
const refreshButton = (panel: StartupPanel): HTMLElement =>
  panel.toolbar.node.querySelector('[data-action="refresh"]') as HTMLElement;

/** Every text the live region takes from now on, in order (what a screen reader announces). */
function announcements(panel: StartupPanel): string[] {
  const said: string[] = [];
  const node = panel.statusNode;
  let last = node.textContent;
  new MutationObserver(() => {
    if (node.textContent !== last) {
      last = node.textContent;
      said.push(last ?? '');
    }
  }).observe(node, { subtree: true, childList: true, characterData: true });
  return said;
}

afterEach(() => {
  document.body.replaceChildren();
});

describe('StartupPanel', () => {
  it("is a MainAreaWidget with the product's icon, a labelled region and one polite live region", async () => {
    const model = new StartupModel({
      client: client([]),
      confirm: () => Promise.resolve(false)
    });
    const panel = await mount(model);
    expect(panel).toBeInstanceOf(MainAreaWidget);
    expect(panel.content).toBeInstanceOf(ReactWidget);
    expect(panel.id).toBe('jp-project-startup-panel');
    expect(panel.title.label).toBe('Project Startup');
    expect(panel.title.icon).toBe(projectStartupIcon);
    expect(panel.title.closable).toBe(true);
    // The content, inside the widget's node (which a dock panel gives role=tabpanel).
    expect(panel.node.contains(panel.regionNode)).toBe(true);
    expect(panel.regionNode.getAttribute('role')).toBe('region');
    expect(panel.regionNode.getAttribute('aria-label')).toBe('Project Startup');
    expect(panel.node.querySelectorAll('[role="status"]')).toHaveLength(1);
    expect(panel.regionNode.contains(panel.statusNode)).toBe(true);
    expect(panel.statusNode.getAttribute('aria-live')).toBe('polite');
    expect(panel.statusNode.textContent).toBe('Checking the project setup…');
    panel.dispose();
  });

  it('has a toolbar whose Refresh is a ToolbarButton with the refresh icon, a label and a tooltip; it comes first', async () => {
    const answers = [
      ok(projectionFor(genericPlatform)),
      ok(projectionFor(genericPlatform))
    ];
    const { panel } = await shown(client(answers));
    const items = Array.from(panel.toolbar.children());
    expect(items[0]).toBeInstanceOf(ToolbarButton);
    expect(panel.toolbar.node.getAttribute('role')).toBe('toolbar');
    const refresh = refreshButton(panel);
    expect(refresh.textContent).toBe('Refresh');
    expect(refresh.getAttribute('aria-label')).toBe('Refresh');
    expect(refresh.getAttribute('title')).toBe(
      'Ask the Project Startup service for the setup state again'
    );
    expect(
      refresh.querySelector(`[data-icon="${refreshIcon.name}"]`)
    ).not.toBeNull();
    // An action, not a toggle: no aria-pressed, before or after a press.
    expect(refresh.hasAttribute('aria-pressed')).toBe(false);
    refresh.dispatchEvent(
      new KeyboardEvent('keydown', { bubbles: true, key: 'Enter' })
    );
    await settle();
    expect(refreshButton(panel).hasAttribute('aria-pressed')).toBe(false);
    // In the reading and Tab order: Refresh, then the phase's action.
    // (The toolbar's own "More commands" opener stays hidden and out of the Tab order.)
    const reachable = buttons(panel).filter(
      b => b.tabIndex >= 0 && !b.closest('.lm-mod-hidden')
    );
    expect(reachable.map(b => (b.textContent ?? '').trim())).toEqual([
      'Refresh',
      'Initialize project'
    ]);
    panel.dispose();
  });

  it('keeps one live region and updates its text when the phase changes', async () => {
    const awaiting = projectionFor(genericPlatform);
    const ready = projectionFor(genericPlatform, { state: 'initialized' });
    const c = client(
      [ok(awaiting), ok(ready)],
      [{ ok: true, status: 201, value: initializeAnswer(awaiting) }]
    );
    const model = new StartupModel({
      client: c,
      confirm: () => Promise.resolve(true)
    });
    const panel = await mount(model);
    const live = panel.statusNode;
    await model.refresh();
    await settle();
    expect(panel.statusNode).toBe(live);
    expect(live.textContent).toBe('Setup phase: Awaiting confirmation.');
    button(panel, 'Initialize project')?.click();
    await settle();
    await model.ensureLoaded();
    await settle();
    expect(panel.statusNode).toBe(live);
    expect(live.textContent).toBe('Project initialized. Setup phase: Ready.');
    expect(c.bodies).toEqual([
      {
        interface: 'notebook',
        confirm: {
          projectPath: awaiting.projectPath,
          statePath: awaiting.statePath
        }
      }
    ]);
    expect(button(panel, 'Initialize project')).toBeUndefined();
    panel.dispose();
  });

  it('announces a phase once: an unchanged answer nobody asked for leaves the live region as it is', async () => {
    const awaiting = projectionFor(genericPlatform);
    const asked = later<StartupProjection>();
    const c = client([ok(awaiting), ok(awaiting), asked.promise]);
    const { model, panel } = await shown(c);
    const said = announcements(panel);
    // The panel opened again (or the check after initialize): the same answer comes back.
    await model.refresh();
    await settle();
    expect(c.gets).toBe(2);
    expect(said).toEqual([]);
    expect(panel.statusNode.textContent).toBe(
      'Setup phase: Awaiting confirmation.'
    );
    // A person pressing Refresh hears that it is checking, then the phase.
    const pressed = model.refresh({ userInitiated: true });
    await settle();
    expect(said).toEqual(['Checking the project setup…']);
    asked.give(ok(awaiting));
    await pressed;
    await settle();
    expect(said).toEqual([
      'Checking the project setup…',
      'Setup phase: Awaiting confirmation.'
    ]);
    panel.dispose();
  });

  it('Refresh asks again as a person, once per press (mouse, Enter, Space); injected actions replace the defaults', async () => {
    const c = client([ok(projectionFor(genericPlatform))]);
    const model = new StartupModel({
      client: c,
      confirm: () => Promise.resolve(false)
    });
    const refresh = jest
      .spyOn(model, 'refresh')
      .mockImplementation(() => Promise.resolve(model.state));
    const initialize = jest.fn();
    const panel = await mount(model, { initialize });
    refresh.mockClear();
    const node = refreshButton(panel);
    // A mouse press: mousedown (the button keeps the focus where it was), then the click.
    node.dispatchEvent(
      new MouseEvent('mousedown', { bubbles: true, button: 0 })
    );
    node.dispatchEvent(new MouseEvent('click', { bubbles: true, button: 0 }));
    expect(refresh).toHaveBeenCalledTimes(1);
    expect(refresh).toHaveBeenLastCalledWith({ userInitiated: true });
    // Enter and Space: the keydown, then the click the browser makes of it.
    for (const key of ['Enter', ' ']) {
      node.dispatchEvent(new KeyboardEvent('keydown', { bubbles: true, key }));
      node.dispatchEvent(new MouseEvent('click', { bubbles: true, button: 0 }));
    }
    expect(refresh).toHaveBeenCalledTimes(3);
    refresh.mockRestore();
    await model.refresh();
    await settle();
    button(panel, 'Initialize project')?.click();
    expect(initialize).toHaveBeenCalledTimes(1);
    panel.dispose();
  });

  it('React keeps the keyboard focus on the very same button across updates', async () => {
    const asked = later<StartupProjection>();
    const c = client([ok(projectionFor(genericPlatform)), asked.promise]);
    const { model, panel } = await shown(c);
    const init = button(panel, 'Initialize project') as HTMLButtonElement;
    init.focus();
    expect(document.activeElement).toBe(init);
    const pressed = model.refresh({ userInitiated: true });
    await settle();
    expect(panel.statusNode.textContent).toBe('Checking the project setup…');
    expect(document.activeElement).toBe(init);
    asked.give(ok(projectionFor(genericPlatform)));
    await pressed;
    await settle();
    // The same element, not a new one with the same label.
    expect(document.activeElement).toBe(init);
    expect(init.isConnected).toBe(true);
    panel.dispose();
  });

  it('keeps the focus on Refresh in the toolbar while the content changes', async () => {
    const c = client([
      ok(projectionFor(genericPlatform)),
      ok(projectionFor(genericPlatform, { state: 'unsafe' }))
    ]);
    const { model, panel } = await shown(c);
    const refresh = refreshButton(panel);
    refresh.focus();
    await model.refresh({ userInitiated: true });
    await settle();
    expect(
      panel.node.querySelector('.jp-ProjectStartup-stateTitle')?.textContent
    ).toBe('Setup is blocked');
    expect(document.activeElement).toBe(refresh);
    panel.dispose();
  });

  it('moves the focus to the heading when the focused button goes away', async () => {
    const awaiting = projectionFor(genericPlatform);
    const c = client(
      [
        ok(awaiting),
        ok(projectionFor(genericPlatform, { state: 'initialized' }))
      ],
      [{ ok: true, status: 201, value: initializeAnswer(awaiting) }]
    );
    const { model, panel } = await shown(c, true);
    button(panel, 'Initialize project')?.focus();
    await model.initialize();
    await settle();
    expect(button(panel, 'Initialize project')).toBeUndefined();
    expect(document.activeElement?.tagName).toBe('H2');
    expect(document.activeElement?.textContent).toBe('Project Startup');
    panel.dispose();
  });

  it('moves the focus to the heading when the focused button is disabled while working', async () => {
    const awaiting = projectionFor(genericPlatform);
    const answer = later<InitializeResponse>();
    const c = client(
      [
        ok(awaiting),
        ok(projectionFor(genericPlatform, { state: 'initialized' }))
      ],
      [answer.promise]
    );
    const { model, panel } = await shown(c, true);
    const init = button(panel, 'Initialize project') as HTMLButtonElement;
    init.focus();
    const done = model.initialize();
    await settle();
    expect(init.disabled).toBe(true);
    expect(panel.statusNode.textContent).toBe('Initializing the project…');
    expect(document.activeElement?.tagName).toBe('H2');
    answer.give({ ok: true, status: 201, value: initializeAnswer(awaiting) });
    await done;
    await settle();
    expect(document.activeElement?.tagName).toBe('H2');
    panel.dispose();
  });

  it('activation asks again quietly (shared with a request in flight) and puts the focus on the heading, not on Refresh', async () => {
    const awaiting = projectionFor(genericPlatform);
    const second = later<StartupProjection>();
    const c = client([ok(awaiting), second.promise]);
    const { model, panel } = await shown(c);
    const said = announcements(panel);
    const refresh = jest.spyOn(model, 'refresh');
    panel.activate();
    await settle();
    panel.activate();
    await settle();
    expect(refresh.mock.calls).toEqual([[], []]);
    expect(c.gets).toBe(2); // the second activation shared the first one's request
    // Refresh would wear a focus ring the keyboard did not put there; the heading shows none.
    expect(document.activeElement).toBe(
      panel.node.querySelector('.jp-ProjectStartup-title')
    );
    expect(document.activeElement).not.toBe(refreshButton(panel));
    second.give(ok(awaiting));
    await settle();
    // Quiet: the same answer announced nothing.
    expect(said).toEqual([]);
    panel.dispose();
  });

  it('stops listening to the model when closed (a closed panel is disposed)', async () => {
    const c = client([ok(projectionFor(genericPlatform))]);
    const model = new StartupModel({
      client: c,
      confirm: () => Promise.resolve(false)
    });
    const panel = await mount(model);
    panel.close();
    await settle();
    expect(panel.isDisposed).toBe(true);
    await model.refresh();
    await settle();
    expect(document.body.textContent).toBe('');
  });
});

describe('the disclosures a person left open', () => {
  /** A panel on `state` showing a ready project, attached and settled. */
  async function panelOn(state: StateDB | null): Promise<StartupPanel> {
    const model = new StartupModel({
      client: client([
        ok(projectionFor(genericPlatform, { state: 'initialized' }))
      ]),
      confirm: () => Promise.resolve(false)
    });
    const panel = new StartupPanel({ model, trans, state });
    Widget.attach(panel, document.body);
    await model.refresh();
    await settle();
    return panel;
  }
  const sections = (panel: StartupPanel): HTMLDetailsElement[] =>
    Array.from(panel.node.querySelectorAll('details[data-disclosure]'));

  it('are open again in the next panel on the same state database, as after a reload', async () => {
    const state = new StateDB();
    const first = await panelOn(state);
    const [section, ...others] = sections(first);
    expect(section).toBeDefined();
    expect(sections(first).every(s => !s.open)).toBe(true);
    section.open = true;
    section.dispatchEvent(new Event('toggle'));
    await settle();
    expect(await state.fetch(DISCLOSURES_KEY)).toEqual({
      open: [section.dataset.disclosure]
    });
    first.dispose();

    const second = await panelOn(state);
    const again = sections(second);
    expect(again.map(s => [s.dataset.disclosure, s.open])).toEqual([
      [section.dataset.disclosure, true],
      ...others.map(s => [s.dataset.disclosure, false])
    ]);
    // Closed again, it stays closed next time.
    again[0].open = false;
    again[0].dispatchEvent(new Event('toggle'));
    await settle();
    second.dispose();
    const third = await panelOn(state);
    expect(sections(third).some(s => s.open)).toBe(false);
    third.dispose();
  });

  it('without a state database every section starts closed, and opening one breaks nothing', async () => {
    const panel = await panelOn(null);
    const [section] = sections(panel);
    expect(section.open).toBe(false);
    section.open = true;
    section.dispatchEvent(new Event('toggle'));
    await settle();
    expect(sections(panel)[0].open).toBe(true);
    panel.dispose();
  });
});
