// Value → ids for the leading field of every index, so a find on an indexed field reads its
// candidates from a Map instead of testing every document. Candidates are always re-tested
// with the full filter, so this only has to return a superset of the matches.
//
// String values (nearly all of them) key their own map by the string itself: the stored
// documents' strings are the interner's shared instances, so adding a document allocates no key
// and the map's keys cost no memory of their own. Numbers, booleans and Dates key another map by
// their valueKey, which keeps 1 and "1" apart.
//
// A value held by one document maps to that document's id itself, and becomes a Set only when a
// second document shares it: fields such as expiry times are nearly unique, and an empty Set per
// document cost about 400 bytes (some 40 MB for 100,000 tests).
import type { Document } from 'mongodb';
import { isIndexableScalar, valueKey } from './document-values.js';
import { readPath } from './index-keys.js';

/** The ids of the documents holding one value: the id alone while there is one. */
type Holders = string | Set<string>;

export class FieldLookup {
  private readonly strings = new Map<string, Holders>();
  private readonly others = new Map<string, Holders>();

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

  private mapOf(value: unknown): Map<string, Holders> {
    return typeof value === 'string' ? this.strings : this.others;
  }

  private keyOf(value: unknown): string {
    return typeof value === 'string' ? value : valueKey(value);
  }

  /** How many documents' field equals (or, for arrays, contains) the value. */
  countFor(value: unknown): number {
    const holders = this.mapOf(value).get(this.keyOf(value));
    if (holders === undefined) return 0;
    return typeof holders === 'string' ? 1 : holders.size;
  }

  /** Ids of documents whose field equals (or, for arrays, contains) the value. */
  idsFor(value: unknown): Iterable<string> {
    const holders = this.mapOf(value).get(this.keyOf(value));
    if (holders === undefined) return [];
    return typeof holders === 'string' ? [holders] : holders;
  }

  add(doc: Document, id: string): void {
    for (const value of this.valuesOf(doc)) {
      const map = this.mapOf(value);
      const key = this.keyOf(value);
      const holders = map.get(key);
      if (holders === undefined) map.set(key, id);
      else if (typeof holders !== 'string') holders.add(id);
      else if (holders !== id) map.set(key, new Set([holders, id]));
    }
  }

  remove(doc: Document, id: string): void {
    for (const value of this.valuesOf(doc)) {
      const map = this.mapOf(value);
      const key = this.keyOf(value);
      const holders = map.get(key);
      if (holders === undefined) continue;
      if (typeof holders === 'string') {
        if (holders === id) map.delete(key);
        continue;
      }
      holders.delete(id);
      if (holders.size === 0) map.delete(key);
      else if (holders.size === 1) map.set(key, holders.values().next().value as string);
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
