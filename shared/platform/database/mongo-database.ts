// Database over the official driver. Thin on purpose: each DocCollection method is one driver
// call; the only decisions are the interface's defaults (findOneAndUpdate returns the document
// after the update) and leaving undefined options out of what is sent to the server.
import { MongoClient } from 'mongodb';
import type { AnyBulkWriteOperation, Collection, Db, Document, Filter, IndexDescription, UpdateFilter } from 'mongodb';
import type {
  BulkOperation,
  BulkResult,
  Database,
  DocCollection,
  FindOneAndUpdateOptions,
  FindOptions,
  IndexSpec,
  StoredDoc,
  Update,
  UpdateOptions,
  UpdateResult,
} from './collection.js';

type DriverUpdate = UpdateFilter<StoredDoc> | Document[];
type DriverFilter = Filter<StoredDoc>;

/** Drops undefined entries: the driver would send them as null, which the server reads as a set option. */
function defined<O extends object>(options: O): Partial<O> {
  return Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) as Partial<O>;
}

function idString(id: unknown): string | null {
  return id === undefined || id === null ? null : String(id);
}

function toIndexDescription(spec: IndexSpec): IndexDescription {
  // `comment` documents the query the index serves; it stays in the code, not on the server.
  return {
    key: spec.key,
    name: spec.name,
    ...defined({ unique: spec.unique, partialFilterExpression: spec.partialFilterExpression, expireAfterSeconds: spec.expireAfterSeconds }),
  };
}

function toDriverBulkOperation(op: BulkOperation<StoredDoc>): AnyBulkWriteOperation<StoredDoc> {
  if ('insertOne' in op) return { insertOne: { document: op.insertOne.document } };
  if ('updateOne' in op) {
    const { filter, update, upsert } = op.updateOne;
    return { updateOne: { filter: filter as DriverFilter, update: update as DriverUpdate, ...defined({ upsert }) } };
  }
  if ('updateMany' in op) return { updateMany: { filter: op.updateMany.filter as DriverFilter, update: op.updateMany.update as DriverUpdate } };
  if ('deleteOne' in op) return { deleteOne: { filter: op.deleteOne.filter as DriverFilter } };
  return { deleteMany: { filter: op.deleteMany.filter as DriverFilter } };
}

class MongoDocCollection<T extends StoredDoc> implements DocCollection<T> {
  constructor(private readonly col: Collection<StoredDoc>) {}

  get name(): string {
    return this.col.collectionName;
  }

  async insertOne(doc: T): Promise<void> {
    await this.col.insertOne(doc);
  }

  async insertMany(docs: T[], options: { ordered?: boolean } = {}): Promise<{ insertedCount: number }> {
    const result = await this.col.insertMany(docs, defined({ ordered: options.ordered }));
    return { insertedCount: result.insertedCount };
  }

  async findOne(filter: Filter<T>, options: FindOptions = {}): Promise<T | null> {
    const { sort, skip, projection } = options;
    return (await this.col.findOne(filter as DriverFilter, defined({ sort, skip, projection }))) as unknown as T | null;
  }

  async find(filter: Filter<T>, options: FindOptions = {}): Promise<T[]> {
    const { sort, skip, limit, projection } = options;
    return (await this.col.find(filter as DriverFilter, defined({ sort, skip, limit, projection })).toArray()) as unknown as T[];
  }

  async findOneAndUpdate(filter: Filter<T>, update: Update<T>, options: FindOneAndUpdateOptions = {}): Promise<T | null> {
    const { upsert, sort, projection } = options;
    const doc = await this.col.findOneAndUpdate(filter as DriverFilter, update as DriverUpdate, {
      returnDocument: options.returnDocument ?? 'after',
      includeResultMetadata: false,
      ...defined({ upsert, sort, projection }),
    });
    return doc as unknown as T | null;
  }

  async updateOne(filter: Filter<T>, update: Update<T>, options: UpdateOptions = {}): Promise<UpdateResult> {
    const r = await this.col.updateOne(filter as DriverFilter, update as DriverUpdate, defined({ upsert: options.upsert }));
    return { matchedCount: r.matchedCount, modifiedCount: r.modifiedCount, upsertedId: idString(r.upsertedId) };
  }

  async updateMany(filter: Filter<T>, update: Update<T>): Promise<UpdateResult> {
    const r = await this.col.updateMany(filter as DriverFilter, update as DriverUpdate);
    return { matchedCount: r.matchedCount, modifiedCount: r.modifiedCount, upsertedId: idString(r.upsertedId) };
  }

  async deleteOne(filter: Filter<T>): Promise<{ deletedCount: number }> {
    const r = await this.col.deleteOne(filter as DriverFilter);
    return { deletedCount: r.deletedCount };
  }

  async deleteMany(filter: Filter<T>): Promise<{ deletedCount: number }> {
    const r = await this.col.deleteMany(filter as DriverFilter);
    return { deletedCount: r.deletedCount };
  }

  async countDocuments(filter: Filter<T>): Promise<number> {
    return this.col.countDocuments(filter as DriverFilter);
  }

  async aggregate<R extends Document = Document>(pipeline: Document[]): Promise<R[]> {
    return this.col.aggregate<R>(pipeline).toArray();
  }

  async bulkWrite(operations: BulkOperation<T>[], options: { ordered?: boolean } = {}): Promise<BulkResult> {
    const ops = (operations as unknown as BulkOperation<StoredDoc>[]).map(toDriverBulkOperation);
    const r = await this.col.bulkWrite(ops, defined({ ordered: options.ordered }));
    return {
      insertedCount: r.insertedCount,
      matchedCount: r.matchedCount,
      modifiedCount: r.modifiedCount,
      deletedCount: r.deletedCount,
      upsertedCount: r.upsertedCount,
    };
  }

  async createIndexes(indexes: IndexSpec[]): Promise<void> {
    if (indexes.length === 0) return;
    await this.col.createIndexes(indexes.map(toIndexDescription));
  }
}

class MongoDatabase implements Database {
  readonly kind = 'mongodb' as const;

  constructor(
    private readonly client: MongoClient,
    private readonly db: Db,
  ) {}

  collection<T extends StoredDoc>(name: string): DocCollection<T> {
    return new MongoDocCollection<T>(this.db.collection<StoredDoc>(name));
  }

  async ping(): Promise<void> {
    await this.db.command({ ping: 1 });
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}

/** Connects to MongoDB; the database is `dbName`, else the one named in the URL (else the driver's default, `test`). */
export async function openMongoDatabase(url: string, dbName?: string): Promise<Database> {
  const client = new MongoClient(url);
  await client.connect();
  return new MongoDatabase(client, client.db(dbName));
}
