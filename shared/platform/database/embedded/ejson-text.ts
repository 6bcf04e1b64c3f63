// Relaxed Extended JSON text of a stored value, for the journal and the snapshot. The values this
// service stores (strings, numbers, booleans, null, Dates, arrays, plain objects) are written
// directly; anything else (ObjectId, Long, binary, patterns, NaN, …) goes through the driver's
// EJSON.stringify. `BSON.EJSON.parse` reads the text back to the value the driver's own text
// would give, and for those documents the very same text. Journal writes and compactions are the
// largest cost of bulk inserts on a persisted database; the native JSON.stringify over a copy
// whose Dates are already in their EJSON form takes about a fifth less time than the driver's.
import { BSON } from 'mongodb';
import { isPlainObject } from './document-values.js';

/** Dates relaxed EJSON writes as an ISO string; others as `$numberLong` milliseconds. */
const MIN_ISO_DATE = 0;
const MAX_ISO_DATE = 253402300799999; // 9999-12-31T23:59:59.999Z

/**
 * The EJSON form of each Date written: stored documents share equal Dates (value-interner.ts),
 * so a collection of runs holds few distinct ones, each formatted once instead of per document.
 * Stored Dates are never mutated (collection-store.ts), so the form stays right.
 */
const dateForms = new WeakMap<Date, unknown>();

function dateForm(value: Date): unknown {
  let form = dateForms.get(value);
  if (form === undefined) {
    const ms = value.getTime();
    if (ms < MIN_ISO_DATE || ms > MAX_ISO_DATE) form = BSON.EJSON.serialize(value);
    else {
      const iso = value.toISOString();
      // Whole seconds without their ".000", like the driver's text.
      form = { $date: ms % 1000 === 0 ? `${iso.slice(0, -5)}Z` : iso };
    }
    dateForms.set(value, form);
  }
  return form;
}

/**
 * The value with every Date and special value in its EJSON form, ready for JSON.stringify. An
 * array or object with nothing to convert is returned as it is, not copied: the columns of a
 * block of runs are long arrays of numbers and strings.
 */
function jsonReady(value: unknown): unknown {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'undefined': // the driver writes null
      return null;
    case 'number':
      return Number.isFinite(value) ? value : BSON.EJSON.serialize(value);
    case 'object': {
      if (value === null) return null;
      if (value instanceof Date) return dateForm(value);
      if (Array.isArray(value)) {
        let out: unknown[] | null = null;
        for (let i = 0; i < value.length; i++) {
          const element: unknown = value[i];
          const ready = jsonReady(element);
          if (out === null && ready !== element) out = value.slice(0, i);
          if (out !== null) out.push(ready);
        }
        return out ?? value;
      }
      if (isPlainObject(value)) {
        let out: Record<string, unknown> | null = null;
        const keys = Object.keys(value);
        for (let k = 0; k < keys.length; k++) {
          const key = keys[k] as string;
          const field = value[key];
          const ready = jsonReady(field);
          if (out === null && ready !== field) {
            out = {};
            for (let j = 0; j < k; j++) out[keys[j] as string] = value[keys[j] as string];
          }
          if (out !== null) out[key] = ready;
        }
        return out ?? value;
      }
      return BSON.EJSON.serialize(value);
    }
    default:
      return BSON.EJSON.serialize(value);
  }
}

/** One line of text (no newline inside) for the value. */
export function ejsonText(value: unknown): string {
  return JSON.stringify(jsonReady(value));
}
