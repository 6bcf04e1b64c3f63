// Moves domain events from the outboxes of documents into the event store and asks for their
// publishing: right after the write that put them there (`relay`), and for whatever a crash or a
// database blip left behind, periodically (`sweep`). Storing an event is idempotent by its id, so
// an event relayed twice (by a relay and a sweep that overlap) is stored and published once.
import type { Logger } from '../logging.js';
import type { EventRelay, OutboxEvent, OutboxSource } from './outbox.js';
import type { EventRepository } from './store/event-repository.js';

/** Events waiting longer than this in a document are the sweep's: the relay after the write did not happen. */
export const RELAY_GRACE_MS = 10_000;
const SWEEP_BATCH = 200;

export class OutboxRelay implements EventRelay {
  private readonly sources: OutboxSource[] = [];

  constructor(
    private readonly deps: {
      events: Pick<EventRepository, 'insertFromOutbox'>;
      /** Enqueues the publish job of a stored event. */
      requestPublish: (eventId: string) => Promise<void>;
      logger: Logger;
    },
  ) {}

  /** A collection whose outboxes the sweep drains. */
  addSource(source: OutboxSource): void {
    this.sources.push(source);
  }

  async relay(source: OutboxSource, docId: string, events: readonly OutboxEvent[]): Promise<void> {
    if (events.length === 0) return;
    try {
      await this.move(source, docId, events);
    } catch (err) {
      // The state and its events are written; the sweep moves them on.
      this.deps.logger.warn(
        { err: err instanceof Error ? err.message : String(err), source: source.name, docId },
        'events not relayed yet; the event sweep relays them',
      );
    }
  }

  private async move(source: OutboxSource, docId: string, events: readonly OutboxEvent[]): Promise<void> {
    for (const event of events) await this.deps.events.insertFromOutbox(event);
    await source.clearEvents(
      docId,
      events.map((e) => e.id),
    );
    for (const event of events) {
      try {
        await this.deps.requestPublish(event.id);
      } catch (err) {
        this.deps.logger.warn(
          { err: err instanceof Error ? err.message : String(err), eventId: event.id },
          'publish job not enqueued; the event sweep publishes the event',
        );
      }
    }
  }

  /** Relays the events every source has held for longer than RELAY_GRACE_MS; answers how many. */
  async sweep(now = new Date()): Promise<number> {
    const before = new Date(now.getTime() - RELAY_GRACE_MS);
    let moved = 0;
    for (const source of this.sources) {
      for (const { docId, events } of await source.withPendingEvents(before, SWEEP_BATCH)) {
        await this.move(source, docId, events);
        moved += events.length;
      }
    }
    if (moved > 0) this.deps.logger.info({ moved }, 'events relayed from outboxes by the sweep');
    return moved;
  }
}
