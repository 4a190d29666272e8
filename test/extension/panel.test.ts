/** @jest-environment jsdom */
// The panel widget (Lumino, no JupyterLab): a labelled region, one live region that announces
// phase changes across re-renders, buttons wired to the model, and keyboard focus that stays
// on the same button (or lands on the heading) when the content is rebuilt.
import './jsdom-shims';
import { Widget } from '@lumino/widgets';
import { genericPlatform } from '../../sidecar/src/platforms/generic';
import { StartupModel } from '../../src/model';
import { StartupPanel } from '../../src/panel';
import { InitializeRequest, InitializeResponse, IStartupClient, Result, StartupProjection } from '../../src/tokens';
import { initializeAnswer, projectionFor, trans } from './fixtures';

function client(answers: Result<StartupProjection>[], init: Result<InitializeResponse>[] = []): IStartupClient & { bodies: InitializeRequest[]; gets: number } {
  const c = {
    bodies: [] as InitializeRequest[],
    gets: 0,
    startup: () => {
      c.gets += 1;
      const next = answers.shift();
      return next ? Promise.resolve(next) : Promise.reject(new Error('no answer'));
    },
    initialize: (body: InitializeRequest) => {
      c.bodies.push(body);
      const next = init.shift();
      return next ? Promise.resolve(next) : Promise.reject(new Error('no answer'));
    }
  };
  return c;
}

const ok = <T>(value: T): Result<T> => ({ ok: true, status: 200, value });

function mount(model: StartupModel, actions?: { refresh?: () => void; initialize?: () => void }): StartupPanel {
  const panel = new StartupPanel({ model, trans, actions });
  Widget.attach(panel, document.body);
  return panel;
}

const button = (panel: StartupPanel, label: string): HTMLButtonElement | undefined =>
  Array.from(panel.node.querySelectorAll('button')).find(b => b.textContent === label);

afterEach(() => {
  document.body.replaceChildren();
});

describe('StartupPanel', () => {
  it('is a labelled region with a title, closable, and a polite live region', () => {
    const model = new StartupModel({ client: client([]), confirm: () => Promise.resolve(false) });
    const panel = mount(model);
    expect(panel.id).toBe('jp-project-startup-panel');
    // Inside the widget's node, which a dock panel gives role=tabpanel.
    expect(panel.node.contains(panel.regionNode)).toBe(true);
    expect(panel.regionNode.getAttribute('role')).toBe('region');
    expect(panel.regionNode.getAttribute('aria-label')).toBe('Project Startup');
    expect(panel.regionNode.contains(panel.statusNode)).toBe(true);
    expect(panel.title.label).toBe('Project Startup');
    expect(panel.title.closable).toBe(true);
    expect(panel.statusNode.getAttribute('role')).toBe('status');
    expect(panel.statusNode.getAttribute('aria-live')).toBe('polite');
    expect(panel.statusNode.textContent).toBe('Checking the project setup…');
    panel.dispose();
  });

  it('keeps one live region and updates its text when the phase changes', async () => {
    const awaiting = projectionFor(genericPlatform);
    const ready = projectionFor(genericPlatform, { state: 'initialized' });
    const c = client([ok(awaiting), ok(ready)], [{ ok: true, status: 201, value: initializeAnswer(awaiting) }]);
    const model = new StartupModel({ client: c, confirm: () => Promise.resolve(true) });
    const panel = mount(model);
    const live = panel.statusNode;
    await model.refresh();
    expect(panel.statusNode).toBe(live);
    expect(live.textContent).toBe('Setup phase: Awaiting confirmation.');
    button(panel, 'Initialize project')?.click();
    await new Promise(resolve => setTimeout(resolve, 0));
    await model.ensureLoaded();
    expect(panel.statusNode).toBe(live);
    expect(live.textContent).toBe('Project initialized. Setup phase: Ready.');
    expect(c.bodies).toEqual([
      { interface: 'notebook', method: 'jupyterlab-dialog', confirm: { projectPath: awaiting.projectPath, statePath: awaiting.statePath } }
    ]);
    expect(button(panel, 'Initialize project')).toBeUndefined();
    panel.dispose();
  });

  it('announces a phase once: an unchanged answer nobody asked for leaves the live region as it is', async () => {
    const awaiting = projectionFor(genericPlatform);
    const c = client([ok(awaiting), ok(awaiting), ok(awaiting)]);
    const model = new StartupModel({ client: c, confirm: () => Promise.resolve(false) });
    const panel = mount(model);
    await model.refresh();
    const texts: string[] = [];
    // Connected after the panel: sees the live region as each render left it.
    model.stateChanged.connect(() => texts.push(panel.statusNode.textContent ?? ''));
    // The panel opened again (or the check after initialize): the same answer comes back.
    await model.refresh();
    expect(c.gets).toBe(2);
    // The model emits nothing for an unchanged answer nobody asked for: no render at all.
    expect(texts).toEqual([]);
    expect(panel.statusNode.textContent).toBe('Setup phase: Awaiting confirmation.');
    // A person pressing Refresh hears that it is checking, then the phase.
    texts.length = 0;
    await model.refresh({ userInitiated: true });
    expect(texts).toEqual(['Checking the project setup…', 'Setup phase: Awaiting confirmation.']);
    panel.dispose();
  });

  it('Refresh asks again as a person (clears old notices); injected actions replace the defaults', async () => {
    const c = client([ok(projectionFor(genericPlatform)), ok(projectionFor(genericPlatform))]);
    const model = new StartupModel({ client: c, confirm: () => Promise.resolve(false) });
    const refresh = jest.spyOn(model, 'refresh');
    const initialize = jest.fn();
    const panel = mount(model, { initialize });
    await model.refresh();
    button(panel, 'Refresh')?.click();
    expect(refresh).toHaveBeenLastCalledWith({ userInitiated: true });
    button(panel, 'Initialize project')?.click();
    expect(initialize).toHaveBeenCalledTimes(1);
    panel.dispose();
  });

  it('keeps the keyboard focus on the same button across re-renders', async () => {
    const c = client([ok(projectionFor(genericPlatform)), ok(projectionFor(genericPlatform))]);
    const model = new StartupModel({ client: c, confirm: () => Promise.resolve(false) });
    const panel = mount(model);
    await model.refresh();
    button(panel, 'Refresh')?.focus();
    expect(document.activeElement?.textContent).toBe('Refresh');
    await model.refresh({ userInitiated: true });
    const active = document.activeElement as HTMLElement;
    expect(active.textContent).toBe('Refresh');
    expect(panel.node.contains(active)).toBe(true);
    panel.dispose();
  });

  it('moves the focus to the heading when the focused button goes away', async () => {
    const awaiting = projectionFor(genericPlatform);
    const c = client([ok(awaiting), ok(projectionFor(genericPlatform, { state: 'initialized' }))], [
      { ok: true, status: 201, value: initializeAnswer(awaiting) }
    ]);
    const model = new StartupModel({ client: c, confirm: () => Promise.resolve(true) });
    const panel = mount(model);
    await model.refresh();
    button(panel, 'Initialize project')?.focus();
    await model.initialize();
    expect(document.activeElement?.tagName).toBe('H2');
    expect(document.activeElement?.textContent).toBe('Project Startup');
    panel.dispose();
  });

  it('stops listening to the model when disposed', async () => {
    const c = client([ok(projectionFor(genericPlatform))]);
    const model = new StartupModel({ client: c, confirm: () => Promise.resolve(false) });
    const panel = mount(model);
    panel.dispose();
    await model.refresh();
    expect(panel.isDisposed).toBe(true);
  });
});
