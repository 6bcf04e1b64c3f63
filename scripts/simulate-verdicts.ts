// Acting on verdicts in the simulator (issue 26, docs/efficiency.md): seeded workloads where 5 %
// of pull requests break the build, 3 % of runs flake on a test known as flaky and 1 % fail for
// their infrastructure (no test results uploaded), played through the engine with the flaky
// re-test on and the verdict rules off (notItsFaultRetries 0) and on (1), without and with
// batching. Reports innocent ejections per 100 pull requests, CI runs per merged pull request, the
// median time in queue, and the plays in which a group was held (it waits for a person there).
//
//   npx tsx scripts/simulate-verdicts.ts [--prs 200] [--seeds 10] [--ci 10,30]
import { parseArgs } from 'node:util';
import { RUNNERS, workloadOf } from '../shared/merge-queue/simulation/efficiency-benchmark.js';
import { DEFAULT_SETTINGS, type FullSettings } from '../shared/merge-queue/simulation/what-if.js';
import { playWorkload } from '../shared/merge-queue/simulation/workload.js';
import { machineSummary } from './lib/bench-stats.js';
import { medianFigures, playFigures, type PlayFigures } from './lib/play-figures.js';

const { values } = parseArgs({
  options: { prs: { type: 'string', default: '200' }, seeds: { type: 'string', default: '10' }, ci: { type: 'string', default: '10,30' } },
});
const pullRequests = Number(values.prs);
const seeds = Array.from({ length: Number(values.seeds) }, (_, i) => i + 1);
const ciDurations = values.ci.split(',').map(Number);
const RATES = { load: 0.8, failureRate: 0.05, flakeRate: 0.03, infraFailureRate: 0.01 };
/** A held group waits for a person; a play stops after this many events rather than wait forever. */
const MAX_EVENTS = 20_000;

function configs(ciMinutes: number): { name: string; settings: FullSettings }[] {
  const base = { ...DEFAULT_SETTINGS, concurrency: RUNNERS, bisectionConcurrency: RUNNERS, flakyRetries: 1 };
  return [
    { name: `concurrency ${RUNNERS}, no batching`, settings: base },
    { name: `concurrency ${RUNNERS}, batches of 4`, settings: { ...base, batch: true, batchingMinSize: 4, batchingMaxWaitTimeMinutes: ciMinutes / 4 } },
  ];
}

interface Result extends PlayFigures {
  /** Plays stopped with a group held (nobody there to restart or cancel it). */
  held: number;
}

async function measure(settings: FullSettings, ciMinutes: number, notItsFaultRetries: number): Promise<Result> {
  const plays: PlayFigures[] = [];
  let held = 0;
  for (const seed of seeds) {
    const workload = { ...workloadOf({ ...RATES, ciMinutes }, pullRequests, seed), flakyTestResults: true, infraFailureRate: RATES.infraFailureRate };
    const outcome = await playWorkload({ ...settings, notItsFaultRetries }, workload, { maxEvents: MAX_EVENTS });
    if (!outcome.truncated) plays.push(playFigures(outcome, pullRequests));
    else if (outcome.entries.some((e) => e.lastReason === 'test_run_held_not_its_fault')) held++;
    else throw new Error(`seed ${seed} did not finish`);
  }
  return { ...medianFigures(plays), held };
}

const lines = [
  `${pullRequests} pull requests per play, seeds ${seeds[0]}–${seeds.at(-1)} (medians over the plays that finished); load ${RATES.load * 100} % of ${RUNNERS} runners, ${RATES.failureRate * 100} % of pull requests break the build, ${RATES.flakeRate * 100} % of runs flake (known flaky), ${RATES.infraFailureRate * 100} % fail for their infrastructure; flakyRetries 1; ${machineSummary()}`,
  '',
  '| CI (min) | queue | verdict rules | innocent ejections / 100 PRs | CI runs / merged PR | time in queue p50 (min) | plays held |',
  '|---|---|---|---|---|---|---|',
];
for (const ci of ciDurations) {
  for (const c of configs(ci)) {
    for (const retries of [0, 1]) {
      const r = await measure(c.settings, ci, retries);
      lines.push(
        `| ${ci} | ${c.name} | ${retries === 0 ? 'off (notItsFaultRetries 0)' : 'on (notItsFaultRetries 1)'} | ${r.innocentPer100.toFixed(1)} | ${r.ciRunsPerMerged.toFixed(2)} | ${r.p50Minutes.toFixed(0)} | ${r.held} of ${seeds.length} |`,
      );
      process.stderr.write(`${lines.at(-1)}\n`);
    }
  }
}
console.log(lines.join('\n'));
