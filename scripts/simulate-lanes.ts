// Lanes from paths against one line (issue 30 §3, docs/lanes.md#how-much-they-help): a monorepo of
// four areas, each pull request changing one area's files (2 % the CI configuration, a barrier),
// played through the production engine in virtual time as one line (single mode) and as lanes
// computed from `.trunk/trunk.yaml` (parallel mode, nothing uploaded), with the same runners.
//
//   npx tsx scripts/simulate-lanes.ts [--seeds 10] [--pull-requests 120] [--load 0.8]
//     [--failure-rate 0.05] [--flake-rate 0.03] [--ci-minutes 10]
//
// Prints, per arrangement, the median over the seeds (and the range) of p50 and p95 time in queue
// as multiples of the CI duration (the oracle's 1), CI runs per merged pull request and innocent
// ejections per 100 pull requests.
import { parseArgs } from 'node:util';
import { compareLanes, monorepoWorkload } from '../shared/merge-queue/simulation/monorepo-lanes.js';
import type { QueueEfficiency } from '../shared/merge-queue/simulation/queue-efficiency.js';
import { machineSummary, median } from './lib/bench-stats.js';

const { values } = parseArgs({
  options: {
    seeds: { type: 'string', default: '10' },
    'pull-requests': { type: 'string', default: '120' },
    load: { type: 'string', default: '0.8' },
    'failure-rate': { type: 'string', default: '0.05' },
    'flake-rate': { type: 'string', default: '0.03' },
    'ci-minutes': { type: 'string', default: '10' },
  },
});
const cell = {
  load: Number(values.load),
  failureRate: Number(values['failure-rate']),
  flakeRate: Number(values['flake-rate']),
  ciMinutes: Number(values['ci-minutes']),
};
const prs = Number(values['pull-requests']);
const seeds = Array.from({ length: Number(values.seeds) }, (_, i) => i + 1);

type Row = { p50: number; p95: number; runs: number; innocent: number };
const rowOf = (e: QueueEfficiency): Row => ({
  p50: (e.timeInQueueMinutes.p50 ?? NaN) / cell.ciMinutes,
  p95: (e.timeInQueueMinutes.p95 ?? NaN) / cell.ciMinutes,
  runs: e.ciRunsPerMerged ?? NaN,
  innocent: (100 * e.innocentEjections) / prs,
});
const rows: Record<'one line' | 'lanes', Row[]> = { 'one line': [], lanes: [] };
for (const seed of seeds) {
  const c = await compareLanes(monorepoWorkload(cell, prs, seed));
  rows['one line'].push(rowOf(c.oneLine));
  rows.lanes.push(rowOf(c.lanes));
}
const show = (xs: number[]) => `${median(xs).toFixed(2)} (${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)})`;
console.log(machineSummary());
console.log(
  `cell: load ${cell.load}, failures ${cell.failureRate}, flakes ${cell.flakeRate}, CI ${cell.ciMinutes} min; ${prs} pull requests × ${seeds.length} seeds`,
);
console.log('| arrangement | p50 ÷ CI | p95 ÷ CI | CI runs per merged | innocent ejections / 100 |');
console.log('|---|---|---|---|---|');
for (const [name, r] of Object.entries(rows)) {
  console.log(`| ${name} | ${show(r.map((x) => x.p50))} | ${show(r.map((x) => x.p95))} | ${show(r.map((x) => x.runs))} | ${show(r.map((x) => x.innocent))} |`);
}
