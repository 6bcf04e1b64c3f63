// Moves domain events from the outboxes of documents into the event store and asks for their
// publishing: right after the write that put them there (`relay`), and for whatever a crash or a
// database blip left behind, periodically (`sweep`). Storing an event is idempotent by its id, so
// an event relayed twice (by a relay and a sweep that overlap) is stored and published once.
import type { Logger } from '../logging.js';
import type { DocEvents, EventRelay, OutboxEvent, OutboxSource } from './outbox.js';
import type { EventRepository } from './store/event-repository.js';

/** Events waiting longer than this in a document are the sweep's: the relay after the write did not happen. */
export const RELAY_GRACE_MS = 10_000;
const SWEEP_BATCH = 200;

export class OutboxRelay implements EventRelay {
  private readonly sources: OutboxSource[] = [];

  constructor(
    private readonly deps: {
      events: Pick<EventRepository, 'insertManyFromOutbox'>;
      /** Enqueues the publish jobs of stored events (one round trip for all of them). */
      requestPublish: (eventIds: readonly string[]) => Promise<void>;
      logger: Logger;
    },
  ) {}

  /** A collection whose outboxes the sweep drains. */
  addSource(source: OutboxSource): void {
    this.sources.push(source);
  }

  relay(source: OutboxSource, docId: string, events: readonly OutboxEvent[]): Promise<void> {
    return this.relayMany(source, [{ docId, events }]);
  }

  async relayMany(source: OutboxSource, written: readonly DocEvents[]): Promise<void> {
    const withEvents = written.filter((w) => w.events.length > 0);
    if (withEvents.length === 0) return;
    try {
      await this.move(source, withEvents);
    } catch (err) {
      // The states and their events are written; the sweep moves them on.
      this.deps.logger.warn(
        {
          err: err instanceof Error ? err.message : String(err),
          source: source.name,
          docIds: withEvents.slice(0, 5).map((w) => w.docId),
          docs: withEvents.length,
        },
        'events not relayed yet; the event sweep relays them',
      );
    }
  }

  /**
   * Stores the events, clears them from their documents, and asks for their publishing — each
   * step one write for all the documents (a first report of 100,000 new tests writes 100,000
   * first statuses; one write each made their relay a sixth of the upload).
   */
  private async move(source: OutboxSource, written: readonly DocEvents[]): Promise<void> {
    const events = written.flatMap((w) => w.events);
    await this.deps.events.insertManyFromOutbox(events);
    await source.clearEvents(written);
    try {
      await this.deps.requestPublish(events.map((e) => e.id));
    } catch (err) {
      this.deps.logger.warn(
        { err: err instanceof Error ? err.message : String(err), eventIds: events.slice(0, 5).map((e) => e.id), events: events.length },
        'publish jobs not enqueued; the event sweep publishes the events',
      );
    }
  }

  /** Relays the events every source has held for longer than RELAY_GRACE_MS; answers how many. */
  async sweep(now = new Date()): Promise<number> {
    const before = new Date(now.getTime() - RELAY_GRACE_MS);
    let moved = 0;
    for (const source of this.sources) {
      const pending = await source.withPendingEvents(before, SWEEP_BATCH);
      if (pending.length === 0) continue;
      await this.move(source, pending);
      moved += pending.reduce((n, p) => n + p.events.length, 0);
    }
    if (moved > 0) this.deps.logger.info({ moved }, 'events relayed from outboxes by the sweep');
    return moved;
  }
}
