// The test a query's filter makes of each candidate document. Most filters the repositories send
// are conjunctions of top-level fields equal to a string, number, boolean or null (a token's
// hash prefix, a queue's repository and branch, an entry's queue and state), in a list (`$in`),
// or within a range of dates or numbers: those are tested directly, with the server's semantics
// (an array field matches when one of its elements does; null matches null and a missing field;
// a range matches only values of its own type); anything else goes to mingo, whose Query costs
// far more to build than such a filter costs to test, and whose `$in` compares every element of
// an array field with every value of the list.
import { Query } from 'mingo';
import type { Document } from 'mongodb';

export interface DocumentTest {
  test(doc: Document): boolean;
}

type Scalar = string | number | boolean | null;
type FieldTest = (value: unknown, doc: Document) => boolean;

const isScalar = (v: unknown): v is Scalar => v === null || typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && !Number.isNaN(v));

const RANGE_OPERATORS = new Set(['$gt', '$gte', '$lt', '$lte']);

function equalsField(value: unknown, wanted: Scalar): boolean {
  if (wanted === null) {
    if (value === null || value === undefined) return true;
    return Array.isArray(value) && value.some((v) => v === null || v === undefined);
  }
  if (value === wanted) return true;
  return Array.isArray(value) && value.includes(wanted);
}

function inList(list: readonly Scalar[]): FieldTest {
  const wanted = new Set<unknown>(list);
  const withNull = wanted.has(null);
  const one = (v: unknown) => wanted.has(v) || (withNull && v === undefined);
  return (value) => (Array.isArray(value) ? value.some(one) : one(value));
}

/** `{$gte: …, $lt: …}` over Dates or over numbers; null for any other condition. */
function range(condition: Document, fallback: () => Query): FieldTest | null {
  const bounds = Object.entries(condition);
  if (bounds.length === 0 || !bounds.every(([op]) => RANGE_OPERATORS.has(op))) return null;
  const dates = bounds.every(([, v]) => v instanceof Date);
  const numbers = bounds.every(([, v]) => typeof v === 'number' && !Number.isNaN(v));
  if (!dates && !numbers) return null;
  const limits = bounds.map(([op, v]) => [op, dates ? (v as Date).getTime() : (v as number)] as const);
  const within = (x: number) => limits.every(([op, limit]) => (op === '$gt' ? x > limit : op === '$gte' ? x >= limit : op === '$lt' ? x < limit : x <= limit));
  return (value, doc) => {
    // An array matches when its elements, together, satisfy the bounds: mingo knows how.
    if (Array.isArray(value)) return fallback().test(doc);
    if (dates) return value instanceof Date && within(value.getTime());
    return typeof value === 'number' && within(value);
  };
}

function fieldTest(condition: unknown, fallback: () => Query): FieldTest | null {
  if (isScalar(condition)) return (value) => equalsField(value, condition);
  if (condition === null || typeof condition !== 'object' || Array.isArray(condition) || condition instanceof Date) return null;
  const c = condition as Document;
  const ops = Object.keys(c);
  if (ops.length === 1 && ops[0] === '$eq' && isScalar(c.$eq)) {
    const wanted = c.$eq;
    return (value) => equalsField(value, wanted);
  }
  if (ops.length === 1 && ops[0] === '$in' && Array.isArray(c.$in) && c.$in.every(isScalar)) return inList(c.$in as Scalar[]);
  return range(c, fallback);
}

export function compileFilter(filter: Document): DocumentTest {
  let query: Query | null = null;
  const fallback = () => (query ??= new Query(filter, {}));
  const tests: [string, FieldTest][] = [];
  for (const [key, condition] of Object.entries(filter)) {
    if (key.length === 0 || key.startsWith('$') || key.includes('.')) return fallback();
    const test = fieldTest(condition, fallback);
    if (!test) return fallback();
    tests.push([key, test]);
  }
  return { test: (doc) => tests.every(([key, test]) => test(doc[key], doc)) };
}
