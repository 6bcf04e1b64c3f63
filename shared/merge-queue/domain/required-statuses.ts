// Whether a commit passes the queue's required statuses (spec: setCommitStatus). Only the latest
// state of each required context counts, so a re-run that turns a failure green passes. A
// failure or error of any required context fails at once, even while others are pending. With
// no required context nothing can pass: an empty list is `pending`, never a vacuous success.
import type { StatusState } from './model.js';

export interface ReceivedStatus {
  context: string;
  state: StatusState;
  /** When it was received; the latest per context wins (the later one in the list on a tie). */
  at: Date;
}

export type RequiredStatusesVerdict = 'success' | 'failure' | 'pending';

export function latestByContext(statuses: readonly ReceivedStatus[]): Map<string, ReceivedStatus> {
  const latest = new Map<string, ReceivedStatus>();
  for (const s of statuses) {
    const seen = latest.get(s.context);
    if (!seen || s.at.getTime() >= seen.at.getTime()) latest.set(s.context, s);
  }
  return latest;
}

export function evaluateRequiredStatuses(required: readonly string[], statuses: readonly ReceivedStatus[]): RequiredStatusesVerdict {
  if (required.length === 0) return 'pending';
  const latest = latestByContext(statuses);
  let allSucceeded = true;
  for (const context of required) {
    const state = latest.get(context)?.state;
    if (state === 'failure' || state === 'error') return 'failure';
    if (state !== 'success') allSucceeded = false;
  }
  return allSucceeded ? 'success' : 'pending';
}
