// Failures the queue holds instead of ejecting (planner/pending-failures.ts): a group whose failure
// was judged the infrastructure's or the target branch's again after its re-tests, or that failed
// only tests failing on the broken target branch, waits in pending failure. Nothing behind it merges meanwhile, so the queue says so in its warnings,
// naming each held pull request and why, until someone fixes the branch, restarts or cancels it.
import type { Entry } from './model.js';
import type { QueueWarning } from './status-watch.js';

export const HELD_REASON = 'test_run_held_not_its_fault';
/** Held while the target branch is broken with the tests that failed (domain/target-health.ts). */
export const HELD_TARGET_BROKEN_REASON = 'test_run_held_target_broken';

export function isHeld(e: Entry): boolean {
  return e.state === 'pending_failure' && (e.lastReason === HELD_REASON || e.lastReason === HELD_TARGET_BROKEN_REASON);
}

/** One warning per held pull request, oldest first. */
export function heldFailureWarnings(active: readonly Entry[]): QueueWarning[] {
  return active
    .filter(isHeld)
    .sort((a, b) => a.stateChangedAt.getTime() - b.stateChangedAt.getTime())
    .map((e) => ({
      code: 'failure_held_not_its_fault',
      message: `pull request #${e.prNumber} is held in the queue: ${e.history.at(-1)?.detail ?? 'its failure was judged not its own'}`,
      contexts: [],
      testRunIds: e.currentRunId ? [e.currentRunId] : [],
      since: e.stateChangedAt,
    }));
}
