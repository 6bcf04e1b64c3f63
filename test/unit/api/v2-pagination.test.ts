// The v2 API's cursors: opaque, forward-only, and bound to the operation and its filters, so a
// cursor of another list (or of the same list filtered otherwise), or one we never handed out, is
// 400 INVALID_CURSOR rather than a wrong page.
import { expect } from 'chai';
import { pageOfList, pageRequest } from '../../../api/v2/pagination.js';
import { V2Error } from '../../../api/v2/v2-errors.js';

const all = Array.from({ length: 5 }, (_, i) => i + 1);

function codeOf(run: () => unknown): string | null {
  try {
    run();
    return null;
  } catch (err) {
    if (err instanceof V2Error) return err.code;
    throw err;
  }
}

describe('v2 pagination', () => {
  it('walks a list forward page by page, with hasMore, nextCursor and total on request', () => {
    const first = pageOfList('op', { f: 1 }, pageRequest('op', { limit: 2, includeTotal: true }, { f: 1 }), all, (n) => n);
    expect(first).to.deep.include({ data: [1, 2], hasMore: true, total: 5 });
    const second = pageOfList('op', { f: 1 }, pageRequest('op', { limit: 2, cursor: first.nextCursor ?? '' }, { f: 1 }), all, (n) => n);
    expect(second).to.deep.include({ data: [3, 4], hasMore: true });
    expect(second).not.to.have.property('total');
    const last = pageOfList('op', { f: 1 }, pageRequest('op', { limit: 2, cursor: second.nextCursor ?? '' }, { f: 1 }), all, (n) => n);
    expect(last).to.deep.equal({ data: [5], hasMore: false, nextCursor: null });
    expect(pageRequest('op', {}, {}).limit).to.equal(25);
  });

  it('refuses a cursor of another operation, of other filters, or that it never handed out', () => {
    const cursor = pageOfList('op', { f: 1 }, pageRequest('op', { limit: 1 }, { f: 1 }), all, (n) => n).nextCursor ?? '';
    expect(codeOf(() => pageRequest('other', { cursor }, { f: 1 }))).to.equal('INVALID_CURSOR');
    expect(codeOf(() => pageRequest('op', { cursor }, { f: 2 }))).to.equal('INVALID_CURSOR');
    expect(codeOf(() => pageRequest('op', { cursor: 'not-base64-json' }, { f: 1 }))).to.equal('INVALID_CURSOR');
    const forged = Buffer.from(JSON.stringify({ b: JSON.parse(Buffer.from(cursor, 'base64url').toString()).b, k: -3 })).toString('base64url');
    expect(codeOf(() => pageOfList('op', { f: 1 }, pageRequest('op', { cursor: forged }, { f: 1 }), all, (n) => n))).to.equal('INVALID_CURSOR');
  });
});
