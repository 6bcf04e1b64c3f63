// The subset of the MongoDB driver's Collection API that repositories use. Two implementations:
// the official driver (shared/database/mongo-database.ts) and the embedded database
// (shared/database/embedded/). Repositories are written once, against this interface, with real
// MongoDB filter and update documents.
import type { Document, Filter, UpdateFilter, Sort } from 'mongodb';

export type { Document, Filter, UpdateFilter, Sort };

/** Every stored document has a string `_id`. */
export interface StoredDoc extends Document {
  _id: string;
}

/**
 * An update: operator document or aggregation pipeline. Typed loosely on purpose: the driver's
 * UpdateFilter<T> rejects `$push` with `$each`/`$slice` on documents with index signatures.
 */
export type Update<T extends StoredDoc> = UpdateFilter<T> | Document | Document[];

export interface FindOptions {
  sort?: Sort;
  skip?: number;
  limit?: number;
  projection?: Document;
  /**
   * The caller only reads the documents and builds its own values from them, never changing
   * them or keeping their parts: the embedded database then hands out the documents it stores
   * instead of copies (it never changes a stored document in place, so each one is consistent).
   * MongoDB's results are fresh objects either way.
   */
  readOnly?: boolean;
}

export interface FindOneAndUpdateOptions {
  /** Default 'after' (unlike the driver, whose default is 'before'): repositories want the new state. */
  returnDocument?: 'before' | 'after';
  upsert?: boolean;
  sort?: Sort;
  projection?: Document;
}

export interface UpdateOptions {
  upsert?: boolean;
}

export interface UpdateResult {
  matchedCount: number;
  modifiedCount: number;
  upsertedId: string | null;
}

export interface IndexSpec {
  /** Key document, e.g. `{ queueId: 1, prNumber: 1 }`. */
  key: Record<string, 1 | -1>;
  name: string;
  unique?: boolean;
  /** Only documents matching this filter are indexed (and checked for uniqueness). */
  partialFilterExpression?: Document;
  /** TTL: documents whose (single, Date) key field is older than this many seconds are removed. */
  expireAfterSeconds?: number;
  /** The query this index serves (kept in the code, not sent to the server). */
  comment: string;
}

export type BulkOperation<T extends StoredDoc> =
  | { insertOne: { document: T } }
  | { updateOne: { filter: Filter<T>; update: Update<T>; upsert?: boolean } }
  | { updateMany: { filter: Filter<T>; update: Update<T> } }
  | { deleteOne: { filter: Filter<T> } }
  | { deleteMany: { filter: Filter<T> } };

export interface BulkResult {
  insertedCount: number;
  matchedCount: number;
  modifiedCount: number;
  deletedCount: number;
  upsertedCount: number;
}

export interface DocCollection<T extends StoredDoc> {
  readonly name: string;
  insertOne(doc: T): Promise<void>;
  insertMany(docs: T[], options?: { ordered?: boolean }): Promise<{ insertedCount: number }>;
  findOne(filter: Filter<T>, options?: FindOptions): Promise<T | null>;
  find(filter: Filter<T>, options?: FindOptions): Promise<T[]>;
  findOneAndUpdate(filter: Filter<T>, update: Update<T>, options?: FindOneAndUpdateOptions): Promise<T | null>;
  updateOne(filter: Filter<T>, update: Update<T>, options?: UpdateOptions): Promise<UpdateResult>;
  updateMany(filter: Filter<T>, update: Update<T>): Promise<UpdateResult>;
  deleteOne(filter: Filter<T>): Promise<{ deletedCount: number }>;
  deleteMany(filter: Filter<T>): Promise<{ deletedCount: number }>;
  countDocuments(filter: Filter<T>): Promise<number>;
  aggregate<R extends Document = Document>(pipeline: Document[]): Promise<R[]>;
  bulkWrite(operations: BulkOperation<T>[], options?: { ordered?: boolean }): Promise<BulkResult>;
  createIndexes(indexes: IndexSpec[]): Promise<void>;
}

export interface Database {
  /** 'embedded' or 'mongodb': shown by /readyz and the start-up log. */
  readonly kind: 'embedded' | 'mongodb';
  collection<T extends StoredDoc>(name: string): DocCollection<T>;
  /** Resolves when the database answers; rejects otherwise. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export const DUPLICATE_KEY_CODE = 11000;

/** True for a unique-index violation from either database. */
export function isDuplicateKeyError(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === DUPLICATE_KEY_CODE;
}

/**
 * Unordered inserts report every failed document; when all failures are unique-index
 * violations, the documents exist already (a concurrent writer created them) and that is fine.
 */
export function onlyDuplicateKeys(err: unknown): boolean {
  const errors = writeErrorsOf(err);
  if (errors.length === 0) return isDuplicateKeyError(err);
  return errors.every((e) => (e as { code?: unknown }).code === DUPLICATE_KEY_CODE);
}

/** The per-document failures of a bulk write's error, one per document that was not written (either database). */
export function writeErrorsOf(err: unknown): unknown[] {
  const list = (err as { writeErrors?: unknown }).writeErrors;
  return Array.isArray(list) ? list : list ? [list] : [];
}
