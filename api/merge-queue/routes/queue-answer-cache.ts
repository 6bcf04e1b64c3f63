// Serialised answers about one queue (getQueue), kept per process until the queue's revision
// changes (shared/merge-queue/store/queue-revisions.ts: every write that changes the answer moves
// it, in whatever process it runs). The whole serialised answer is cached, so a field added
// to it later is cached and invalidated with the rest; an answer must therefore be a function of
// the stored data only, never of the clock at read time. Each answer carries a strong ETag (a
// hash of its bytes), so a poller that sends it back in If-None-Match gets 304 and no body.
// A client that accepts brotli or gzip gets the answer compressed; each encoding of a revision's
// answer is compressed once (in libuv's thread pool, not on the event loop) and kept with it, under
// an ETag of its own.
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { brotliCompress, constants as zlib, gzip } from 'node:zlib';
import type { Context } from 'koa';
import { LRUCache } from 'lru-cache';
import type { RepoRef } from '../../../shared/platform/repo-ref.js';
import type { QueueRevisions } from '../../../shared/merge-queue/store/queue-revisions.js';

export type AnswerEncoding = 'br' | 'gzip';

export interface CachedAnswer {
  body: Buffer;
  etag: string;
  /** The body in each encoding asked for so far (computed once, shared by concurrent requests). */
  encoded: Map<AnswerEncoding, Promise<Buffer>>;
}

/** Smaller answers go out as they are: compressing them saves less than it costs. */
const MIN_COMPRESSED_BYTES = 1024;
const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);
/** Brotli at quality 5 and gzip at 6: most of the size gain at a fraction of the highest levels' time. */
const COMPRESS: Record<AnswerEncoding, (body: Buffer) => Promise<Buffer>> = {
  br: (body) => brotli(body, { params: { [zlib.BROTLI_PARAM_QUALITY]: 5, [zlib.BROTLI_PARAM_SIZE_HINT]: body.length } }),
  gzip: (body) => gzipAsync(body, { level: 6 }),
};

/** Bytes of answers a process keeps (about 0.3 MiB per 1,000 entries); least recently used go first. */
const MAX_CACHED_BYTES = 64 * 1024 * 1024;
/**
 * A write and its revision bump are two database operations: should a process die between them,
 * the answer cached before the write would otherwise be served until the queue's next write.
 */
const MAX_AGE_MS = 60_000;

export class QueueAnswerCache {
  private readonly answers = new LRUCache<string, { revision: number; answer: CachedAnswer }>({
    maxSize: MAX_CACHED_BYTES,
    sizeCalculation: (v) => v.answer.body.length + 1,
    ttl: MAX_AGE_MS,
  });
  /** Computations under way, so that concurrent misses of one revision compute it once. */
  private readonly computing = new Map<string, Promise<CachedAnswer>>();

  constructor(private readonly revisions: QueueRevisions) {}

  /**
   * The answer for the queue of this branch: the cached one while the queue's revision is the one
   * it was computed at, else `compute()`'s (which also answers for a branch without a queue,
   * typically by throwing not found).
   */
  async answer(orgId: string, repo: RepoRef, branch: string, compute: () => Promise<unknown>): Promise<CachedAnswer> {
    // The revision is read before the data: a write that lands while `compute` reads bumps it
    // afterwards, so the answer is never kept past that write.
    const current = await this.revisions.current(orgId, repo, branch);
    if (!current) return serialise(await compute());
    const cached = this.answers.get(current.queueId);
    if (cached?.revision === current.revision) return cached.answer;
    const key = `${current.queueId}:${current.revision}`;
    const pending = this.computing.get(key);
    if (pending) return pending;
    const computed = compute().then(serialise);
    this.computing.set(key, computed);
    try {
      const answer = await computed;
      const latest = this.answers.get(current.queueId);
      if (!latest || latest.revision < current.revision) this.answers.set(current.queueId, { revision: current.revision, answer });
      return answer;
    } finally {
      this.computing.delete(key);
    }
  }
}

function serialise(value: unknown): CachedAnswer {
  const body = Buffer.from(JSON.stringify(value));
  return { body, etag: `"${createHash('sha256').update(body).digest('base64url')}"`, encoded: new Map() };
}

/** The answer's body in `encoding`, compressed on first use. */
function encodedBody(answer: CachedAnswer, encoding: AnswerEncoding): Promise<Buffer> {
  let body = answer.encoded.get(encoding);
  if (!body) {
    body = COMPRESS[encoding](answer.body);
    // A failed compression is not kept: the next request tries again.
    body.catch(() => answer.encoded.delete(encoding));
    answer.encoded.set(encoding, body);
  }
  return body;
}

/** The representation's entity tag: the answer's, marked with its encoding (RFC 9110 §8.8.3). */
const taggedFor = (etag: string, encoding: AnswerEncoding | null) => (encoding === null ? etag : `${etag.slice(0, -1)}-${encoding}"`);

/**
 * Whether If-None-Match names this entity tag (RFC 9110 §13.1.2: weak comparison, a list, or `*`).
 * Not `fresh` (Koa's `ctx.fresh`): it is GET-only and answers "not fresh" to `Cache-Control:
 * no-cache`, which fetch() adds to every request carrying If-None-Match; an origin server
 * evaluates the condition regardless (the directive is for caches on the way).
 */
function noneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}

/**
 * Sends a cached JSON answer with its ETag — compressed when the request accepts brotli or gzip —
 * or 304 without a body when the request's If-None-Match holds the ETag of that representation.
 * getQueue is a read sent as POST (the compatible API's shape), so it is answered as a GET would
 * be (docs/decisions.md).
 */
export async function sendCachedAnswer(ctx: Context, answer: CachedAnswer): Promise<void> {
  ctx.vary('Accept-Encoding');
  const accepted = answer.body.length >= MIN_COMPRESSED_BYTES ? ctx.acceptsEncodings('br', 'gzip', 'identity') : 'identity';
  const encoding: AnswerEncoding | null = accepted === 'br' || accepted === 'gzip' ? accepted : null;
  const etag = taggedFor(answer.etag, encoding);
  ctx.set('ETag', etag);
  if (noneMatch(ctx.get('if-none-match') || undefined, etag)) {
    ctx.status = 304;
    return;
  }
  ctx.type = 'application/json';
  if (encoding === null) {
    ctx.body = answer.body;
    return;
  }
  const body = await encodedBody(answer, encoding);
  ctx.set('Content-Encoding', encoding);
  ctx.body = body;
}
