// Re-test instead of eject in the simulator (issue 12, docs/benchmarks.md): seeded workloads whose
// runs flake with probability f on tests known as flaky, played through the engine with
// re-testing off (flakyRetries 0) and on (1), without and with batching. Reports innocent
// ejections per 100 pull requests and CI runs per merged pull request (medians over the seeds).
//
//   npx tsx scripts/simulate-flaky-retest.ts [--prs 200] [--seeds 5]
import { parseArgs } from 'node:util';
import { RUNNERS, workloadOf } from '../shared/merge-queue/simulation/efficiency-benchmark.js';
import { DEFAULT_SETTINGS, type FullSettings } from '../shared/merge-queue/simulation/what-if.js';
import { playWorkload } from '../shared/merge-queue/simulation/workload.js';
import { machineSummary } from './lib/bench-stats.js';
import { medianFigures, playFigures, type PlayFigures } from './lib/play-figures.js';

const { values } = parseArgs({ options: { prs: { type: 'string', default: '200' }, seeds: { type: 'string', default: '5' } } });
const pullRequests = Number(values.prs);
const seeds = Array.from({ length: Number(values.seeds) }, (_, i) => i + 1);

const FLAKES = [0.03, 0.1];
const CELL = { load: 0.8, failureRate: 0.05, ciMinutes: 30 };
const CONFIGS: { name: string; settings: FullSettings }[] = [
  { name: `concurrency ${RUNNERS}, no batching`, settings: { ...DEFAULT_SETTINGS, concurrency: RUNNERS, bisectionConcurrency: RUNNERS } },
  {
    name: `concurrency ${RUNNERS}, batches of 4`,
    settings: {
      ...DEFAULT_SETTINGS,
      concurrency: RUNNERS,
      bisectionConcurrency: RUNNERS,
      batch: true,
      batchingMinSize: 4,
      batchingMaxWaitTimeMinutes: CELL.ciMinutes / 4,
    },
  },
];

async function measure(settings: FullSettings, flakeRate: number, flakyRetries: number): Promise<PlayFigures> {
  const plays: PlayFigures[] = [];
  for (const seed of seeds) {
    const workload = { ...workloadOf({ ...CELL, flakeRate }, pullRequests, seed), flakyTestResults: true };
    const outcome = await playWorkload({ ...settings, flakyRetries }, workload);
    if (outcome.truncated) throw new Error(`seed ${seed} did not finish`);
    plays.push(playFigures(outcome, pullRequests));
  }
  return medianFigures(plays);
}

const lines = [
  `${pullRequests} pull requests per play, seeds ${seeds.join(', ')} (medians); load ${CELL.load * 100} % of ${RUNNERS} runners, ${CELL.failureRate * 100} % of pull requests break the build, CI ${CELL.ciMinutes} min; ${machineSummary()}`,
  '',
  '| flake rate f | queue | re-test | innocent ejections / 100 PRs | CI runs / merged PR | time in queue p50 (min) |',
  '|---|---|---|---|---|---|',
];
for (const f of FLAKES) {
  for (const c of CONFIGS) {
    for (const retries of [0, 1]) {
      const r = await measure(c.settings, f, retries);
      lines.push(
        `| ${f * 100} % | ${c.name} | ${retries === 0 ? 'off (flakyRetries 0)' : 'on (flakyRetries 1)'} | ${r.innocentPer100.toFixed(1)} | ${r.ciRunsPerMerged.toFixed(2)} | ${r.p50Minutes.toFixed(0)} |`,
      );
    }
  }
}
console.log(lines.join('\n'));
