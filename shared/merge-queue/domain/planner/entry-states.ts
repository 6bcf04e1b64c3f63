// Groupings of entry states the planner reasons with.
import type { Entry, EntryState, Reason } from '../model.js';
import { QUEUED_REASONS as QUEUED } from '../model.js';

/** Reasons that send an entry back to `pending`. */
export const QUEUED_REASONS: readonly Reason[] = QUEUED;

/** Admitted entries: in the queue proper (the line the planner orders and tests). */
export const ADMITTED: readonly EntryState[] = ['pending', 'testing', 'tests_passed', 'pending_failure'];
/** Admitted entries that hold a test run. */
export const IN_FLIGHT: readonly EntryState[] = ['testing', 'tests_passed', 'pending_failure'];

export const isAdmitted = (e: Entry): boolean => ADMITTED.includes(e.state);
export const isInFlight = (e: Entry): boolean => IN_FLIGHT.includes(e.state);
export const isActive = (e: Entry): boolean => isAdmitted(e) || e.state === 'not_ready';
export const inBisection = (e: Entry): boolean => typeof e.bisectionOf === 'string';
/** Merged by the queue (it recorded the sha its merge produced). */
export const mergedByQueue = (e: Entry): boolean => e.state === 'merged' && typeof e.mergedSha === 'string';

/** Run conclusions that mean the branch could not be built: the culprits fail at once. */
export const BUILD_FAILURE_REASONS: readonly Reason[] = [
  'start_test_run_merge_conflict',
  'start_test_run_no_required_statuses',
  'start_test_run_config_parsing_failure',
];

/**
 * Sent back to be tested again because only known-flaky or quarantined tests failed its run
 * (the flaky re-test), and not concluded since: waiting for that test, or under it.
 */
export function underFlakyRetest(e: Entry): boolean {
  if (e.state !== 'pending' && e.state !== 'testing') return false;
  for (let i = e.history.length - 1; i >= 0; i--) {
    const h = e.history[i]!;
    // Timeline notes stay in one state; the last move into pending says why it waits.
    if (h.to === 'pending' && h.from !== 'pending') return h.reason === 'test_run_retried_known_flaky';
  }
  return false;
}

export function prLabel(e: Entry | undefined, id: string): string {
  return e ? `PR #${e.prNumber}` : `entry ${id}`;
}
