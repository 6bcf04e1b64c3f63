// A queue's read revision: a counter on the queue's document, incremented after every write that
// changes what getQueue answers — the queue's settings and state (in the same update), its
// entries (insert, transition, patch) and its test runs (conclusion, stall finding: the warnings).
// A process may keep an answer computed from the queue's data for as long as the revision it read
// before computing it is still the current one; because the counter lives in the database, a write
// made by any process sharing it (the workers, another API instance) invalidates every process's
// copy. A field added to getQueue from other data must bump it too (the integration test
// test/integration/queue-answer-cache.test.ts lists each kind of change). Not the queue's
// compare-and-set `version`: bumping that on every entry change would make settings updates retry
// for nothing.
import type { Database, DocCollection, StoredDoc } from '../../platform/database/collection.js';
import { repoKey, type RepoRef } from '../../platform/repo-ref.js';

type RevisionDoc = StoredDoc & { orgId: string; repoKey: string; branch: string; revision?: number };

/** The queue a (repository, branch) names now, and its revision. */
export interface QueueRevision {
  queueId: string;
  revision: number;
}

/** Revisions of what getQueue answers, per queue, as the services see them (DbQueueRevisions is the database's). */
export interface QueueRevisions {
  /** After a write to data of this queue. */
  bump(queueId: string): Promise<void>;
  /** After a compare-and-set write of a queue's document (an entry, a run): bumps its queue's revision when the write landed, and hands the document on. */
  afterWrite<D extends { queueId: string }>(written: D | null): Promise<D | null>;
  /** Null when the branch has no queue. Read before the data an answer is computed from. */
  current(orgId: string, repo: RepoRef, branch: string): Promise<QueueRevision | null>;
}

export class DbQueueRevisions implements QueueRevisions {
  private readonly col: DocCollection<RevisionDoc>;
  constructor(db: Database) {
    this.col = db.collection<RevisionDoc>('queues');
  }

  /** After a write to data of this queue. */
  async bump(queueId: string): Promise<void> {
    await this.col.updateOne({ _id: queueId }, { $inc: { revision: 1 } });
  }

  /** After a compare-and-set write of a queue's document (an entry, a run): bumps its queue's revision when the write landed, and hands the document on. */
  async afterWrite<D extends { queueId: string }>(written: D | null): Promise<D | null> {
    if (written) await this.bump(written.queueId);
    return written;
  }

  /** Null when the branch has no queue. Read before the data an answer is computed from. */
  async current(orgId: string, repo: RepoRef, branch: string): Promise<QueueRevision | null> {
    const d = await this.col.findOne({ orgId, repoKey: repoKey(repo), branch }, { projection: { _id: 1, revision: 1 } });
    // Queues created before revisions existed have none until their first write: 0 until then.
    return d ? { queueId: d._id, revision: d.revision ?? 0 } : null;
  }
}
