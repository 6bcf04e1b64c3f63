// DocCollection over a CollectionStore. Each method runs its whole operation synchronously
// inside the async function, so operations never interleave and errors become rejections.
import type { Document } from 'mongodb';
import type {
  BulkOperation,
  BulkResult,
  DocCollection,
  Filter,
  FindOneAndUpdateOptions,
  FindOptions,
  IndexSpec,
  StoredDoc,
  Update,
  UpdateOptions,
  UpdateResult,
} from '../collection.js';
import type { CollectionStore } from './collection-store.js';

export class EmbeddedCollection<T extends StoredDoc> implements DocCollection<T> {
  constructor(
    private readonly store: CollectionStore,
    /** Throws when the database can no longer serve (closed, or a journal write failed). */
    private readonly assertUsable: () => void,
  ) {}

  get name(): string {
    return this.store.name;
  }

  async insertOne(doc: T): Promise<void> {
    this.assertUsable();
    this.store.insertOne(doc);
  }

  async insertMany(docs: T[], options: { ordered?: boolean } = {}): Promise<{ insertedCount: number }> {
    this.assertUsable();
    const result = this.store.bulkWrite(
      docs.map((document) => ({ insertOne: { document } })),
      options.ordered ?? true,
    );
    return { insertedCount: result.insertedCount };
  }

  async findOne(filter: Filter<T>, options: FindOptions = {}): Promise<T | null> {
    this.assertUsable();
    return (this.store.find(filter, { ...options, limit: 1 })[0] as T | undefined) ?? null;
  }

  async find(filter: Filter<T>, options: FindOptions = {}): Promise<T[]> {
    this.assertUsable();
    return this.store.find(filter, options) as T[];
  }

  async findOneAndUpdate(filter: Filter<T>, update: Update<T>, options: FindOneAndUpdateOptions = {}): Promise<T | null> {
    this.assertUsable();
    const outcome = this.store.updateOne(filter, update, { upsert: options.upsert, sort: options.sort });
    const doc = (options.returnDocument ?? 'after') === 'after' ? outcome.after : outcome.before;
    return doc ? (this.store.view(doc, options.projection) as T) : null;
  }

  async updateOne(filter: Filter<T>, update: Update<T>, options: UpdateOptions = {}): Promise<UpdateResult> {
    this.assertUsable();
    const outcome = this.store.updateOne(filter, update, { upsert: options.upsert });
    return {
      matchedCount: outcome.matchedCount,
      modifiedCount: outcome.modifiedCount,
      upsertedId: outcome.upsertedId === null ? null : String(outcome.upsertedId),
    };
  }

  async updateMany(filter: Filter<T>, update: Update<T>): Promise<UpdateResult> {
    this.assertUsable();
    const outcome = this.store.updateMany(filter, update);
    return { ...outcome, upsertedId: null };
  }

  async deleteOne(filter: Filter<T>): Promise<{ deletedCount: number }> {
    this.assertUsable();
    return { deletedCount: this.store.delete(filter, false) };
  }

  async deleteMany(filter: Filter<T>): Promise<{ deletedCount: number }> {
    this.assertUsable();
    return { deletedCount: this.store.delete(filter, true) };
  }

  async countDocuments(filter: Filter<T>): Promise<number> {
    this.assertUsable();
    return this.store.count(filter);
  }

  async aggregate<R extends Document = Document>(pipeline: Document[]): Promise<R[]> {
    this.assertUsable();
    return this.store.aggregate(pipeline) as R[];
  }

  async bulkWrite(operations: BulkOperation<T>[], options: { ordered?: boolean } = {}): Promise<BulkResult> {
    this.assertUsable();
    return this.store.bulkWrite(operations as unknown as BulkOperation<StoredDoc>[], options.ordered ?? true);
  }

  async createIndexes(indexes: IndexSpec[]): Promise<void> {
    this.assertUsable();
    this.store.createIndexes(indexes);
  }
}
