// One unique index: a Map from the serialised key to the owning document's id, so checking a
// write costs one lookup per key instead of a scan.
import { Query } from 'mingo';
import type { Document } from 'mongodb';
import type { IndexSpec } from '../collection.js';
import { DuplicateKeyError, EmbeddedServerError, ErrorCode } from './errors.js';
import { fieldKeys, readPath, type FieldKey } from './index-keys.js';

export interface IndexEntry {
  key: string;
  /** The key's field values in index order (for the duplicate-key message). */
  values: unknown[];
}

export class UniqueIndex {
  readonly fields: string[];
  private readonly partial: Query | null;
  private readonly owners = new Map<string, string>();

  constructor(
    readonly spec: IndexSpec,
    private readonly namespace: string,
  ) {
    this.fields = Object.keys(spec.key);
    this.partial = spec.partialFilterExpression ? new Query(spec.partialFilterExpression, {}) : null;
  }

  get name(): string {
    return this.spec.name;
  }

  /** True when the index covers every document the filter can match (the filter implies the partial filter). */
  coversFilter(sameValue: (field: string, value: unknown) => boolean): boolean {
    const partial = this.spec.partialFilterExpression;
    if (!partial) return true;
    return Object.entries(partial).every(([field, value]) => !field.startsWith('$') && sameValue(field, value));
  }

  /** The document's keys in this index: none when a partial filter excludes it. */
  entriesOf(doc: Document): IndexEntry[] {
    if (this.partial && !this.partial.test(doc)) return [];
    const perField: FieldKey[][] = [];
    let arrayField: string | null = null;
    for (const field of this.fields) {
      const value = readPath(doc, field);
      if (Array.isArray(value)) {
        if (arrayField !== null) {
          throw new EmbeddedServerError(
            ErrorCode.CannotIndexParallelArrays,
            `cannot index parallel arrays [${field}] [${arrayField}] (index ${this.spec.name})`,
          );
        }
        arrayField = field;
      }
      perField.push(fieldKeys(value));
    }
    let combos: IndexEntry[] = [{ key: '', values: [] }];
    perField.forEach((keys, i) => {
      const next: IndexEntry[] = [];
      for (const combo of combos) {
        for (const k of keys) next.push({ key: i === 0 ? k.key : `${combo.key}|${k.key}`, values: [...combo.values, k.value] });
      }
      combos = next;
    });
    return combos;
  }

  ownerOf(key: string): string | undefined {
    return this.owners.get(key);
  }

  /** Throws the duplicate-key error when a key already belongs to another document. */
  check(entries: IndexEntry[], id: string): void {
    for (const entry of entries) {
      const owner = this.owners.get(entry.key);
      if (owner !== undefined && owner !== id) {
        const keyValue: Record<string, unknown> = {};
        this.fields.forEach((field, i) => (keyValue[field] = entry.values[i]));
        throw new DuplicateKeyError(this.namespace, this.spec.name, this.spec.key, keyValue);
      }
    }
  }

  add(entries: IndexEntry[], id: string): void {
    for (const entry of entries) this.owners.set(entry.key, id);
  }

  remove(entries: IndexEntry[], id: string): void {
    for (const entry of entries) if (this.owners.get(entry.key) === id) this.owners.delete(entry.key);
  }

  clear(): void {
    this.owners.clear();
  }
}
