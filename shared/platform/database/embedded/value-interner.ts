// Stored documents of a collection share one instance per equal Date and per equal string.
// Safe because a stored document is never mutated in place (readers get copies, or read-only
// views); worth it because the largest collections repeat the same values document after document
// (every upload of a suite repeats its test ids and counter keys), and a Date costs about 100
// bytes. Each table is cleared when it reaches its limit, which only stops sharing for values seen
// before the clear: documents keep whatever instances they hold.
//
// The limit is a million strings: a 100,000-test repository interns about 200,000 strings per
// upload (case ids and counter keys), and a smaller table, emptied twice per upload, shared
// nothing between uploads (each kept its own copies, some 16 MB per upload). The price is what a
// full table keeps alive after its documents are gone: at most a million short strings, about
// 100 MB, per collection that ever sees that many distinct ones.
import type { Document } from 'mongodb';
import { isPlainObject } from './document-values.js';

const DEFAULT_LIMIT = 1_000_000;
/** Longer strings (failure texts, outputs) are rarely repeated exactly; they are kept as they are. */
const MAX_INTERNED_LENGTH = 256;

export class ValueInterner {
  private readonly dates = new Map<number, Date>();
  private readonly strings = new Map<string, string>();

  constructor(private readonly limit: number = DEFAULT_LIMIT) {}

  /** Replaces, in place, the Dates and short strings of a document the store owns by shared instances. */
  document(doc: Document): Document {
    for (const key of Object.keys(doc)) {
      // Ids are unique by definition: a table entry for each would only cost memory.
      if (key !== '_id') doc[key] = this.value(doc[key]);
    }
    return doc;
  }

  private value(value: unknown): unknown {
    if (typeof value === 'string') return this.string(value);
    if (value === null || typeof value !== 'object') return value;
    if (value instanceof Date) return this.date(value);
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) value[i] = this.value(value[i]);
      return value;
    }
    if (isPlainObject(value)) {
      for (const key of Object.keys(value)) value[key] = this.value(value[key]);
    }
    return value;
  }

  private string(value: string): string {
    if (value.length > MAX_INTERNED_LENGTH) return value;
    const shared = this.strings.get(value);
    if (shared !== undefined) return shared;
    if (this.strings.size >= this.limit) this.strings.clear();
    this.strings.set(value, value);
    return value;
  }

  private date(value: Date): Date {
    const time = value.getTime();
    if (Number.isNaN(time)) return value;
    const shared = this.dates.get(time);
    if (shared !== undefined) return shared;
    if (this.dates.size >= this.limit) this.dates.clear();
    this.dates.set(time, value);
    return value;
  }
}
