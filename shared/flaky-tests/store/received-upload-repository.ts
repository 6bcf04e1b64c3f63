// Uploads received by the API and waiting for (or done with) the flaky-ingest job: what arrived
// (the native meta and report names, or the CLI bundle's claim; the bytes are blobs), the state of
// the work, and its outcome — the answer the API gives, now or through the status endpoint.
import type { Database, DocCollection, IndexSpec, StoredDoc } from '../../platform/database/collection.js';
import type { ReceivedUpload, UploadOutcome } from '../domain/model.js';

type ReceivedDoc = StoredDoc & Omit<ReceivedUpload, 'id'>;

export const RECEIVED_UPLOAD_INDEXES: IndexSpec[] = [
  { key: { repoId: 1, state: 1, receivedAt: 1 }, name: 'repo_state_received', comment: 'flaky-ingest: the oldest unfinished upload of a repository' },
  { key: { expiresAt: 1 }, name: 'expires_at_ttl', expireAfterSeconds: 0, comment: 'retention (FLAKY_RETENTION_DAYS)' },
];

const toReceived = (d: ReceivedDoc): ReceivedUpload => {
  const { _id, ...rest } = d;
  return { id: _id, ...rest };
};

/** Uploads waiting for, or done with, the flaky-ingest job, as the services see them (DbReceivedUploadRepository is the database's). */
export interface ReceivedUploadRepository {
  insert(upload: ReceivedUpload): Promise<void>;
  findById(id: string): Promise<ReceivedUpload | null>;
  /**
   * Takes the oldest unfinished upload of the repository: `queued`, or `processing` left by a job
   * that died. Uploads of one repository are processed by one job at a time (deduplicated per
   * repository), so taking one needs no lock; the attempt is counted.
   */
  takeNext(repoId: string): Promise<ReceivedUpload | null>;
  /** Repositories with an upload still unfinished that arrived before `receivedBefore`. */
  repositoriesWaitingSince(receivedBefore: Date): Promise<{ repoId: string; uploadId: string }[]>;
  /** Records the outcome of an unfinished upload; false when it was finished already. */
  finish(id: string, outcome: UploadOutcome): Promise<boolean>;
}

export class DbReceivedUploadRepository implements ReceivedUploadRepository {
  private readonly col: DocCollection<ReceivedDoc>;
  constructor(db: Database) {
    this.col = db.collection<ReceivedDoc>('flaky_received_uploads');
  }

  async ensureIndexes(): Promise<void> {
    await this.col.createIndexes(RECEIVED_UPLOAD_INDEXES);
  }

  async insert(upload: ReceivedUpload): Promise<void> {
    const { id, ...rest } = upload;
    await this.col.insertOne({ _id: id, ...rest });
  }

  async findById(id: string): Promise<ReceivedUpload | null> {
    const d = await this.col.findOne({ _id: id });
    return d ? toReceived(d) : null;
  }

  /**
   * Takes the oldest unfinished upload of the repository: `queued`, or `processing` left by a job
   * that died. Uploads of one repository are processed by one job at a time (deduplicated per
   * repository), so taking one needs no lock; the attempt is counted.
   */
  async takeNext(repoId: string): Promise<ReceivedUpload | null> {
    const [next] = await this.col.find({ repoId, state: { $in: ['queued', 'processing'] } }, { sort: { receivedAt: 1, _id: 1 }, limit: 1 });
    if (!next) return null;
    const taken = await this.col.findOneAndUpdate(
      { _id: next._id, state: next.state, attempts: next.attempts },
      { $set: { state: 'processing' }, $inc: { attempts: 1 } },
    );
    return taken ? toReceived(taken) : null;
  }

  /** Repositories with an upload still unfinished that arrived before `receivedBefore`. */
  async repositoriesWaitingSince(receivedBefore: Date): Promise<{ repoId: string; uploadId: string }[]> {
    const docs = await this.col.find(
      { state: { $in: ['queued', 'processing'] }, receivedAt: { $lt: receivedBefore } },
      { sort: { receivedAt: 1 }, limit: 1000, projection: { repoId: 1 } },
    );
    const byRepo = new Map<string, string>();
    for (const d of docs) if (!byRepo.has(d.repoId)) byRepo.set(d.repoId, d._id);
    return [...byRepo].map(([repoId, uploadId]) => ({ repoId, uploadId }));
  }

  /** Records the outcome of an unfinished upload; false when it was finished already. */
  async finish(id: string, outcome: UploadOutcome): Promise<boolean> {
    const d = await this.col.findOneAndUpdate(
      { _id: id, state: { $in: ['queued', 'processing'] } },
      { $set: { state: outcome.ok ? 'complete' : 'failed', outcome } },
    );
    return d !== null;
  }
}
