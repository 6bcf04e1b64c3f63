// Value → ids for the leading field of every index, so a find on an indexed field reads its
// candidates from a Map instead of testing every document. Candidates are always re-tested
// with the full filter, so this only has to return a superset of the matches.
//
// String values (nearly all of them) key their own map by the string itself: the stored
// documents' strings are the interner's shared instances, so adding a document allocates no key
// and the map's keys cost no memory of their own. Numbers, booleans and Dates key another map by
// their valueKey, which keeps 1 and "1" apart.
import type { Document } from 'mongodb';
import { isIndexableScalar, valueKey } from './document-values.js';
import { readPath } from './index-keys.js';

export class FieldLookup {
  private readonly strings = new Map<string, Set<string>>();
  private readonly others = new Map<string, Set<string>>();

  constructor(readonly field: string) {}

  /** The distinct indexable values of the document's field (each element of an array); null and missing are left out because the planner never looks them up. */
  private valuesOf(doc: Document): unknown[] {
    const value = readPath(doc, this.field);
    if (!Array.isArray(value)) return isIndexableScalar(value) ? [value] : [];
    const strings = new Set<string>();
    const others = new Map<string, unknown>();
    for (const element of value.flat(Infinity)) {
      if (typeof element === 'string') strings.add(element);
      else if (isIndexableScalar(element)) others.set(valueKey(element), element);
    }
    return [...strings, ...others.values()];
  }

  private setFor(value: unknown, create: boolean): Set<string> | undefined {
    const map = typeof value === 'string' ? this.strings : this.others;
    const key = typeof value === 'string' ? value : valueKey(value);
    let set = map.get(key);
    if (!set && create) map.set(key, (set = new Set()));
    return set;
  }

  /** Ids of documents whose field equals (or, for arrays, contains) the value. */
  idsFor(value: unknown): ReadonlySet<string> | undefined {
    return this.setFor(value, false);
  }

  add(doc: Document, id: string): void {
    for (const value of this.valuesOf(doc)) (this.setFor(value, true) as Set<string>).add(id);
  }

  remove(doc: Document, id: string): void {
    for (const value of this.valuesOf(doc)) {
      const set = this.setFor(value, false);
      if (!set) continue;
      set.delete(id);
      if (set.size > 0) continue;
      if (typeof value === 'string') this.strings.delete(value);
      else this.others.delete(valueKey(value));
    }
  }

  /** Moves the document between keys only when the field changed. */
  replace(before: Document, after: Document, id: string): void {
    const old = this.valuesOf(before);
    const next = this.valuesOf(after);
    if (
      old.length === next.length &&
      old.every((v, i) => v === next[i] || (v instanceof Date && next[i] instanceof Date && v.getTime() === (next[i] as Date).getTime()))
    )
      return;
    this.remove(before, id);
    this.add(after, id);
  }

  clear(): void {
    this.strings.clear();
    this.others.clear();
  }
}
