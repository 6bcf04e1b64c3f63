// The state of one embedded collection and every operation on it, all synchronous: the async
// DocCollection wrapper calls one method per operation, so no two operations interleave and a
// compare-and-set (findOneAndUpdate with the expected version in the filter) is atomic.
//
// Stored documents are never mutated: an update builds a new object from a copy and swaps it
// in after the unique indexes accept it, so a rejected write leaves the collection unchanged
// and readers always receive copies. That is also why stored documents may share equal Dates
// and strings (value-interner.ts), which keeps large collections several times smaller.
import { Aggregator, find as mingoFind } from 'mingo';
import { ObjectId } from 'mongodb';
import type { Document } from 'mongodb';
import type { BulkOperation, BulkResult, FindOptions, IndexSpec, StoredDoc } from '../collection.js';
import { preparePipeline } from './aggregate-pipeline.js';
import { applyUpdate, validateUpdate } from './apply-update.js';
import { deepCopy, idKey, isPlainObject, sameValue } from './document-values.js';
import { BulkWriteError, DuplicateKeyError, EmbeddedServerError, ErrorCode, errorCode, type WriteErrorInfo } from './errors.js';
import { IndexCatalog } from './index-catalog.js';
import { readPath } from './index-keys.js';
import type { JournalRecord } from './collection-files.js';
import { planCandidates } from './query-planner.js';
import { compileFilter, type DocumentTest } from './compiled-filter.js';
import { normalizeSort, sortDocuments } from './sort-documents.js';
import { upsertSeed } from './upsert-seed.js';
import { ValueInterner } from './value-interner.js';

/** Where committed writes go: the journal when persisted, nowhere in memory. */
export interface WriteSink {
  /** Called once per operation with that operation's records, before the operation returns. */
  commit(store: CollectionStore, records: JournalRecord[]): void;
}

export interface UpdateOutcome {
  matchedCount: number;
  modifiedCount: number;
  upsertedId: unknown;
  before: Document | null;
  after: Document | null;
}

interface SelectOptions {
  sort?: FindOptions['sort'];
  skip?: number;
  limit?: number;
}

const ID_KEY_PATTERN = { _id: 1 } as const;

function assertFilter(filter: unknown): Document {
  if (filter === undefined || filter === null) return {};
  if (!isPlainObject(filter)) throw new EmbeddedServerError(ErrorCode.BadValue, 'filter must be an object');
  // Copying also turns `undefined` into null, which is how the driver sends it.
  return deepCopy(filter);
}

function newId(): string {
  return new ObjectId().toHexString();
}

/**
 * The fields an inclusion projection of top-level fields keeps (`{a: 1, b: 1}`, with `_id` unless
 * `_id: 0`), or null for any other projection.
 */
function includedFields(projection: Document): string[] | null {
  const fields: string[] = [];
  let withId = true;
  for (const [key, value] of Object.entries(projection)) {
    if (key === '_id' && (value === 0 || value === false)) withId = false;
    else if ((value === 1 || value === true) && !key.startsWith('$') && !key.includes('.')) fields.push(key);
    else return null;
  }
  if (fields.length === 0) return null;
  return withId && !fields.includes('_id') ? ['_id', ...fields] : fields;
}

/** Copies of the documents, projected; with `shared`, the stored values themselves (a read-only caller). */
function project(docs: Document[], projection: Document | undefined, shared = false): Document[] {
  const copy = shared ? <V>(value: V): V => value : deepCopy;
  if (!projection || Object.keys(projection).length === 0) return shared ? docs : docs.map(deepCopy);
  // The common projection copies just its fields, not the whole document.
  const fields = includedFields(projection);
  if (fields) {
    return docs.map((doc) => {
      const out: Document = {};
      for (const f of fields) if (f in doc) out[f] = copy(doc[f] as unknown);
      return out;
    });
  }
  // mingo's projection may share sub-objects with its input, so copy its output.
  return mingoFind(docs, {}, projection)
    .all()
    .map((d) => copy(d as Document));
}

export class CollectionStore {
  private readonly docs = new Map<string, Document>();
  private readonly indexes: IndexCatalog;
  private readonly interner = new ValueInterner();
  private pending: JournalRecord[] = [];

  constructor(
    readonly name: string,
    private readonly namespace: string,
    private readonly sink: WriteSink | null,
    private readonly resolveCollection: (name: string) => Document[],
  ) {
    this.indexes = new IndexCatalog(namespace);
  }

  // ---- loading and persistence ----

  /** Restores persisted state (trusted: written by this database); rebuilding the indexes re-checks uniqueness. */
  load(docs: Document[], indexes: IndexSpec[]): void {
    for (const doc of docs) this.docs.set(idKey(doc._id), this.interner.document(doc));
    try {
      this.indexes.install(indexes, this.docs);
    } catch (err) {
      throw new Error(`embedded store: persisted data of ${this.name} violates an index (${(err as Error).message})`, { cause: err });
    }
  }

  get size(): number {
    return this.docs.size;
  }

  documents(): Iterable<Document> {
    return this.docs.values();
  }

