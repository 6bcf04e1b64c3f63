// What a change observed at the forge means for a queued pull request
// (merge-queue-behaviour §1.18 rows 5 and 20): a push to its head or closing it cancels the entry;
// anything else only asks for readiness to be evaluated again. A stack member is the exception to
// the push rule: its stack is one unit, so a push to any member tests the unit again with the new
// head instead of taking the stack out (docs/pull-requests.md#stacks).
import type { Entry, EntryState, QueueMode, Reason } from './model.js';

export interface ObservedPullRequest {
  state: 'open' | 'closed';
  /** Closed by merging (by this queue, or by someone outside it). */
  merged: boolean;
  draft: boolean;
  headSha: string;
  /** null when the provider does not know it (the queue's branch is assumed). */
  baseBranch: string | null;
}

export type SyncDecision =
  | { kind: 'cancel'; reason: Extract<Reason, 'pr_closed' | 'pr_pushed_to' | 'pr_converted_to_draft' | 'pr_base_branch_changed'>; detail: string }
  | { kind: 'merged_outside_queue'; detail: string }
  /** A stack member was pushed to: it waits for readiness on its new head, and its unit is tested again. */
  | { kind: 'restart_stack_member'; reason: 'pr_pushed_to'; detail: string; headSha: string }
  | { kind: 'refresh_readiness' }
  | { kind: 'none' };

const MERGED_OUTSIDE_QUEUE = 'the pull request was merged outside the queue';

/** The states the queue merges from: only an entry in one of them can have a merge of the queue's in flight. */
export const QUEUE_MERGES_FROM: readonly EntryState[] = ['tests_passed', 'pending_failure'];

export function queueMayBeMerging(state: EntryState): boolean {
  return QUEUE_MERGES_FROM.includes(state);
}

/**
 * @param pr the pull request as the provider sees it now; null when it no longer exists
 * @param queue the queue's branch, the mode admission is judged in, and its target head now
 */
export function syncDecision(entry: Entry, pr: ObservedPullRequest | null, queue: { branch: string; mode: QueueMode; targetSha: string | null }): SyncDecision {
  if (pr === null) return { kind: 'cancel', reason: 'pr_closed', detail: 'the pull request no longer exists' };
  if (pr.merged) {
    // A passed group may be in the middle of being merged by the queue itself: the merge step
    // records that. Before that point, a merged pull request was merged by hand.
    if (queueMayBeMerging(entry.state)) return { kind: 'none' };
    return { kind: 'merged_outside_queue', detail: MERGED_OUTSIDE_QUEUE };
  }
  if (pr.state === 'closed') return { kind: 'cancel', reason: 'pr_closed', detail: 'the pull request was closed' };
  if (pr.headSha !== entry.prSha) {
    const detail = `new commits were pushed (head moved from ${entry.prSha.slice(0, 12)} to ${pr.headSha.slice(0, 12)})`;
    if (entry.stack) return { kind: 'restart_stack_member', reason: 'pr_pushed_to', detail, headSha: pr.headSha };
    return { kind: 'cancel', reason: 'pr_pushed_to', detail };
  }
  if (pr.draft) return { kind: 'cancel', reason: 'pr_converted_to_draft', detail: 'the pull request was converted to a draft' };
  const baseBranch = pr.baseBranch ?? queue.branch;
  const admitted = entry.state !== 'not_ready' && entry.state !== 'pending';
  if (baseBranch !== entry.prBaseBranch) {
    // Before testing, a new base only changes readiness (a stacked PR being retargeted is normal);
    // once its changes are being tested against this branch, the run no longer means anything —
    // unless a stack member is retargeted onto the queue's branch, as the queue itself does right
    // before merging it: its changes stay as tested, and the entry is left alone (a write to it
    // now would make the merge's compare-and-set fail).
    if (!admitted) return { kind: 'refresh_readiness' };
    if (entry.stack && baseBranch === queue.branch) return { kind: 'none' };
    return { kind: 'cancel', reason: 'pr_base_branch_changed', detail: `the base branch changed from ${entry.prBaseBranch} to ${baseBranch}` };
  }
  // Readiness only matters before testing starts; later, the test run itself judges the merge.
  if (admitted) return { kind: 'none' };
  const basis = entry.readinessBasis;
  if (!basis || basis.headSha !== pr.headSha || basis.targetSha !== queue.targetSha || basis.mode !== queue.mode) {
    return { kind: 'refresh_readiness' };
  }
  return { kind: 'none' };
}
