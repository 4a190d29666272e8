// The manifest at a site: the site's names reach every place the
// manifest is read, and whatever the site configuration holds, the builder only renames and
// narrows: no source the platform lacks, no Low-Risk Automation for a secret-backed source, the
// boundary's sentences as the seed has them.
import { formatManifest } from '../../sidecar/src/cli/format';
import type { Manifest } from '../../sidecar/src/core/manifest';
import { adapterFor } from '../../sidecar/src/core/platforms';
import {
  arrangedByDefault,
  siteSourceName,
  SiteModelSource,
  SiteModelSources
} from '../../sidecar/src/core/site-names';
import { PLATFORM_IDS } from '../../sidecar/src/core/vocabulary';
import {
  buildOpenApi,
  withManifestExample
} from '../../sidecar/src/http/openapi';
import { expectValid, validateAgainst } from '../helpers/schemas';
import {
  GATEWAY_ADDRESS,
  GATEWAY_LABEL,
  manifestAt,
  modelSources,
  SITE_NAMES,
  VENDOR_A_LABEL,
  VENDOR_B_LABEL
} from '../helpers/site-names';

const POLICIES = ['permitted', 'denied'] as const;

/** Site configurations that try what a site may not: each is only ever read for names. */
const HOSTILE: SiteModelSources[] = [
  SITE_NAMES,
  // Every source claims to be credential-free service-managed inference with both modes.
  Object.fromEntries(
    adapterFor('generic').modelSources.map(id => [
      id,
      {
        label: `Automated ${id}`,
        arranged: true,
        id: 'service-managed',
        secretBacked: false,
        approvalModes: ['review-every-action', 'low-risk-automation'],
        approvalModeLabels: ['Review Every Action', 'Low-Risk Automation']
      } as unknown as SiteModelSource
    ])
  ),
  // Keys beside modelSources' own: a boundary and approval modes.
  {
    boundary: { excludes: 'Nothing.', doesNotIsolate: 'Anything.' },
    approvalModes: ['low-risk-automation']
  } as unknown as SiteModelSources,
  // A source no platform has, and labels that look like the words' templates.
  {
    'vendor-api-c': { label: 'Imaginary API', arranged: true },
    'vendor-api-a': { label: '{label}: {secret}; approval modes: {modes}' }
  } as unknown as SiteModelSources
];

function boundaryOf(manifest: Manifest): unknown {
  return manifest.capabilities.find(c => c.id === 'model-credential-boundary');
}

describe('a site label flows to every place the manifest is read', () => {
  const manifest = manifestAt('generic', SITE_NAMES);

  it('the model sources and the built-in connection carry the site labels and the address', () => {
    const byId = new Map(modelSources(manifest).map(v => [v.id, v]));
    expect(byId.get('institution-ai-gateway')).toMatchObject({
      label: GATEWAY_LABEL,
      address: GATEWAY_ADDRESS,
      arranged: true
    });
    expect(byId.get('vendor-api-a')).toMatchObject({
      label: VENDOR_A_LABEL,
      arranged: true
    });
    expect(byId.get('vendor-api-b')).toMatchObject({
      label: VENDOR_B_LABEL,
      arranged: false
    });
    // The seed's label where the site gives none; not arranged, since the site listed its own.
    expect(byId.get('compatible-service')).toMatchObject({
      label: 'Other compatible service',
      arranged: false
    });
    expect(
      manifest.capabilities.find(c => c.id === 'built-in-connections')?.values
    ).toEqual([
      { id: 'institution-ai-gateway', label: GATEWAY_LABEL, arranged: true }
    ]);
    expectValid('Manifest', JSON.parse(JSON.stringify(manifest)));
  });

  it('the terminal names each source as the site does, a source not arranged as such', () => {
    const text = formatManifest(manifest);
    expect(text).toContain(
      `    ${GATEWAY_LABEL} (${GATEWAY_ADDRESS})\n      secret-backed; approval modes: Review Every Action\n`
    );
    expect(text).toContain(
      `    ${VENDOR_A_LABEL}\n      secret-backed; approval modes: Review Every Action\n`
    );
    expect(text).toContain(
      `    ${VENDOR_B_LABEL}\n      not arranged at this site\n`
    );
    expect(text).not.toMatch(
      /Vendor API A|Vendor API B|Institution AI gateway/
    );
    expect(text).toContain(
      `Built-in institution-managed connection  ${GATEWAY_LABEL}`
    );
  });

  it('withManifestExample puts the manifest it is given as the example answer, on a copy', () => {
    const document = withManifestExample(
      buildOpenApi('/', '0.1.0'),
      manifest
    ) as {
      paths: Record<
        string,
        Record<
          string,
          {
            responses: Record<
              string,
              { content?: Record<string, { example?: unknown }> }
            >;
          }
        >
      >;
    };
    const answer =
      document.paths['/project/capabilities'].get.responses['200'].content?.[
        'application/json'
      ];
    expect(answer?.example).toEqual(manifest);
    // The document the schemas make is untouched (built once per service, shared by none).
    expect(JSON.stringify(buildOpenApi('/', '0.1.0'))).not.toContain(
      GATEWAY_LABEL
    );
  });

  it('a label that looks like a template is shown as written, not filled', () => {
    const text = formatManifest(
      manifestAt('generic', {
        'vendor-api-a': { label: 'A {secret} {modes} {label}' }
      })
    );
    expect(text).toContain(
      '    A {secret} {modes} {label}\n      secret-backed; approval modes: Review Every Action\n'
    );
  });
});

