// Queue health over a chosen window, in equal buckets: what the dashboard's charts draw. Derived
// from stored transitions with the same rules as the `_1h` metrics series (observeEntry), so a
// chart and a Prometheus scrape of the same hour agree. Each history is read once and each of its
// observations placed in its bucket by time: replaying every history per bucket cost 200 × the
// entries of 90 days (4 s on the event loop at 30,000 pull requests).
import type { HistoryEntry } from '../model.js';
import { inWindow, isQueueMerge, timedObservations, type EntryExit } from './entry-observations.js';

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
  const windows = Array.from({ length: input.bucketCount }, (_, i) => ({ start: startMs + i * bucketMs, end: startMs + (i + 1) * bucketMs }));
  /** The bucket whose (start, end] holds the time, or -1 outside the window. */
  const bucketOf = (at: number): number => {
    if (!inWindow(at, { start: startMs, end: windows.at(-1)?.end ?? endMs })) return -1;
    let i = Math.min(windows.length - 1, Math.max(0, Math.ceil((at - startMs) / bucketMs) - 1));
    // The division may land one bucket off at a boundary; the windows' own bounds decide.
    while (i > 0 && at <= windows[i]!.start) i--;
    while (i < windows.length - 1 && at > windows[i]!.end) i++;
    return i;
  };
  const failures = new Map<string, number>();
  const mergedCommits = { tested: 0, untested: 0 };
  const buckets: HealthBucket[] = windows.map((w) => ({
    start: new Date(w.start).toISOString(),
    end: new Date(w.end).toISOString(),
    merged: 0,
    failed: 0,
    cancelled: 0,
    restarts: 0,
    testRuns: 0,
    timeInQueueP50: null,
    timeInQueueP90: null,
  }));
  const times = windows.map((): number[] => []);
  for (const d of input.testRunsCreatedAt) {
    const i = bucketOf(d.getTime());
    if (i >= 0) buckets[i]!.testRuns += 1;
  }
  for (const { history, mergedTestedTree } of input.histories) {
    // A bucket counts the last exit of the entry inside it, as observeEntry does for one window.
    const exits = new Map<number, EntryExit>();
    for (const o of timedObservations(history)) {
      const i = bucketOf(o.at);
      if (i < 0) continue;
      if (o.kind === 'restart') buckets[i]!.restarts += 1;
      else if (o.kind === 'exit') exits.set(i, o.exit);
    }
    for (const [i, exit] of exits) {
      buckets[i]![exit.conclusion] += 1;
      if (exit.conclusion === 'merged' && isQueueMerge(history.at(-1)?.reason)) mergedCommits[mergedTestedTree ? 'tested' : 'untested'] += 1;
      if (exit.conclusion === 'merged' && exit.timeInQueueSeconds !== null) times[i]!.push(exit.timeInQueueSeconds);
      if (exit.conclusion === 'failed') {
        const reason = history[history.length - 1]!.reason;
        failures.set(reason, (failures.get(reason) ?? 0) + 1);
      }
    }
  }
  buckets.forEach((bucket, i) => {
    const sorted = times[i]!.sort((a, b) => a - b);
    bucket.timeInQueueP50 = quantile(sorted, 0.5);
    bucket.timeInQueueP90 = quantile(sorted, 0.9);
  });
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
