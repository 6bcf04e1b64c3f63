// The secondary indexes of one collection: their specs (validated like createIndexes on the
// server), the unique indexes that police writes, the lookups the planner reads, and TTL rules.
// Every change is checked against all unique indexes before anything is mutated, so a
// rejected write leaves every structure as it was.
import { Query } from 'mingo';
import type { Document } from 'mongodb';
import type { IndexSpec } from '../collection.js';
import { valueKey } from './document-values.js';
import { EmbeddedServerError, ErrorCode } from './errors.js';
import { FieldLookup } from './field-lookup.js';
import { UniqueIndex, type IndexEntry } from './unique-index.js';

export interface TtlRule {
  field: string;
  expireAfterSeconds: number;
  partial: Query | null;
}

/** The parts of a spec that make two indexes the same index (the comment is documentation). */
function identity(spec: IndexSpec): string {
  return valueKey({
    key: Object.entries(spec.key),
    unique: spec.unique === true,
    partial: spec.partialFilterExpression ?? null,
    ttl: spec.expireAfterSeconds ?? null,
  });
}

function validateSpec(spec: IndexSpec): void {
  const fields = Object.entries(spec.key ?? {});
  if (typeof spec.name !== 'string' || spec.name.length === 0 || spec.name === '_id_') {
    throw new EmbeddedServerError(ErrorCode.CannotCreateIndex, `invalid index name ${JSON.stringify(spec.name)}`);
  }
  if (fields.length === 0 || fields.some(([f, dir]) => f.length === 0 || f.startsWith('$') || (dir !== 1 && dir !== -1))) {
    throw new EmbeddedServerError(ErrorCode.CannotCreateIndex, `index ${spec.name}: key must map field paths to 1 or -1`);
  }
  if (spec.expireAfterSeconds !== undefined) {
    if (fields.length !== 1) {
      throw new EmbeddedServerError(ErrorCode.CannotCreateIndex, `index ${spec.name}: a TTL index must have exactly one field`);
    }
    if (!Number.isFinite(spec.expireAfterSeconds) || spec.expireAfterSeconds < 0) {
      throw new EmbeddedServerError(ErrorCode.CannotCreateIndex, `index ${spec.name}: expireAfterSeconds must be a non-negative number`);
    }
  }
  if (spec.partialFilterExpression !== undefined) new Query(spec.partialFilterExpression, {}); // throws on an invalid filter
}

export class IndexCatalog {
  private specs = new Map<string, IndexSpec>();
  private unique: UniqueIndex[] = [];
  private lookups = new Map<string, FieldLookup>();
  private ttl: TtlRule[] = [];

  constructor(private readonly namespace: string) {}

  list(): IndexSpec[] {
    return [...this.specs.values()];
  }

  ttlRules(): readonly TtlRule[] {
    return this.ttl;
  }

  uniqueIndexes(): readonly UniqueIndex[] {
    return this.unique;
  }

  lookup(field: string): FieldLookup | undefined {
    return this.lookups.get(field);
  }

  /**
   * Returns the specs that are new (existing identical ones are skipped, as createIndexes does)
   * and throws on a name or key conflict.
   */
  newSpecs(specs: IndexSpec[]): IndexSpec[] {
    const fresh: IndexSpec[] = [];
    const pending = new Map<string, IndexSpec>();
    for (const spec of specs) {
      validateSpec(spec);
      const existing = this.specs.get(spec.name) ?? pending.get(spec.name);
      if (existing) {
        if (identity(existing) === identity(spec)) continue;
        throw new EmbeddedServerError(
          ErrorCode.IndexKeySpecsConflict,
          `An existing index has the same name as the requested index but a different key or options: ${spec.name}`,
        );
      }
      const sameShape = [...this.specs.values(), ...pending.values()].find((s) => identity(s) === identity(spec));
      if (sameShape) {
        throw new EmbeddedServerError(ErrorCode.IndexOptionsConflict, `Index already exists with a different name: ${sameShape.name}`);
      }
      pending.set(spec.name, spec);
      fresh.push(spec);
    }
    return fresh;
  }

  /**
   * Adds indexes over the existing documents. Builds every unique index first and installs
   * nothing when one of them finds a duplicate (the server fails the build the same way).
   */
  install(specs: IndexSpec[], docs: ReadonlyMap<string, Document>): void {
    const built: UniqueIndex[] = [];
    const uniqueSpecs = specs.filter((s) => s.unique === true);
    if (uniqueSpecs.length > 0) {
      const indexes = uniqueSpecs.map((s) => new UniqueIndex(s, this.namespace));
      for (const [id, doc] of docs) {
        for (const index of indexes) {
          const entries = index.entriesOf(doc);
          index.check(entries, id);
          index.add(entries, id);
        }
      }
      built.push(...indexes);
    }
    for (const spec of specs) {
      this.specs.set(spec.name, spec);
      const leading = Object.keys(spec.key)[0] as string;
      if (!this.lookups.has(leading)) {
        const lookup = new FieldLookup(leading);
        for (const [id, doc] of docs) lookup.add(doc, id);
        this.lookups.set(leading, lookup);
      }
      if (spec.expireAfterSeconds !== undefined) {
        this.ttl.push({
          field: leading,
          expireAfterSeconds: spec.expireAfterSeconds,
          partial: spec.partialFilterExpression ? new Query(spec.partialFilterExpression, {}) : null,
        });
      }
    }
    this.unique.push(...built);
  }

  /** Checks then records a new document; throws (changing nothing) on a duplicate key. */
  add(doc: Document, id: string): void {
    const entries = this.unique.map((index) => index.entriesOf(doc));
    this.unique.forEach((index, i) => index.check(entries[i] as IndexEntry[], id));
    this.unique.forEach((index, i) => index.add(entries[i] as IndexEntry[], id));
    for (const lookup of this.lookups.values()) lookup.add(doc, id);
  }

  /** Checks then records an updated document; throws (changing nothing) on a duplicate key. */
  replace(before: Document, after: Document, id: string): void {
    const oldEntries = this.unique.map((index) => index.entriesOf(before));
    const newEntries = this.unique.map((index) => index.entriesOf(after));
    this.unique.forEach((index, i) => index.check(newEntries[i] as IndexEntry[], id));
    this.unique.forEach((index, i) => {
      index.remove(oldEntries[i] as IndexEntry[], id);
      index.add(newEntries[i] as IndexEntry[], id);
    });
    for (const lookup of this.lookups.values()) lookup.replace(before, after, id);
  }

  remove(doc: Document, id: string): void {
    for (const index of this.unique) index.remove(index.entriesOf(doc), id);
    for (const lookup of this.lookups.values()) lookup.remove(doc, id);
  }
}
