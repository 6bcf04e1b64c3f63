// Settings advice: a small grid of settings around the queue's own, each replayed on its history,
// and the best for a stated goal with the numbers that justify it. The grid varies what moves
// latency and CI cost most: concurrency; batching — by size and a wait of a quarter or a tenth of
// the median CI duration, or by pressure (no wait: a batch starts with whatever waits as soon as a
// slot frees, so batches grow only while the queue is busy). The settings best for the goal among
// those are then refined: a bisection pool of one (one probe at a time, the cheaper and slower
// search, where the grid's pool is the concurrency) and a pending-failure hold with optimistic
// merge (which absorbs flakes), alone and together. Two stages rather than every combination:
// the refinements move each setting a little, and a replay of 500 pull requests takes about a
// second (scripts/bench-advice.ts), so the full product (64 replays) would keep an API call waiting
// for over a minute.
import { median } from './percentile.js';
import type { QueueHistory } from './queue-history.js';
import { IN_THREAD, SIMULATED_SETTINGS, type FullSettings, type Replayer, type SettingsOutcome } from './what-if.js';

export type AdviceGoal =
  | { kind: 'lowest_latency' }
  /** The fewest CI minutes per merged pull request with time in queue p50 at most this (and p95, when given). */
  | { kind: 'lowest_ci_cost'; maxP50Minutes: number; maxP95Minutes?: number };

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

/** Settings of the grid's best that the second stage tries. */
const REFINED = 2;

/**
 * The first stage's settings. Concurrency stays within `maxConcurrency`: the simulation gives
 * every run a CI runner at once, so it must not be asked for more runs than the team's CI can
 * hold (from a history that capacity is unknown; the default is twice the queue's concurrency).
 */
export function adviceGrid(current: FullSettings, ciMinutes: readonly number[], maxConcurrency = Math.max(2, 2 * current.concurrency)): FullSettings[] {
  const ci = median(ciMinutes);
  // A quarter of CI makes batches of about two at a busy queue's arrival rate; a tenth keeps the
  // median close to one CI duration for a smaller saving (docs/efficiency.md, the frontier).
  const waits = [...new Set([Math.max(1, Math.round(ci / 4)), Math.max(1, Math.round(ci / 10)), 0])];
  const concurrencies = [...new Set([current.concurrency, 1, 2, 4, 8].filter((c) => c <= maxConcurrency))].sort((a, b) => a - b);
  const batching: Partial<FullSettings>[] = [
    { batch: false },
    ...[4, 8].flatMap((size) =>
      waits.map((w) => ({
        batch: true,
        batchingMinSize: size,
        batchingMaxWaitTimeMinutes: w,
        optimizationMode: 'bisection_skip_redundant_tests' as const,
      })),
    ),
  ];
  const noHold = { pendingFailureDepth: 0, canOptimisticallyMerge: false };
  return concurrencies.flatMap((concurrency) => batching.map((b) => ({ ...current, concurrency, bisectionConcurrency: concurrency, ...b, ...noHold })));
}

const sameSettings = (a: FullSettings, b: FullSettings): boolean => SIMULATED_SETTINGS.every((k) => a[k] === b[k]);

/** The second stage's settings around one of the first: a pool of one (with batching), a pending-failure hold, both. */
export function refinements(s: FullSettings): FullSettings[] {
  const hold = { pendingFailureDepth: 1, canOptimisticallyMerge: true };
  const pools = s.batch && s.bisectionConcurrency > 1 ? [s.bisectionConcurrency, 1] : [s.bisectionConcurrency];
  const holds = s.pendingFailureDepth === 0 ? [{}, hold] : [{}];
  return pools.flatMap((bisectionConcurrency) => holds.map((h) => ({ ...s, bisectionConcurrency, ...h }))).filter((v) => !sameSettings(v, s));
}

const usable = (o: SettingsOutcome): boolean => !o.truncated && o.efficiency.unfinished === 0 && o.efficiency.merged > 0;
const p50 = (o: SettingsOutcome): number => o.efficiency.timeInQueueMinutes.p50 ?? Number.POSITIVE_INFINITY;
const p95 = (o: SettingsOutcome): number => o.efficiency.timeInQueueMinutes.p95 ?? Number.POSITIVE_INFINITY;
const cost = (o: SettingsOutcome): number => o.efficiency.ciMinutesPerMerged ?? Number.POSITIVE_INFINITY;
const fixed = (x: number | null, digits: number): string => (x === null ? '—' : x.toFixed(digits));

