// Groupings of entry states the planner reasons with.
import type { Entry, EntryState, Reason } from '../model.js';

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

/** Reasons that send an entry back to `pending` (the wire's queued reasons). */
export const QUEUED_REASONS: readonly Reason[] = [
  'merge_item_now_ready',
  'manual_push_to_target_branch',
  'prerequisite_merge_item_cancelled',
  'prerequisite_merge_item_failed',
  'prerequisite_merge_item_manually_merged',
  'tests_restarted_by_user',
  'tests_restarted_by_api_request',
  'skip_the_line_interrupted',
  'bisection_required',
  'bisection_test_run_passed',
  'test_run_lost',
];

/** Run conclusions that mean the branch could not be built: the culprits fail at once. */
export const BUILD_FAILURE_REASONS: readonly Reason[] = [
  'start_test_run_merge_conflict',
  'start_test_run_no_required_statuses',
  'start_test_run_config_parsing_failure',
];

export function prLabel(e: Entry | undefined, id: string): string {
  return e ? `PR #${e.prNumber}` : `entry ${id}`;
}
