// The rules table on its own: every platform's evidence alone, every pair of conflicting
// evidence, and the operator override, each with the decision and the evidence reported.
import { gatherPlatformEvidence } from '../../sidecar/src/observe/evidence';
import {
  InvalidPlatformSetting,
  selectPlatform
} from '../../sidecar/src/core/platforms/rules';

type Case = {
  name: string;
  env?: Record<string, string>;
  files?: string[];
  platform: string;
  decidedBy: string;
  overruled?: string[];
  host?: 'workstation' | 'container';
};

const HUB = {
  JUPYTERHUB_API_URL: 'http://127.0.0.1:8081/hub/api',
  JUPYTERHUB_USER: 'alice'
};

const CASES: Case[] = [
  {
    name: 'nothing: a workstation',
    platform: 'generic',
    decidedBy: 'default',
    host: 'workstation'
  },
  {
    name: 'Docker marker: a container',
    files: ['/.dockerenv'],
    platform: 'generic',
    decidedBy: 'default',
    host: 'container'
  },
  {
    name: 'Podman marker',
    files: ['/run/.containerenv'],
    platform: 'generic',
    decidedBy: 'default',
    host: 'container'
  },
  {
    name: 'Kubernetes pod',
    env: { KUBERNETES_SERVICE_HOST: '10.0.0.1' },
    platform: 'generic',
    decidedBy: 'default',
    host: 'container'
  },
  {
    name: 'Apptainer',
    env: { APPTAINER_CONTAINER: '/x.sif' },
    platform: 'generic',
    decidedBy: 'default',
    host: 'container'
  },
  {
    name: 'Slurm allocation',
    env: { SLURM_JOB_ID: '7' },
    platform: 'cluster',
    decidedBy: 'batch-scheduler'
  },
  {
    name: 'PBS allocation',
    env: { PBS_JOBID: '7.pbs' },
    platform: 'cluster',
    decidedBy: 'batch-scheduler'
  },
  {
    name: 'LSF allocation',
    env: { LSB_JOBID: '7' },
    platform: 'cluster',
    decidedBy: 'batch-scheduler'
  },
  {
    name: 'Flux allocation',
    env: { FLUX_JOB_ID: 'f7' },
    platform: 'cluster',
    decidedBy: 'batch-scheduler'
  },
  {
    name: 'Slurm login node (SLURM_CONF)',
    env: { SLURM_CONF: '/etc/slurm/slurm.conf' },
    platform: 'cluster',
    decidedBy: 'batch-scheduler'
  },
  {
    name: 'Slurm login node (file)',
    files: ['/etc/slurm/slurm.conf'],
    platform: 'cluster',
    decidedBy: 'batch-scheduler'
  },
  {
    name: 'JupyterHub spawner',
    env: HUB,
    platform: 'hosted-notebook',
    decidedBy: 'hosted-notebook-spawner'
  },
  {
    name: 'half the hub evidence does not decide, and is reported as overruled',
    env: { JUPYTERHUB_USER: 'alice' },
    platform: 'generic',
    decidedBy: 'default',
    overruled: ['JUPYTERHUB_USER']
  },
  {
    name: 'hub inside a Kubernetes pod: the container marker does not conflict',
    env: { ...HUB, KUBERNETES_SERVICE_HOST: '10.0.0.1' },
    platform: 'hosted-notebook',
    decidedBy: 'hosted-notebook-spawner',
    host: 'container'
  },
  {
    name: 'cluster and hub evidence: the more restrictive cluster wins',
    env: { ...HUB, SLURM_JOB_ID: '7' },
    platform: 'cluster',
    decidedBy: 'batch-scheduler',
    overruled: ['JUPYTERHUB_API_URL', 'JUPYTERHUB_USER']
  },
  {
    name: 'cluster evidence in a container',
    env: { SLURM_JOB_ID: '7' },
    files: ['/.dockerenv'],
    platform: 'cluster',
    decidedBy: 'batch-scheduler',
    host: 'container'
  },
  {
    name: 'operator override to generic overrules cluster and hub evidence',
    env: { ...HUB, SLURM_JOB_ID: '7', PROJECT_STARTUP_PLATFORM: 'generic' },
    platform: 'generic',
    decidedBy: 'operator-setting',
    overruled: ['SLURM_JOB_ID', 'JUPYTERHUB_API_URL', 'JUPYTERHUB_USER']
  },
  {
    name: 'operator override agreeing with the evidence overrules nothing',
    env: { ...HUB, PROJECT_STARTUP_PLATFORM: 'hosted-notebook' },
    platform: 'hosted-notebook',
    decidedBy: 'operator-setting',
    overruled: []
  },
  {
    name: 'operator override to cluster on a workstation',
    env: { PROJECT_STARTUP_PLATFORM: 'cluster' },
    platform: 'cluster',
    decidedBy: 'operator-setting'
  },
  {
    name: 'an empty override is no override',
    env: { PROJECT_STARTUP_PLATFORM: '' },
    platform: 'generic',
    decidedBy: 'default'
  }
];

describe('platform selection rules', () => {
  it.each(CASES.map(c => [c.name, c] as const))('%s', (_name, c) => {
    const files = new Set(c.files ?? []);
    const evidence = gatherPlatformEvidence(c.env ?? {}, p => files.has(p));
    const decision = selectPlatform(evidence);
    expect(decision.platform).toBe(c.platform);
    expect(decision.decidedBy).toBe(c.decidedBy);
    expect(decision.overruled.map(s => s.name)).toEqual(c.overruled ?? []);
    if (c.host) {
      expect(decision.host).toBe(c.host);
    }
    // Every variable and file that was present is reported by name, and no value is.
    const reported = decision.signals.map(s => s.name);
    for (const name of [
      ...Object.keys(c.env ?? {}).filter(
        k => (c.env ?? {})[k] !== '' && k !== 'PROJECT_STARTUP_PLATFORM'
      ),
      ...files
    ]) {
      expect(reported).toContain(name);
    }
    const text = JSON.stringify(decision);
    for (const value of Object.values(c.env ?? {}).filter(
      v =>
        v.length > 3 && !['generic', 'cluster', 'hosted-notebook'].includes(v)
    )) {
      expect(text).not.toContain(value);
    }
    if (c.decidedBy === 'operator-setting') {
      expect(decision.signals[0]).toEqual({
        name: 'PROJECT_STARTUP_PLATFORM',
        kind: 'setting',
        platform: c.platform
      });
    }
  });

  it('is deterministic: the same evidence gives the same decision', () => {
    const evidence = gatherPlatformEvidence(
      { ...HUB, SLURM_JOB_ID: '1', KUBERNETES_SERVICE_HOST: 'x' },
      () => false
    );
    expect(selectPlatform(evidence)).toEqual(selectPlatform(evidence));
  });

  it.each(['bogus', 'Generic', 'browser', ' cluster'])(
    'refuses the unknown override %p with the allowed values',
    value => {
      const evidence = gatherPlatformEvidence(
        { PROJECT_STARTUP_PLATFORM: value },
        () => false
      );
      expect(() => selectPlatform(evidence)).toThrow(InvalidPlatformSetting);
      expect(() => selectPlatform(evidence)).toThrow(
        /generic, hosted-notebook, cluster/
      );
    }
  );
});
