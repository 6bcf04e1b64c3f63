// The test a query's filter makes of each candidate document. Most filters the repositories send
// are conjunctions of top-level fields equal to a string, number, boolean or null (a token's
// hash prefix, a queue's repository and branch, an entry's queue and state): those are tested
// directly, with the server's equality semantics (an array field matches when it holds the
// value; null matches null and a missing field); anything else goes to mingo, whose Query costs
// far more to build than such a filter costs to test.
import { Query } from 'mingo';
import type { Document } from 'mongodb';

export interface DocumentTest {
  test(doc: Document): boolean;
}

type Scalar = string | number | boolean | null;

const isScalar = (v: unknown): v is Scalar => v === null || typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && !Number.isNaN(v));

function equalsField(value: unknown, wanted: Scalar): boolean {
  if (wanted === null) {
    if (value === null || value === undefined) return true;
    return Array.isArray(value) && value.some((v) => v === null || v === undefined);
  }
  if (value === wanted) return true;
  return Array.isArray(value) && value.includes(wanted);
}

export function compileFilter(filter: Document): DocumentTest {
  const pairs = Object.entries(filter);
  const simple = pairs.every(([key, value]) => key.length > 0 && !key.startsWith('$') && !key.includes('.') && isScalar(value));
  if (!simple) return new Query(filter, {});
  return { test: (doc) => pairs.every(([key, wanted]) => equalsField(doc[key], wanted as Scalar)) };
}
