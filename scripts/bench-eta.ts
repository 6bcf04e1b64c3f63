// Accuracy of the estimated time to merge (issue 14 §3) on a simulated day: pull requests arrive
// at random, CI takes a random time and fails for bad changes; every few virtual minutes each
// pull request in the queue gets an estimate from the same pure function the API uses
// (shared/merge-queue/domain/time-to-merge.ts), fed as the service feeds it (position, the
// concurrency, the last day's concluded runs, the time its run has been going). At the end each
// estimate of a pull request that merged is compared with when it actually merged.
//
//   npx tsx scripts/bench-eta.ts [--hours 24] [--arrival-minutes 12] [--ci-minutes 20-40]
//     [--bad 0.1] [--concurrency 3] [--sample-minutes 10] [--seed 1]
//
// The engine's own planning pass runs in virtual time in the simulator
// (shared/merge-queue/simulation); CI durations are uniform in the given range.
import { parseArgs } from 'node:util';
import type { Entry } from '../shared/merge-queue/domain/model.js';
import { aheadOf, estimateTimeToMerge, type RunSample } from '../shared/merge-queue/domain/time-to-merge.js';
import { entry, queue, T0 } from '../shared/merge-queue/simulation/builders.js';
import { rng } from '../shared/platform/seeded-random.js';
import { Simulator } from '../shared/merge-queue/simulation/simulator.js';
import { machineSummary, median, percentile } from './lib/bench-stats.js';

const { values } = parseArgs({
  options: {
    hours: { type: 'string', default: '24' },
    'arrival-minutes': { type: 'string', default: '12' },
    'ci-minutes': { type: 'string', default: '20-40' },
    bad: { type: 'string', default: '0.1' },
    concurrency: { type: 'string', default: '3' },
    'sample-minutes': { type: 'string', default: '10' },
    seed: { type: 'string', default: '1' },
  },
});
const MINUTE = 60_000;
const HOURS = Number(values.hours);
const ARRIVAL = Number(values['arrival-minutes']);
const [CI_MIN, CI_MAX] = values['ci-minutes']!.split('-').map(Number) as [number, number];
const BAD = Number(values.bad);
const CONCURRENCY = Number(values.concurrency);
const SAMPLE_EVERY = Number(values['sample-minutes']) * MINUTE;
const random = rng(Number(values.seed));

interface Prediction {
  entryId: string;
  at: number;
  position: number;
  estimate: number;
  low: number;
  high: number;
}

const bad = new Set<string>();
// The simulator reads `bad` as pull requests arrive, so a change decided at arrival is seen.
const sim = new Simulator({ queue: queue({ concurrency: CONCURRENCY }), entries: [], bad });
const end = T0.getTime() + HOURS * 3_600_000;
const arrivals: number[] = [];
for (let t = T0.getTime() - Math.log(1 - random()) * ARRIVAL * MINUTE; t < end; t -= Math.log(1 - random()) * ARRIVAL * MINUTE) arrivals.push(t);
const ciMs = new Map<string, number>();
const durationOf = (runId: string) => {
  if (!ciMs.has(runId)) ciMs.set(runId, (CI_MIN + random() * (CI_MAX - CI_MIN)) * MINUTE);
  return ciMs.get(runId)!;
};
const predictions: Prediction[] = [];
const active = () => [...sim.entries.values()].filter((e) => !['merged', 'failed', 'cancelled'].includes(e.state));

function samplesAt(now: number): RunSample[] {
  return [...sim.runs.values()]
    .filter((r) => r.concludedAt && r.concludedAt.getTime() >= now - 86_400_000 && r.status !== 'cancelled')
    .map((r) => ({ durationSeconds: (r.concludedAt!.getTime() - r.createdAt.getTime()) / 1000, failed: r.status === 'failed' }));
}

