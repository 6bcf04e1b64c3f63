// The event store: domain events moved from the outboxes of the documents whose changes they
// announce (outbox-relay.ts), then published (rendered and fanned out to webhook endpoints) by a
// job, in order per order key. An event keeps the id it was written with, so storing it twice
// stores it once.
import type { Database, DocCollection, IndexSpec, StoredDoc } from '../../database/collection.js';
import { onlyDuplicateKeys, writeErrorsOf } from '../../database/collection.js';
import type { StoredEvent } from '../event-types.js';
import type { OutboxEvent } from '../outbox.js';

type EventDoc = StoredDoc & Omit<StoredEvent, 'id'>;

export const EVENT_INDEXES: IndexSpec[] = [
  { key: { publishedAt: 1, createdAt: 1 }, name: 'unpublished', comment: 'the sweep: events whose publish job was lost' },
  {
    key: { orderKey: 1, publishedAt: 1, 'order.at': 1, 'order.version': 1 },
    name: 'key_order',
    comment: 'publishing in order: the earliest unpublished event of an order key',
  },
  { key: { createdAt: 1 }, name: 'expire', expireAfterSeconds: 30 * 86400, comment: 'events are kept 30 days (redelivery window)' },
];

export interface EventRepository {
  /** Stores events from outboxes under their own ids; answers how many were not stored before. */
  insertManyFromOutbox(events: readonly OutboxEvent[]): Promise<number>;
  findById(id: string): Promise<StoredEvent | null>;
  markPublished(id: string, payload: Record<string, unknown> | null, now?: Date): Promise<void>;
  listUnpublished(createdBefore: Date, limit: number): Promise<StoredEvent[]>;
  /** The unpublished event of `orderKey` that comes first (by order), or null. */
  earliestUnpublished(orderKey: string): Promise<StoredEvent | null>;
}

const toEvent = ({ _id, ...rest }: EventDoc): StoredEvent => ({ id: _id, ...rest });

export class DbEventRepository implements EventRepository {
  private readonly col: DocCollection<EventDoc>;
  constructor(db: Database) {
    this.col = db.collection<EventDoc>('domain_events');
  }

  async ensureIndexes(): Promise<void> {
    await this.col.createIndexes(EVENT_INDEXES);
  }

  async insertManyFromOutbox(events: readonly OutboxEvent[]): Promise<number> {
    if (events.length === 0) return 0;
    const docs: EventDoc[] = events.map(({ id, payload, ...rest }) => ({ _id: id, ...rest, payload: payload ?? null, publishedAt: null }));
    try {
      return (await this.col.insertMany(docs, { ordered: false })).insertedCount;
    } catch (err) {
      if (!onlyDuplicateKeys(err)) throw err;
      // Each write error is one event stored before (a relay and a sweep that overlapped).
      return docs.length - Math.max(1, writeErrorsOf(err).length);
    }
  }

  async findById(id: string): Promise<StoredEvent | null> {
    const doc = await this.col.findOne({ _id: id });
    return doc ? toEvent(doc) : null;
  }

  async markPublished(id: string, payload: Record<string, unknown> | null, now = new Date()): Promise<void> {
    await this.col.updateOne({ _id: id, publishedAt: null }, { $set: { payload, publishedAt: now } });
  }

  async listUnpublished(createdBefore: Date, limit: number): Promise<StoredEvent[]> {
    const docs = await this.col.find({ publishedAt: null, createdAt: { $lt: createdBefore } }, { sort: { createdAt: 1 }, limit });
    return docs.map(toEvent);
  }

  async earliestUnpublished(orderKey: string): Promise<StoredEvent | null> {
    const [doc] = await this.col.find({ orderKey, publishedAt: null }, { sort: { 'order.at': 1, 'order.version': 1, _id: 1 }, limit: 1 });
    return doc ? toEvent(doc) : null;
  }
}
