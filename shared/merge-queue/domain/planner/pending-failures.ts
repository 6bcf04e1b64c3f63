// Resolves groups in pending failure (merge-queue-behaviour §1.8, transition-table rows 12–14,
// 21). A failed group first waits for every group ahead of it: if one of them fails and leaves,
// the group restarts without it (main-groups.ts does that). Once all ahead passed, it waits for
// up to `pendingFailureDepth` groups behind it (that depend on it) to conclude, and for an
// optimistic merge that includes it. Then, in this order: it is held at once while the target
// branch is broken with the tests that failed (and tested again once it is green); it is tested
// again when only known-flaky or quarantined tests failed (waiting a while for its test
// results), or when the verdict on it says the infrastructure or the target branch failed, not
// its changes (notItsFaultRetries times; then it waits, held, with a queue warning); else the
// failure is its own: a single entry fails and a batch is bisected.
import type { Entry, TestRun } from '../model.js';
import { decideFailedRun, type RetestDecision } from '../flaky-retest.js';
import { decideVerdict, failureEnding, verdictInputOf, type VerdictInput } from '../verdict.js';
import { HELD_REASON, HELD_TARGET_BROKEN_REASON } from '../held-failures.js';
import { explainedByBrokenTarget } from '../target-health.js';
import { testNames } from '../flaky-retest.js';
import { buildDependencies, type Dependencies } from './dependencies.js';
import { inBisection, isInFlight } from './entry-states.js';
import { computeLineup, type Line } from './lineup.js';
import { fail, holdersOf } from './main-groups.js';
import { mergeCandidates, type MergeCandidate } from './merging.js';
import { failureReasonOf, runOutcome } from './run-outcome.js';
import type { World } from './world.js';

/** Resolves the first pending-failure group that can be resolved; true when one was. */
export function resolvePendingFailures(world: World): boolean {
  if (world.queue.state === 'paused') return false;
  const line = computeLineup(world);
  const deps = buildDependencies(world, line.entries);
  const candidates = world.queue.canOptimisticallyMerge ? mergeCandidates(world, line, deps) : [];
  for (const run of failedGroupsInLineOrder(world, deps)) {
    const holders = holdersOf(world, run);
    if (!canResolve(world, run, holders, line, deps, candidates)) continue;
    const decision = retestDecision(world, run, holders);
    const step = brokenTargetStep(world, run, holders) ?? flakyStep(decision) ?? notItsFaultStep(world, run, holders);
    if (step) {
      if (take(world, run, holders, step)) return true;
      continue;
    }
    const evidence = decision.kind === 'fail' && decision.evidence ? `; ${decision.evidence}` : '';
    if (holders.length === 1) {
      const e = holders[0]!;
      fail(world, e, failureReasonOf(run), `test run ${run.id} failed and nothing ahead or behind explains it${evidence}`, run.id);
    } else {
      for (const e of holders) {
        world.transition(e, 'pending', 'bisection_required', `the batch of ${holders.length} failed; bisecting it${evidence}`, {
          set: { currentRunId: null, bisectionOf: run.id },
          testRunId: run.id,
        });
      }
    }
    return true;
  }
  return false;
}

/**
 * Whether the group is tested again because only known-flaky or quarantined tests failed
 * (domain/flaky-retest.ts), decided before a single entry fails or a batch is bisected.
 */
function retestDecision(world: World, run: TestRun, holders: Entry[]): RetestDecision {
  const retriesUsed = Math.max(0, ...holders.map((e) => e.history.filter((h) => h.reason === 'test_run_retried_known_flaky').length));
  return decideFailedRun({
    evidence: world.testResults[run.id] ?? null,
    retriesUsed,
    flakyRetries: world.queue.flakyRetries,
    failedOnStatuses: run.status === 'failed',
    concludedAt: (run.concludedAt ?? new Date(world.now)).getTime(),
    waitSeconds: world.queue.testResultsWaitSeconds,
    now: world.now,
  });
}