describe('a label cannot pass for a classification', () => {
  const FORGED =
    'Campus AI: credential-free; approval modes: Low-Risk Automation';

  it("the terminal shows the label on its line and the source's own classification on the next", () => {
    const lines = formatManifest(
      manifestAt('generic', { 'vendor-api-a': { label: FORGED } })
    ).split('\n');
    const at = lines.indexOf(`    ${FORGED}`);
    expect(at).toBeGreaterThan(0);
    expect(lines[at + 1]).toBe(
      '      secret-backed; approval modes: Review Every Action'
    );
    // Nothing is appended to the label's own line.
    expect(lines.filter(l => l.includes(FORGED))).toEqual([`    ${FORGED}`]);
  });

  it('a gateway not arranged is said so under its built-in connection, apart from the label', () => {
    const manifest = manifestAt('generic', {
      'institution-ai-gateway': { label: 'Campus gateway', arranged: false }
    });
    expect(
      manifest.capabilities.find(c => c.id === 'built-in-connections')?.values
    ).toEqual([
      { id: 'institution-ai-gateway', label: 'Campus gateway', arranged: false }
    ]);
    expectValid('Manifest', JSON.parse(JSON.stringify(manifest)));
    expect(formatManifest(manifest)).toContain(
      '  Built-in institution-managed connection\n    Campus gateway\n      not arranged at this site\n'
    );
  });
});

describe('which sources are arranged', () => {
  it('with no site configuration, every source of the platform', () => {
    for (const platform of PLATFORM_IDS) {
      const sources = modelSources(manifestAt(platform, {}));
      expect(sources.map(v => v.id)).toEqual(adapterFor(platform).modelSources);
      expect(sources.every(v => v.arranged === true)).toBe(true);
      expect(sources.some(v => 'address' in v)).toBe(false);
    }
  });

  it('a site that only withdraws a source leaves the others arranged', () => {
    const site: SiteModelSources = {
      'vendor-api-b': { arranged: false },
      'vendor-api-a': { label: 'Renamed only' }
    };
    expect(arrangedByDefault(site)).toBe(true);
    const arranged = modelSources(manifestAt('generic', site))
      .filter(v => v.arranged)
      .map(v => v.id);
    expect(arranged).toEqual([
      'service-managed',
      'institution-ai-gateway',
      'vendor-consumer-sign-in',
      'vendor-api-a',
      'compatible-service'
    ]);
  });

  it('a site that marks any source arranged has said which: the rest are not', () => {
    const site: SiteModelSources = { 'compatible-service': { arranged: true } };
    expect(arrangedByDefault(site)).toBe(false);
    const arranged = modelSources(manifestAt('generic', site))
      .filter(v => v.arranged)
      .map(v => v.id);
    expect(arranged).toEqual(['compatible-service']);
  });

  it('an address only for the gateway and another compatible service', () => {
    const address = 'https://llm.example.org/v1';
    const everyone = Object.fromEntries(
      adapterFor('generic').modelSources.map(id => [id, { address }])
    ) as SiteModelSources;
    const addressed = modelSources(manifestAt('generic', everyone))
      .filter(v => v.address === address)
      .map(v => v.id);
    expect(addressed).toEqual(['institution-ai-gateway', 'compatible-service']);
    expect(siteSourceName('vendor-api-a', everyone)).toEqual({
      label: 'Vendor API A',
      arranged: true
    });
  });

  it('an empty label keeps the seed label (the schema has no empty label)', () => {
    expect(
      siteSourceName('vendor-api-a', { 'vendor-api-a': { label: ' ' } }).label
    ).toBe('Vendor API A');
  });
});

