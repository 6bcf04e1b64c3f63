// The outbox of a document: domain events written in the same compare-and-set update as the state
// change they announce (`$push: {outbox: …}`), so a crash between the two cannot lose an event and a
// retried write (which fails its compare-and-set) cannot write it twice. The relay (outbox-relay.ts)
// moves them into the event store right after the write, and its sweep moves whatever a crash left.
import { v7 as uuidv7 } from 'uuid';
import type { Database, IndexSpec, StoredDoc } from '../database/collection.js';
import type { EmittedEvent } from './event-types.js';

/** An event as it waits in a document: its id (the event's id for good) and when it was written. */
export interface OutboxEvent extends EmittedEvent {
  id: string;
  createdAt: Date;
}

/** The field of a document that holds its outbox. */
export const OUTBOX_FIELD = 'outbox';

/** Documents with events waiting, oldest first: what the sweep reads (a document without events has no entry in range). */
export const OUTBOX_INDEX: IndexSpec = {
  key: { 'outbox.createdAt': 1 },
  name: 'outbox_pending',
  comment: 'the event sweep: documents whose events were not relayed',
};

/**
 * Events to write with a state change. An id is time-ordered (UUIDv7) unless the event has one
 * of its own: an event that several writers may each decide to write (the last pull request of a
 * batch) carries a fixed id, so it is stored once whoever writes it.
 */
export function toOutbox(events: readonly (EmittedEvent & { id?: string })[], now: Date): OutboxEvent[] {
  return events.map(({ id, ...event }) => ({ ...event, id: id ?? uuidv7(), createdAt: now }));
}

/** The `$push` that writes events into a document's outbox with the state change (nothing when there are none). */
export function outboxPush(events: readonly OutboxEvent[]): Record<string, { $each: OutboxEvent[] }> {
  return events.length > 0 ? { [OUTBOX_FIELD]: { $each: [...events] } } : {};
}

/** A collection whose documents carry an outbox: what the relay and its sweep need of it. */
export interface OutboxSource {
  /** For logs: the collection. */
  readonly name: string;
  /** Documents holding events written before `before`, with those events. */
  withPendingEvents(before: Date, limit: number): Promise<{ docId: string; events: OutboxEvent[] }[]>;
  /** Removes these events from the documents' outboxes (once they are in the event store). */
  clearEvents(cleared: readonly DocEvents[]): Promise<void>;
}

/** The events one document's write put in its outbox. */
export interface DocEvents {
  docId: string;
  events: readonly OutboxEvent[];
}

/** Moves events written into a document's outbox on; never fails the write that wrote them. */
export interface EventRelay {
  relay(source: OutboxSource, docId: string, events: readonly OutboxEvent[]): Promise<void>;
  /** The same for the documents of one bulk write: stored, cleared and published together. */
  relayMany(source: OutboxSource, written: readonly DocEvents[]): Promise<void>;
}

/** A relay that leaves events where they are, for the sweep (stores that run without event delivery). */
export const LEAVE_FOR_SWEEP: EventRelay = { relay: async () => {}, relayMany: async () => {} };

type OutboxDoc = StoredDoc & { outbox?: OutboxEvent[] };

/** The outbox of the documents of a collection, as the relay's sweep reads and clears it. */
export function collectionOutbox(db: Database, name: string): OutboxSource {
  // A handle of its own on the collection, typed by the one field read and written here.
  const col = db.collection<OutboxDoc>(name);
  return {
    name,
    async withPendingEvents(before: Date, limit: number) {
      const docs = await col.find({ 'outbox.createdAt': { $lt: before } }, { projection: { _id: 1, outbox: 1 }, limit });
      return docs.map((d) => ({ docId: d._id, events: d.outbox ?? [] }));
    },
    async clearEvents(cleared: readonly DocEvents[]) {
      if (cleared.length === 0) return;
      await col.bulkWrite(
        cleared.map(({ docId, events }) => ({
          updateOne: { filter: { _id: docId }, update: { $pull: { outbox: { id: { $in: events.map((e) => e.id) } } } } },
        })),
        { ordered: false },
      );
    },
  };
}