  indexSpecs(): IndexSpec[] {
    return this.indexes.list();
  }

  /** Runs a write and commits whatever it changed, also when it stops at an error part-way. */
  private write<R>(fn: () => R): R {
    try {
      return fn();
    } finally {
      if (this.pending.length > 0) {
        const records = this.pending;
        this.pending = [];
        this.sink?.commit(this, records);
      }
    }
  }

  // ---- primitive changes (the only code that touches docs and indexes) ----

  /** Stores a new document and returns the instance kept (a compact copy of it). */
  private addDoc(input: Document): Document {
    const id = idKey(input._id);
    if (this.docs.has(id)) throw new DuplicateKeyError(this.namespace, '_id_', ID_KEY_PATTERN, { _id: input._id });
    const doc = this.interner.document(input);
    this.indexes.add(doc, id);
    this.docs.set(id, doc);
    this.pending.push({ p: doc });
    return doc;
  }

  /** Replaces a stored document and returns the instance kept (a compact copy of `next`). */
  private replaceDoc(before: Document, next: Document): Document {
    const id = idKey(before._id);
    const after = this.interner.document(next, before);
    this.indexes.replace(before, after, id);
    this.docs.set(id, after);
    this.pending.push({ p: after });
    return after;
  }

  private removeDoc(doc: Document): void {
    const id = idKey(doc._id);
    this.indexes.remove(doc, id);
    this.docs.delete(id);
    this.pending.push({ d: doc._id });
  }

  // ---- reads ----

  private select(filter: Document, options: SelectOptions = {}): Document[] {
    const planned = planCandidates(filter, this.docs, this.indexes);
    const source: Iterable<Document> = planned?.docs ?? this.docs.values();
    const query: DocumentTest = planned?.exact ? { test: () => true } : compileFilter(filter);
    const skip = Math.max(0, options.skip ?? 0);
    const limit = options.limit ? Math.abs(options.limit) : Infinity;
    const sortKeys = normalizeSort(options.sort);
    if (sortKeys.length === 0) {
      const out: Document[] = [];
      let skipped = 0;
      for (const doc of source) {
        if (!query.test(doc)) continue;
        if (skipped < skip) {
          skipped++;
          continue;
        }
        out.push(doc);
        if (out.length >= limit) break;
      }
      return out;
    }
    const matches: Document[] = [];
    for (const doc of source) if (query.test(doc)) matches.push(doc);
    const sorted = sortDocuments(matches, sortKeys);
    return sorted.slice(skip, limit === Infinity ? undefined : skip + limit);
  }

  find(filter: unknown, options: FindOptions = {}): Document[] {
    return project(this.select(assertFilter(filter), options), options.projection, options.readOnly === true);
  }

  /** A caller's copy of one stored document, projected. */
  view(doc: Document, projection?: Document): Document {
    return project([doc], projection)[0] as Document;
  }

  count(filter: unknown): number {
    return this.select(assertFilter(filter)).length;
  }

  /** Snapshot copies for `$lookup` from another collection. */
  copies(): Document[] {
    return [...this.docs.values()].map(deepCopy);
  }

  aggregate(pipeline: unknown): Document[] {
    const { filter, stages } = preparePipeline(pipeline);
    const input = this.select(assertFilter(filter)).map(deepCopy);
    if (stages.length === 0) return input;
    return new Aggregator(stages, { collectionResolver: this.resolveCollection }).run(input) as Document[];
  }

  // ---- writes ----

  private prepareInsert(input: unknown): Document {
    if (!isPlainObject(input)) throw new EmbeddedServerError(ErrorCode.BadValue, 'a document must be an object');
    const doc = deepCopy(input);
    // The driver generates an id when `_id` is null or undefined; the embedded database keeps ids strings.
    if (input._id === undefined || input._id === null) doc._id = newId();
    if (Array.isArray(doc._id)) throw new EmbeddedServerError(ErrorCode.BadValue, "can't use an array for _id");
    return doc;
  }

  insertOne(input: unknown): void {
    this.write(() => this.addDoc(this.prepareInsert(input)));
  }

  private updateFirst(filter: Document, update: unknown, options: { upsert?: boolean; sort?: FindOptions['sort'] }): UpdateOutcome {
    const [target] = this.select(filter, { sort: options.sort, limit: 1 });
    if (target) {
      const [next] = applyUpdate([deepCopy(target)], update, { filter, inserting: false }) as [Document];
      if (sameValue(next, target)) return { matchedCount: 1, modifiedCount: 0, upsertedId: null, before: target, after: target };
      const after = this.replaceDoc(target, next);
      return { matchedCount: 1, modifiedCount: 1, upsertedId: null, before: target, after };
    }
    if (!options.upsert) return { matchedCount: 0, modifiedCount: 0, upsertedId: null, before: null, after: null };
    const [doc] = applyUpdate([upsertSeed(filter)], update, { filter, inserting: true }) as [Document];
    if (doc._id === undefined || doc._id === null) doc._id = newId();
    const after = this.addDoc(doc);
    return { matchedCount: 0, modifiedCount: 0, upsertedId: after._id, before: null, after };
  }

