// Why the settings could not be loaded, in words with the fix. JupyterLab's SettingRegistry
// refuses a user setting outside the schema (e.g. refreshInterval 99999): load() rejects with
// the schema validator's errors and the plugin keeps its defaults.
import { ITranslationBundle } from './tokens';

/** One error of the setting registry's schema validator (ISchemaValidator.IError). */
interface IValidationError {
  instancePath?: string;
  dataPath?: string;
  keyword: string;
  message?: string;
}

function isValidationErrors(reason: unknown): reason is IValidationError[] {
  return (
    Array.isArray(reason) &&
    reason.length > 0 &&
    reason.every(
      e => e !== null && typeof e === 'object' && typeof e.keyword === 'string'
    )
  );
}

export function settingsProblem(
  reason: unknown,
  trans: ITranslationBundle
): string {
  if (isValidationErrors(reason)) {
    const what = reason
      .map(
        e =>
          `${(e.instancePath ?? e.dataPath ?? '').replace(/^[/.]/, '') || trans.__('settings')} ${e.message ?? e.keyword}`
      )
      .join('; ');
    return trans.__(
      'Project Startup: your settings are not valid (%1), so the defaults apply. Correct them in Settings → Settings Editor → Project Startup.',
      what
    );
  }
  return trans.__(
    'Project Startup: the settings could not be loaded, so the defaults apply. Check that schema/plugin.json is installed with the extension (project-startup jupyter install).'
  );
}
