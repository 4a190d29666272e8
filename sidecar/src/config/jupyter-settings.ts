// Jupyter's own configuration of this service (c.ProjectStartup.*, configurable.py in the Python
// package) as the Jupyter server passes it on: its server extension puts the settings it applies
// in PROJECT_STARTUP_JUPYTER_SETTINGS, each variable with the trait it came from, in the server's
// own environment. Its terminals and the sidecar the proxy launches inherit it, so a command run
// in a terminal of that server sees what the server's service sees, and says where each value
// came from. A variable set in the environment itself still wins, as it does for the server.
import {
  SettingOrigin,
  SITE_CONFIG_ENV,
  SITE_FILE_KEYS
} from '../core/site-config-rules';
import type { Env } from '../core/env';

export const JUPYTER_SETTINGS_ENV = 'PROJECT_STARTUP_JUPYTER_SETTINGS';

interface JupyterSetting {
  /** c.ProjectStartup.<trait> */
  trait: string;
  value: string;
}

/** The settings the variable carries, for the variables a site may set; malformed: none. */
function jupyterSettings(env: Env): Map<string, JupyterSetting> {
  const settings = new Map<string, JupyterSetting>();
  const text = env[JUPYTER_SETTINGS_ENV];
  if (text === undefined || text === '') {
    return settings;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return settings;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    return settings;
  }
  for (const [variable, setting] of Object.entries(parsed)) {
    const { trait, value } = (setting ?? {}) as Partial<JupyterSetting>;
    if (
      (variable === SITE_CONFIG_ENV ||
        Object.hasOwn(SITE_FILE_KEYS, variable)) &&
      typeof trait === 'string' &&
      /^c\.ProjectStartup\.[a-z_]+$/.test(trait) &&
      typeof value === 'string' &&
      value !== ''
    ) {
      settings.set(variable, { trait, value });
    }
  }
  return settings;
}

/** The environment with each variable Jupyter's configuration sets and the environment lacks. */
export function withJupyterSettings(env: Env): Env {
  const settings = jupyterSettings(env);
  if (settings.size === 0) {
    return env;
  }
  const merged: Record<string, string | undefined> = { ...env };
  for (const [variable, { value }] of settings) {
    if (merged[variable] === undefined || merged[variable] === '') {
      merged[variable] = value;
    }
  }
  return merged;
}

/** Where `value` of variable `name` came from, when it is what Jupyter's configuration set. */
export function jupyterOrigin(
  env: Env,
  name: string,
  value: string
): Extract<SettingOrigin, { source: 'jupyter' }> | undefined {
  const setting = jupyterSettings(env).get(name);
  return setting !== undefined && setting.value === value
    ? { source: 'jupyter', name: setting.trait }
    : undefined;
}