describe.each(
  PLATFORM_IDS.flatMap(p => POLICIES.map(policy => [p, policy] as const))
)(
  'whatever the site configuration holds: %s, low-risk automation %s',
  (platform, policy) => {
    const seed = manifestAt(platform, {}, policy);

    it.each(HOSTILE.map((site, i) => [i, site] as const))(
      'configuration %i: only the platform sources, Review Every Action only for each secret-backed one, the boundary as the seed has it',
      (_i, site) => {
        const manifest = manifestAt(platform, site, policy);
        expectValid('Manifest', JSON.parse(JSON.stringify(manifest)));
        const sources = modelSources(manifest);
        expect(sources.map(v => v.id)).toEqual(
          adapterFor(platform).modelSources
        );
        for (const source of sources) {
          expect(source.secretBacked).toBe(source.id !== 'service-managed');
          const seedSource = modelSources(seed).find(v => v.id === source.id);
          expect(source.approvalModes).toEqual(seedSource?.approvalModes);
          expect(source.approvalModeLabels).toEqual(
            seedSource?.approvalModeLabels
          );
          if (source.secretBacked) {
            expect(source.approvalModes).toEqual(['review-every-action']);
          }
        }
        expect(boundaryOf(manifest)).toEqual(boundaryOf(seed));
        // Apart from the model sources and the connection's label, the seed's manifest.
        const rest = (m: Manifest) =>
          m.capabilities.filter(
            c => c.id !== 'model-sources' && c.id !== 'built-in-connections'
          );
        expect(rest(manifest)).toEqual(rest(seed));
        expect(JSON.stringify(manifest)).not.toContain('Imaginary API');
        expect(JSON.stringify(manifest)).not.toContain('vendor-api-c');
      }
    );
  }
);

it('a source the platform lacks never appears, whatever the site names it', () => {
  const manifest = manifestAt('cluster', SITE_NAMES);
  const json = JSON.stringify(manifest);
  for (const absent of [
    VENDOR_A_LABEL,
    VENDOR_B_LABEL,
    'vendor-api-a',
    'vendor-api-b'
  ]) {
    expect(json).not.toContain(absent);
  }
  expect(modelSources(manifest).map(v => v.id)).toEqual([
    'service-managed',
    'institution-ai-gateway'
  ]);
  // The gateway the cluster has keeps its site name and address.
  expect(modelSources(manifest)[1]).toMatchObject({
    label: GATEWAY_LABEL,
    address: GATEWAY_ADDRESS
  });
  expect(formatManifest(manifest)).not.toContain(VENDOR_A_LABEL);
});

describe('the manifest schema holds the same rules', () => {
  const valid = JSON.parse(
    JSON.stringify(manifestAt('generic', SITE_NAMES))
  ) as Manifest;
  const withSource = (index: number, change: Record<string, unknown>) => {
    const copy = JSON.parse(JSON.stringify(valid)) as {
      capabilities: { id: string; values: Record<string, unknown>[] }[];
    };
    const row = copy.capabilities.find(c => c.id === 'model-sources');
    Object.assign(
      (row as { values: Record<string, unknown>[] }).values[index],
      change
    );
    return copy;
  };

  it('refuses an address on a source that takes none, an http or credentialed address, and a non-boolean arranged', () => {
    expect(
      validateAgainst(
        'Manifest',
        withSource(3, { address: 'https://a.example/v1' })
      )
    ).not.toEqual([]);
    expect(
      validateAgainst(
        'Manifest',
        withSource(1, { address: 'http://ai.example.edu/v1' })
      )
    ).not.toEqual([]);
    expect(
      validateAgainst(
        'Manifest',
        withSource(1, { address: 'https://user:pw@ai.example.edu/v1' })
      )
    ).not.toEqual([]);
    expect(
      validateAgainst('Manifest', withSource(1, { arranged: 'yes' }))
    ).not.toEqual([]);
    expect(
      validateAgainst(
        'Manifest',
        withSource(5, { address: 'https://llm.example.org/v1' })
      )
    ).toEqual([]);
  });

  it('refuses Low-Risk Automation on a secret-backed source, as before', () => {
    expect(
      validateAgainst(
        'Manifest',
        withSource(3, {
          approvalModes: ['review-every-action', 'low-risk-automation']
        })
      )
    ).not.toEqual([]);
  });
});
