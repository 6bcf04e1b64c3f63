// Domain events and the names webhook endpoints subscribe to: the hosted product's merge-queue
// events (merge-queue-behaviour §1.20, wire-contract §5.1), queue state changes, and the two
// flaky-test events the flaky-tests side emits. Which change emits which event is each product's
// (shared/merge-queue/events/transition-events.ts, shared/flaky-tests/services/test-events.ts).

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

export const QUEUE_EVENTS = ['queue.state_changed'] as const;

/** Emitted by the flaky-tests side (see docs/webhooks.md for their payloads). */
export const TEST_EVENTS = ['test.status_changed', 'test.quarantined'] as const;

export const EVENT_TYPES = [...PULL_REQUEST_EVENTS, ...BATCH_EVENTS, ...QUEUE_EVENTS, ...TEST_EVENTS] as const;
export type EventType = (typeof EVENT_TYPES)[number];


/** What an event is about: ids to render its payload from, and what only the moment knew. */
export interface EventSubject {
  /** The queue the event is about; absent for flaky-test events (they carry their payload). */
  queueId?: string;
  entryId?: string;
  runId?: string | null;
  /** The transition's reason code (lowercase, model.ts REASONS). */
  reason?: string;
  detail?: string;
  previousState?: string;
  state?: string;
}

/** A domain event as emitted with its transition (before it is rendered and fanned out). */
export interface EmittedEvent {
  orgId: string;
  type: EventType;
  /** Events with one key are delivered to an endpoint in `order`: a pull request, a run, a queue. */
  orderKey: string;
  order: { at: Date; version: number };
  subject: EventSubject;
  /** Given by events whose payload is known when they happen (flaky tests); else rendered when published. */
  payload?: Record<string, unknown>;
}

export interface StoredEvent extends Omit<EmittedEvent, 'payload'> {
  id: string;
  createdAt: Date;
  /** The payload, rendered once so that every delivery and redelivery sends the same bytes. */
  payload: Record<string, unknown> | null;
  /** When endpoints' deliveries were created; null until then (the sweep picks those up). */
  publishedAt: Date | null;
}
