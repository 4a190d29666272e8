/** @jest-environment jsdom */
// The panel names the model sources as the site does: it renders what the
// manifest says, the site's labels as written (a site-given name is not translated), the
// gateway's address, and a source the site has not arranged as not arranged at this site.
import './jsdom-shims';
import { ReactWidget } from '@jupyterlab/apputils';
import { Widget } from '@lumino/widgets';
import * as React from 'react';
import { act } from 'react';
import { genericPlatform } from '../../../sidecar/src/core/platforms/generic';
import { PanelContent } from '../../../src/components/content';
import { IPanelState } from '../../../src/model';
import { invalidProjectionFields } from '../../../src/responses';
import { ITranslationBundle, StartupProjection } from '../../../src/tokens';
import {
  GATEWAY_ADDRESS,
  GATEWAY_LABEL,
  manifestAt,
  SITE_NAMES,
  VENDOR_A_LABEL,
  VENDOR_B_LABEL
} from '../../helpers/site-names';
import {
  projectionFor,
  recordingTrans,
  stringLeaves,
  textNodes,
  trans
} from './fixtures';

(
  globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }
).IS_REACT_ACT_ENVIRONMENT = true;

let mounted: Widget | undefined;
afterEach(() => {
  const widget = mounted;
  if (widget) {
    act(() => widget.dispose());
    mounted = undefined;
  }
  document.body.replaceChildren();
});

/** The panel's content for a loaded projection, mounted as the panel mounts it. */
function renderPanel(
  projection: StartupProjection,
  bundle: ITranslationBundle = trans
): HTMLElement {
  const state: IPanelState = {
    view: { kind: 'loaded', projection },
    refreshing: false,
    initializing: false
  };
  const widget = ReactWidget.create(
    React.createElement(PanelContent, {
      state,
      trans: bundle,
      actions: {
        refresh: jest.fn(),
        initialize: jest.fn(),
        copyReport: jest.fn(),
        copyText: jest.fn()
      }
    })
  );
  act(() => Widget.attach(widget, document.body));
  mounted = widget;
  return widget.node;
}

/** The generic platform's projection with the manifest of a site, as JSON carries it. */
function projectionAtSite(): StartupProjection {
  return JSON.parse(
    JSON.stringify({
      ...projectionFor(genericPlatform),
      manifest: manifestAt('generic', SITE_NAMES)
    })
  ) as StartupProjection;
}

const cellTexts = (row: Element): string[] =>
  Array.from(row.children).map(cell =>
    (cell.textContent ?? '').replace(/\s+/g, ' ').trim()
  );

describe("the panel names the model sources as the site's manifest does", () => {
  it('the guard accepts the manifest with arranged and address, and refuses them mistyped', () => {
    const projection = projectionAtSite();
    expect(invalidProjectionFields(projection)).toEqual([]);
    const broken = JSON.parse(JSON.stringify(projection)) as {
      manifest: { capabilities: { id: string; values: object[] }[] };
    };
    const row = broken.manifest.capabilities.find(
      c => c.id === 'model-sources'
    );
    Object.assign((row as { values: object[] }).values[1], { arranged: 'yes' });
    expect(invalidProjectionFields(broken)).not.toEqual([]);
  });

  it("each row: the site's label (and the gateway's address), secret-backed and approval modes, or not arranged", () => {
    const root = renderPanel(projectionAtSite());
    const row = (id: string) =>
      root.querySelector(
        `table.jp-ProjectStartup-modelSources tr[data-source-id="${id}"]`
      ) as HTMLTableRowElement;
    const gateway = row('institution-ai-gateway');
    expect(gateway.getAttribute('data-arranged')).toBe('true');
    expect(
      gateway.querySelector('th .jp-ProjectStartup-sourceAddress')?.textContent
    ).toBe(GATEWAY_ADDRESS);
    expect(cellTexts(gateway)).toEqual([
      `${GATEWAY_LABEL}${GATEWAY_ADDRESS}`,
      'Yes',
      'Review Every Action'
    ]);
    expect(cellTexts(row('vendor-api-a'))).toEqual([
      VENDOR_A_LABEL,
      'Yes',
      'Review Every Action'
    ]);
    const vendorB = row('vendor-api-b');
    expect(vendorB.getAttribute('data-arranged')).toBe('false');
    expect(cellTexts(vendorB)).toEqual([
      VENDOR_B_LABEL,
      'Not arranged at this site'
    ]);
    expect(vendorB.querySelector('td')?.getAttribute('colspan')).toBe('2');
    // The seed's placeholders are nowhere: the panel keeps no table of its own.
    expect(root.textContent).not.toMatch(
      /Vendor API A|Vendor API B|Institution AI gateway/
    );
    // Named once: the capability table leaves the model sources to their own table.
    expect(
      root.querySelectorAll('tr[data-capability-id="model-sources"]')
    ).toHaveLength(0);
    const connection = root.querySelector(
      'tr[data-capability-id="built-in-connections"] td'
    );
    expect(connection?.textContent).toBe(GATEWAY_LABEL);
  });

  it('every visible string is translated or is the service’s (the site names untranslated)', () => {
    const projection = projectionAtSite();
    const { trans: recording, outputs } = recordingTrans();
    const root = renderPanel(projection, recording);
    const fromService = stringLeaves(projection);
    const foreign = textNodes(root).filter(
      t =>
        !fromService.has(t) &&
        !outputs.some(o => o.includes(t)) &&
        !/^[\s:—,()]*$/.test(t)
    );
    expect(foreign).toEqual([]);
    expect(outputs).toContain('Not arranged at this site');
    expect(outputs.some(o => o.includes(VENDOR_A_LABEL))).toBe(false);
  });

  it('a service before manifest 1.1.0 sends no arranged: every source it lists is arranged', () => {
    const projection = projectionAtSite();
    const sources = projection.manifest.capabilities.find(
      c => c.id === 'model-sources'
    );
    for (const source of sources?.values ?? []) {
      delete (source as { arranged?: boolean }).arranged;
    }
    expect(invalidProjectionFields(projection)).toEqual([]);
    const root = renderPanel(projection);
    const arranged = Array.from(
      root.querySelectorAll('table.jp-ProjectStartup-modelSources tbody tr')
    ).map(r => r.getAttribute('data-arranged'));
    expect(arranged).toEqual(Array(6).fill('true'));
    expect(root.textContent).not.toContain('Not arranged at this site');
  });
});
