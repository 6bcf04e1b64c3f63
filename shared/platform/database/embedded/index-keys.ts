// How a document's field values become index keys. Arrays are multikey (one key per element,
// as MongoDB indexes them); a missing field is keyed like null.
import { resolve } from 'mingo/util';
import type { Document } from 'mongodb';
import { valueKey } from './document-values.js';

export interface FieldKey {
  key: string;
  /** The value the key stands for, shown in duplicate-key messages. */
  value: unknown;
}

const EMPTY_ARRAY_KEY = '[]';

export function readPath(doc: Document, path: string): unknown {
  if (!path.includes('.')) return doc[path];
  return resolve(doc, path);
}

/** The keys one field contributes: one per distinct array element, or the value itself. */
export function fieldKeys(value: unknown): FieldKey[] {
  if (!Array.isArray(value)) return [{ key: valueKey(value), value: value ?? null }];
  const flat: unknown[] = value.flat(Infinity);
  if (flat.length === 0) return [{ key: EMPTY_ARRAY_KEY, value: [] }];
  const seen = new Map<string, FieldKey>();
  for (const element of flat) {
    const key = valueKey(element);
    if (!seen.has(key)) seen.set(key, { key, value: element ?? null });
  }
  return [...seen.values()];
}
