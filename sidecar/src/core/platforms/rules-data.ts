// The platform signals, the selection rules and the state placement as one JSON document: what
// the Python client (jupyterlab_project_startup/platform_rules.json, written by
// `node scripts/platform-rules.js`) reads to decide the platform and find the state as the
// service does. test/unit/platform-rules.test.ts fails when the copy differs from this.
import {
  CONTAINER_SIGNALS,
  PLATFORM_RULES,
  PLATFORM_SETTING,
  SIGNAL_DEFINITIONS
} from './rules';
import { STATE_DIR, STATE_PLACEMENT } from './placement';

export function platformRulesData() {
  return {
    description:
      'Generated from sidecar/src/core/platforms/rules.ts and placement.ts by `node scripts/platform-rules.js`; do not edit.',
    setting: PLATFORM_SETTING,
    signals: SIGNAL_DEFINITIONS.map(({ name, kind, platform }) => ({
      name,
      kind,
      platform
    })),
    containerSignals: CONTAINER_SIGNALS,
    rules: PLATFORM_RULES,
    stateDir: STATE_DIR,
    statePlacement: STATE_PLACEMENT
  };
}
