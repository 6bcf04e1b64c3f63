// The published efficiency benchmark (docs/efficiency.md): seeded workloads at a share of the CI
// capacity, played through the engine under the strategies other queues use, against an oracle.
//
// CI capacity is `RUNNERS` runs at a time of `ciMinutes` each; a load of 80 % means pull requests
// arrive (Poisson) at 80 % of the rate that capacity tests one by one. Each pull request breaks the
// build with the failure rate; a run that should pass fails with the flake rate, on a test the
// flaky-test service knows as flaky (CI uploads results for every run), so the queue's flaky
// re-test and verdict rules act as they do for a team that uploads its results.
import { median } from './percentile.js';
import { queueEfficiency } from './queue-efficiency.js';
import { adviceGrid, bestFor, playGrid, refinements } from './settings-advice.js';
import { rng } from '../../platform/seeded-random.js';
import { DEFAULT_SETTINGS, type FullSettings } from './what-if.js';
import { playWorkload, type Workload } from './workload.js';

export const RUNNERS = 4;

export interface Cell {
  load: number;
  failureRate: number;
  flakeRate: number;
  ciMinutes: number;
}

export type StrategyName = 'oracle' | 'serial' | 'speculative' | 'bors' | 'defaults' | 'advised';

export const STRATEGIES: Record<StrategyName, string> = {
  oracle: '(a) oracle: knows every outcome; each good pull request merges one CI duration after it arrives, tested once',
  serial: '(b) one serial queue: one run at a time, one pull request per run',
  speculative: `(c) speculation without batching or bisection (GitHub's merge queue): ${RUNNERS} runs stacked on each other`,
  bors: '(d) batches, one at a time, failed batches bisected (bors): this engine with concurrency 1, batching, bisection without skipping',
  defaults: `(e) this engine's createQueue defaults with concurrency ${RUNNERS} (bisectionConcurrency follows it)`,
  advised:
    "(f) this engine with the settings its advice picks, chosen on the cell's first pull requests: the cheapest in CI with p50 ≤ 1.2 × and p95 ≤ 3 × the CI duration, else the cheapest within the p50 bound alone, else the fastest",
};

export interface StrategyResult {
  /** Time to merge ÷ CI duration, merged pull requests. */
  p50: number | null;
  p95: number | null;
  ciRunsPerMerged: number | null;
  /** Per 100 pull requests. */
  innocentEjections: number;
  settings: FullSettings | null;
}

const FIXED: Record<Exclude<StrategyName, 'oracle' | 'advised'>, FullSettings> = {
  serial: DEFAULT_SETTINGS,
  speculative: { ...DEFAULT_SETTINGS, concurrency: RUNNERS, bisectionConcurrency: RUNNERS },
  bors: { ...DEFAULT_SETTINGS, batch: true, batchingMinSize: 8, batchingMaxWaitTimeMinutes: 0, bisectionConcurrency: 1 },
  defaults: { ...DEFAULT_SETTINGS, concurrency: RUNNERS, bisectionConcurrency: RUNNERS },
};

export function workloadOf(cell: Cell, pullRequests: number, seed: number): Workload {
  const random = rng(seed);
  const gap = cell.ciMinutes / (RUNNERS * cell.load);
  let t = 0;
  const prs = Array.from({ length: pullRequests }, () => {
    t += -Math.log(1 - random()) * gap;
    return { arrivesAt: t, breaks: random() < cell.failureRate };
  });
  return { pullRequests: prs, ciMinutes: [cell.ciMinutes], flakeRate: cell.flakeRate, flakyTestResults: true, seed };
}

async function played(settings: FullSettings, w: Workload, ciMinutes: number): Promise<StrategyResult> {
  const e = queueEfficiency(await playWorkload(settings, w));
  const ratio = (x: number | null): number | null => (x === null ? null : x / ciMinutes);
  return {
    p50: ratio(e.timeInQueueMinutes.p50),
    p95: ratio(e.timeInQueueMinutes.p95),
    ciRunsPerMerged: e.ciRunsPerMerged,
    innocentEjections: (100 * e.innocentEjections) / w.pullRequests.length,
    settings,
  };
}

export interface BenchmarkOptions {
  pullRequests: number;
  /** Pull requests the advice is chosen on (a prefix of the cell's workload). */
  advicePullRequests: number;
  seed: number;
}

export async function evaluateCell(cell: Cell, o: BenchmarkOptions): Promise<Record<StrategyName, StrategyResult>> {
  const w = workloadOf(cell, o.pullRequests, o.seed);
  const out = {
    oracle: { p50: 1, p95: 1, ciRunsPerMerged: 1, innocentEjections: 0, settings: null },
  } as Record<StrategyName, StrategyResult>;
  for (const name of ['serial', 'speculative', 'bors', 'defaults'] as const) out[name] = await played(FIXED[name], w, cell.ciMinutes);
  const sample = { ...w, pullRequests: w.pullRequests.slice(0, o.advicePullRequests) };
  const history = { from: new Date(0), to: new Date(0), pullRequestsSeen: sample.pullRequests.length, sampled: true, notes: [], workload: sample };
  const ci = median(sample.ciMinutes);
  const goal = { kind: 'lowest_ci_cost', maxP50Minutes: 1.2 * ci, maxP95Minutes: 3 * ci } as const;
  const tried = await playGrid(history, FIXED.defaults, goal, { maxConcurrency: RUNNERS });
  const pick =
    bestFor(goal, tried) ?? bestFor({ kind: 'lowest_ci_cost', maxP50Minutes: goal.maxP50Minutes }, tried) ?? bestFor({ kind: 'lowest_latency' }, tried);
  out.advised = await played(pick?.settings ?? FIXED.defaults, w, cell.ciMinutes);
  return out;
}

/**
 * Every setting the advice can reach — its grid and every refinement of each — played on the
 * cell's whole workload: the points of the p50 / p95 / CI-runs frontier.
 */
export async function frontier(cell: Cell, pullRequests: number, seed: number): Promise<StrategyResult[]> {
  const w = workloadOf(cell, pullRequests, seed);
  const settings = adviceGrid(FIXED.defaults, w.ciMinutes, RUNNERS).flatMap((s) => [s, ...refinements(s)]);
  const out: StrategyResult[] = [];
  for (const s of settings) out.push(await played(s, w, cell.ciMinutes));
  return out;
}
