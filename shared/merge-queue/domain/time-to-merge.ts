// Position and estimated time to merge of a pull request in its queue (getSubmittedPullRequest
// with includeEstimatedTimeToMerge). Pure: from what is ahead, the concurrency, and the durations
// and outcomes of recent test runs.
//
// The model: the queue tests `concurrency` groups (of `groupSize` when it batches) at a time in
// queue order, so the pull request at position p is merged after ceil(p / (concurrency × size)) rounds of one run duration each; every run
// ahead that fails costs the runs behind it one more round (they are rebuilt without the
// culprit). The expected time takes the median duration and the expected number of failures
// ahead; the range takes the 25th percentile with no failure, and the 90th percentile with the
// failures of a bad day (the mean plus two standard deviations). Time already spent by a run that
// is testing the pull request is subtracted.
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
  /** Seconds the run testing this pull request has been going (0 when none is). */
  elapsedSeconds: number;
}

export interface TimeToMerge {
  /** Seconds. */
  estimate: number;
  low: number;
  high: number;
}

/** Where `entry` stands among the queue's active entries (1 = next to merge); null when not active. */
export function queuePosition(entry: Pick<Entry, 'id'>, active: readonly Entry[]): number | null {
  const index = orderForDisplay(active).findIndex((e) => e.id === entry.id);
  return index < 0 ? null : index + 1;
}

function quantile(sorted: readonly number[], q: number): number {
  const at = (sorted.length - 1) * q;
  const below = Math.floor(at);
  const above = Math.min(sorted.length - 1, below + 1);
  return sorted[below]! + (sorted[above]! - sorted[below]!) * (at - below);
}

export function estimateTimeToMerge(input: TimeToMergeInput): TimeToMerge | null {
  if (input.samples.length === 0 || input.position < 1) return null;
  const durations = input.samples.map((s) => s.durationSeconds).sort((a, b) => a - b);
  const failureRate = input.samples.filter((s) => s.failed).length / input.samples.length;
  const rounds = Math.ceil(input.position / (Math.max(1, input.concurrency) * Math.max(1, input.groupSize)));
  const ahead = input.position - 1;
  const expectedFailures = ahead * failureRate;
  const badDayFailures = Math.min(ahead, expectedFailures + 2 * Math.sqrt(ahead * failureRate * (1 - failureRate)));
  const remaining = (seconds: number) => Math.max(0, Math.round(seconds - input.elapsedSeconds));
  const low = remaining(rounds * quantile(durations, 0.25));
  const estimate = remaining((rounds + expectedFailures) * quantile(durations, 0.5));
  const high = remaining((rounds + badDayFailures) * quantile(durations, 0.9));
  return { estimate: Math.max(low, Math.min(estimate, high)), low, high };
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
