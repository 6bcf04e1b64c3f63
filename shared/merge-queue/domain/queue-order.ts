// The order in which a queue's entries are shown (getQueue.enqueuedPullRequests): testing and
// passed groups first, then pending by priority and admission, then entries not yet ready.
import type { Entry, EntryState } from './model.js';

const DISPLAY_RANK: Record<EntryState, number> = {
  testing: 0,
  tests_passed: 0,
  pending_failure: 0,
  pending: 1,
  not_ready: 2,
  merged: 3,
  failed: 3,
  cancelled: 3,
};

/** Priority value ascending, then admission sequence: the queue order among equals. */
export function compareQueueOrder(a: Entry, b: Entry): number {
  return a.priorityValue - b.priorityValue || a.seq - b.seq;
}

export function orderForDisplay(entries: readonly Entry[]): Entry[] {
  return [...entries].sort((a, b) => DISPLAY_RANK[a.state] - DISPLAY_RANK[b.state] || compareQueueOrder(a, b));
}
