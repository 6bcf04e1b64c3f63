// Random queues and a random world around them (CI answers, readiness, user actions), for the
// convergence property tests. Seeded, so a failure names the seed that reproduces it.
import type { Entry } from '../domain/model.js';
import { entry, queue } from './builders.js';
import type { ImpactedTargetSet, PlannerQueue } from '../domain/planner/types.js';
import { Simulator } from './simulator.js';
import { rng } from '../../platform/seeded-random.js';

export interface WorldOptions {
  mode?: 'single' | 'parallel';
  /** Every entry medium priority (then merge order must follow admission order). */
  uniformPriority?: boolean;
  timeouts?: boolean;
  /** Some entries conflict with whatever is below them when a branch is built. */
  conflicts?: boolean;
}

export interface RandomWorld {
  sim: Simulator;
  random: () => number;
  /** Entries still to be made ready, in admission order. */
  waiting: string[];
  uniformPriority: boolean;
}

export function randomWorld(seed: number, o: WorldOptions = {}): RandomWorld {
  const random = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const n = 2 + Math.floor(random() * 10);
  const mode = o.mode ?? (random() < 0.3 ? 'parallel' : 'single');
  const q: PlannerQueue = queue({
    mode,
    concurrency: 1 + Math.floor(random() * 4),
    bisectionConcurrency: 1 + Math.floor(random() * 3),
    batch: random() < 0.45,
    batchingMinSize: 2 + Math.floor(random() * 3),
    batchingMaxWaitTimeMinutes: pick([0, 5, 10]),
    pendingFailureDepth: pick([0, 0, 1, 2]),
    canOptimisticallyMerge: random() < 0.5,
    optimizationMode: random() < 0.5 ? 'off' : 'bisection_skip_redundant_tests',
    testingTimeoutMinutes: o.timeouts ? 30 : 0,
  });
  const uniform = o.uniformPriority ?? random() < 0.5;
  const entries: Entry[] = [];
  const targets: Record<string, ImpactedTargetSet> = {};
  const bad = new Set<string>();
  const conflicts = new Set<string>();
  for (let i = 1; i <= n; i++) {
    const priorityValue = uniform ? 100 : pick([0, 10, 100, 100, 200]);
    entries.push(
      entry(i, {
        state: 'not_ready',
        priorityValue,
        noBatch: random() < 0.15,
        readiness: { doesBaseBranchMatch: true, gitHubMergeability: 'in_progress', requiresImpactedTargets: mode === 'parallel', hasImpactedTargets: true },
      }),
    );
    const roll = random();
    targets[`e${i}`] = roll < 0.1 ? 'ALL' : roll < 0.2 ? [] : ['a', 'b', 'c', 'd'].filter(() => random() < 0.4);
    if (random() < 0.25) bad.add(`e${i}`);
    if (o.conflicts && random() < 0.1) conflicts.add(`e${i}`);
  }
  const sim = new Simulator({ queue: q, entries, targets, bad, conflicts });
  return { sim, random, waiting: entries.map((e) => e.id), uniformPriority: uniform };
}

/** Makes the next waiting entry ready (mergeable). */
export function makeReady(w: RandomWorld): void {
  const id = w.waiting.shift();
  if (!id) return;
  const e = w.sim.entries.get(id)!;
  e.readiness = { ...e.readiness, gitHubMergeability: 'mergeable' };
  e.version++;
}

/** Concludes a random running run as CI would (optionally flaky). */
export async function answerCi(w: RandomWorld, flakeRate = 0): Promise<boolean> {
  const running = w.sim.inProgress();
  if (running.length === 0) return false;
  const r = running[Math.floor(w.random() * running.length)]!;
  let verdict = w.sim.verdict(r);
  if (w.random() < flakeRate) verdict = verdict === 'succeeded' ? 'failed' : 'succeeded';
  await w.sim.conclude(r.id, verdict, verdict === 'succeeded' ? 'test_run_passed' : 'test_run_failed');
  return true;
}

/** Moves the clock to the planner's wake-up time, or an hour on. */
export function advanceTime(w: RandomWorld, minutes?: number): void {
  const wake = w.sim.lastWake?.getTime();
  w.sim.now = minutes !== undefined ? w.sim.now + minutes * 60_000 : wake !== undefined && wake > w.sim.now ? wake : w.sim.now + 3_600_000;
}
