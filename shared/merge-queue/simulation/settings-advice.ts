// Settings advice: a small grid of settings around the queue's own, each replayed on its history,
// and the best for a stated goal with the numbers that justify it. The grid varies what moves
// latency and CI cost most: concurrency, batching (size, and a wait of a quarter of the median CI
// duration), and a pending-failure hold with optimistic merge (which absorbs flakes).
import { median } from './percentile.js';
import type { QueueHistory } from './queue-history.js';
import { play, type FullSettings, type SettingsOutcome } from './what-if.js';

export type AdviceGoal =
  | { kind: 'lowest_latency' }
  /** The fewest CI minutes per merged pull request with time in queue p50 at most this. */
  | { kind: 'lowest_ci_cost'; maxP50Minutes: number };

export interface SettingsAdvice {
  goal: AdviceGoal;
  current: SettingsOutcome;
  /** Null when no setting tried meets the goal's bound. */
  best: SettingsOutcome | null;
  /** Why, in words, with the numbers. */
  reasons: string[];
  /** Every setting tried, best first for the goal. */
  tried: SettingsOutcome[];
}

/**
 * The settings tried. Concurrency stays within `maxConcurrency`: the simulation gives every run a
 * CI runner at once, so it must not be asked for more runs than the team's CI can hold (from a
 * history that capacity is unknown; the default is twice the queue's concurrency).
 */
export function adviceGrid(current: FullSettings, ciMinutes: readonly number[], maxConcurrency = Math.max(2, 2 * current.concurrency)): FullSettings[] {
  const wait = Math.max(1, Math.round(median(ciMinutes) / 4));
  const concurrencies = [...new Set([current.concurrency, 1, 2, 4, 8].filter((c) => c <= maxConcurrency))].sort((a, b) => a - b);
  const batching: Partial<FullSettings>[] = [
    { batch: false },
    { batch: true, batchingMinSize: 4, batchingMaxWaitTimeMinutes: wait, optimizationMode: 'bisection_skip_redundant_tests' },
    { batch: true, batchingMinSize: 8, batchingMaxWaitTimeMinutes: wait, optimizationMode: 'bisection_skip_redundant_tests' },
  ];
  const holds: Partial<FullSettings>[] = [
    { pendingFailureDepth: 0, canOptimisticallyMerge: false },
    { pendingFailureDepth: 1, canOptimisticallyMerge: true },
  ];
  const out: FullSettings[] = [];
  for (const concurrency of concurrencies) {
    for (const b of batching) for (const h of holds) out.push({ ...current, concurrency, bisectionConcurrency: concurrency, ...b, ...h });
  }
  return out;
}

const usable = (o: SettingsOutcome): boolean => !o.truncated && o.efficiency.unfinished === 0 && o.efficiency.merged > 0;
const p50 = (o: SettingsOutcome): number => o.efficiency.timeInQueueMinutes.p50 ?? Number.POSITIVE_INFINITY;
const cost = (o: SettingsOutcome): number => o.efficiency.ciMinutesPerMerged ?? Number.POSITIVE_INFINITY;
const fixed = (x: number | null, digits: number): string => (x === null ? '—' : x.toFixed(digits));

function ranking(goal: AdviceGoal): (a: SettingsOutcome, b: SettingsOutcome) => number {
  return goal.kind === 'lowest_latency' ? (a, b) => p50(a) - p50(b) || cost(a) - cost(b) : (a, b) => cost(a) - cost(b) || p50(a) - p50(b);
}

const numbers = (o: SettingsOutcome): string => {
  const e = o.efficiency;
  return (
    `time in queue p50 ${fixed(e.timeInQueueMinutes.p50, 0)} min (p90 ${fixed(e.timeInQueueMinutes.p90, 0)}), ` +
    `${fixed(e.ciRunsPerMerged, 2)} CI runs and ${fixed(e.ciMinutesPerMerged, 0)} CI minutes per merged pull request, ${e.innocentEjections} innocent ejections`
  );
};

/** The best of the settings tried for a goal, or null when none meets its bound. */
export function bestFor(goal: AdviceGoal, tried: readonly SettingsOutcome[]): SettingsOutcome | null {
  const eligible = tried.filter((o) => usable(o) && (goal.kind === 'lowest_latency' || p50(o) <= goal.maxP50Minutes));
  return eligible.sort(ranking(goal))[0] ?? null;
}

export async function playGrid(history: QueueHistory, current: FullSettings, maxConcurrency?: number): Promise<SettingsOutcome[]> {
  const tried: SettingsOutcome[] = [];
  for (const s of adviceGrid(current, history.workload.ciMinutes, maxConcurrency)) tried.push(await play(history, s));
  return tried;
}

export async function adviseSettings(history: QueueHistory, current: FullSettings, goal: AdviceGoal, maxConcurrency?: number): Promise<SettingsAdvice> {
  const now = await play(history, current);
  const tried = (await playGrid(history, current, maxConcurrency)).sort(ranking(goal));
  const best = bestFor(goal, tried);
  const reasons = [`now: ${numbers(now)}`];
  if (best)
    reasons.push(
      `advised: ${numbers(best)}`,
      `chosen for ${goal.kind === 'lowest_latency' ? 'the lowest time in queue' : `the fewest CI minutes with p50 ≤ ${goal.maxP50Minutes} min`} among ${tried.length} settings replayed on the same history`,
    );
  else reasons.push(`none of the ${tried.length} settings tried meets p50 ≤ ${goal.kind === 'lowest_ci_cost' ? goal.maxP50Minutes : 0} min on this history`);
  return { goal, current: now, best, reasons, tried };
}
