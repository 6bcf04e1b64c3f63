// The merge queue's event names (the hosted product's, merge-queue-behaviour §1.20, wire-contract
// §5.1) and what its events are about.
import type { EmittedEvent } from '../../platform/events/event-types.js';

export const PULL_REQUEST_EVENTS = [
  'pull_request.submitted',
  'pull_request.queued',
  'pull_request.testing',
  'pull_request.pending_failure',
  'pull_request.merged',
  'pull_request.failed',
  'pull_request.canceled',
] as const;
export type PullRequestEventType = (typeof PULL_REQUEST_EVENTS)[number];

export const BATCH_EVENTS = [
  'pull_request_batch.testing',
  'pull_request_batch.pending_failure',
  'pull_request_batch.merged',
  'pull_request_batch.failed',
  'pull_request_batch.canceled',
] as const;
export type BatchEventType = (typeof BATCH_EVENTS)[number];

/** Merge windows (docs/merge-windows.md): a closure about to begin (with its forecast), begun, ended. */
export const FREEZE_EVENTS = ['queue.freeze_announced', 'queue.freeze_started', 'queue.freeze_ended'] as const;
export type FreezeEventType = (typeof FREEZE_EVENTS)[number];

/** Queue objectives (docs/objectives.md): one entered a warning or critical level, or is ok again. */
export const OBJECTIVE_EVENTS = ['queue.objective_breached', 'queue.objective_recovered'] as const;
export type ObjectiveEventType = (typeof OBJECTIVE_EVENTS)[number];

/** The queue's daily or weekly summary (docs/digests.md). */
export const DIGEST_EVENT = 'queue.digest';

export const QUEUE_EVENTS = [
  'queue.state_changed',
  'queue.target_broken',
  'queue.target_recovered',
  ...FREEZE_EVENTS,
  ...OBJECTIVE_EVENTS,
  DIGEST_EVENT,
] as const;

export const MERGE_QUEUE_EVENT_TYPES = [...PULL_REQUEST_EVENTS, ...BATCH_EVENTS, ...QUEUE_EVENTS] as const;
export type MergeQueueEventType = (typeof MERGE_QUEUE_EVENT_TYPES)[number];

/** What a merge-queue event is about: ids to render its payload from, and what only the moment knew. */
export type MergeQueueEventSubject = {
  queueId: string;
  entryId?: string;
  runId?: string | null;
  /** The transition's reason code (lowercase, model.ts REASONS). */
  reason?: string;
  detail?: string;
  previousState?: string;
  state?: string;
  /** queue.target_broken / .target_recovered: the target branch head the results were for, and the names of the tests that failed there (a JSON array: subjects hold strings). */
  targetSha?: string;
  testNames?: string;
  /** queue.freeze_*: the closure (a JSON ClosureView) and, when announced, its forecast (a JSON array). */
  closure?: string;
  forecast?: string;
  /** queue.objective_*: the objective and its level (a JSON object). */
  objective?: string;
  /** queue.digest: the summary of the period (a JSON object). */
  digest?: string;
};

/** A merge-queue event as its change emits it: one of its names, about a queue and what in it. */
export type MergeQueueEvent = Omit<EmittedEvent, 'type' | 'subject'> & { type: MergeQueueEventType; subject: MergeQueueEventSubject };
