// Keeps every main group (the entries a main run tests) consistent with its run and the queue:
// concludes entries when the run concluded, times the run out, and restarts the group when the
// run no longer means anything (a member left, its base lost an entry, the target moved outside
// the queue, the branch could not be built). Transition-table rows 8, 10, 11, 12, 15, 16, 18, 19.
import type { Entry, Reason, TestRun } from '../model.js';
import { QUEUED_REASONS, inBisection, isAdmitted, isInFlight, prLabel } from './entry-states.js';
import { buildCulprits, deadlinePassed, runOutcome } from './run-outcome.js';
import { evictedInBase, staleness, type Invalidity } from './run-validity.js';
import { interactionSuspects } from './bisection.js';
import type { World } from './world.js';

/** Entries a main run holds: in flight, pointing at it, not part of a bisection. */
export function holdersOf(world: World, run: TestRun): Entry[] {
  return run.entryIds.map((id) => world.entry(id)).filter((e): e is Entry => e !== undefined && isInFlight(e) && e.currentRunId === run.id && !inBisection(e));
}

export function fail(world: World, e: Entry, reason: Reason, detail: string, runId: string | null): void {
  world.transition(e, 'failed', reason, detail, { testRunId: runId });
}

export function reconcileMainGroups(world: World): void {
  const suspects = interactionSuspects(world);
  for (const e of [...world.entries.values()]) {
    if (!isInFlight(e) || inBisection(e)) continue;
    const run = world.run(e.currentRunId);
    if (!run || run.kind !== 'main' || !run.entryIds.includes(e.id)) {
      world.restart(e, 'test_run_lost', 'its test run no longer exists', e.currentRunId);
    }
  }
  for (const run of [...world.runs.values()]) {
    if (run.kind === 'main' && holdersOf(world, run).length > 0) reconcileGroup(world, run, suspects);
  }
}

function reconcileGroup(world: World, run: TestRun, suspects: ReadonlySet<string>): void {
  const holders = holdersOf(world, run);
  const restartAll = (why: Invalidity, runReason: Reason = why.reason): void => {
    world.cancelRun(run, runReason, why.detail);
    for (const e of holders) world.restart(e, why.reason, why.detail, run.id);
  };
  const left = memberThatLeft(world, run);
  if (left) return restartAll(left.mates, left.runReason);
  const outcome = runOutcome(run);
  if (outcome === 'build_failed') return failBuild(world, run, holders);
  const evicted = evictedInBase(world, run) ?? suspectInBase(world, run, suspects);
  if (evicted) return restartAll(evicted);
  const stale = staleness(world, run);
  if (stale) return restartAll(stale);
  if (deadlinePassed(run, world.now)) {
    world.cancelRun(run, 'test_run_timeout', `no result within ${world.queue.testingTimeoutMinutes} minutes`);
    for (const e of holders) {
      if (e.state === 'testing') world.transition(e, 'pending_failure', 'test_run_timeout', 'the test run timed out', { testRunId: run.id });
    }
    return;
  }
  concludeHolders(world, run, holders);
}

/**
 * An entry of the run's base under an interaction check: bisection found it fails on top of the
 * members below it, so it will not merge there, whatever the check finds.
 */
function suspectInBase(world: World, run: TestRun, suspects: ReadonlySet<string>): Invalidity | null {
  const id = run.baseEntryIds.find((b) => suspects.has(b));
  if (id === undefined) return null;
  const label = prLabel(world.entry(id), id);
  return { reason: 'prerequisite_merge_item_failed', detail: `${label} ahead failed in the bisection of its batch (its interaction check goes on)` };
}

