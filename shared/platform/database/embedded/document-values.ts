// Value helpers shared by the embedded database: copying documents the way a BSON round trip
// would, and turning values into strings that are equal exactly when MongoDB's equality says
// the values are equal (used as Map keys by the `_id` map and the indexes).
import { BSON } from 'mongodb';

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * Deep copy. `undefined` becomes null because that is what the driver stores for it (BSON has
 * no undefined and `ignoreUndefined` is off), so both databases hand back the same document.
 */
export function deepCopy<V>(value: V): V {
  return copyValue(value) as V;
}

function copyValue(value: unknown): unknown {
  if (value === undefined) return null;
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    const out: unknown[] = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) out[i] = copyValue(value[i]);
    return out;
  }
  if (value instanceof Date) return new Date(value.getTime());
  if (isPlainObject(value)) {
    // A spread, then stores to fields it already has: filling an empty object key by key turns one
    // of more than a dozen fields into a dictionary, several times larger and slower to read.
    const out: Record<string, unknown> = { ...value };
    for (const key of Object.keys(out)) {
      const field = out[key];
      if (field === undefined || (field !== null && typeof field === 'object')) out[key] = copyValue(field);
    }
    return out;
  }
  if (value instanceof RegExp) return new RegExp(value.source, value.flags);
  if (ArrayBuffer.isView(value)) return Buffer.from(value.buffer.slice(value.byteOffset, value.byteOffset + value.byteLength));
  // BSON value classes (ObjectId, Decimal128, Long, …) are immutable: sharing them is safe.
  return value;
}

/**
 * Pipeline updates can produce `undefined` for an expression over a missing field; MongoDB
 * leaves such a field out of the document instead of storing it.
 */
export function dropUndefinedFields(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((v) => (v === undefined ? null : dropUndefinedFields(v)));
  if (isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      const v = value[key];
      if (v !== undefined) out[key] = dropUndefinedFields(v);
    }
    return out;
  }
  return value;
}

/**
 * A string that identifies a value under MongoDB equality: 1 and 1.0 (and -0) agree, "1" and
 * 1 differ, Dates compare by instant, and embedded documents by ordered fields. Missing and
 * null share a key because a unique index treats a missing field as null.
 */
export function valueKey(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      return Object.is(value, -0) ? 'n0' : `n${value}`;
    case 'boolean':
      return value ? 't' : 'f';
    case 'undefined':
      return 'N';
    case 'bigint':
      return `n${value}`;
    case 'object': {
      if (value === null) return 'N';
      if (Array.isArray(value)) return `[${value.map(valueKey).join(',')}]`;
      if (value instanceof Date) return `D${value.getTime()}`;
      if (isPlainObject(value)) {
        const parts: string[] = [];
        for (const key of Object.keys(value)) parts.push(`${JSON.stringify(key)}:${valueKey(value[key])}`);
        return `{${parts.join(',')}}`;
      }
      return `E${BSON.EJSON.stringify(value)}`;
    }
    default:
      return `?${String(value)}`;
  }
}

/** `valueKey(a) === valueKey(b)` without building the keys (an update that changes nothing is not written). */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || a === undefined) return b === null || b === undefined;
  if (typeof a !== 'object' || typeof b !== 'object' || b === null) return valueKey(a) === valueKey(b);
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameValue(a[i], b[i])) return false;
    return true;
  }
  if (a instanceof Date) return b instanceof Date && a.getTime() === b.getTime();
  if (isPlainObject(a)) {
    if (!isPlainObject(b)) return false;
    const keys = Object.keys(a);
    const other = Object.keys(b);
    if (keys.length !== other.length) return false;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i] as string;
      if (key !== other[i] || !sameValue(a[key], b[key])) return false;
    }
    return true;
  }
  return valueKey(a) === valueKey(b);
}

/**
 * The key of the `_id` map. String ids (every id this service writes) are their own key, so the
 * common lookup costs no serialisation; other ids get a prefix no string id starts with.
 */
export function idKey(id: unknown): string {
  if (typeof id === 'string' && !id.startsWith('\u0000')) return id;
  return `\u0000${valueKey(id)}`;
}

/** True for values an equality match can look up in an index: not null, not a container, not a pattern. */
export function isIndexableScalar(value: unknown): boolean {
  const t = typeof value;
  if (t === 'string' || t === 'boolean') return true;
  if (t === 'number') return !Number.isNaN(value);
  return value instanceof Date;
}

/** Renders a dup-key value the way MongoDB's error messages do: `{ a: "x", b: 1 }`. */
export function renderKeyValue(keyValue: Record<string, unknown>): string {
  const parts = Object.entries(keyValue).map(([k, v]) => `${k}: ${v === undefined ? 'null' : BSON.EJSON.stringify(v, { relaxed: true })}`);
  return `{ ${parts.join(', ')} }`;
}
