// Benchmark of one planning pass (issue 4): the pure planner over a queue of 1,000 entries, in
// single and parallel mode, timed over many passes (median and p99).
//
//   npx tsx scripts/bench-planner.ts [--entries 1000] [--passes 300] [--runs 3] [--concurrency 10]
//     [--only <text>]   (only the scenarios whose name contains <text>)
//
// Each scenario's PlanInput is built in memory the way the engine would see it: the engine's own
// planning pass, in the simulator (shared/merge-queue/simulation), brings a queue of pending
// entries to the state the scenario names (runs started on their predicted bases, a run that
// just concluded, …); the snapshot of that state is then planned `passes` times. plan() is pure,
// so every pass does the same work; only the call is timed (no database, no git). Each scenario
// is measured `runs` times (after a warm-up); the table gives the median of the runs' medians
// and of their p99s.
import { parseArgs } from 'node:util';
import { plan } from '../shared/merge-queue/domain/planner/index.js';
import type { Action, ImpactedTargetSet, PlanInput, PlannerQueue } from '../shared/merge-queue/domain/planner/index.js';
import { entry, queue } from '../shared/merge-queue/simulation/builders.js';
import { rng } from '../shared/platform/seeded-random.js';
import { Simulator } from '../shared/merge-queue/simulation/simulator.js';
import { machineSummary, median, percentile } from './lib/bench-stats.js';

const { values } = parseArgs({
  options: {
    entries: { type: 'string', default: '1000' },
    passes: { type: 'string', default: '300' },
    runs: { type: 'string', default: '3' },
    concurrency: { type: 'string', default: '10' },
    only: { type: 'string', default: '' },
  },
});
const N = Number(values.entries);
const PASSES = Number(values.passes);
const RUNS = Number(values.runs);
const CONCURRENCY = Number(values.concurrency);

interface Scenario {
  name: string;
  /** Action kinds the pass must decide (none: a pass with nothing to do); checked before timing. */
  decides: Action['kind'][];
  /** Builds the snapshot (lazily: only the scenarios asked for are built). */
  build: () => Promise<PlanInput>;
  /** Fewer passes for a scenario whose passes take long. */
  passes?: number;
}

/** Impacted targets of a monorepo: 1–3 of 200 targets per pull request, 1% `ALL`, seeded. */
function monorepoTargets(n: number): Record<string, ImpactedTargetSet> {
  const random = rng(42);
  const out: Record<string, ImpactedTargetSet> = {};
  for (let i = 1; i <= n; i++) {
    if (random() < 0.01) {
      out[`e${i}`] = 'ALL';
      continue;
    }
    const k = 1 + Math.floor(random() * 3);
    out[`e${i}`] = Array.from({ length: k }, () => `//svc/t${Math.floor(random() * 200)}:test`);
  }
  return out;
}

/** `perEntry` targets per pull request, all its own but one of 500 shared ones. */
function bigTargets(n: number, perEntry: number): Record<string, ImpactedTargetSet> {
  const random = rng(7);
  const out: Record<string, ImpactedTargetSet> = {};
  for (let i = 1; i <= n; i++) {
    const own = Array.from({ length: perEntry - 1 }, (_, k) => `//pr${i}/pkg${k}:test`);
    out[`e${i}`] = [...own, `//shared/s${Math.floor(random() * 500)}:test`];
  }
  return out;
}

function simulator(over: Partial<PlannerQueue>, targets: Record<string, ImpactedTargetSet> = {}): Simulator {
  const entries = Array.from({ length: N }, (_, i) => entry(i + 1));
  return new Simulator({ queue: queue({ concurrency: CONCURRENCY, ...over }), entries, targets, checkDeterminism: false });
}

/** The simulator's snapshot after settling, with `then` applied to its first running run. */
async function settled(over: Partial<PlannerQueue>, targets: Record<string, ImpactedTargetSet>, then?: 'succeeded' | 'failed'): Promise<PlanInput> {
  const sim = simulator(over, targets);
  await sim.settle();
  if (then) await sim.conclude(sim.inProgress()[0]!.id, then, then === 'succeeded' ? 'test_run_passed' : 'test_run_failed');
  return sim.snapshot();
}

