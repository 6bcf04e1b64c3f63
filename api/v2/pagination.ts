// Cursor pagination as the contract describes it: `limit` 1–100 (default 25), `cursor` the
// previous answer's `nextCursor`, opaque and forward-only, bound to the operation and its filters
// (a cursor of another list, or of the same list with other filters, is 400 INVALID_CURSOR), and
// `includeTotal` to count everything that matches.
import { createHash } from 'node:crypto';
import { V2Error } from './v2-errors.js';

export interface PageRequest {
  limit: number;
  /** The position the previous page ended at, decoded; undefined on the first page. */
  after: unknown;
  includeTotal: boolean;
}

export interface Page<T> {
  data: T[];
  nextCursor: string | null;
  hasMore: boolean;
  total?: number;
}

const DEFAULT_LIMIT = 25;

const bindingOf = (operationId: string, filters: Record<string, unknown>) =>
  createHash('sha256')
    .update(JSON.stringify([operationId, Object.entries(filters).sort(([a], [b]) => a.localeCompare(b))]))
    .digest('base64url')
    .slice(0, 16);

const invalidCursor = () => new V2Error(400, 'INVALID_CURSOR', 'the cursor is not one this list handed out with these filters');

/** The page asked for by `query` (already validated against the contract) of the list `operationId` filtered by `filters`. */
export function pageRequest(operationId: string, query: Record<string, unknown>, filters: Record<string, unknown>): PageRequest {
  const limit = typeof query.limit === 'number' ? query.limit : DEFAULT_LIMIT;
  const includeTotal = query.includeTotal === true;
  if (typeof query.cursor !== 'string') return { limit, after: undefined, includeTotal };
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(query.cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalidCursor();
  }
  const { b, k } = (decoded ?? {}) as { b?: unknown; k?: unknown };
  if (b !== bindingOf(operationId, filters) || k === undefined) throw invalidCursor();
  return { limit, after: k, includeTotal };
}

/**
 * A page from `fetched`, which holds up to limit + 1 items after the previous page: the extra one
 * says whether there is more. `keyOf` is the position a page ending at an item resumes from.
 */
export function pageOf<T, R>(
  operationId: string,
  filters: Record<string, unknown>,
  request: PageRequest,
  fetched: readonly T[],
  keyOf: (last: T) => unknown,
  serialize: (item: T) => R,
  total?: number,
): Page<R> {
  const items = fetched.slice(0, request.limit);
  const hasMore = fetched.length > request.limit;
  const last = items.at(-1);
  const nextCursor =
    hasMore && last !== undefined ? Buffer.from(JSON.stringify({ b: bindingOf(operationId, filters), k: keyOf(last) }), 'utf8').toString('base64url') : null;
  return { data: items.map(serialize), nextCursor, hasMore, ...(request.includeTotal && total !== undefined ? { total } : {}) };
}

/** A position that must be a whole number (an offset, a sequence number); anything else is a cursor we did not hand out. */
export function cursorNumber(after: unknown): number {
  if (typeof after !== 'number' || !Number.isInteger(after) || after < 0) throw invalidCursor();
  return after;
}

/** A position that names a run: its creation time and id. */
export function cursorOfRun(after: unknown): { createdAt: Date; id: string } {
  const { createdAt, id } = (after ?? {}) as { createdAt?: unknown; id?: unknown };
  const at = typeof createdAt === 'string' ? new Date(createdAt) : null;
  if (!at || Number.isNaN(at.getTime()) || typeof id !== 'string') throw invalidCursor();
  return { createdAt: at, id };
}

/** A page of a list held whole in memory: the position is an offset. */
export function pageOfList<T, R>(
  operationId: string,
  filters: Record<string, unknown>,
  request: PageRequest,
  all: readonly T[],
  serialize: (item: T) => R,
): Page<R> {
  const offset = request.after === undefined ? 0 : cursorNumber(request.after);
  const fetched = all.slice(offset, offset + request.limit + 1);
  let index = offset;
  const keyed = fetched.map((item) => ({ item, next: ++index }));
  return pageOf(
    operationId,
    filters,
    request,
    keyed,
    (k) => k.next,
    (k) => serialize(k.item),
    all.length,
  );
}
