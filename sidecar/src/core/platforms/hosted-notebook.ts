import { labelOf } from '../vocabulary';
import { placeStateOn } from './placement';
import { ALL_MODEL_SOURCES, PlatformAdapter } from './types';

/** A JupyterHub-style hosted notebook service: one single-user server per person. */
export const hostedNotebookPlatform: PlatformAdapter = {
  id: 'hosted-notebook',
  interfaces: ['terminal', 'notebook'],
  browserRoute: 'unavailable',
  ingressModes: ['notebook-server-proxy', 'direct-loopback', 'trusted-proxy'],
  defaultIngress: 'notebook-server-proxy',
  inferenceRuntimes: ['local-lightweight', 'high-throughput-serving'],
  computeModel: 'hosted-provisioned',
  durableStorage: 'home-directory',
  credentialBackends: ['process', 'mounted-file', 'managed-identity'],
  modelSources: ALL_MODEL_SOURCES,
  builtInConnections: ['institution-ai-gateway'],
  defaultLowRiskAutomation: 'denied',
  requiresApprovedStorage: false,
  placeState(projectPath, homeDir) {
    // Hosted project directories are often shared or ephemeral; the person's home persists.
    return placeStateOn('hosted-notebook', projectPath, homeDir);
  },
  assessCompute() {
    return {
      model: 'hosted-provisioned',
      label: labelOf('hosted-provisioned'),
      satisfied: true,
      detail:
        'The hosted platform provisioned the compute this notebook server runs on.'
    };
  }
};

export { stateDirName } from './placement';
