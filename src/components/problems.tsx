// The other things that need attention (the checks that fail or warn, beyond the one the state
// above is about), one per line with its fix, or, when only the site's administrator can fix it,
// "Your administrator needs to …" and the report to copy.
import * as React from 'react';
import { StartupProjection } from '../tokens';
import { CopyReportButton, heroOffersReport } from './phase';
import { cls, IPanelActions, ServiceText, Trans } from './shared';

/** The checks the state above does not already speak for. */
function otherProblems(projection: StartupProjection) {
  const shownAbove = new Set<string>(['confirmation']);
  if (projection.phase === 'needs-compute') {
    shownAbove.add('compute-allocation');
  }
  if (projection.phase === 'blocked' && projection.nextAction.checkId) {
    shownAbove.add(projection.nextAction.checkId);
  }
  if (projection.phase === 'unsupported-interface') {
    shownAbove.add('interface-support');
  }
  return projection.readinessChecks.filter(
    c => (c.status === 'fail' || c.status === 'warn') && !shownAbove.has(c.id)
  );
}

export function ProblemsList(props: {
  projection: StartupProjection;
  trans: Trans;
  actions: IPanelActions;
}): JSX.Element | null {
  const { projection, trans, actions } = props;
  const problems = otherProblems(projection);
  if (problems.length === 0) {
    return null;
  }
  const anyForAdministrator = problems.some(
    c => c.remedyBy === 'administrator'
  );
  return (
    <section
      className={cls('section', 'problemsSection')}
      aria-label={trans.__('Also needs attention')}
    >
      <ul className={cls('problems')}>
        {problems.map(c => (
          <li
            key={c.id}
            className={cls('problem', `jp-mod-${c.status}`)}
            data-check-id={c.id}
            data-who={c.remedyBy ?? 'user'}
          >
            <strong>{c.title}</strong>: <ServiceText text={c.observed} />
            {/[.!?]$/.test(c.observed) ? ' ' : '. '}
            {c.remedyBy === 'administrator' ? (
              <span className={cls('problemWho')}>
                {trans.__('Your administrator needs to fix this.')}
              </span>
            ) : c.remedy ? (
              <span className={cls('problemFix')}>
                {trans.__('To fix it:')} <ServiceText text={c.remedy} />
              </span>
            ) : null}
          </li>
        ))}
      </ul>
      {anyForAdministrator && !heroOffersReport(projection) ? (
        <div className={cls('actions')}>
          <CopyReportButton trans={trans} actions={actions} />
        </div>
      ) : null}
    </section>
  );
}
