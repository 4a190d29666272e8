// "This project" (inside its disclosure): where the project and its private folder are, the
// platform, the compute it needs and how the setup is confirmed, with times in the reader's
// locale.
import * as React from 'react';
import { interfacePhrase } from '../labels';
import { StartupProjection } from '../tokens';
import {
  cls,
  Code,
  Facts,
  listOf,
  platformLabel,
  ServiceText,
  Trans,
  When,
  yesNo
} from './shared';

export function ProjectDetails(props: {
  projection: StartupProjection;
  trans: Trans;
}): JSX.Element {
  const { projection, trans } = props;
  const compute = projection.compute;
  const c = projection.confirmation;
  const rows: [string, React.ReactNode][] = [
    [trans.__('Project folder'), <Code>{projection.projectPath}</Code>],
    [trans.__('Private setup folder'), <Code>{projection.statePath}</Code>],
    [trans.__('Platform'), platformLabel(projection)],
    [
      trans.__('Where you can set it up'),
      listOf(
        projection.interfaceSupport.supportedInterfaces.map(i =>
          interfacePhrase(i, trans)
        )
      )
    ],
    [
      trans.__('Compute'),
      <>
        {compute.label}
        {' — '}
        <ServiceText text={compute.detail} />
      </>
    ]
  ];
  if (compute.allocation) {
    const a = compute.allocation;
    rows.push([
      trans.__('Allocation'),
      a.jobId === null
        ? trans.__('%1: no job', a.scheduler)
        : a.state
          ? trans.__('%1 job %2 (%3)', a.scheduler, a.jobId, a.state)
          : trans.__('%1 job %2', a.scheduler, a.jobId)
    ]);
  }
  rows.push([trans.__('Needs your confirmation'), yesNo(c.required, trans)]);
  if (c.record) {
    rows.push([
      trans.__('Confirmed'),
      <>
        {interfacePhrase(c.record.confirmation.interface, trans)},{' '}
        <When iso={c.record.confirmation.confirmedAt} />
      </>
    ]);
  }
  if (c.creates.length > 0) {
    rows.push([
      trans.__('Setup creates'),
      <ul className={cls('paths')}>
        {c.creates.map(p => (
          <li key={p}>
            <Code>{p}</Code>
          </li>
        ))}
      </ul>
    ]);
  }
  return (
    <div className={cls('summary')}>
      <Facts rows={rows} />
    </div>
  );
}
