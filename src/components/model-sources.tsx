// The model sources a platform offers (whether each is secret-backed, its approval modes) and
// the model credential boundary (what it keeps out, what it does not isolate).
import * as React from 'react';
import { BoundaryValue, ModelSourceValue } from '../tokens';
import { cls, listOf, Trans, yesNo } from './shared';

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

export function ModelSourcesTable(props: {
  sources: ModelSourceValue[];
  caption: string;
  trans: Trans;
}): JSX.Element {
  const { sources, trans } = props;
  return (
    <div className={cls('tableScroll')}>
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
            <tr key={source.id} data-source-id={source.id}>
              <th scope="row">{source.label}</th>
              <td>{yesNo(source.secretBacked, trans)}</td>
              <td>
                {listOf(
                  source.approvalModes.map((_m, i) =>
                    approvalModeLabel(source, i, trans)
                  )
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
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
