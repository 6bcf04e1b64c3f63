// A clairvoyant schedule of a workload, for the efficiency benchmark: it knows which pull requests
// break the build (they are never tested) and when every pull request will arrive, and it must
// spend at most `maxRunsPerMerged` CI runs per merged pull request. Runs below one per pull
// request come only from pairing: the first of a pair waits for the second, then both are tested
// in one run. The schedule pairs neighbours in arrival order with the shortest gaps first (no pull
// request in two pairs) until the budget is met, and reports the time to merge it gives (in CI
// durations) and the most runs it has going at once.
//
// What it shows: whether the targets on time to merge and CI runs contradict each other for a
// queue that knew everything. A schedule meeting them exists when this one does (it is one
// schedule, not the best one), so the distance between it and the engine is what the engine does
// not know — which change breaks the build, which run will flake, what arrives next.
import { median, percentile } from './percentile.js';
import type { Workload } from './workload.js';

export interface ClairvoyantSchedule {
  /** Time to merge ÷ CI duration, over the pull requests that do not break the build. */
  p50: number;
  p95: number;
  runsPerMerged: number;
  /** The most runs going at once (a run lasts one CI duration). */
  maxInFlight: number;
}

export function clairvoyantSchedule(w: Workload, maxRunsPerMerged: number): ClairvoyantSchedule {
  const ci = median(w.ciMinutes);
  const arrivals = w.pullRequests
    .filter((p) => !p.breaks)
    .map((p) => p.arrivesAt / ci)
    .sort((a, b) => a - b);
  const n = arrivals.length;
  if (n === 0) return { p50: 0, p95: 0, runsPerMerged: 0, maxInFlight: 0 };
  const pairsNeeded = Math.max(0, Math.ceil(n - maxRunsPerMerged * n - 1e-9));
  const gaps = arrivals.slice(1).map((a, i) => ({ i, gap: a - arrivals[i]! }));
  gaps.sort((a, b) => a.gap - b.gap || a.i - b.i);
  const paired = new Set<number>();
  const waits = new Array<number>(n).fill(0);
  const starts: number[] = [];
  let pairs = 0;
  for (const { i, gap } of gaps) {
    if (pairs >= pairsNeeded) break;
    if (paired.has(i) || paired.has(i + 1)) continue;
    paired.add(i).add(i + 1);
    waits[i] = gap;
    starts.push(arrivals[i + 1]!);
    pairs++;
  }
  arrivals.forEach((a, i) => {
    if (!paired.has(i)) starts.push(a);
  });
  const times = waits.map((wait) => 1 + wait);
  return { p50: percentile(times, 50), p95: percentile(times, 95), runsPerMerged: (n - pairs) / n, maxInFlight: mostAtOnce(starts) };
}

/** The most runs of one CI duration each that overlap, given their start times (in CI durations). */
function mostAtOnce(starts: number[]): number {
  const sorted = [...starts].sort((a, b) => a - b);
  let most = 0;
  let first = 0;
  for (let i = 0; i < sorted.length; i++) {
    while (sorted[first]! + 1 <= sorted[i]!) first++;
    most = Math.max(most, i - first + 1);
  }
  return most;
}
