// "What this platform offers": the manifest's capabilities and policy as a table, then the model
// sources and the credential boundary.
import * as React from 'react';
import { Capability, Manifest } from '../tokens';
import { BoundaryView, ModelSourcesTable } from './model-sources';
import { cls, TableScroll, Trans } from './shared';

function isModelSources(
  capability: Capability
): capability is Extract<Capability, { id: 'model-sources' }> {
  return capability.id === 'model-sources';
}

function isBoundary(
  capability: Capability
): capability is Extract<Capability, { id: 'model-credential-boundary' }> {
  return capability.id === 'model-credential-boundary';
}

/** A capability's values in words: labels, the default and, apart, the sources not arranged. */
function CapabilityValues(props: {
  capability: Capability;
  trans: Trans;
}): JSX.Element {
  const { capability, trans } = props;
  const fallback = 'default' in capability ? capability.default : undefined;
  if (capability.values.length === 0) {
    return <>{trans.__('None')}</>;
  }
  return (
    <ul className={cls('values')}>
      {capability.values.map(v => (
        <li key={v.id} data-value-id={v.id}>
          {v.label}
          {fallback === v.id ? ` ${trans.__('(default)')}` : null}
          {/* A source or connection the platform has and this site has not arranged: not
              offered. Said in an item of its own, never run into the site's label, so a label
              cannot pass for this or any other classification. */}
          {'arranged' in v && v.arranged === false ? (
            <ul className={cls('valueNotes')}>
              <li className={cls('notArranged')}>
                {trans.__('Not arranged at this site')}
              </li>
            </ul>
          ) : null}
        </li>
      ))}
    </ul>
  );
}

/**
 * "What this platform offers": every capability row of the manifest with its values (a table
 * with row and column headers), the model sources with whether each is secret-backed and its
 * approval modes, and the credential boundary's two sentences. Same meaning as the setup page
 * and `project-startup capabilities`.
 */
export function OffersView(props: {
  manifest: Manifest;
  trans: Trans;
}): JSX.Element {
  const { manifest, trans } = props;
  const capabilities: Capability[] = manifest.capabilities;
  const sources = capabilities.filter(isModelSources);
  const boundaries = capabilities.filter(isBoundary);
  // The model sources and the boundary have their own tables below: each is named once.
  const rows = capabilities.filter(c => !isModelSources(c) && !isBoundary(c));
  return (
    <div className={cls('offers')}>
      <p className={cls('muted')}>
        {trans.__(
          "The platform's own terms: an ingress is how the service is reached; a credential backend is where model keys may come from; an approval mode says whether you review each action a model takes."
        )}
      </p>
      <TableScroll
        label={trans.__('Capabilities of the %1', manifest.platform.label)}
      >
        <table className={cls('table', 'capabilities')}>
          <caption className={cls('visuallyHidden')}>
            {trans.__('Capabilities of the %1', manifest.platform.label)}
          </caption>
          <thead>
            <tr>
              <th scope="col">{trans.__('Capability')}</th>
              <th scope="col">{trans.__('Offered')}</th>
            </tr>
          </thead>
          <tbody>
            <tr data-capability-id="low-risk-automation-policy">
              <th scope="row">{trans.__('Low-risk automation')}</th>
              <td>
                {manifest.policy.lowRiskAutomation === 'permitted'
                  ? trans.__('Permitted by platform policy')
                  : trans.__('Not permitted by platform policy')}
              </td>
            </tr>
            {rows.map(capability => (
              <tr key={capability.id} data-capability-id={capability.id}>
                <th scope="row">{capability.label}</th>
                <td>
                  <CapabilityValues capability={capability} trans={trans} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
      {sources.map(row => (
        <ModelSourcesTable
          key={row.id}
          sources={row.values}
          caption={row.label}
          trans={trans}
        />
      ))}
      {boundaries.map(row => (
        <BoundaryView
          key={row.id}
          label={row.label}
          values={row.values}
          trans={trans}
        />
      ))}
    </div>
  );
}
