// What the GitHub pull request feedback last published per queue entry (commit status, comment),
// so each pass publishes only what changed.
import type { Database, DocCollection, StoredDoc } from '../../platform/database/collection.js';
import type { EntryState } from '../../merge-queue/domain/model.js';

export interface PublishedFeedback {
  /** The entry id. */
  entryId: string;
  queueId: string;
  /** The entry state last shown by the commit status / the comment; null: not shown. */
  status: EntryState | null;
  comment: EntryState | null;
  commentId: number | null;
}

interface PublishedDoc extends StoredDoc {
  queueId: string;
  status: EntryState | null;
  comment: EntryState | null;
  commentId: number | null;
  /** True once the entry's final state is published: it is not looked at again. */
  done: boolean;
}

/** What was last published on each pull request, as the services see them (DbPublishedFeedbackRepository is the database's). */
export interface PublishedFeedbackRepository {
  /** Entries whose final state is not published yet. */
  listUnfinishedIds(): Promise<string[]>;
  find(entryId: string): Promise<PublishedFeedback | null>;
  record(f: PublishedFeedback, done: boolean): Promise<void>;
}

export class DbPublishedFeedbackRepository implements PublishedFeedbackRepository {
  private readonly col: DocCollection<PublishedDoc>;

  constructor(db: Database) {
    this.col = db.collection<PublishedDoc>('github_pull_request_feedback');
  }

  async ensureIndexes(): Promise<void> {
    await this.col.createIndexes([{ key: { done: 1 }, name: 'done', comment: 'entries whose final state is still to publish (each pass)' }]);
  }

  /** Entries whose final state is not published yet. */
  async listUnfinishedIds(): Promise<string[]> {
    return (await this.col.find({ done: false }, { projection: { _id: 1 } })).map((d) => d._id);
  }

  async find(entryId: string): Promise<PublishedFeedback | null> {
    const d = await this.col.findOne({ _id: entryId });
    return d ? { entryId: d._id, queueId: d.queueId, status: d.status, comment: d.comment, commentId: d.commentId } : null;
  }

  async record(f: PublishedFeedback, done: boolean): Promise<void> {
    await this.col.updateOne(
      { _id: f.entryId },
      { $set: { queueId: f.queueId, status: f.status, comment: f.comment, commentId: f.commentId, done } },
      { upsert: true },
    );
  }
}
