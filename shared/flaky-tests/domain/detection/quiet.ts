// Most tests of an upload passed, as they did every time before: evaluating them reads their
// counters and runs every monitor only to find that nothing changes. A test is quiet when it is
// healthy with no active monitor and nothing scheduled, and its last evidence (a failed run, or a
// pass-on-retry detection) lies before the lookback window of every monitor: passed and skipped
// runs cannot activate a monitor then, because every monitor activates on failures or detections
// inside its window (a failure-rate threshold above zero, a failure count of at least one), and
// an inactive monitor schedules nothing. So a quiet test's evaluation is skipped: the outcome is
// the same by construction (test/unit/flaky-tests/detection-quiet.test.ts checks it against
// evaluateHealth).
import { lookbackHours, type DetectionConfig } from './config.js';
import type { TestEvidence, TestHealth } from './types.js';
import { HOUR_MS } from './windows.js';

/**
 * True when runs without failures cannot change the test's health at `now`. `lastEvidenceAt` is
 * the latest failed run or detection known for the test; undefined when unknown (never quiet).
 */
export function isQuiet(config: DetectionConfig, health: TestHealth, lastEvidenceAt: Date | null | undefined, now: Date): boolean {
  if (lastEvidenceAt === undefined) return false;
  if (health.status.value !== 'healthy' || health.reevaluateAt !== null) return false;
  for (const _key in health.monitors) return false;
  if (config.failureRate.some((m) => m.enabled && m.activationThreshold <= 0)) return false;
  if (config.failureCount.some((m) => m.enabled && m.failureThreshold < 1)) return false;
  return lastEvidenceAt === null || lastEvidenceAt.getTime() < now.getTime() - lookbackHours(config) * HOUR_MS;
}

/** A test's last evidence in what was read of it: its latest failed run or detection; null when none. */
export function lastEvidenceIn(evidence: TestEvidence): Date | null {
  let last = -Infinity;
  for (const b of evidence.buckets) if (b.lastFailureAt) last = Math.max(last, b.lastFailureAt.getTime());
  for (const d of evidence.detections) last = Math.max(last, d.detectedAt.getTime());
  return Number.isFinite(last) ? new Date(last) : null;
}
