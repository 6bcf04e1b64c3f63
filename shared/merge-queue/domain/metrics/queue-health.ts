// Queue health over a chosen window, in equal buckets: what the dashboard's charts draw. Derived
// from stored transitions with the same rules as the `_1h` metrics series (observeEntry), so a
// chart and a Prometheus scrape of the same hour agree.
import type { HistoryEntry } from '../model.js';
import { isQueueMerge, observeEntry } from './entry-observations.js';

export interface HealthBucket {
  start: string;
  end: string;
  merged: number;
  failed: number;
  cancelled: number;
  restarts: number;
  testRuns: number;
  /** Admitted time of the entries merged in the bucket (seconds); null without merges. */
  timeInQueueP50: number | null;
  timeInQueueP90: number | null;
}

export interface QueueHealth {
  windowStart: string;
  windowEnd: string;
  bucketSeconds: number;
  buckets: HealthBucket[];
  /** Reason code of each failure in the window, most frequent first. */
  failuresByReason: { reason: string; count: number }[];
  merged: number;
  testRuns: number;
  /** Test runs started in the window per pull request merged in it; null without merges. */
  ciRunsPerMergedPr: number | null;
  /** Commits the queue put on the target branch in the window, by whether their exact tree was tested. */
  mergedCommits: { tested: number; untested: number };
}

/** The value below which `q` of the sorted values lie (nearest rank). */
function quantile(sorted: number[], q: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

export function computeQueueHealth(input: {
  /** Entries' histories, with the tree each merge was checked to produce (Entry.mergedTestedTree). */
  histories: readonly { history: readonly HistoryEntry[]; mergedTestedTree?: string | null }[];
  testRunsCreatedAt: readonly Date[];
  end: Date;
  windowSeconds: number;
  bucketCount: number;
}): QueueHealth {
  const endMs = input.end.getTime();
  const startMs = endMs - input.windowSeconds * 1000;
  const bucketMs = (input.windowSeconds * 1000) / input.bucketCount;
  const failures = new Map<string, number>();
  const mergedCommits = { tested: 0, untested: 0 };
  const buckets: HealthBucket[] = [];
  for (let i = 0; i < input.bucketCount; i++) {
    const window = { start: startMs + i * bucketMs, end: startMs + (i + 1) * bucketMs };
    const times: number[] = [];
    const bucket: HealthBucket = {
      start: new Date(window.start).toISOString(),
      end: new Date(window.end).toISOString(),
      merged: 0,
      failed: 0,
      cancelled: 0,
      restarts: 0,
      testRuns: input.testRunsCreatedAt.filter((d) => d.getTime() > window.start && d.getTime() <= window.end).length,
      timeInQueueP50: null,
      timeInQueueP90: null,
    };
    for (const { history, mergedTestedTree } of input.histories) {
      const o = observeEntry(history, window);
      bucket.restarts += o.restarts.length;
      if (!o.exit) continue;
      bucket[o.exit.conclusion] += 1;
      if (o.exit.conclusion === 'merged' && isQueueMerge(history.at(-1)?.reason)) mergedCommits[mergedTestedTree ? 'tested' : 'untested'] += 1;
      if (o.exit.conclusion === 'merged' && o.exit.timeInQueueSeconds !== null) times.push(o.exit.timeInQueueSeconds);
      if (o.exit.conclusion === 'failed') {
        const reason = history[history.length - 1]!.reason;
        failures.set(reason, (failures.get(reason) ?? 0) + 1);
      }
    }
    times.sort((a, b) => a - b);
    bucket.timeInQueueP50 = quantile(times, 0.5);
    bucket.timeInQueueP90 = quantile(times, 0.9);
    buckets.push(bucket);
  }
  const merged = buckets.reduce((n, b) => n + b.merged, 0);
  const testRuns = buckets.reduce((n, b) => n + b.testRuns, 0);
  return {
    windowStart: new Date(startMs).toISOString(),
    windowEnd: input.end.toISOString(),
    bucketSeconds: bucketMs / 1000,
    buckets,
    failuresByReason: [...failures].map(([reason, count]) => ({ reason, count })).sort((a, b) => b.count - a.count || a.reason.localeCompare(b.reason)),
    merged,
    testRuns,
    ciRunsPerMergedPr: merged === 0 ? null : testRuns / merged,
    mergedCommits,
  };
}
