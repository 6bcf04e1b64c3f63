// Builders for detection unit tests.
import type { BranchClass } from '../../../../shared/flaky-tests/domain/branch-class.js';
import type { HourBucket, RetryDetection } from '../../../../shared/flaky-tests/domain/detection/types.js';

export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;
export const T0 = Date.parse('2026-05-04T12:00:00.000Z');

export const at = (offsetMs: number) => new Date(T0 + offsetMs);

export function bucket(
  hourOffset: number,
  counts: { p?: number; f?: number; s?: number },
  branch = 'main',
  branchClass: BranchClass = 'main',
  prs: number[] = [],
): HourBucket {
  const hour = new Date(Math.floor((T0 + hourOffset * HOUR) / HOUR) * HOUR);
  const failed = counts.f ?? 0;
  const passed = counts.p ?? 0;
  const mid = new Date(hour.getTime() + 30 * 60_000);
  return {
    hour,
    branch,
    branchClass,
    passed,
    failed,
    skipped: counts.s ?? 0,
    firstFailureAt: failed > 0 ? mid : null,
    lastFailureAt: failed > 0 ? mid : null,
    lastRunAt: failed + passed > 0 ? mid : null,
    failedPrs: failed > 0 ? prs : [],
  };
}

export function detection(
  offsetMs: number,
  sha = 'abc1234def',
  branch = 'main',
  branchClass: BranchClass = 'main',
  prNumber: number | null = null,
): RetryDetection {
  return { sha, branch, branchClass, prNumber, detectedAt: at(offsetMs) };
}