  private updateAll(filter: Document, update: unknown): { matchedCount: number; modifiedCount: number } {
    const targets = this.select(filter);
    if (targets.length === 0) return { matchedCount: 0, modifiedCount: 0 };
    const nexts = applyUpdate(targets.map(deepCopy), update, { filter, inserting: false });
    let modifiedCount = 0;
    targets.forEach((target, i) => {
      const next = nexts[i] as Document;
      if (sameValue(next, target)) return;
      // Like the server, documents updated before a duplicate-key failure stay updated.
      this.replaceDoc(target, next);
      modifiedCount++;
    });
    return { matchedCount: targets.length, modifiedCount };
  }

  updateOne(filter: unknown, update: unknown, options: { upsert?: boolean; sort?: FindOptions['sort'] } = {}): UpdateOutcome {
    validateUpdate(update);
    return this.write(() => this.updateFirst(assertFilter(filter), update, options));
  }

  updateMany(filter: unknown, update: unknown): { matchedCount: number; modifiedCount: number } {
    validateUpdate(update);
    return this.write(() => this.updateAll(assertFilter(filter), update));
  }

  private deleteMatching(filter: unknown, limit: number | undefined): number {
    const targets = this.select(assertFilter(filter), { limit });
    for (const doc of targets) this.removeDoc(doc);
    return targets.length;
  }

  delete(filter: unknown, many: boolean): number {
    return this.write(() => this.deleteMatching(filter, many ? undefined : 1));
  }

  bulkWrite(operations: BulkOperation<StoredDoc>[], ordered: boolean): BulkResult {
    if (!Array.isArray(operations) || operations.length === 0) {
      throw new EmbeddedServerError(ErrorCode.BadValue, 'Invalid BulkOperation, Batch cannot be empty');
    }
    // The driver validates every update before sending any operation.
    for (const op of operations) {
      if ('updateOne' in op) validateUpdate(op.updateOne.update);
      else if ('updateMany' in op) validateUpdate(op.updateMany.update);
    }
    const result: BulkResult = { insertedCount: 0, matchedCount: 0, modifiedCount: 0, deletedCount: 0, upsertedCount: 0 };
    const writeErrors: WriteErrorInfo[] = [];
    this.write(() => {
      operations.forEach((op, index) => {
        if (ordered && writeErrors.length > 0) return;
        try {
          this.applyBulkOperation(op, result);
        } catch (err) {
          writeErrors.push({ index, code: errorCode(err) ?? ErrorCode.BadValue, errmsg: (err as Error).message, cause: err });
        }
      });
    });
    if (writeErrors.length > 0) throw new BulkWriteError(writeErrors, result);
    return result;
  }

  private applyBulkOperation(op: BulkOperation<StoredDoc>, result: BulkResult): void {
    if ('insertOne' in op) {
      this.addDoc(this.prepareInsert(op.insertOne.document));
      result.insertedCount++;
    } else if ('updateOne' in op) {
      const r = this.updateFirst(assertFilter(op.updateOne.filter), op.updateOne.update, { upsert: op.updateOne.upsert });
      result.matchedCount += r.matchedCount;
      result.modifiedCount += r.modifiedCount;
      if (r.upsertedId !== null) result.upsertedCount++;
    } else if ('updateMany' in op) {
      const r = this.updateAll(assertFilter(op.updateMany.filter), op.updateMany.update);
      result.matchedCount += r.matchedCount;
      result.modifiedCount += r.modifiedCount;
    } else if ('deleteOne' in op) {
      result.deletedCount += this.deleteMatching(op.deleteOne.filter, 1);
    } else if ('deleteMany' in op) {
      result.deletedCount += this.deleteMatching(op.deleteMany.filter, undefined);
    } else {
      throw new EmbeddedServerError(ErrorCode.BadValue, `unknown bulk operation ${JSON.stringify(Object.keys(op as object))}`);
    }
  }

  createIndexes(specs: IndexSpec[]): void {
    this.write(() => {
      const fresh = this.indexes.newSpecs(specs).map(deepCopy);
      if (fresh.length === 0) return;
      this.indexes.install(fresh, this.docs);
      for (const spec of fresh) this.pending.push({ i: spec });
    });
  }

  /** Removes documents whose TTL field is older than its index allows; returns how many. */
  removeExpired(now: number): number {
    const rules = this.indexes.ttlRules();
    if (rules.length === 0) return 0;
    return this.write(() => {
      const expired: Document[] = [];
      for (const doc of this.docs.values()) {
        for (const rule of rules) {
          const value = readPath(doc, rule.field);
          // An array of dates expires with its earliest date, as on the server.
          const dates = (Array.isArray(value) ? value : [value]).filter((v): v is Date => v instanceof Date);
          if (dates.length === 0) continue;
          const earliest = Math.min(...dates.map((d) => d.getTime()));
          if (earliest + rule.expireAfterSeconds * 1000 > now) continue;
          if (rule.partial && !rule.partial.test(doc)) continue;
          expired.push(doc);
          break;
        }
      }
      for (const doc of expired) this.removeDoc(doc);
      return expired.length;
    });
  }
}
