// The merge-queue series of GET /v1/getMergeQueueMetrics (wire-contract §2.12,
// merge-queue-behaviour §1.21): names, label values, buckets and the rolling window. They are the
// compatible product's, so its dashboards and alerts work unchanged; docs/metrics.md defines
// every value.
import type { EntryState } from '../model.js';
import type { ObjectiveLevel, ObjectiveMetric } from '../objectives.js';
import { WASTE_CAUSES, type WasteCause } from './cost-report.js';

/** `queue_type` label: entries taking part in the bisection of a failed batch report `bisection`. */
export const QUEUE_TYPES = ['main', 'bisection'] as const;
export type QueueType = (typeof QUEUE_TYPES)[number];

/** `conclusion` label of mq_pr_conclusions_1h_total: every value is emitted, 0 included. */
export const CONCLUSIONS = ['merged', 'failed', 'cancelled'] as const satisfies readonly EntryState[];
export type Conclusion = (typeof CONCLUSIONS)[number];

/** Upper bounds (seconds) of the duration histograms; `+Inf` is implicit. */
export const DURATION_BUCKETS_SECONDS: readonly number[] = [60, 300, 600, 900, 1800, 3600, 5400, 7200];

/** The `_1h` series cover transitions in (now − 1 h, now]. */
export const WINDOW_MS = 3_600_000;

export const MQ_SERIES = {
  depth: 'mq_depth_current',
  awaitingMergeability: 'mq_awaiting_mergeability',
  testingSlotsActive: 'mq_testing_slots_active',
  conclusions: 'mq_pr_conclusions_1h_total',
  restarts: 'mq_pr_restarts_1h_total',
  waitDuration: 'mq_pr_wait_duration_1h_seconds',
  testDuration: 'mq_pr_test_duration_1h_seconds',
  timeInQueue: 'mq_pr_time_in_queue_1h_seconds',
  statusNotReported: 'mq_test_runs_status_not_reported',
  wastedRuns: 'mq_test_runs_wasted_1h',
  targetBranchBroken: 'mq_target_branch_broken',
  mergedCommits: 'mq_merged_commits_1h',
  objectiveValue: 'mq_objective_value',
  objectiveLevel: 'mq_objective_level',
} as const;

/** One objective of a queue as the objective watcher last measured it (docs/objectives.md). */
export interface QueueObjectiveLevel {
  metric: ObjectiveMetric;
  level: ObjectiveLevel;
  /** Null: nothing to measure in the window (no series value is exported). */
  value: number | null;
}

/** The labels every series carries: `repo` is `owner/name`, `branch` the queue's target branch. */
export interface SeriesLabels {
  repo: string;
  branch: string;
  queue_type: QueueType;
}

/** Every value of one (repo, branch, queue_type) label set. Durations are raw observations, in seconds. */
export interface QueueTypeSeries {
  labels: SeriesLabels;
  depth: number;
  awaitingMergeability: number;
  testingSlotsActive: number;
  conclusions: Record<Conclusion, number>;
  restarts: number;
  waitSeconds: number[];
  testSeconds: number[];
  timeInQueueSeconds: number[];
  /** Runs in progress with a required status not reported within statusWaitMinutes (the stall watchdog). */
  testRunsStatusNotReported: number;
  /** Runs wasted in the last hour (cancelled, or re-tested as known-flaky) by cause; counted on the main series. */
  wastedRuns: Record<WasteCause, number>;
  /** 1 while the queue's target branch is broken (main series only). */
  targetBranchBroken: number;
  /** Commits the queue put on the target branch in the last hour, by whether their exact tree was tested (main series only). */
  mergedCommits: { tested: number; untested: number };
  /** The queue's objectives (main series only). */
  objectives: QueueObjectiveLevel[];
}

export function emptySeries(labels: SeriesLabels): QueueTypeSeries {
  return {
    labels,
    depth: 0,
    awaitingMergeability: 0,
    testingSlotsActive: 0,
    conclusions: { merged: 0, failed: 0, cancelled: 0 },
    restarts: 0,
    waitSeconds: [],
    testSeconds: [],
    timeInQueueSeconds: [],
    testRunsStatusNotReported: 0,
    targetBranchBroken: 0,
    mergedCommits: { tested: 0, untested: 0 },
    objectives: [],
    wastedRuns: Object.fromEntries(WASTE_CAUSES.map((c) => [c, 0])) as Record<WasteCause, number>,
  };
}
