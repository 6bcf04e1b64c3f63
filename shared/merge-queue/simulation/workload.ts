// A workload played against the engine in virtual time: pull requests arrive, CI takes its time
// and answers (a run fails when its branch holds a breaking change, or by a flake), people push
// to the target branch outside the queue. Between events (an arrival, a run ending, a push, a
// wake-up the planner asked for, a run's timeout) the engine's planning pass runs (simulator.ts).
import type { Entry, EntryStack, TestRun } from '../domain/model.js';
import type { ImpactedTargetSet, PlannerQueue } from '../domain/planner/types.js';
import { entry, queue } from './builders.js';
import { rng } from '../../platform/seeded-random.js';
import { EventLoopTurns } from '../../platform/runtime/event-loop-turns.js';
import { SIM_START, Simulator } from './simulator.js';
import type { LinkedFailedTest, RunTestResults, RunTestResultsSource } from '../services/run-test-results.js';

export interface WorkloadPullRequest {
  /** Minutes after the workload's start. */
  arrivesAt: number;
  /** Its change breaks the build: every run whose branch holds it fails. */
  breaks: boolean;
  /** What it impacts (parallel mode); unknown means everything, unless `files` and the repository's lanes say. */
  impactedTargets?: ImpactedTargetSet;
  /** The files its change writes (default: one of its own); with no impacted targets, the repository's lanes read them. */
  files?: string[];
  /**
   * The index of the pull request below it in a stack (docs/pull-requests.md#stacks): it is based
   * on that one's head branch and queued with it as one unit. The member below arrives no later.
   */
  below?: number;
}

export interface Workload {
  pullRequests: WorkloadPullRequest[];
  /** Minutes a CI run takes, each run drawing one of these at random (one value: a fixed duration). */
  ciMinutes: number[];
  /** Chance that a run that should pass fails anyway. */
  flakeRate: number;
  /**
   * The flake model of re-test instead of eject (issue 12): CI uploads test results for every
   * run, a flake fails a test already known as flaky and a breaking change fails a test that is
   * not, so the queue can tell the two apart (with `flakyRetries` > 0 it tests a flaked group
   * again). Without it runs have no test results and every failure is taken as real.
   */
  flakyTestResults?: boolean;
  /**
   * Chance that a run fails for its infrastructure (a runner lost, a service down), whatever it
   * tests, and uploads no test results (with `flakyTestResults`): the verdict's `no_results`.
   */
  infraFailureRate?: number;
  /** Files of the repository besides the simulator's own (a `.trunk/trunk.yaml` mapping paths to lanes). */
  repoFiles?: Record<string, string>;
  /** Minutes after the start at which someone pushes to the target branch outside the queue. */
  outsidePushes?: number[];
  seed: number;
}

/** The queue settings a workload is played with (the rest are the builders' defaults). */
export type SimulatedSettings = Partial<Omit<PlannerQueue, 'id' | 'state' | 'version' | 'pendingMode'>>;

export interface PlayLimits {
  /** Stop after this many events (a pathological setting must not run forever). */
  maxEvents?: number;
  /** Check the planner's determinism before every pass (doubles the planning cost). */
  checkDeterminism?: boolean;
  /** Looks at the simulation at given minutes (after the planning pass of that moment), e.g. to take a forecast. */
  looks?: { atMinute: number; look: (sim: Simulator) => Promise<void> }[];
}

export interface WorkloadOutcome {
  entries: Entry[];
  runs: TestRun[];
  /** Entry ids of the pull requests whose change breaks the build. */
  breaking: ReadonlySet<string>;
  /** Virtual minutes from the start to the last event. */
  minutes: number;
  /** True when maxEvents stopped the play before every pull request finished. */
  truncated: boolean;
}

const MINUTE = 60_000;
const DEFAULT_MAX_EVENTS = 200_000;

export const entryIdOf = (index: number): string => `e${index + 1}`;

/** Each pull request's place in its stack (null for a lone one), from the workload's `below` links. */
function stackPlaces(prs: readonly WorkloadPullRequest[]): (EntryStack | null)[] {
  const above = new Map<number, number>();
  prs.forEach((p, i) => {
    if (p.below !== undefined) above.set(p.below, i);
  });
  const places: (EntryStack | null)[] = prs.map(() => null);
  prs.forEach((p, bottom) => {
    if (p.below !== undefined || !above.has(bottom)) return;
    const chain = [bottom];
    for (let next = above.get(bottom); next !== undefined; next = above.get(next)) chain.push(next);
    chain.forEach((index, k) => {
      places[index] = {
        id: `q1:${bottom + 1}`,
        position: k + 1,
        size: chain.length,
        belowPr: k === 0 ? null : chain[k - 1]! + 1,
        belowHeadBranch: k === 0 ? null : `feature-${chain[k - 1]! + 1}`,
      };
    });
  });
  return places;
}

/** One upload per run: a breaking change fails `broken_test`, a flake fails `flaky_test` (known flaky). */
function simulatedResults(breaks: boolean, passes: boolean): RunTestResults {
  const failed = (name: string, flaky: boolean): LinkedFailedTest => ({
    id: name,
    name,
    classname: null,
    file: null,
    status: flaky ? 'flaky' : 'healthy',
    quarantined: false,
    before: { flaky, quarantined: false },
  });
  const failedTests = breaks ? [failed('broken_test', false)] : passes ? [] : [failed('flaky_test', true)];
  return { uploads: 1, runs: 2, failed: failedTests.length, failedTests };
}