/** What to do with a failed group instead of ejecting it (or bisecting a batch). */
type Step =
  | { kind: 'wait'; until: number }
  | { kind: 'retest'; reason: 'test_run_retried_known_flaky' | 'test_run_retried_not_its_fault'; detail: string }
  | { kind: 'hold'; reason: typeof HELD_REASON | typeof HELD_TARGET_BROKEN_REASON; detail: string };

/** Applies a step; true when it changed the queue (a wait, or a hold already in place, does not). */
function take(world: World, run: TestRun, holders: Entry[], step: Step): boolean {
  switch (step.kind) {
    case 'wait':
      world.wakeAt(step.until);
      return false;
    case 'retest':
      for (const e of holders) world.restart(e, step.reason, step.detail, run.id);
      return true;
    case 'hold': {
      const newlyHeld = holders.filter((e) => e.lastReason !== step.reason);
      for (const e of newlyHeld) world.transition(e, 'pending_failure', step.reason, step.detail, { testRunId: run.id });
      return newlyHeld.length > 0;
    }
  }
}

function flakyStep(decision: RetestDecision): Step | null {
  if (decision.kind === 'wait') return decision;
  if (decision.kind === 'retest') return { kind: 'retest', reason: 'test_run_retried_known_flaky', detail: decision.detail };
  return null;
}

/** A failed run whose test results are expected waits for them (as the flaky re-test does); null once they are in or the wait is over. */
function awaitingResults(world: World, run: TestRun, ended: VerdictInput['ended']): Step | null {
  const evidence = world.testResults[run.id] ?? null;
  if (ended !== 'failed' || !evidence?.expected || evidence.uploads > 0) return null;
  const until = (run.concludedAt ?? new Date(world.now)).getTime() + world.queue.testResultsWaitSeconds * 1000;
  return world.now < until ? { kind: 'wait', until } : null;
}

/**
 * While the target branch is broken (domain/target-health.ts), a failure of tests failing there
 * (any other failed test being a known flake) is held at once, before any re-test, whatever
 * notItsFaultRetries says; once the branch is green, what was held for it is tested again.
 */
function brokenTargetStep(world: World, run: TestRun, holders: Entry[]): Step | null {
  const { branch, targetBroken: broken } = world.queue;
  if (!broken) {
    if (!holders.some((e) => e.lastReason === HELD_TARGET_BROKEN_REASON)) return null;
    return {
      kind: 'retest',
      reason: 'test_run_retried_not_its_fault',
      detail: `${branch} is green again${world.head ? ` at ${world.head.slice(0, 12)}` : ''}: testing again`,
    };
  }
  const ended = failureEnding(failureReasonOf(run)) ?? 'failed';
  if (ended !== 'failed') return null;
  const waiting = awaitingResults(world, run, ended);
  if (waiting) return waiting;
  const evidence = world.testResults[run.id] ?? null;
  if (!evidence || !explainedByBrokenTarget(broken, evidence.failedTests)) return null;
  return {
    kind: 'hold',
    reason: HELD_TARGET_BROKEN_REASON,
    detail: `only tests that fail on the broken ${branch} failed (failing at ${broken.sha.slice(0, 12)}: ${testNames(broken.tests)}); it waits in the queue until ${branch} is green again, then is tested again`,
  };
}

/**
 * Whether a failure that would eject is judged the infrastructure's or the target branch's
 * (domain/verdict.ts): then the group is tested again, up to notItsFaultRetries times, and
 * beyond that it waits, held in pending failure, until the target branch moves (its run is then
 * stale and restarts) or someone restarts or cancels it. Null: the failure is ejected as usual.
 */
