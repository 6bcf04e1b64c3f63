// Value → ids for the leading field of every index, so a find on an indexed field reads its
// candidates from a Map instead of testing every document. Candidates are always re-tested
// with the full filter, so this only has to return a superset of the matches.
import type { Document } from 'mongodb';
import { isIndexableScalar, valueKey } from './document-values.js';
import { readPath } from './index-keys.js';

export class FieldLookup {
  private readonly ids = new Map<string, Set<string>>();

  constructor(readonly field: string) {}

  /** Keys for the document; null and missing are left out because the planner never looks them up. */
  keysOf(doc: Document): string[] {
    const value = readPath(doc, this.field);
    if (Array.isArray(value)) {
      const keys = new Set<string>();
      for (const element of value.flat(Infinity)) if (isIndexableScalar(element)) keys.add(valueKey(element));
      return [...keys];
    }
    return isIndexableScalar(value) ? [valueKey(value)] : [];
  }

  /** Ids of documents whose field equals (or, for arrays, contains) the value. */
  idsFor(value: unknown): ReadonlySet<string> | undefined {
    return this.ids.get(valueKey(value));
  }

  add(doc: Document, id: string): void {
    for (const key of this.keysOf(doc)) {
      let set = this.ids.get(key);
      if (!set) this.ids.set(key, (set = new Set()));
      set.add(id);
    }
  }

  remove(doc: Document, id: string): void {
    for (const key of this.keysOf(doc)) {
      const set = this.ids.get(key);
      if (!set) continue;
      set.delete(id);
      if (set.size === 0) this.ids.delete(key);
    }
  }

  /** Moves the document between keys only when the field changed. */
  replace(before: Document, after: Document, id: string): void {
    const old = this.keysOf(before);
    const next = this.keysOf(after);
    if (old.length === next.length && old.every((k, i) => k === next[i])) return;
    this.remove(before, id);
    this.add(after, id);
  }

  clear(): void {
    this.ids.clear();
  }
}