function ranking(goal: AdviceGoal): (a: SettingsOutcome, b: SettingsOutcome) => number {
  return goal.kind === 'lowest_latency' ? (a, b) => p50(a) - p50(b) || cost(a) - cost(b) : (a, b) => cost(a) - cost(b) || p50(a) - p50(b);
}

const numbers = (o: SettingsOutcome): string => {
  const e = o.efficiency;
  return (
    `time in queue p50 ${fixed(e.timeInQueueMinutes.p50, 0)} min (p90 ${fixed(e.timeInQueueMinutes.p90, 0)}, p95 ${fixed(e.timeInQueueMinutes.p95, 0)}), ` +
    `${fixed(e.ciRunsPerMerged, 2)} CI runs and ${fixed(e.ciMinutesPerMerged, 0)} CI minutes per merged pull request, ${e.innocentEjections} innocent ejections`
  );
};

function withinBounds(goal: AdviceGoal, o: SettingsOutcome): boolean {
  if (goal.kind === 'lowest_latency') return true;
  return p50(o) <= goal.maxP50Minutes && (goal.maxP95Minutes === undefined || p95(o) <= goal.maxP95Minutes);
}

const boundsWords = (goal: Extract<AdviceGoal, { kind: 'lowest_ci_cost' }>): string =>
  `p50 ≤ ${goal.maxP50Minutes} min${goal.maxP95Minutes === undefined ? '' : ` and p95 ≤ ${goal.maxP95Minutes} min`}`;

/** The best of the settings tried for a goal, or null when none meets its bounds. */
export function bestFor(goal: AdviceGoal, tried: readonly SettingsOutcome[]): SettingsOutcome | null {
  const eligible = tried.filter((o) => usable(o) && withinBounds(goal, o));
  return eligible.sort(ranking(goal))[0] ?? null;
}

export interface AdviceOptions {
  /** The most runs at once a setting may ask for (adviceGrid). */
  maxConcurrency?: number;
  /** Where the plays run (in the calling thread unless given). */
  replayer?: Replayer;
  /** The current settings' outcome when the caller has played them already (whatIf). */
  currentOutcome?: SettingsOutcome;
}

/** Both stages: the grid, then the refinements of its best for the goal (or of its fastest, when none meets the goal). */
export async function playGrid(history: QueueHistory, current: FullSettings, goal: AdviceGoal, options: AdviceOptions = {}): Promise<SettingsOutcome[]> {
  const replayer = options.replayer ?? IN_THREAD;
  const tried = await replayer.playAll(history, adviceGrid(current, history.workload.ciMinutes, options.maxConcurrency));
  const eligible = tried.filter((o) => usable(o) && withinBounds(goal, o)).sort(ranking(goal));
  const fastest = tried.filter(usable).sort(ranking({ kind: 'lowest_latency' }));
  const seeds = [...new Set([...eligible, ...fastest])].slice(0, REFINED);
  const known = tried.map((o) => o.settings);
  const next: FullSettings[] = [];
  for (const seed of seeds) {
    for (const s of refinements(seed.settings)) {
      if (known.some((k) => sameSettings(k, s))) continue;
      known.push(s);
      next.push(s);
    }
  }
  return [...tried, ...(await replayer.playAll(history, next))];
}

export async function adviseSettings(history: QueueHistory, current: FullSettings, goal: AdviceGoal, options: AdviceOptions = {}): Promise<SettingsAdvice> {
  const [now] = options.currentOutcome ? [options.currentOutcome] : await (options.replayer ?? IN_THREAD).playAll(history, [current]);
  if (!now) throw new Error('no outcome for the current settings');
  const tried = (await playGrid(history, current, goal, options)).sort(ranking(goal));
  const best = bestFor(goal, tried);
  const reasons = [`now: ${numbers(now)}`];
  if (best)
    reasons.push(
      `advised: ${numbers(best)}`,
      `chosen for ${goal.kind === 'lowest_latency' ? 'the lowest time in queue' : `the fewest CI minutes with ${boundsWords(goal)}`} among ${tried.length} settings replayed on the same history`,
    );
  else
    reasons.push(
      goal.kind === 'lowest_ci_cost'
        ? `none of the ${tried.length} settings tried meets ${boundsWords(goal)} on this history`
        : `none of the ${tried.length} settings tried merged this history's pull requests within the simulation's limits`,
    );
  return { goal, current: now, best, reasons, tried };
}