export async function playWorkload(settings: SimulatedSettings, w: Workload, limits: PlayLimits = {}): Promise<WorkloadOutcome> {
  const random = rng(w.seed);
  const start = SIM_START.getTime();
  const breaking = new Set(w.pullRequests.flatMap((p, i) => (p.breaks ? [entryIdOf(i)] : [])));
  const stacks = stackPlaces(w.pullRequests);
  const results = new Map<string, RunTestResults>();
  const testResults: RunTestResultsSource = {
    resultsOf: async (_orgId, _repo, runs) => new Map(runs.flatMap((r) => (results.has(r.id) ? [[r.id, results.get(r.id)!] as const] : []))),
    uploadsResults: async () => true,
    // The simulated CI uploads results for test branches only, never for commits of the target.
    outcomesAt: async () => new Map(),
    failuresAt: async () => null,
  };
  const sim = new Simulator({
    queue: queue(settings),
    entries: [],
    bad: breaking,
    checkDeterminism: limits.checkDeterminism ?? false,
    start,
    ...(w.flakyTestResults ? { testResults } : {}),
    ...(w.repoFiles ? { repoFiles: w.repoFiles } : {}),
  });
  const arrivals = w.pullRequests.map((p, i) => ({ at: start + p.arrivesAt * MINUTE, index: i })).sort((a, b) => a.at - b.at);
  const pushes = (w.outsidePushes ?? []).map((m) => start + m * MINUTE).sort((a, b) => a - b);
  const endsAt = new Map<string, number>();
  const looks = [...(limits.looks ?? [])].map((l) => ({ at: start + l.atMinute * MINUTE, look: l.look })).sort((a, b) => a.at - b.at);
  let nextLook = 0;
  let nextArrival = 0;
  let nextPush = 0;
  let events = 0;
  const maxEvents = limits.maxEvents ?? DEFAULT_MAX_EVENTS;
  // The in-memory repositories settle every await at once: without turns, a replay inside the
  // API process (simulateQueue) would hold every other request until it ended.
  const turns = new EventLoopTurns();
  for (; events < maxEvents; events++) {
    await turns.pace();
    const running = sim.inProgress();
    for (const r of running) {
      if (!endsAt.has(r.id)) endsAt.set(r.id, r.createdAt.getTime() + w.ciMinutes[Math.floor(random() * w.ciMinutes.length)]! * MINUTE);
    }
    const wake = sim.lastWake?.getTime();
    const candidates = [
      ...running.map((r) => endsAt.get(r.id)!),
      ...[...sim.timeouts.values()].map((d) => d.getTime()),
      ...(nextArrival < arrivals.length ? [arrivals[nextArrival]!.at] : []),
      ...(nextPush < pushes.length ? [pushes[nextPush]!] : []),
      ...(nextLook < looks.length ? [looks[nextLook]!.at] : []),
      ...(wake !== undefined && wake > sim.now ? [wake] : []),
    ];
    if (candidates.length === 0) break;
    sim.now = Math.max(sim.now, Math.min(...candidates));
    for (; nextArrival < arrivals.length && arrivals[nextArrival]!.at <= sim.now; nextArrival++) {
      const { at, index } = arrivals[nextArrival]!;
      const n = index + 1;
      const p = w.pullRequests[index]!;
      // Files without targets: no upload, the lanes from paths decide (docs/lanes.md).
      const targets = p.impactedTargets ?? (p.files ? undefined : 'ALL');
      const stack = stacks[index]!;
      const base = stack?.belowHeadBranch ?? 'main';
      const submitted = entry(n, { state: 'not_ready', seq: n, submittedAt: new Date(at), stateChangedAt: new Date(at), stack, prBaseBranch: base });
      // Without an upload, readiness is decided as for a real submission: by the engine, from the forge and the lanes.
      if (targets === undefined) submitted.readiness = { ...submitted.readiness, gitHubMergeability: 'in_progress' };
      sim.addEntry(submitted, targets, p.files);
    }
    for (; nextPush < pushes.length && pushes[nextPush]! <= sim.now; nextPush++) sim.pushOutside(`push${nextPush + 1}`);
    for (const r of running) {
      if (endsAt.get(r.id)! > sim.now) continue;
      // Drawn only when modelled, so seeded workloads without infrastructure failures play as before.
      const infra = (w.infraFailureRate ?? 0) > 0 && random() < w.infraFailureRate!;
      const breaks = sim.verdict(r) === 'failed';
      const passes = !infra && !breaks && random() >= w.flakeRate;
      if (w.flakyTestResults && !infra) results.set(r.id, simulatedResults(breaks, passes));
      await sim.conclude(r.id, passes ? 'succeeded' : 'failed', passes ? 'test_run_passed' : 'test_run_failed');
    }
    await sim.settle();
    for (; nextLook < looks.length && looks[nextLook]!.at <= sim.now; nextLook++) await looks[nextLook]!.look(sim);
  }
  const entries = [...sim.entries.values()];
  return {
    entries,
    runs: [...sim.runs.values()],
    breaking,
    minutes: (sim.now - start) / MINUTE,
    truncated: events >= maxEvents && !sim.allTerminal(),
  };
}
