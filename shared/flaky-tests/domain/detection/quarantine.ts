// Whether a test is quarantined (notes §1.5; wire-contract §3.2): quarantining must be on for the
// repository, and then either the test is pinned with ALWAYS_QUARANTINE, or auto-quarantine is on
// and the test is flaky or broken and not pinned with NEVER_QUARANTINE.
import type { HealthStatus } from './types.js';

export type QuarantineOverride = 'always' | 'never';

export interface QuarantineSettings {
  enabled: boolean;
  autoQuarantine: boolean;
  /** A test quarantined automatically is released after this many days without a failure (0: never). */
  releaseAfterCleanDays: number;
}

export const DEFAULT_RELEASE_AFTER_CLEAN_DAYS = 7;
export const MAX_RELEASE_AFTER_CLEAN_DAYS = 90;

export const DEFAULT_QUARANTINE_SETTINGS: QuarantineSettings = {
  enabled: false,
  autoQuarantine: false,
  releaseAfterCleanDays: DEFAULT_RELEASE_AFTER_CLEAN_DAYS,
};

/** What decides whether one test is quarantined. */
export interface QuarantineFacts {
  /** The override in force (null when none was set, or it expired: see overrideInForce). */
  override: QuarantineOverride | null;
  status: HealthStatus;
  /** Its automatic quarantine was released after clean days, and it has not failed since. */
  released: boolean;
}

export function isQuarantined(settings: QuarantineSettings, facts: QuarantineFacts): boolean {
  if (!settings.enabled) return false;
  if (facts.override === 'always') return true;
  if (facts.override === 'never') return false;
  return settings.autoQuarantine && facts.status !== 'healthy' && !facts.released;
}

/** An override counts until its expiry; after it the test falls back to automatic quarantine. */
export function overrideInForce(record: { override: QuarantineOverride; expiresAt?: Date | null } | null, now: Date): QuarantineOverride | null {
  if (!record) return null;
  return record.expiresAt && record.expiresAt.getTime() <= now.getTime() ? null : record.override;
}

/** An override as the API and the events name it. */
export function wireOverrideOf(o: QuarantineOverride | null): 'ALWAYS_QUARANTINE' | 'NEVER_QUARANTINE' | 'UNSPECIFIED' {
  return o === 'always' ? 'ALWAYS_QUARANTINE' : o === 'never' ? 'NEVER_QUARANTINE' : 'UNSPECIFIED';
}

/** `quarantine_setting` of a quarantined test in list-quarantined-tests. */
export function quarantineSettingOf(override: QuarantineOverride | null): 'ALWAYS_QUARANTINE' | 'AUTO_QUARANTINE' {
  return override === 'always' ? 'ALWAYS_QUARANTINE' : 'AUTO_QUARANTINE';
}
