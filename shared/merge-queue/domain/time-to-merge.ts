// Position and estimated time to merge of a pull request in its queue (getSubmittedPullRequest
// with includeEstimatedTimeToMerge). Pure: from what is ahead, the concurrency, and the durations
// and outcomes of recent test runs.
//
// The model: the queue tests `concurrency` groups (of `groupSize` pull requests when it batches)
// at a time, in queue order, and merges in queue order. The runs already going (at or ahead of
// this pull request) finish after a run's duration minus what they have spent; each group behind
// starts when a slot frees up (a group ahead merges) and takes one duration. Every run ahead that
// fails costs the runs behind it one more duration (they are rebuilt without the culprit). The
// estimate takes the median duration and the expected number of failures ahead; the range takes
// the 25th percentile with no failure, and the 90th percentile with the failures of a bad day
// (the mean plus two standard deviations).
import type { Entry, HistoryEntry } from './model.js';
import { orderForDisplay } from './queue-order.js';

/** One concluded test run, as recent history tells it. */
export interface RunSample {
  durationSeconds: number;
  failed: boolean;
}

export interface TimeToMergeInput {
  /** 1 = next to merge. */
  position: number;
  /** Groups tested at once (≥ 1). */
  concurrency: number;
  /** Pull requests a group holds when the queue batches (1 when it does not). */
  groupSize: number;
  /** Recent concluded runs of the queue; none: no estimate. */
  samples: readonly RunSample[];
  /** Seconds each run in progress at or ahead of this pull request has been going, in queue order. */
  runningElapsedSeconds: readonly number[];
}

export interface TimeToMerge {
  /** Seconds. */
  estimate: number;
  low: number;
  high: number;
}

/**
 * The queue's active entries at or ahead of `entry`, in queue order (it last): their count is its
 * position (1 = next to merge). Null when it is not active.
 */
export function aheadOf(entry: Pick<Entry, 'id'>, active: readonly Entry[]): Entry[] | null {
  const ordered = orderForDisplay(active);
  const index = ordered.findIndex((e) => e.id === entry.id);
  return index < 0 ? null : ordered.slice(0, index + 1);
}

function quantile(sorted: readonly number[], q: number): number {
  const at = (sorted.length - 1) * q;
  const below = Math.floor(at);
  const above = Math.min(sorted.length - 1, below + 1);
  return sorted[below]! + (sorted[above]! - sorted[below]!) * (at - below);
}

/** Seconds until the group at `groups` (1-based) merges, each run taking `duration`. */
function mergedAfter(groups: number, concurrency: number, running: readonly number[], duration: number): number {
  const slots: number[] = Array.from({ length: Math.max(0, concurrency - running.length) }, () => 0);
  let merged = 0;
  for (let g = 0; g < groups; g++) {
    const elapsed = running[g];
    let finish: number;
    if (elapsed !== undefined) {
      finish = Math.max(0, duration - elapsed);
    } else {
      // The slot that frees first (slots free when the group holding them merges).
      slots.sort((a, b) => a - b);
      finish = (slots.shift() ?? merged) + duration;
    }
    merged = Math.max(merged, finish);
    slots.push(merged);
  }
  return merged;
}

/** The duration the estimate gives a run (the median of the samples), in seconds; null without samples. */
export function typicalRunSeconds(samples: readonly RunSample[]): number | null {
  if (samples.length === 0) return null;
  return quantile(
    samples.map((s) => s.durationSeconds).sort((a, b) => a - b),
    0.5,
  );
}

export function estimateTimeToMerge(input: TimeToMergeInput): TimeToMerge | null {
  if (input.samples.length === 0 || input.position < 1) return null;
  const durations = input.samples.map((s) => s.durationSeconds).sort((a, b) => a - b);
  const failureRate = input.samples.filter((s) => s.failed).length / input.samples.length;
  const groups = Math.ceil(input.position / Math.max(1, input.groupSize));
  const concurrency = Math.max(1, input.concurrency);
  const ahead = input.position - 1;
  const expectedFailures = ahead * failureRate;
  const badDayFailures = Math.min(ahead, expectedFailures + 2 * Math.sqrt(ahead * failureRate * (1 - failureRate)));
  const at = (q: number, failures: number) => {
    const duration = quantile(durations, q);
    return Math.round(mergedAfter(groups, concurrency, input.runningElapsedSeconds, duration) + failures * duration);
  };
  const low = at(0.25, 0);
  const high = at(0.9, badDayFailures);
  return { estimate: Math.max(low, Math.min(at(0.5, expectedFailures), high)), low, high };
}

/**
 * Runs as entry histories record them: each time an entry went into `testing` and came out with
 * its run's verdict (passed, or failed); runs restarted or cancelled tell nothing and are skipped.
 * An entry of a batch counts its run once per entry — a batch weighs as much as its size.
 */
export function runSamplesFromHistories(histories: readonly (readonly HistoryEntry[])[]): RunSample[] {
  const samples: RunSample[] = [];
  for (const history of histories) {
    for (let i = 0; i < history.length - 1; i++) {
      const start = history[i]!;
      const end = history[i + 1]!;
      if (start.to !== 'testing' || end.from !== 'testing') continue;
      const failed = end.reason === 'test_run_failed' || end.reason === 'test_run_required_status_failed' || end.reason === 'test_run_timeout';
      if (end.reason !== 'test_run_passed' && !failed) continue;
      samples.push({ durationSeconds: (end.at.getTime() - start.at.getTime()) / 1000, failed });
    }
  }
  return samples;
}
