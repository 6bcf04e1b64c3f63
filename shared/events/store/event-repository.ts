// The outbox of domain events: written right after the state change they describe, then published
// (rendered and fanned out to webhook endpoints) by a job. Ids are UUIDv7 (time-ordered).
import { v7 as uuidv7 } from 'uuid';
import type { Database, DocCollection, IndexSpec, StoredDoc } from '../../database/collection.js';
import type { EmittedEvent, StoredEvent } from '../event-types.js';

type EventDoc = StoredDoc & Omit<StoredEvent, 'id'>;

export const EVENT_INDEXES: IndexSpec[] = [
  { key: { publishedAt: 1, createdAt: 1 }, name: 'unpublished', comment: 'the sweep: events whose publish job was lost' },
  { key: { createdAt: 1 }, name: 'expire', expireAfterSeconds: 30 * 86400, comment: 'events are kept 30 days (redelivery window)' },
];

export interface EventRepository {
  insert(event: EmittedEvent, now?: Date): Promise<StoredEvent>;
  findById(id: string): Promise<StoredEvent | null>;
  markPublished(id: string, payload: Record<string, unknown> | null, now?: Date): Promise<void>;
  listUnpublished(createdBefore: Date, limit: number): Promise<StoredEvent[]>;
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

  async insert(event: EmittedEvent, now = new Date()): Promise<StoredEvent> {
    const doc: EventDoc = { _id: uuidv7(), ...event, createdAt: now, payload: event.payload ?? null, publishedAt: null };
    await this.col.insertOne(doc);
    return toEvent(doc);
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
}
