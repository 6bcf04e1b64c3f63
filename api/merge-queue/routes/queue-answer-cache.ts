// Serialised answers about one queue (getQueue), kept per process until the queue's revision
// changes (shared/merge-queue/store/queue-revisions.ts: every write that changes the answer moves
// it, in whatever process it runs). The whole serialised answer is cached, so a field added
// to it later is cached and invalidated with the rest; an answer must therefore be a function of
// the stored data only, never of the clock at read time. Each answer carries a strong ETag (a
// hash of its bytes), so a poller that sends it back in If-None-Match gets 304 and no body.
import { createHash } from 'node:crypto';
import type { Context } from 'koa';
import { LRUCache } from 'lru-cache';
import type { RepoRef } from '../../../shared/platform/repo-ref.js';
import type { QueueRevisions } from '../../../shared/merge-queue/store/queue-revisions.js';

export interface CachedAnswer {
  body: Buffer;
  etag: string;
}

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
  return { body, etag: `"${createHash('sha256').update(body).digest('base64url')}"` };
}

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
 * Sends a cached JSON answer with its ETag, or 304 without a body when the request's
 * If-None-Match holds it. getQueue is a read sent as POST (the compatible API's shape), so it is
 * answered as a GET would be (docs/decisions.md).
 */
export function sendCachedAnswer(ctx: Context, answer: CachedAnswer): void {
  ctx.set('ETag', answer.etag);
  if (noneMatch(ctx.get('if-none-match') || undefined, answer.etag)) {
    ctx.status = 304;
    return;
  }
  ctx.type = 'application/json';
  ctx.body = answer.body;
}
