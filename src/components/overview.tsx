// The facts of the setup: the overview (platform, interface support, phase, paths), the compute
// requirements and the confirmation requirements.
import * as React from 'react';
import { interfaceLabel, phaseLabel } from '../labels';
import { StartupProjection } from '../tokens';
import {
  cls,
  Code,
  Facts,
  listOf,
  platformLabel,
  Section,
  ServiceText,
  Trans,
  yesNo
} from './shared';

export function Summary(props: {
  projection: StartupProjection;
  trans: Trans;
}): JSX.Element {
  const { projection, trans } = props;
  const supported = projection.interfaceSupport.supported;
  return (
    <Section className="summary" heading={trans.__('Overview')}>
      <Facts
        rows={[
          [trans.__('Platform'), platformLabel(projection)],
          [
            trans.__('Notebook interface'),
            <>
              <span
                className={cls(
                  'support',
                  supported ? 'jp-mod-supported' : 'jp-mod-unsupported'
                )}
              >
                {supported ? trans.__('Supported') : trans.__('Not supported')}
              </span>
              {' — '}
              {projection.interfaceSupport.detail}
            </>
          ],
          [
            trans.__('Setup phase'),
            <span className={cls('phaseBadge', `jp-mod-${projection.phase}`)}>
              {phaseLabel(projection.phase, trans)}
            </span>
          ],
          [
            trans.__('Project directory'),
            <Code>{projection.projectPath}</Code>
          ],
          [trans.__('Private state'), <Code>{projection.statePath}</Code>]
        ]}
      />
    </Section>
  );
}

export function ComputeView(props: {
  projection: StartupProjection;
  trans: Trans;
}): JSX.Element {
  const { trans } = props;
  const compute = props.projection.compute;
  const rows: [string, React.ReactNode][] = [
    [trans.__('Compute model'), compute.label],
    [trans.__('Requirement met'), yesNo(compute.satisfied, trans)],
    [trans.__('Detail'), <ServiceText text={compute.detail} />]
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
  if (compute.command) {
    rows.push([trans.__('Command'), <Code>{compute.command}</Code>]);
  }
  return (
    <Section className="compute" heading={trans.__('Compute requirements')}>
      <Facts rows={rows} />
    </Section>
  );
}

export function ConfirmationView(props: {
  projection: StartupProjection;
  trans: Trans;
}): JSX.Element {
  const { trans } = props;
  const c = props.projection.confirmation;
  const rows: [string, React.ReactNode][] = [
    [trans.__('Required'), yesNo(c.required, trans)],
    [trans.__('Confirmed'), yesNo(c.confirmed, trans)],
    [
      trans.__('Confirm through'),
      listOf(c.allowedInterfaces.map(i => interfaceLabel(i, trans)))
    ],
    [trans.__('Detail'), <ServiceText text={c.detail} />]
  ];
  if (c.creates.length > 0) {
    rows.push([
      trans.__('Creates'),
      <ul className={cls('paths')}>
        {c.creates.map(p => (
          <li key={p}>
            <Code>{p}</Code>
          </li>
        ))}
      </ul>
    ]);
  }
  if (c.record) {
    rows.push([
      trans.__('Record'),
      trans.__(
        'confirmed through %1 (%2) at %3',
        interfaceLabel(c.record.confirmation.interface, trans),
        c.record.confirmation.method,
        c.record.confirmation.confirmedAt
      )
    ]);
  }
  return (
    <Section
      className="confirmation"
      heading={trans.__('Confirmation requirements')}
    >
      <Facts rows={rows} />
    </Section>
  );
}
