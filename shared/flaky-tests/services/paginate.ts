// Pages over a list of test ids sorted ascending — the order of every flaky-tests list. Tokens
// are keyset positions (after/before an id), so a test added or removed between two calls never
// makes a client skip or repeat another test; only page_index may then be off by one.
import type { PagePosition, PageTokenCodec } from './page-token.js';

export interface PageInfo {
  totalRows: number;
  totalPages: number;
  nextPageToken: string;
  prevPageToken: string;
  lastPageToken: string;
  pageIndex: number;
}

export interface Page {
  ids: string[];
  info: PageInfo;
}

/** First index whose id is > id (after) or ≥ id (before), by binary search. */
function boundary(sorted: readonly string[], id: string, inclusive: boolean): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const v = sorted[mid] as string;
    if (v < id || (!inclusive && v === id)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export async function paginate(sorted: readonly string[], position: PagePosition, size: number, codec: PageTokenCodec, scope: string): Promise<Page> {
  const total = sorted.length;
  let start: number;
  let index: number;
  switch (position.kind) {
    case 'first':
      start = 0;
      index = 0;
      break;
    case 'after':
      start = boundary(sorted, position.id, false);
      index = position.index;
      break;
    case 'before': {
      const end = boundary(sorted, position.id, true);
      start = Math.max(0, end - size);
      index = start === 0 ? 0 : position.index;
      break;
    }
    case 'offset':
      start = Math.min(position.offset, total);
      index = position.index;
      break;
  }
  const ids = sorted.slice(start, start + size);
  const totalPages = Math.ceil(total / size);
  const last = ids[ids.length - 1];
  const first = ids[0];
  const nextPageToken = start + size < total && last !== undefined ? await codec.encode(scope, { kind: 'after', id: last, index: index + 1 }) : '';
  const prevPageToken = start > 0 && first !== undefined ? await codec.encode(scope, { kind: 'before', id: first, index: Math.max(0, index - 1) }) : '';
  const lastPageToken = totalPages > 0 ? await codec.encode(scope, { kind: 'offset', offset: (totalPages - 1) * size, index: totalPages - 1 }) : '';
  return { ids, info: { totalRows: total, totalPages, nextPageToken, prevPageToken, lastPageToken, pageIndex: index } };
}
