import { createHash } from 'node:crypto';
import * as path from 'node:path';
import { labelOf } from '../vocabulary';
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
    const home = homeDir ?? projectPath;
    const root = path.join(home, '.project-startup');
    const projects = path.join(root, 'projects');
    return {
      statePath: path.join(projects, `${stateDirName(projectPath)}`),
      parentsToCreate: [root, projects]
    };
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

/** `<name>-<first 12 hex of sha256(project path)>`, the name kept to safe characters. */
export function stateDirName(projectPath: string): string {
  const base = path
    .basename(projectPath)
    .replace(/[^A-Za-z0-9._-]/g, '_')
    .replace(/^\.+/, '_');
  const digest = createHash('sha256')
    .update(projectPath)
    .digest('hex')
    .slice(0, 12);
  return `${base.slice(0, 64) || 'project'}-${digest}`;
}
