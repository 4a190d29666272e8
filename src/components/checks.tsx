// The readiness checks (inside their disclosure): a table with each check's status, what was
// observed and the remedy, the administrator's marked as theirs; the check the next action names
// is highlighted.
import * as React from 'react';
import { checkStatusLabel } from '../labels';
import { StartupProjection } from '../tokens';
import { cls, TableScroll, ServiceText, Trans } from './shared';

export function ChecksTable(props: {
  projection: StartupProjection;
  trans: Trans;
}): JSX.Element {
  const { projection, trans } = props;
  const highlighted = projection.nextAction.checkId;
  return (
    <div className={cls('checks')}>
      <p className={cls('muted')}>
        {trans.__(
          'Each check is something the service looked at on this platform. Required checks must pass before setup.'
        )}
      </p>
      <TableScroll label={trans.__('Readiness checks table')}>
        <table className={cls('checksTable', 'table')}>
          <thead>
            <tr>
              <th scope="col">{trans.__('Status')}</th>
              <th scope="col">{trans.__('Check')}</th>
              <th scope="col">{trans.__('Observed')}</th>
              <th scope="col">{trans.__('Remedy')}</th>
            </tr>
          </thead>
          <tbody>
            {projection.readinessChecks.map(check => (
              <tr
                key={check.id}
                className={cls(
                  'check',
                  `jp-mod-${check.status}`,
                  ...(check.id === highlighted ? ['jp-mod-highlight'] : [])
                )}
                data-check-id={check.id}
              >
                <td>
                  <span
                    className={cls('checkStatus', `jp-mod-${check.status}`)}
                  >
                    {checkStatusLabel(check.status, trans)}
                  </span>
                </td>
                <th scope="row">
                  {check.title}
                  {check.required ? (
                    <span className={cls('required')}>
                      {' '}
                      {trans.__('(required)')}
                    </span>
                  ) : null}
                </th>
                <td>
                  <ServiceText text={check.observed} />
                </td>
                <td>
                  {check.remedy && check.remedyBy === 'administrator' ? (
                    <>
                      {trans.__('For your administrator:')}{' '}
                      <ServiceText text={check.remedy} />
                    </>
                  ) : check.remedy ? (
                    <ServiceText text={check.remedy} />
                  ) : (
                    '—'
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
    </div>
  );
}
