// Opaque page tokens. A token names a position in one list — after/before a test id, or an
// offset for "last page" — and is bound to its scope (organisation, repository, endpoint and
// filter) by an HMAC-SHA256 with a server key kept in the database. A token cannot be edited, nor
// replayed against another repository, organisation, endpoint or filter: that is a 400.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { invalid } from '../../platform/errors.js';

export type PagePosition =
  | { kind: 'first' }
  | { kind: 'after'; id: string; index: number }
  | { kind: 'before'; id: string; index: number }
  | { kind: 'offset'; offset: number; index: number };

interface Payload {
  k: 'a' | 'b' | 'o';
  i: number;
  id?: string;
  o?: number;
}

const MAC_BYTES = 16;
const MAX_TOKEN_LENGTH = 2048;

export class PageTokenCodec {
  constructor(private readonly key: () => Promise<Buffer>) {}

  private async mac(scope: string, payload: string): Promise<Buffer> {
    return createHmac('sha256', await this.key())
      .update(`${scope}\n${payload}`, 'utf8')
      .digest()
      .subarray(0, MAC_BYTES);
  }

  async encode(scope: string, position: Exclude<PagePosition, { kind: 'first' }>): Promise<string> {
    const p: Payload =
      position.kind === 'offset'
        ? { k: 'o', i: position.index, o: position.offset }
        : { k: position.kind === 'after' ? 'a' : 'b', i: position.index, id: position.id };
    const payload = Buffer.from(JSON.stringify(p), 'utf8').toString('base64url');
    return `${payload}.${(await this.mac(scope, payload)).toString('base64url')}`;
  }

  /** `""` (or absent) is the first page; anything not minted for this scope is a 400. */
  async decode(scope: string, token: string | undefined): Promise<PagePosition> {
    if (token === undefined || token === '') return { kind: 'first' };
    const bad = () =>
      invalid('invalid_page_token', 'page_token is not a token this endpoint issued for this repository and filter', [
        { path: '/page_query/page_token', message: 'is not valid here' },
      ]);
    if (token.length > MAX_TOKEN_LENGTH) throw bad();
    const [payload, mac, extra] = token.split('.');
    if (!payload || !mac || extra !== undefined) throw bad();
    const presented = Buffer.from(mac, 'base64url');
    const expected = await this.mac(scope, payload);
    if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) throw bad();
    let p: Payload;
    try {
      p = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Payload;
    } catch {
      throw bad();
    }
    if (!Number.isSafeInteger(p.i) || p.i < 0) throw bad();
    if (p.k === 'o' && Number.isSafeInteger(p.o) && (p.o ?? -1) >= 0) return { kind: 'offset', offset: p.o as number, index: p.i };
    if ((p.k === 'a' || p.k === 'b') && typeof p.id === 'string') return { kind: p.k === 'a' ? 'after' : 'before', id: p.id, index: p.i };
    throw bad();
  }
}
