import { labelOf } from '../vocabulary';
import { placeStateOn } from './placement';
import { ALL_MODEL_SOURCES, PlatformAdapter } from './types';

/** A workstation or a container: everything runs on the current host. */
export const genericPlatform: PlatformAdapter = {
  id: 'generic',
  interfaces: ['terminal', 'web', 'notebook'],
  browserRoute: 'direct-loopback',
  ingressModes: ['direct-loopback', 'notebook-server-proxy', 'trusted-proxy'],
  defaultIngress: 'direct-loopback',
  inferenceRuntimes: ['local-lightweight', 'high-throughput-serving'],
  computeModel: 'current-host',
  durableStorage: 'project-directory',
  credentialBackends: ['process', 'system-keyring', 'mounted-file'],
  modelSources: ALL_MODEL_SOURCES,
  builtInConnections: ['institution-ai-gateway'],
  defaultLowRiskAutomation: 'permitted',
  requiresApprovedStorage: false,
  placeState(projectPath, homeDir) {
    return placeStateOn('generic', projectPath, homeDir);
  },
  assessCompute() {
    return {
      model: 'current-host',
      label: labelOf('current-host'),
      satisfied: true,
      detail: 'Work runs on this machine; nothing needs to be requested.'
    };
  }
};
