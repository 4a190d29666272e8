// The model sources a platform offers (whether each is secret-backed, its approval modes) and
// the model credential boundary (what it keeps out, what it does not isolate).
import * as React from 'react';
import { BoundaryValue, ModelSourceValue } from '../tokens';
import { cls, TableScroll, listOf, Trans, yesNo } from './shared';

/** The approval mode's label, in the person's language; the service's own label otherwise. */
export function approvalModeLabel(
  source: ModelSourceValue,
  index: number,
  trans: Trans
): string {
  const id = source.approvalModes[index];
  switch (id) {
    case 'review-every-action':
      return trans.__('Review Every Action');
    case 'low-risk-automation':
      return trans.__('Low-Risk Automation');
    default:
      // A mode a newer service added: its label as the service sends it.
      return source.approvalModeLabels?.[index] ?? String(id);
  }
}

/**
 * One model source: the site's name for it as the manifest gives it (a site-given name is shown
 * as written, not translated) with its address, then whether it is secret-backed and its
 * approval modes, or, for a source this site has not arranged, only that.
 */
function ModelSourceRow(props: {
  source: ModelSourceValue;
  trans: Trans;
}): JSX.Element {
  const { source, trans } = props;
  // A service before manifest 1.1.0 sends no `arranged`: every source it lists is arranged.
  const arranged = source.arranged !== false;
  return (
    <tr data-source-id={source.id} data-arranged={String(arranged)}>
      <th scope="row">
        {source.label}
        {source.address === undefined ? null : (
          <span className={cls('sourceAddress')}>{source.address}</span>
        )}
      </th>
      {arranged ? (
        <>
          <td>{yesNo(source.secretBacked, trans)}</td>
          <td>
            {listOf(
              source.approvalModes.map((_m, i) =>
                approvalModeLabel(source, i, trans)
              )
            )}
          </td>
        </>
      ) : (
        <td colSpan={2} className={cls('notArranged')}>
          {trans.__('Not arranged at this site')}
        </td>
      )}
    </tr>
  );
}

export function ModelSourcesTable(props: {
  sources: ModelSourceValue[];
  caption: string;
  trans: Trans;
}): JSX.Element {
  const { sources, trans } = props;
  return (
    <TableScroll label={props.caption}>
      <table className={cls('table', 'modelSources')}>
        <caption className={cls('tableCaption')}>{props.caption}</caption>
        <thead>
          <tr>
            <th scope="col">{trans.__('Model source')}</th>
            <th scope="col">{trans.__('Secret-backed')}</th>
            <th scope="col">{trans.__('Approval modes')}</th>
          </tr>
        </thead>
        <tbody>
          {sources.map(source => (
            <ModelSourceRow key={source.id} source={source} trans={trans} />
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}

export function BoundaryView(props: {
  label: string;
  values: BoundaryValue[];
  trans: Trans;
}): JSX.Element {
  return (
    <div className={cls('boundary')}>
      <h4 className={cls('subTitle')}>{props.label}</h4>
      <p className={cls('muted')}>
        {props.trans.__(
          'What keeps model credentials away from the code you run, and what it does not.'
        )}
      </p>
      {props.values.map(v => (
        <div key={v.id} data-boundary-id={v.id}>
          <p>
            <strong>{v.label}</strong>
          </p>
          <p className={cls('boundaryExcludes')}>{v.excludes}</p>
          <p className={cls('boundaryDoesNotIsolate')}>{v.doesNotIsolate}</p>
        </div>
      ))}
    </div>
  );
}
