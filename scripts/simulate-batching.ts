// Batching benchmark (issue 5): CI runs per merged pull request and time in queue for batch
// sizes 1, 4 and 8 at failure rates 5%, 10% and 30%, by discrete-event simulation in virtual
// time driving the real, pure planner.
//
//   npx tsx scripts/simulate-batching.ts [--scenario isolated|busy|both] [--prs 2000] [--seed 1]
//     [--ci-minutes 30] [--arrival-minutes M] [--concurrency C] [--bisection-concurrency B]
//     [--max-wait W] [--optimization bisection_skip_redundant_tests|off]
//
// Two scenarios (the flags override their settings):
// - `isolated`: one batch at a time, always full (concurrency 1, a max wait of a day, a PR
//   every 40 minutes): the setting of merge-queue-behaviour Part 2 §2.2's table.
// - `busy`: a busy queue as configured in practice (concurrency 4, the suggested 10-minute
//   max wait, a PR every 15 minutes): predictive runs stacked on top of each other, partial
//   batches when arrivals are slow.
//
// The model: pull requests arrive as a Poisson process (exponential gaps, mean
// --arrival-minutes) and are ready at once; each is bad with probability p, independently; CI is
// deterministic (a run fails exactly when its branch holds a bad change) and takes a fixed
// --ci-minutes. Between events (an arrival, a run finishing, a planner wake-up such as a batch's
// max wait) the engine's own planning pass runs over an in-memory store and the in-memory forge
// (shared/merge-queue/simulation, which also checks, on every merge, that nothing untested
// merges). Every run started counts as a CI run, including runs
// cancelled before they finished.
//
// Beside each cell the script prints what the same batching costs for one batch in isolation
// (every bad/good pattern of a full batch enumerated, the real culprit search run on each): the
// quantity merge-queue-behaviour Part 2 §2.2 tabulates, against which it also prints that
// table's "halving + skip" and "prefix bisection" columns.
import { parseArgs } from 'node:util';
import { searchCulprits, type ProbeResult } from '../shared/merge-queue/domain/planner/bisection-search.js';
import type { OptimizationMode } from '../shared/merge-queue/domain/model.js';
import { rng } from '../shared/platform/seeded-random.js';
import { playWorkload, type WorkloadPullRequest } from '../shared/merge-queue/simulation/workload.js';
import { machineSummary, median, percentile } from './lib/bench-stats.js';

const { values } = parseArgs({
  options: {
    scenario: { type: 'string', default: 'both' },
    prs: { type: 'string', default: '2000' },
    seed: { type: 'string', default: '1' },
    'ci-minutes': { type: 'string', default: '30' },
    'arrival-minutes': { type: 'string' },
    concurrency: { type: 'string' },
    'bisection-concurrency': { type: 'string' },
    'max-wait': { type: 'string' },
    optimization: { type: 'string', default: 'bisection_skip_redundant_tests' },
    sizes: { type: 'string', default: '1,4,8' },
    rates: { type: 'string', default: '0.05,0.1,0.3' },
  },
});
const PRS = Number(values.prs);
const SEED = Number(values.seed);
const CI_MINUTES = Number(values['ci-minutes']);
const OPTIMIZATION = values.optimization as OptimizationMode;
const SIZES = values.sizes!.split(',').map(Number);
const RATES = values.rates!.split(',').map(Number);

interface Scenario {
  name: string;
  arrivalMinutes: number;
  concurrency: number;
  bisectionConcurrency: number;
  maxWaitMinutes: number;
}

const PRESETS: Scenario[] = [
  { name: 'isolated', arrivalMinutes: 40, concurrency: 1, bisectionConcurrency: 4, maxWaitMinutes: 1440 },
  { name: 'busy', arrivalMinutes: 15, concurrency: 4, bisectionConcurrency: 4, maxWaitMinutes: 10 },
];

