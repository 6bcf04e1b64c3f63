// Data the detection monitors read and write. Pure data: the store keeps it, the monitors compute
// it, nothing here performs I/O.
import type { BranchClass } from '../branch-class.js';

export const HEALTH_STATUSES = ['healthy', 'flaky', 'broken'] as const;
export type HealthStatus = (typeof HEALTH_STATUSES)[number];

/** What an active classifying monitor makes of a test. */
export type Classification = Exclude<HealthStatus, 'healthy'>;

/** Broken > flaky > healthy: the most severe active monitor decides a test's status. */
export const SEVERITY: Record<HealthStatus, number> = { healthy: 0, flaky: 1, broken: 2 };

/**
 * Counters of one test's detection-eligible runs on one branch within one clock hour. Rolling
 * windows are evaluated over these: a bucket counts while any part of its hour is inside the
 * window, so windows are exact to the hour.
 */
export interface HourBucket {
  /** Start of the clock hour (UTC). */
  hour: Date;
  branch: string;
  branchClass: BranchClass;
  passed: number;
  failed: number;
  skipped: number;
  firstFailureAt: Date | null;
  lastFailureAt: Date | null;
  /** Last passed or failed run (skipped runs count as "not run"). */
  lastRunAt: Date | null;
  /** PR numbers of failing runs in this bucket. */
  failedPrs: number[];
}

/** A commit on which the test both failed and passed (pass-on-retry evidence). */
export interface RetryDetection {
  sha: string;
  branch: string;
  branchClass: BranchClass;
  prNumber: number | null;
  /** When the second, conflicting outcome was seen. Several retries on one commit: the first. */
  detectedAt: Date;
}

export interface TestEvidence {
  buckets: readonly HourBucket[];
  detections: readonly RetryDetection[];
}

/** One monitor's state for one test; kept between evaluations (hysteresis needs the past). */
export interface MonitorState {
  active: boolean;
  classification: Classification;
  /** When the monitor last switched between active and inactive. */
  since: Date;
  /** Why it is active (or why it last resolved). */
  reason: string;
}

export interface TestStatus {
  value: HealthStatus;
  reason: string;
  /** Time of the last change of `value`. */
  timestamp: Date;
}

export interface StatusChange {
  at: Date;
  from: HealthStatus;
  to: HealthStatus;
  reason: string;
  /** Monitor key that decided the new status; null when it became healthy. */
  monitor: string | null;
}

export interface TestHealth {
  status: TestStatus;
  /** Active monitors, keyed `pass_on_retry`, `failure_rate:<id>`, `failure_count:<id>`. */
  monitors: Record<string, MonitorState>;
  /**
   * The earliest time at which the passing of time alone (no new runs) changes a monitor: a
   * pass-on-retry recovery, a failure-count resolution, a bucket leaving a failure-rate window
   * in a way that crosses a threshold, a stale timeout. Null: nothing changes until new runs.
   */
  reevaluateAt: Date | null;
}