/** A tested entry that is no longer part of the group (cancelled, failed, restarted, …). */
function memberThatLeft(world: World, run: TestRun): { mates: Invalidity; runReason: Reason } | null {
  for (const id of run.entryIds) {
    const m = world.entry(id);
    if (m && m.state === 'merged') continue;
    if (m && isInFlight(m) && m.currentRunId === run.id && !inBisection(m)) continue;
    const label = prLabel(m, id);
    if (!m) return { mates: { reason: 'test_run_lost', detail: `${label} of the same test run is gone` }, runReason: 'test_run_lost' };
    if (m.state === 'cancelled') {
      return { mates: { reason: 'prerequisite_merge_item_cancelled', detail: `${label} in the same test run was cancelled` }, runReason: m.lastReason };
    }
    if (m.state === 'failed') {
      return { mates: { reason: 'prerequisite_merge_item_failed', detail: `${label} in the same test run failed` }, runReason: m.lastReason };
    }
    if (m.state === 'not_ready' && m.lastReason === 'pr_pushed_to') {
      // A stack member pushed to (domain/pr-sync.ts): the run tested its old head.
      return { mates: { reason: 'pr_pushed_to', detail: `${label} in the same test run was pushed to` }, runReason: 'pr_pushed_to' };
    }
    if (m.state === 'pending' || m.state === 'not_ready') {
      const reason: Reason = QUEUED_REASONS.includes(m.lastReason) ? m.lastReason : 'tests_restarted_by_api_request';
      return { mates: { reason, detail: `${label} in the same test run was restarted` }, runReason: reason };
    }
    return { mates: { reason: 'test_run_lost', detail: `${label} of the same test run moved to another run` }, runReason: 'test_run_lost' };
  }
  return null;
}

/** The branch could not be built: the culprits fail at once, the rest is tested again without them. */
function failBuild(world: World, run: TestRun, holders: Entry[]): void {
  const reason = run.conclusionReason ?? 'start_test_run_merge_conflict';
  const culprits = buildCulprits(run);
  const labels = culprits.map((id) => prLabel(world.entry(id), id)).join(', ');
  for (const id of culprits) {
    const e = world.entry(id);
    if (e && (isAdmitted(e) || e.state === 'not_ready')) fail(world, e, reason, `the test branch could not be built with ${labels}`, run.id);
  }
  for (const e of holders) {
    if (!culprits.includes(e.id)) world.restart(e, 'prerequisite_merge_item_failed', `${labels} could not be merged into the test branch`, run.id);
  }
}

function concludeHolders(world: World, run: TestRun, holders: Entry[]): void {
  const outcome = runOutcome(run);
  for (const e of holders) {
    if (outcome === 'passed') {
      if (e.state === 'testing') {
        const detail = run.reusedFrom ? `the test run passed, ${run.conclusionDetail ?? `reusing test run ${run.reusedFrom}'s result`}` : 'the test run passed';
        world.transition(e, 'tests_passed', 'test_run_passed', detail, { testRunId: run.id });
      } else if (e.state === 'pending_failure') world.restart(e, 'test_run_lost', 'its test run passed after it was marked failing', run.id);
    } else if (outcome === 'failed') {
      const reason: Reason = run.conclusionReason === 'test_run_timeout' ? 'test_run_timeout' : 'test_run_failed';
      if (e.state === 'testing') world.transition(e, 'pending_failure', reason, 'a required status failed', { testRunId: run.id });
      else if (e.state === 'tests_passed') world.restart(e, 'test_run_lost', 'its test run failed after it was marked passing', run.id);
    } else if (outcome === 'cancelled') {
      const reason: Reason = run.conclusionReason && QUEUED_REASONS.includes(run.conclusionReason) ? run.conclusionReason : 'test_run_lost';
      world.restart(e, reason, 'its test run was cancelled', run.id);
    } else if (outcome === 'running' && e.state !== 'testing') {
      world.restart(e, 'test_run_lost', `it was ${e.state} while its test run was still running`, run.id);
    }
  }
}

/** In-progress runs none of whose tested entries still wait for them are cancelled. */
export function cancelOrphanRuns(world: World): void {
  for (const run of [...world.runs.values()]) {
    if (run.status !== 'in_progress') continue;
    const members = run.entryIds.map((id) => world.entry(id));
    const held = members.every((m) => m !== undefined && m.state === 'testing' && m.currentRunId === run.id);
    if (held) continue;
    const gone = members.find((m) => !(m !== undefined && m.state === 'testing' && m.currentRunId === run.id));
    const reason: Reason = !gone ? 'test_run_lost' : gone.state === 'merged' ? 'merge_graph_merge' : gone.lastReason;
    world.cancelRun(run, reason, `${prLabel(gone, run.entryIds[0] ?? '')} is no longer tested by this run`);
  }
}
