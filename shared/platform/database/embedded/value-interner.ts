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

/** The object's own field (never one it inherits, such as a prototype's method). */
function ownField(object: Record<string, unknown> | undefined, key: string): unknown {
  return object !== undefined && Object.hasOwn(object, key) ? object[key] : undefined;
}

export class ValueInterner {
  private readonly dates = new Map<number, Date>();
  private readonly strings = new Map<string, string>();

  constructor(private readonly limit: number = DEFAULT_LIMIT) {}

  /**
   * The document to store: its Dates and short strings replaced by shared instances, and every
   * object of it rebuilt by a spread. An update adds and deletes fields key by key, which turns an
   * object of more than a dozen fields into a dictionary several times larger; the spread gives
   * it back a compact layout before it is kept for good.
   *
   * `previous` is the stored document this one replaces: a value equal to the one at the same
   * place in it is taken from it without a table lookup (an update changes a few fields of a
   * document whose other values are already shared, and most lookups were of those).
   */
  document(doc: Document, previous?: Document): Document {
    // Ids are unique by definition: a table entry for each would only cost memory.
    return this.object(doc, previous, '_id');
  }

  /** A spread of the object with its values shared, `kept` (if any) left as it is. */
  private object(value: Record<string, unknown>, previous: unknown, kept?: string): Record<string, unknown> {
    const before = isPlainObject(previous) ? previous : undefined;
    const out: Record<string, unknown> = { ...value };
    for (const key of Object.keys(out)) if (key !== kept) out[key] = this.value(out[key], ownField(before, key));
    return out;
  }

  private value(value: unknown, previous: unknown): unknown {
    if (typeof value === 'string') return value === previous ? previous : this.string(value);
    if (value === null || typeof value !== 'object') return value;
    if (value instanceof Date) return previous instanceof Date && previous.getTime() === value.getTime() ? previous : this.date(value);
    if (Array.isArray(value)) {
      const before: unknown[] | undefined = Array.isArray(previous) ? previous : undefined;
      for (let i = 0; i < value.length; i++) value[i] = this.value(value[i], before?.[i]);
      return value;
    }
    if (isPlainObject(value)) return this.object(value, previous);
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
