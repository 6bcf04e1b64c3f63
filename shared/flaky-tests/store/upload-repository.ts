// Uploads: one document per received report set (native multipart or CLI bundle) with what was
// stored and what went wrong, so CI and operators can see why an upload was skipped.
import type { Database, DocCollection, IndexSpec, StoredDoc } from '../../platform/database/collection.js';
import type { Upload } from '../domain/model.js';

type UploadDoc = StoredDoc & Omit<Upload, 'id'>;

export const UPLOAD_INDEXES: IndexSpec[] = [
  { key: { repoId: 1, receivedAt: -1 }, name: 'repo_received', comment: 'recent uploads of a repository (operations)' },
  { key: { repoId: 1, sha: 1 }, name: 'repo_sha', comment: 'pass-on-retry across uploads: earlier uploads of the same commit' },
  { key: { repoId: 1, tree: 1 }, name: 'repo_tree', comment: 'pass-on-retry across merge-queue re-tests: earlier uploads of the same tree' },
  { key: { testRunId: 1 }, name: 'test_run', comment: 'getMergeQueueTestingDetails, re-test decisions: uploads linked to a test run' },
  { key: { expiresAt: 1 }, name: 'expires_at_ttl', expireAfterSeconds: 0, comment: 'retention (FLAKY_RETENTION_DAYS)' },
];

const toUpload = (d: UploadDoc): Upload => {
  const { _id, ...rest } = d;
  return { id: _id, ...rest };
};

/** Processed uploads, as the services see them (DbUploadRepository is the database's). */
export interface UploadRepository {
  insert(upload: Upload): Promise<void>;
  finish(id: string, patch: Pick<Upload, 'state' | 'counts' | 'excluded' | 'files' | 'warnings'>): Promise<void>;
  /**
   * Other uploads that count for detection and tested the same code: the same commit, or (for a
   * merge-queue test branch, whose re-test is a new commit) the same tree.
   */
  includedForRetry(repoId: string, code: { sha: string; tree: string | null }, exceptId: string): Promise<string[]>;
  /** Complete uploads linked to these merge-queue test runs. */
  linkedToRuns(testRunIds: readonly string[]): Promise<Upload[]>;
  /** Complete uploads of one commit (CI's results for it, whichever branch it ran on). */
  completeOfCommit(repoId: string, sha: string): Promise<CommitUpload[]>;
  /** Which of these uploads count for detection: complete and not excluded. */
  includedIds(ids: readonly string[]): Promise<Set<string>>;
  /** Drops what an interrupted attempt at processing the upload left. */
  deleteUnfinished(id: string): Promise<void>;
  findById(id: string): Promise<Upload | null>;
}

/** An upload of a commit, as the verdict and the target branch's health read it. */
export interface CommitUpload {
  id: string;
  receivedAt: Date;
  /** Excluded by infrastructure-failure protection (a mass failure). */
  excluded: boolean;
}

export class DbUploadRepository implements UploadRepository {
  private readonly col: DocCollection<UploadDoc>;
  constructor(db: Database) {
    this.col = db.collection<UploadDoc>('flaky_uploads');
  }

  async ensureIndexes(): Promise<void> {
    await this.col.createIndexes(UPLOAD_INDEXES);
  }

  async insert(upload: Upload): Promise<void> {
    const { id, ...rest } = upload;
    await this.col.insertOne({ _id: id, ...rest });
  }

  async finish(id: string, patch: Pick<Upload, 'state' | 'counts' | 'excluded' | 'files' | 'warnings'>): Promise<void> {
    await this.col.updateOne({ _id: id }, { $set: patch });
  }

  /**
   * Other uploads that count for detection and tested the same code: the same commit, or (for a
   * merge-queue test branch, whose re-test is a new commit) the same tree.
   */
  async includedForRetry(repoId: string, code: { sha: string; tree: string | null }, exceptId: string): Promise<string[]> {
    const same = code.tree === null ? { sha: code.sha } : { $or: [{ sha: code.sha }, { tree: code.tree }] };
    const docs = await this.col.find({ repoId, ...same, state: 'complete', excluded: false, _id: { $ne: exceptId } }, { projection: { _id: 1 } });
    return docs.map((d) => d._id);
  }

  /** Complete uploads linked to these merge-queue test runs. */
  async linkedToRuns(testRunIds: readonly string[]): Promise<Upload[]> {
    if (testRunIds.length === 0) return [];
    return (await this.col.find({ testRunId: { $in: [...testRunIds] }, state: 'complete' })).map(toUpload);
  }

  /** Complete uploads of one commit (CI's results for it, whichever branch it ran on). */
  async completeOfCommit(repoId: string, sha: string): Promise<CommitUpload[]> {
    const docs = await this.col.find({ repoId, sha, state: 'complete' }, { projection: { _id: 1, receivedAt: 1, excluded: 1 } });
    return docs.map((d) => ({ id: d._id, receivedAt: d.receivedAt, excluded: d.excluded }));
  }

  /** Which of these uploads count for detection: complete and not excluded. */
  async includedIds(ids: readonly string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const docs = await this.col.find({ _id: { $in: [...ids] }, state: 'complete', excluded: false }, { projection: { _id: 1 } });
    return new Set(docs.map((d) => d._id));
  }

  /** Drops what an interrupted attempt at processing the upload left. */
  async deleteUnfinished(id: string): Promise<void> {
    await this.col.deleteMany({ _id: id, state: { $ne: 'complete' } });
  }

  async findById(id: string): Promise<Upload | null> {
    const d = await this.col.findOne({ _id: id });
    return d ? toUpload(d) : null;
  }
}
