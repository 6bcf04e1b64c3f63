// find()'s sort with MongoDB's rules on top of mingo's BSON type ordering: a missing field
// sorts as null, an array sorts by its smallest element ascending and its largest descending,
// an empty array sorts before null, and ties keep the input order (stable).
import { compare } from 'mingo/util';
import type { Document, Sort } from 'mongodb';
import { EmbeddedServerError, ErrorCode } from './errors.js';
import { readPath } from './index-keys.js';

export type SortKeys = Array<[string, 1 | -1]>;

function direction(value: unknown, field: string): 1 | -1 {
  if (value === 1 || value === 'asc' || value === 'ascending') return 1;
  if (value === -1 || value === 'desc' || value === 'descending') return -1;
  throw new EmbeddedServerError(ErrorCode.BadValue, `unsupported sort direction for ${field}: ${JSON.stringify(value)}`);
}

/** Accepts the driver's Sort shapes: `{a: 1}`, `'a'`, `['a', 'b']`, `[['a', -1]]`, `['a', -1]`, a Map. */
export function normalizeSort(sort: Sort | undefined): SortKeys {
  if (sort === undefined || sort === null) return [];
  if (typeof sort === 'string') return [[sort, 1]];
  if (sort instanceof Map) return [...sort.entries()].map(([k, v]: [string, unknown]) => [k, direction(v, k)]);
  if (Array.isArray(sort)) {
    const items: unknown[] = sort;
    if (items.length === 2 && typeof items[0] === 'string' && !Array.isArray(items[1]) && typeof items[1] !== 'string') {
      return [[items[0], direction(items[1], items[0])]];
    }
    return items.map((item): [string, 1 | -1] => {
      if (typeof item === 'string') return [item, 1];
      if (Array.isArray(item) && typeof item[0] === 'string') return [item[0], direction(item[1], item[0])];
      throw new EmbeddedServerError(ErrorCode.BadValue, `invalid sort: ${JSON.stringify(sort)}`);
    });
  }
  if (typeof sort === 'object') return Object.entries(sort).map(([k, v]: [string, unknown]) => [k, direction(v, k)]);
  throw new EmbeddedServerError(ErrorCode.BadValue, `invalid sort: ${JSON.stringify(sort)}`);
}

/** Sorts below every value, null included, the way MongoDB places an empty array. */
const EMPTY_ARRAY = undefined;

function sortValue(doc: Document, field: string, dir: 1 | -1): unknown {
  const value = readPath(doc, field);
  if (value === undefined) return null;
  if (!Array.isArray(value)) return value;
  const elements: unknown[] = value.flat(Infinity);
  if (elements.length === 0) return EMPTY_ARRAY;
  let best: unknown = elements[0] ?? null;
  for (const element of elements) {
    const v = element ?? null;
    if (compare(v, best) * dir < 0) best = v;
  }
  return best;
}

export function sortDocuments(docs: Document[], keys: SortKeys): Document[] {
  if (keys.length === 0) return docs;
  const decorated = docs.map((doc) => ({ doc, values: keys.map(([field, dir]) => sortValue(doc, field, dir)) }));
  decorated.sort((a, b) => {
    for (let i = 0; i < keys.length; i++) {
      const dir = (keys[i] as [string, 1 | -1])[1];
      const c = compare(a.values[i], b.values[i]);
      if (c !== 0) return c * dir;
    }
    return 0;
  });
  return decorated.map((d) => d.doc);
}