function scenarios(): Scenario[] {
  const chosen = PRESETS.filter((s) => values.scenario === 'both' || s.name === values.scenario);
  if (chosen.length === 0) throw new Error(`unknown --scenario ${values.scenario}`);
  const num = (v: string | undefined, fallback: number): number => (v === undefined ? fallback : Number(v));
  return chosen.map((s) => ({
    name: s.name,
    arrivalMinutes: num(values['arrival-minutes'], s.arrivalMinutes),
    concurrency: num(values.concurrency, s.concurrency),
    bisectionConcurrency: num(values['bisection-concurrency'], s.bisectionConcurrency),
    maxWaitMinutes: num(values['max-wait'], s.maxWaitMinutes),
  }));
}

interface CellResult {
  runs: number;
  bisectionRuns: number;
  cancelledRuns: number;
  merged: number;
  failed: number;
  /** Mean number of pull requests a main run tested. */
  meanGroup: number;
  /** Minutes from submission to merge, merged pull requests only. */
  inQueue: number[];
  virtualDays: number;
  /** Pull requests still in the queue when the last one arrived: large when it fell behind. */
  backlogAtLastArrival: number;
}

async function simulate(sc: Scenario, batchSize: number, p: number): Promise<CellResult> {
  const random = rng(SEED * 1_000_003 + Math.round(p * 1000) * 101 + batchSize);
  const pullRequests: WorkloadPullRequest[] = [];
  let t = 0;
  for (let i = 1; i <= PRS; i++) {
    t += -Math.log(1 - random()) * sc.arrivalMinutes;
    pullRequests.push({ arrivesAt: t, breaks: random() < p });
  }
  const settings = {
    concurrency: sc.concurrency,
    bisectionConcurrency: sc.bisectionConcurrency,
    batch: batchSize > 1,
    batchingMinSize: batchSize,
    batchingMaxWaitTimeMinutes: sc.maxWaitMinutes,
    optimizationMode: OPTIMIZATION,
  };
  const outcome = await playWorkload(settings, { pullRequests, ciMinutes: [CI_MINUTES], flakeRate: 0, seed: SEED });
  const { entries, breaking } = outcome;
  const stuck = entries.filter((e) => e.state !== 'merged' && e.state !== 'failed');
  if (stuck.length > 0) throw new Error(`${stuck.length} pull requests never concluded (first: ${stuck[0]!.id} ${stuck[0]!.state})`);
  // Deterministic CI: exactly the bad pull requests fail.
  for (const e of entries) {
    if ((e.state === 'failed') !== breaking.has(e.id)) throw new Error(`${e.id} (${breaking.has(e.id) ? 'bad' : 'good'}) ended ${e.state}`);
  }
  const lastArrival = Math.max(...entries.map((e) => e.submittedAt.getTime()));
  const runs = outcome.runs;
  const main = runs.filter((r) => r.kind === 'main');
  const merged = entries.filter((e) => e.state === 'merged');
  return {
    runs: runs.length,
    bisectionRuns: runs.length - main.length,
    cancelledRuns: runs.filter((r) => r.status === 'cancelled').length,
    merged: merged.length,
    failed: entries.length - merged.length,
    meanGroup: main.reduce((n, r) => n + r.entryIds.length, 0) / main.length,
    inQueue: merged.map((e) => (e.stateChangedAt.getTime() - e.submittedAt.getTime()) / 60_000),
    virtualDays: outcome.minutes / 1440,
    backlogAtLastArrival: entries.filter((e) => e.submittedAt.getTime() <= lastArrival && e.stateChangedAt.getTime() > lastArrival).length,
  };
}

/**
 * Expected CI runs per pull request for one full batch of `b` in isolation, with this engine's
 * culprit search: the batch run, then the search's probes until it ends, every pattern of bad
 * entries weighted by its probability. Runs the search asks for together are all counted.
 */
