// How long POST /v1/simulateQueue makes its caller wait for settings advice: the advice (its grid
// and refinements, each a replay of the queue's history through the production engine) on a
// history of `--prs` pull requests, the efficiency benchmark's target workload (80 % load, 5 %
// failures, 3 % known flakes, 10-minute CI, concurrency 4), with the cost goal the benchmark asks
// for (p50 ≤ 1.2 ×, p95 ≤ 3 × the CI duration). Reading the history from the store is left out: it
// is one bounded read, the replays are the wait.
//
//   npx tsx scripts/bench-advice.ts [--prs 500,1000] [--runs 3] [--threads 0]
//
// --threads N plays the settings side by side in N replay threads, as SIMULATION_THREADS does in
// the service (0: one after another on the calling thread; the threads start before the clock).
// Beside each advice's time: how late its calling thread's timers fired, the median and the
// longest (what another request of an API process would wait on top of its own work).
import { PlayPool } from '../shared/merge-queue/simulation/play-pool.js';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { RUNNERS, workloadOf } from '../shared/merge-queue/simulation/efficiency-benchmark.js';
import { adviseSettings } from '../shared/merge-queue/simulation/settings-advice.js';
import { DEFAULT_SETTINGS, IN_THREAD } from '../shared/merge-queue/simulation/what-if.js';
import { machineSummary, median } from './lib/bench-stats.js';

const { values } = parseArgs({
  options: { prs: { type: 'string', default: '500,1000' }, runs: { type: 'string', default: '3' }, threads: { type: 'string', default: '0' } },
});
const SIZES = values.prs.split(',').map(Number);
const RUNS = Number(values.runs);
const THREADS = Number(values.threads);
const CELL = { load: 0.8, failureRate: 0.05, flakeRate: 0.03, ciMinutes: 10 };
const GOAL = { kind: 'lowest_ci_cost' as const, maxP50Minutes: 1.2 * CELL.ciMinutes, maxP95Minutes: 3 * CELL.ciMinutes };
const current = { ...DEFAULT_SETTINGS, concurrency: RUNNERS, bisectionConcurrency: RUNNERS };

const pool = THREADS > 0 ? new PlayPool(THREADS) : null;
const replayer = pool ?? IN_THREAD;
if (pool) {
  // Started (and their modules loaded) before anything is timed, as in a service that replayed before.
  const warm = workloadOf(CELL, 10, 1);
  await pool.playAll({ from: new Date(0), to: new Date(0), workload: warm, pullRequestsSeen: 10, sampled: false, notes: [] }, Array(THREADS).fill(current));
}

const rows: string[] = [];
for (const size of SIZES) {
  const workload = workloadOf(CELL, size, 1);
  const history = { from: new Date(0), to: new Date(0), workload, pullRequestsSeen: size, sampled: false, notes: [] };
  const times: number[] = [];
  const held: number[] = [];
  const typical: number[] = [];
  let replays = 0;
  for (let r = 0; r < RUNS; r++) {
    const loop = monitorEventLoopDelay({ resolution: 5 });
    loop.enable();
    const started = performance.now();
    const advice = await adviseSettings(history, current, GOAL, { replayer });
    times.push(performance.now() - started);
    loop.disable();
    held.push(loop.max / 1e6);
    typical.push(loop.percentile(50) / 1e6);
    replays = advice.tried.length;
    process.stderr.write(
      `${size} pull requests, run ${r + 1}: ${(times.at(-1)! / 1000).toFixed(1)} s, ${replays} replays, timers late by ${typical.at(-1)!.toFixed(0)} ms (median), ${held.at(-1)!.toFixed(0)} ms at most\n`,
    );
  }
  const ms = median(times);
  rows.push(
    `| ${size.toLocaleString('en')} | ${replays} | ${(ms / 1000).toFixed(1)} | ${(ms / replays / 1000).toFixed(2)} | ${times.map((t) => (t / 1000).toFixed(1)).join(' · ')} | ${median(typical).toFixed(0)} · ${median(held).toFixed(0)} |`,
  );
}
await pool?.close();
console.log(`Measured with \`npx tsx scripts/bench-advice.ts --prs ${values.prs} --runs ${RUNS} --threads ${THREADS}\` on ${machineSummary()}.\n`);
console.log('| pull requests in the history | replays | advice, median (s) | per replay (s) | runs (s) | timers late: median · longest (ms), median of runs |');
console.log('|---|---|---|---|---|---|');
for (const row of rows) console.log(row);
