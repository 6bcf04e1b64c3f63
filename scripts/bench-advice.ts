// How long POST /v1/simulateQueue makes its caller wait for settings advice: the advice (its grid
// and refinements, each a replay of the queue's history through the production engine) on a
// history of `--prs` pull requests, the efficiency benchmark's target workload (80 % load, 5 %
// failures, 3 % known flakes, 10-minute CI, concurrency 4), with the cost goal the benchmark asks
// for (p50 ≤ 1.2 ×, p95 ≤ 3 × the CI duration). Reading the history from the store is left out: it
// is one bounded read, the replays are the wait.
//
//   npx tsx scripts/bench-advice.ts [--prs 500,1000] [--runs 3]
import { parseArgs } from 'node:util';
import { RUNNERS, workloadOf } from '../shared/merge-queue/simulation/efficiency-benchmark.js';
import { adviseSettings } from '../shared/merge-queue/simulation/settings-advice.js';
import { DEFAULT_SETTINGS } from '../shared/merge-queue/simulation/what-if.js';
import { machineSummary, median } from './lib/bench-stats.js';

const { values } = parseArgs({ options: { prs: { type: 'string', default: '500,1000' }, runs: { type: 'string', default: '3' } } });
const SIZES = values.prs.split(',').map(Number);
const RUNS = Number(values.runs);
const CELL = { load: 0.8, failureRate: 0.05, flakeRate: 0.03, ciMinutes: 10 };
const GOAL = { kind: 'lowest_ci_cost' as const, maxP50Minutes: 1.2 * CELL.ciMinutes, maxP95Minutes: 3 * CELL.ciMinutes };
const current = { ...DEFAULT_SETTINGS, concurrency: RUNNERS, bisectionConcurrency: RUNNERS };

const rows: string[] = [];
for (const size of SIZES) {
  const workload = workloadOf(CELL, size, 1);
  const history = { from: new Date(0), to: new Date(0), workload, pullRequestsSeen: size, sampled: false, notes: [] };
  const times: number[] = [];
  let replays = 0;
  for (let r = 0; r < RUNS; r++) {
    const started = performance.now();
    const advice = await adviseSettings(history, current, GOAL);
    times.push(performance.now() - started);
    replays = advice.tried.length;
    process.stderr.write(`${size} pull requests, run ${r + 1}: ${(times.at(-1)! / 1000).toFixed(1)} s, ${replays} replays\n`);
  }
  const ms = median(times);
  rows.push(
    `| ${size.toLocaleString('en')} | ${replays} | ${(ms / 1000).toFixed(1)} | ${(ms / replays / 1000).toFixed(2)} | ${times.map((t) => (t / 1000).toFixed(1)).join(' · ')} |`,
  );
}
console.log(`Measured with \`npx tsx scripts/bench-advice.ts --prs ${values.prs} --runs ${RUNS}\` on ${machineSummary()}.\n`);
console.log('| pull requests in the history | replays | advice, median (s) | per replay (s) | runs (s) |');
console.log('|---|---|---|---|---|');
for (const row of rows) console.log(row);