function isolatedBatchRunsPerPr(b: number, p: number, skipRedundant: boolean): number {
  if (b === 1) return 1;
  const ids = Array.from({ length: b }, (_, i) => `m${i}`);
  let expected = 0;
  for (let mask = 0; mask < 1 << b; mask++) {
    const isBad = (id: string): boolean => (mask & (1 << Number(id.slice(1)))) !== 0;
    let prob = 1;
    for (let i = 0; i < b; i++) prob *= mask & (1 << i) ? p : 1 - p;
    const results: ProbeResult[] = [];
    const outcome = (runId: string, chain: string[]): ProbeResult => ({
      runId,
      chain,
      passed: !chain.some(isBad),
      failureReason: 'test_run_required_status_failed',
    });
    results.push(outcome('batch', ids));
    let runs = 1;
    for (;;) {
      // The prefix search's own cost: the interaction check's runs are counted by simulate-efficiency.
      const state = searchCulprits(ids, new Set(), results, { skipRedundant, checkInteraction: () => false });
      if (state.probes.length === 0 || results[0]!.passed) break;
      for (const probe of state.probes) {
        runs++;
        // The probe's chain: the candidates below it (its base) and the tested ones.
        results.push(outcome(`r${runs}`, [...probe.base, ...probe.tested]));
      }
    }
    expected += prob * runs;
  }
  return expected / b;
}

/** merge-queue-behaviour Part 2 §2.2: CI runs per submitted PR, [halving + skip, prefix bisection]. */
const NOTES_TABLE: Record<string, [number, number | null]> = {
  '0.05,4': [0.39, 0.37],
  '0.05,8': [0.34, 0.3],
  '0.1,4': [0.53, 0.49],
  '0.1,8': [0.52, 0.48],
  '0.3,4': [0.97, null],
};

const fmt = (x: number, d = 2): string => x.toFixed(d);
console.log(`\n${machineSummary()}`);
for (const sc of scenarios()) {
  const rows: string[] = [];
  for (const p of RATES) {
    for (const b of SIZES) {
      const started = performance.now();
      const r = await simulate(sc, b, p);
      const isolated = isolatedBatchRunsPerPr(b, p, OPTIMIZATION === 'bisection_skip_redundant_tests');
      const notes = NOTES_TABLE[`${p},${b}`];
      const ref = b === 1 ? '1 / 1' : notes ? `${fmt(notes[0])} / ${notes[1] === null ? '—' : fmt(notes[1])}` : '— / —';
      const mean = r.inQueue.reduce((a, x) => a + x, 0) / r.inQueue.length;
      rows.push(
        `| ${p * 100}% | ${b} | ${fmt(r.runs / r.merged)} | ${fmt(r.runs / PRS)} | ${fmt(isolated)} | ${ref} | ${fmt(r.meanGroup, 1)} | ${r.bisectionRuns} | ${r.cancelledRuns} | ${fmt(median(r.inQueue), 0)} | ${fmt(percentile(r.inQueue, 90), 0)} | ${fmt(mean, 0)} | ${r.backlogAtLastArrival} |`,
      );
      console.error(
        `${sc.name} p=${p} b=${b}: ${r.runs} runs, ${r.merged} merged, ${r.failed} failed, ${fmt(r.virtualDays, 1)} virtual days, ${fmt((performance.now() - started) / 1000, 1)} s`,
      );
    }
  }
  console.log(
    `\nScenario ${sc.name}: ${PRS} pull requests per cell, seed ${SEED}, Poisson arrivals every ${sc.arrivalMinutes} min on average, CI ${values['ci-minutes']} min, concurrency ${sc.concurrency}, bisectionConcurrency ${sc.bisectionConcurrency}, batchingMaxWaitTimeMinutes ${sc.maxWaitMinutes}, optimizationMode ${OPTIMIZATION}\n`,
  );
  console.log(
    '| p | batch | CI runs / merged PR | CI runs / submitted PR | one batch alone, exact (per submitted PR) | §2.2 halving+skip / prefix | mean PRs per main run | bisection runs | cancelled runs | time in queue p50 (min) | p90 (min) | mean (min) | in queue at last arrival |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const r of rows) console.log(r);
}
