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
  schemaPath?: string;
  params?: { allowedValue?: unknown };
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

/** Where in the settings an error is: `mutedNotifications/0`, or "settings" for the whole. */
function errorPlace(e: IValidationError, trans: ITranslationBundle): string {
  return (
    (e.instancePath ?? e.dataPath ?? '').replace(/^[/.]/, '') ||
    trans.__('settings')
  );
}

/** An error of one choice of a `oneOf` (e.g. its `const` or its `pattern`). */
const ONE_OF_CHOICE = /\/oneOf\/\d+\/[^/]+$/;

/**
 * Each error in words. A choice written as `oneOf` of `const`s (mutedNotifications' kinds, so
 * that the Settings Editor shows their titles) fails with the errors of every choice ("must be
 * equal to constant", "must match pattern") and one "must match exactly one schema in oneOf":
 * that becomes one "must be one of" naming the choices.
 */
function describeErrors(
  errors: IValidationError[],
  trans: ITranslationBundle
): string[] {
  const choices = new Map<string, string[]>();
  for (const e of errors) {
    if (e.keyword === 'oneOf') {
      choices.set(errorPlace(e, trans), []);
    }
  }
  for (const e of errors) {
    const allowed = choices.get(errorPlace(e, trans));
    if (
      allowed &&
      e.keyword === 'const' &&
      ONE_OF_CHOICE.test(e.schemaPath ?? '')
    ) {
      allowed.push(String(e.params?.allowedValue));
    }
  }
  const described: string[] = [];
  for (const e of errors) {
    const place = errorPlace(e, trans);
    const allowed = choices.get(place);
    if (allowed && allowed.length > 0) {
      if (ONE_OF_CHOICE.test(e.schemaPath ?? '')) {
        continue;
      }
      if (e.keyword === 'oneOf') {
        described.push(
          `${place} ${trans.__('must be one of %1', allowed.join(', '))}`
        );
        continue;
      }
    }
    described.push(`${place} ${e.message ?? e.keyword}`);
  }
  return described;
}

export function settingsProblem(
  reason: unknown,
  trans: ITranslationBundle
): string {
  if (isValidationErrors(reason)) {
    const what = describeErrors(reason, trans).join('; ');
    return trans.__(
      'Project Startup: your settings are not valid (%1), so the defaults apply. Correct them in Settings → Settings Editor → Project Startup.',
      what
    );
  }
  return trans.__(
    'Project Startup: the settings could not be loaded, so the defaults apply. Check that schema/plugin.json is installed with the extension (project-startup jupyter install).'
  );
}
