// Records that are used once and expire: sign-ins under way and CLI grants. Each is stored under a
// hash of the secret that finds it (a `state`, a code), taken once — of two concurrent requests
// only the one whose delete succeeds gets it — and purged once past its end.
import type { Database, DocCollection, IndexSpec, StoredDoc } from '../../platform/database/collection.js';

export interface OneTimeRecord {
  /** A hash of the secret that finds the record. */
  key: string;
  expiresAt: Date;
}

export interface OneTimeRecordRepository<T extends OneTimeRecord> {
  insert(record: T): Promise<void>;
  /** The record, removed so that it cannot be used again; null when there is none (or another request took it). */
  take(key: string): Promise<T | null>;
  purgeExpired(now: Date): Promise<number>;
}

/** The stored form: the key as `_id`; the rest is the record's own, which only this class reads back. */
interface RecordDoc extends StoredDoc {
  expiresAt: Date;
}

export class DbOneTimeRecordRepository<T extends OneTimeRecord> implements OneTimeRecordRepository<T> {
  private readonly col: DocCollection<RecordDoc>;
  private readonly indexes: IndexSpec[];

  constructor(db: Database, collection: string, what: string) {
    this.col = db.collection<RecordDoc>(collection);
    this.indexes = [{ key: { expiresAt: 1 }, name: 'expires', comment: `purge ${what}` }];
  }

  async ensureIndexes(): Promise<void> {
    await this.col.createIndexes(this.indexes);
  }

  async insert({ key, ...rest }: T): Promise<void> {
    await this.col.insertOne({ _id: key, ...rest });
  }

  async take(key: string): Promise<T | null> {
    const doc = await this.col.findOne({ _id: key });
    if (!doc || (await this.col.deleteOne({ _id: key })).deletedCount !== 1) return null;
    const { _id, ...rest } = doc;
    return { key: _id, ...rest } as unknown as T;
  }

  async purgeExpired(now: Date): Promise<number> {
    return (await this.col.deleteMany({ expiresAt: { $lte: now } })).deletedCount;
  }
}
