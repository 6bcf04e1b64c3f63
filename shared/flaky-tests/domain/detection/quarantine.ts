// Whether a test is quarantined (notes §1.5; wire-contract §3.2): quarantining must be on for the
// repository, and then either the test is pinned with ALWAYS_QUARANTINE, or auto-quarantine is on
// and the test is flaky or broken and not pinned with NEVER_QUARANTINE.
import type { HealthStatus } from './types.js';

export type QuarantineOverride = 'always' | 'never';

export interface QuarantineSettings {
  enabled: boolean;
  autoQuarantine: boolean;
}

export const DEFAULT_QUARANTINE_SETTINGS: QuarantineSettings = { enabled: false, autoQuarantine: false };

export function isQuarantined(settings: QuarantineSettings, override: QuarantineOverride | null, status: HealthStatus): boolean {
  if (!settings.enabled) return false;
  if (override === 'always') return true;
  if (override === 'never') return false;
  return settings.autoQuarantine && status !== 'healthy';
}

/** `quarantine_setting` of a quarantined test in list-quarantined-tests. */
export function quarantineSettingOf(override: QuarantineOverride | null): 'ALWAYS_QUARANTINE' | 'AUTO_QUARANTINE' {
  return override === 'always' ? 'ALWAYS_QUARANTINE' : 'AUTO_QUARANTINE';
}