function predict(now: number): void {
  const queued = active();
  const samples = samplesAt(now);
  for (const e of queued) {
    const ahead = aheadOf(e, queued);
    if (!ahead) continue;
    const position = ahead.length;
    // As the service computes it: the runs going at or ahead of it, once each.
    const running = new Set(ahead.flatMap((x) => (x.currentRunId && x.state !== 'pending' ? [x.currentRunId] : [])));
    const runningElapsedSeconds = [...running].map((id) => (now - sim.runs.get(id)!.createdAt.getTime()) / 1000);
    const t = estimateTimeToMerge({ position, concurrency: CONCURRENCY, groupSize: 1, samples, runningElapsedSeconds });
    if (t) predictions.push({ entryId: e.id, at: now, position, ...t });
  }
}

let next = 0;
let nextSample = T0.getTime() + SAMPLE_EVERY;
const mergedAt = new Map<string, number>();
for (;;) {
  const finishing = sim.inProgress().map((r) => r.createdAt.getTime() + durationOf(r.id));
  const candidates = [
    ...finishing,
    ...(next < arrivals.length ? [arrivals[next]!] : []),
    ...(active().length > 0 || next < arrivals.length ? [nextSample] : []),
  ];
  if (candidates.length === 0) break;
  sim.now = Math.min(...candidates);
  while (next < arrivals.length && arrivals[next]! <= sim.now) {
    next++;
    const at = new Date(arrivals[next - 1]!);
    if (random() < BAD) bad.add(`e${next}`);
    sim.addEntry(entry(next, { submittedAt: at, stateChangedAt: at }));
  }
  for (const r of sim.inProgress()) {
    if (r.createdAt.getTime() + durationOf(r.id) <= sim.now) {
      const verdict = sim.verdict(r);
      await sim.conclude(r.id, verdict, verdict === 'succeeded' ? 'test_run_passed' : 'test_run_failed');
    }
  }
  await sim.settle();
  for (const e of sim.entries.values()) if (e.state === 'merged' && !mergedAt.has(e.id)) mergedAt.set(e.id, e.stateChangedAt.getTime());
  if (sim.now >= nextSample) {
    predict(sim.now);
    nextSample += SAMPLE_EVERY;
  }
}

const scored = predictions.filter((p) => mergedAt.has(p.entryId)).map((p) => ({ ...p, actual: (mergedAt.get(p.entryId)! - p.at) / 1000 }));
const row = (label: string, list: typeof scored) => {
  if (list.length === 0) return `| ${label} | 0 | – | – | – | – |`;
  const errors = list.map((p) => Math.abs(p.estimate - p.actual) / 60);
  const within = list.filter((p) => p.actual >= p.low && p.actual <= p.high).length / list.length;
  const bias = median(list.map((p) => (p.estimate - p.actual) / 60));
  return `| ${label} | ${list.length} | ${median(errors).toFixed(1)} | ${percentile(errors, 90).toFixed(1)} | ${bias.toFixed(1)} | ${(within * 100).toFixed(0)}% |`;
};
const entries: Entry[] = [...sim.entries.values()];
console.log(
  `simulated ${HOURS} h: ${entries.length} pull requests (${bad.size} bad), ${mergedAt.size} merged, ${sim.runs.size} runs; ` +
    `arrival every ${ARRIVAL} min on average, CI ${CI_MIN}–${CI_MAX} min, concurrency ${CONCURRENCY}, an estimate every ${SAMPLE_EVERY / MINUTE} min per queued pull request; seed ${values.seed}`,
);
console.log(machineSummary());
console.log('\n| position | estimates | median abs. error (min) | p90 abs. error (min) | median bias (min) | actual within range |');
console.log('|---|---|---|---|---|---|');
console.log(row('all', scored));
for (const [label, lo, hi] of [
  ['1', 1, 1],
  ['2–3', 2, 3],
  ['4–6', 4, 6],
  ['7+', 7, Infinity],
] as const) {
  console.log(
    row(
      label,
      scored.filter((p) => p.position >= lo && p.position <= hi),
    ),
  );
}
