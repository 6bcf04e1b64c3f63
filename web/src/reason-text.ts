// Every reason code of a pull request's timeline, in words. Typed by the service's own list of
// reasons, so a new code the engine records fails the type-check here until it has its words.
import type { Reason } from './api/types';

export const REASON_TEXT: Record<Reason, string> = {
  api_requested: 'Submitted to the queue through the API',
  merge_item_now_ready: 'Became ready: mergeable, on the right base, with what the queue needs',
  manual_push_to_target_branch: 'Someone pushed to the target branch outside the queue, so testing starts again on the new head',
  prerequisite_merge_item_cancelled: 'A pull request ahead of it was cancelled, so its predicted base changed',
  prerequisite_merge_item_failed: 'A pull request ahead of it failed, so its predicted base changed',
  prerequisite_merge_item_manually_merged: 'A pull request ahead of it was merged by hand, so its predicted base changed',
  tests_restarted_by_user: 'A person restarted its tests',
  tests_restarted_by_api_request: 'Its tests were restarted through the API',
  skip_the_line_interrupted: 'An urgent pull request skipped the line and took its place',
  bisection_required: 'Its batch failed; it waits to be tested alone or in a smaller batch (bisection)',
  bisection_test_run_passed: 'A bisection run that included it passed',
  test_run_retried_known_flaky: 'Its test run failed only on tests known to be flaky or quarantined, so it is tested again',
  test_run_retried_not_its_fault: 'Its test run failed, but not because of its changes (the infrastructure or the target branch), so it is tested again',
  test_run_held_not_its_fault: 'Its test run failed again, not because of its changes: it waits in the queue instead of leaving it',
  test_run_held_target_broken: 'Only tests that fail on the broken target branch failed: it waits in the queue until the branch is green, then is tested again',
  test_run_lost: 'Its test run disappeared (service restart); it will be tested again',
  merge_item_no_longer_ready: 'No longer ready: not mergeable, base branch changed, or impacted targets missing',
  test_run_started: 'A test run started on its predicted base',
  test_run_passed: 'Its test run passed',
  test_run_failed: 'Its test run failed; it waits for the pull requests ahead before being ejected',
  start_test_run_merge_conflict: 'It could not be merged onto its predicted base (merge conflict)',
  start_test_run_config_parsing_failure: 'The repository’s .trunk/trunk.yaml could not be read',
  start_test_run_no_required_statuses: 'No required statuses are configured, so nothing could be tested',
  test_run_required_status_failed: 'A required status failed on its test branch',
  test_run_timeout: 'CI did not report every required status before the testing timeout',
  github_api_merge_pr_failed: 'The forge refused to merge it',
  github_api_direct_merge_pr_failed: 'The forge refused to merge it directly',
  pr_updated_at_merge_time: 'It was pushed to while being merged',
  test_run_failed_by_optimization: 'A run it shared failed and the queue skipped the redundant retest',
  required_status_not_reported: 'CI has not reported a required status on its test branch (not even as pending): is CI running on trunk-merge/**?',
  interaction_found: 'A later pull request of its batch passes alone and fails only together with it, and was ejected',
  waiting_for_merge_window: 'Waits for a merge window: the queue is closed for it, or closes before its run could finish',
  user_requested: 'Cancelled on request',
  pr_closed: 'The pull request was closed',
  pr_pushed_to: 'New commits were pushed to the pull request',
  pr_base_branch_changed: 'The pull request’s base branch changed',
  pr_converted_to_draft: 'The pull request was converted to a draft',
  not_ready_timeout: 'It stayed not ready longer than the queue allows',
  stack_member_removed: 'A pull request below it in its stack left the queue, and it holds that pull request’s commits',
  merge_graph_merge: 'Merged by the queue',
  manual_merge: 'Merged outside the queue',
  merge_graph_direct_merge: 'Merged directly (nothing ahead of it to test against)',
};

export function reasonText(code: string): string {
  return (REASON_TEXT as Record<string, string>)[code] ?? code.replaceAll('_', ' ');
}

export const STATE_TEXT: Record<string, string> = {
  not_ready: 'Not ready',
  pending: 'Pending',
  testing: 'Testing',
  tests_passed: 'Tests passed',
  pending_failure: 'Failed, waiting on PRs ahead',
  merged: 'Merged',
  failed: 'Failed',
  cancelled: 'Cancelled',
};
