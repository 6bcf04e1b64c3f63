// Picks the smallest candidate set a filter's equality conditions allow: `_id` from the id map,
// a full unique key from its index, or a leading index field from its lookup. Returns null
// when nothing applies (scan everything). Candidates are a superset: the caller still tests
// each one with the compiled filter, so matching semantics stay mingo's.
import type { Document } from 'mongodb';
import { idKey, isIndexableScalar, isPlainObject, valueKey } from './document-values.js';
import type { FieldLookup } from './field-lookup.js';
import type { IndexCatalog } from './index-catalog.js';

/** Field → the values it must equal (one of them, for `$in`), from the filter and its top-level `$and`. */
function equalityConditions(filter: Document, out = new Map<string, unknown[]>()): Map<string, unknown[]> {
  for (const [field, condition] of Object.entries(filter)) {
    if (field === '$and' && Array.isArray(condition)) {
      for (const clause of condition) if (isPlainObject(clause)) equalityConditions(clause, out);
      continue;
    }
    if (field.startsWith('$')) continue;
    let values: unknown[] | null = null;
    if (isIndexableScalar(condition)) values = [condition];
    else if (isPlainObject(condition)) {
      const ops = Object.keys(condition);
      if (ops.length === 1 && ops[0] === '$eq' && isIndexableScalar(condition.$eq)) values = [condition.$eq];
      if (ops.length === 1 && ops[0] === '$in' && Array.isArray(condition.$in) && condition.$in.every(isIndexableScalar)) {
        values = condition.$in;
      }
    }
    // With two conditions on one field, either one alone still bounds the matches.
    if (values && (!out.has(field) || (out.get(field) as unknown[]).length > values.length)) out.set(field, values);
  }
  return out;
}

export interface Candidates {
  docs: Document[];
  /** The candidates are exactly the matches (a filter on `_id` alone): no re-test needed. */
  exact: boolean;
}

export function planCandidates(filter: Document, docs: ReadonlyMap<string, Document>, indexes: IndexCatalog): Candidates | null {
  const equalities = equalityConditions(filter);
  if (equalities.size === 0) return null;

  const ids = equalities.get('_id');
  if (ids) {
    const seen = new Set<string>();
    const found: Document[] = [];
    for (const value of ids) {
      const key = idKey(value);
      const doc = docs.get(key);
      if (doc && !seen.has(key)) {
        seen.add(key);
        found.push(doc);
      }
    }
    // The id map's keys follow MongoDB equality, so when `_id` is the filter's only condition the
    // documents found are the matches (bulk reads and writes by id skip the filter test).
    const keys = Object.keys(filter);
    return { docs: found, exact: keys.length === 1 && keys[0] === '_id' };
  }

  const single = (field: string): unknown[] | undefined => {
    const values = equalities.get(field);
    return values && values.length === 1 ? values : undefined;
  };
  for (const index of indexes.uniqueIndexes()) {
    const sameValue = (field: string, value: unknown) => {
      const values = single(field);
      return values !== undefined && valueKey(values[0]) === valueKey(value);
    };
    if (!index.fields.every((f) => single(f)) || !index.coversFilter(sameValue)) continue;
    const key = index.fields.map((f) => valueKey((single(f) as unknown[])[0])).join('|');
    const owner = index.ownerOf(key);
    const doc = owner === undefined ? undefined : docs.get(owner);
    return { docs: doc ? [doc] : [], exact: false };
  }

  // Compare counts first so only the winning field's ids are walked.
  let best: { lookup: FieldLookup; values: unknown[] } | null = null;
  let bestSize = Infinity;
  for (const [field, values] of equalities) {
    const lookup = indexes.lookup(field);
    if (!lookup) continue;
    const size = values.reduce((n: number, v) => n + lookup.countFor(v), 0);
    if (size < bestSize) {
      best = { lookup, values };
      bestSize = size;
    }
    if (size === 0) break;
  }
  if (best === null) return null;
  const found: Document[] = [];
  const seen = best.values.length > 1 ? new Set<string>() : null;
  for (const value of best.values) {
    for (const id of best.lookup.idsFor(value)) {
      if (seen) {
        if (seen.has(id)) continue;
        seen.add(id);
      }
      const doc = docs.get(id);
      if (doc) found.push(doc);
    }
  }
  return { docs: found, exact: false };
}