function scenarios(): Scenario[] {
  const out: Scenario[] = [];
  for (const mode of ['single', 'parallel'] as const) {
    const targets = (): Record<string, ImpactedTargetSet> => (mode === 'parallel' ? monorepoTargets(N) : {});
    const q = { mode };
    out.push({ name: `${mode}: ${N} pending, no run yet`, decides: ['start_run'], build: () => simulator(q, targets()).snapshot() });
    out.push({ name: `${mode}: ${CONCURRENCY} runs in progress, nothing to do`, decides: [], build: () => settled(q, targets()) });
    out.push({ name: `${mode}: the first run passed`, decides: ['merge'], build: () => settled(q, targets(), 'succeeded') });
    out.push({ name: `${mode}: the first run failed`, decides: ['transition_entry', 'start_run'], build: () => settled(q, targets(), 'failed') });
  }
  // Large uploads: 1,000 targets per pull request (a Bazel monorepo), a few of them shared.
  out.push({
    name: `parallel, 1,000 targets per entry: ${CONCURRENCY} runs in progress`,
    decides: [],
    build: () => settled({ mode: 'parallel' }, bigTargets(N, 1000)),
    passes: Math.min(PASSES, 30),
  });
  const batch = {
    batch: true,
    batchingMinSize: 8,
    batchingMaxWaitTimeMinutes: 0,
    bisectionConcurrency: 4,
    optimizationMode: 'bisection_skip_redundant_tests' as const,
  };
  out.push({ name: `single, batches of 8: the first batch failed`, decides: ['transition_entry', 'start_run'], build: () => settled(batch, {}, 'failed') });
  return out;
}

/** The actions of one pass, counted by kind; throws when the scenario does not decide what it should. */
function summarize(s: Scenario, input: PlanInput): string {
  const { actions } = plan(input);
  const counts = new Map<string, number>();
  for (const a of actions) counts.set(a.kind, (counts.get(a.kind) ?? 0) + 1);
  const ok = s.decides.length === 0 ? actions.length === 0 : s.decides.every((k) => counts.has(k));
  if (!ok) throw new Error(`${s.name}: expected ${s.decides.join(', ') || 'no action'}, got ${[...counts.keys()].join(', ') || 'none'}`);
  return [...counts].map(([k, n]) => `${n} ${k}`).join(', ') || 'none';
}

function measure(input: PlanInput, passes: number): number[] {
  for (let i = 0; i < Math.min(30, passes); i++) plan(input);
  const samples: number[] = [];
  for (let i = 0; i < passes; i++) {
    const t = performance.now();
    plan(input);
    samples.push(performance.now() - t);
  }
  return samples;
}

const rows: string[] = [];
const fmt = (ms: number) => ms.toFixed(2);
for (const s of scenarios().filter((x) => x.name.includes(values.only!))) {
  const input = await s.build();
  const decided = summarize(s, input);
  const runs = Array.from({ length: RUNS }, () => measure(input, s.passes ?? PASSES));
  const medians = runs.map((samples) => median(samples));
  const p99s = runs.map((samples) => percentile(samples, 99));
  rows.push(
    `| ${s.name} | ${input.entries.length} | ${input.runs.length} | ${decided} | ${fmt(median(medians))} | ${fmt(median(p99s))} | ${medians.map(fmt).join(', ')} |`,
  );
  console.error(`${s.name}: median ${fmt(median(medians))} ms`);
}
console.log(`\n${machineSummary()}; ${RUNS} runs × ${PASSES} passes per scenario (30 for the 1,000-target one), concurrency ${CONCURRENCY}\n`);
console.log('| scenario | entries | runs | actions of the pass | median (ms) | p99 (ms) | run medians (ms) |');
console.log('|---|---|---|---|---|---|---|');
for (const r of rows) console.log(r);