function notItsFaultStep(world: World, run: TestRun, holders: Entry[]): Step | null {
  const retries = world.queue.notItsFaultRetries;
  if (retries <= 0) return null;
  const ended = failureEnding(failureReasonOf(run)) ?? 'failed';
  const waiting = awaitingResults(world, run, ended);
  if (waiting) return waiting;
  const evidence = world.testResults[run.id] ?? null;
  const verdict = decideVerdict(verdictInputOf(evidence, ended, { targetSha: run.targetSha, targetBranch: world.queue.branch }));
  if (verdict.kind !== 'infrastructure' && verdict.kind !== 'target_branch') return null;
  const why = `not its fault (${verdict.kind.replace('_', ' ')}, rule ${verdict.rule}): ${verdict.summary}`;
  const used = Math.max(0, ...holders.map((e) => e.history.filter((h) => h.reason === 'test_run_retried_not_its_fault').length));
  if (used < retries) return { kind: 'retest', reason: 'test_run_retried_not_its_fault', detail: `${why}; testing again (re-test ${used + 1} of ${retries})` };
  return {
    kind: 'hold',
    reason: HELD_REASON,
    detail: `${why}; after ${retries} re-test${retries === 1 ? '' : 's'} it waits instead of leaving the queue: fix the target branch (its run restarts when it moves), or restart or cancel it`,
  };
}

function failedGroupsInLineOrder(world: World, deps: Dependencies): TestRun[] {
  const runs = [...world.runs.values()].filter((run) => {
    if (run.kind !== 'main' || runOutcome(run) !== 'failed') return false;
    const holders = holdersOf(world, run);
    return holders.length > 0 && holders.every((e) => e.state === 'pending_failure');
  });
  const at = (run: TestRun): number => Math.min(...holdersOf(world, run).map((e) => deps.index(e.id)));
  return runs.sort((a, b) => at(a) - at(b));
}

function canResolve(world: World, run: TestRun, holders: Entry[], line: Line, deps: Dependencies, candidates: MergeCandidate[]): boolean {
  // Everything ahead must have passed (merged entries are gone from the base's live part).
  for (const id of run.baseEntryIds) {
    const e = world.entry(id);
    if (e && e.state !== 'merged' && e.state !== 'tests_passed') return false;
  }
  const ids = new Set(holders.map((e) => e.id));
  if (candidates.some((c) => holders.every((h) => c.items.some((i) => i.id === h.id)))) return false;
  return successorsConcluded(world, ids, line, deps);
}

/** Whether the next `pendingFailureDepth` groups behind (that depend on it) have concluded. */
function successorsConcluded(world: World, group: ReadonlySet<string>, line: Line, deps: Dependencies): boolean {
  const depth = world.queue.pendingFailureDepth;
  if (depth <= 0) return true;
  const last = Math.max(...[...group].map((id) => deps.index(id)));
  const seen = new Set<string>();
  let counted = 0;
  for (const e of line.entries.slice(last + 1)) {
    if (counted >= depth) break;
    if (![...group].some((id) => deps.dependsOn(e.id, id))) continue;
    const key = groupKey(e);
    if (seen.has(key)) continue;
    seen.add(key);
    const verdict = successorVerdict(world, e, line);
    if (verdict === 'ignore') continue;
    counted++;
    if (verdict === 'waiting') return false;
  }
  return true;
}

function groupKey(e: Entry): string {
  if (inBisection(e)) return `bisection:${e.bisectionOf}`;
  if (isInFlight(e)) return `run:${e.currentRunId}`;
  return `entry:${e.id}`;
}

function successorVerdict(world: World, e: Entry, line: Line): 'concluded' | 'waiting' | 'ignore' {
  if (inBisection(e)) return 'waiting';
  if (isInFlight(e)) return world.run(e.currentRunId)?.status === 'in_progress' ? 'waiting' : 'concluded';
  // A pending successor counts only if it can still start (not while switching modes, unless
  // it holds a place in the train).
  const state = world.queue.state;
  const canStart = state === 'running' || state === 'draining' || (state === 'switching_modes' && line.train.has(e.id));
  return canStart ? 'waiting' : 'ignore';
}
