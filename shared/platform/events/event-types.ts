// Domain events as event delivery knows them: a type name (each product owns its names:
// shared/merge-queue/events/event-types.ts, shared/flaky-tests/services/test-events.ts), an
// order key and position, ids of what the event is about, and — once rendered — its payload.

/** Ids and facts of what an event is about, as its product renders them (a queue, an entry, a run…). */
export type EventSubject = Readonly<Record<string, string | null | undefined>>;

/** The JSON an endpoint receives (a product's own shape). */
export type EventPayload = Record<string, unknown>;

/** A domain event as emitted with its change (before it is rendered and fanned out). */
export interface EmittedEvent {
  orgId: string;
  /** A product's event name, e.g. `pull_request.merged`: what endpoints subscribe to. */
  type: string;
  /** Events with one key are delivered to an endpoint in `order`: a pull request, a run, a queue. */
  orderKey: string;
  order: { at: Date; version: number };
  subject: EventSubject;
  /** Given by events whose payload is known when they happen (flaky tests); else rendered when published. */
  payload?: EventPayload;
}

export interface StoredEvent extends Omit<EmittedEvent, 'payload'> {
  id: string;
  createdAt: Date;
  /** The payload, rendered once so that every delivery and redelivery sends the same bytes. */
  payload: EventPayload | null;
  /** When endpoints' deliveries were created; null until then (the sweep picks those up). */
  publishedAt: Date | null;
}

/** What publishing does with an event: send this payload, nothing (its subject is gone), or wait and try again. */
export type Rendered = EventPayload | null | 'wait';

/**
 * What a product tells event delivery about its events: their names, how to render the payload
 * of one emitted without it, and the one line a Slack endpoint gets instead of the JSON.
 */
export interface EventFormat {
  readonly types: readonly string[];
  /** `mayWait`: the event may still be held back (false once it has waited long enough). */
  render?(event: StoredEvent, mayWait: boolean): Promise<Rendered>;
  /** Slack's text for a payload of one of `types` (Slack mrkdwn, escaped). */
  slackText(payload: EventPayload): string;
}
