// Commit statuses reported by CI (setCommitStatus), kept as history: every report is a row, and
// the latest per context decides. Statuses on pull request heads are kept too (direct merge).
import type { Database, DocCollection, IndexSpec, StoredDoc } from '../../platform/database/collection.js';
import type { StatusState } from '../domain/model.js';

export interface CommitStatus {
  id: string;
  orgId: string;
  repoKey: string;
  sha: string;
  context: string;
  state: StatusState;
  targetUrl: string | null;
  description: string | null;
  createdAt: Date;
  /** Order of arrival, to break ties between reports in the same millisecond. */
  seq: number;
}

type CommitStatusDoc = StoredDoc & Omit<CommitStatus, 'id'>;

export const COMMIT_STATUS_INDEXES: IndexSpec[] = [
  { key: { orgId: 1, repoKey: 1, sha: 1, seq: 1 }, name: 'repo_sha', comment: 'statuses of one commit, in arrival order' },
];

const toStatus = (d: CommitStatusDoc): CommitStatus => {
  const { _id, ...rest } = d;
  return { id: _id, ...rest };
};

/** CI statuses by commit, as the merge-queue services see them. */
export interface CommitStatusRepository {
  add(status: Omit<CommitStatus, 'seq'>): Promise<CommitStatus>;
  /** The commit's statuses in arrival order. */
  forCommit(orgId: string, repoKey: string, sha: string): Promise<CommitStatus[]>;
  /** The statuses of several commits in one read, by sha (every sha given has an entry). */
  forCommits(orgId: string, repoKey: string, shas: readonly string[]): Promise<Map<string, CommitStatus[]>>;
}

export class DbCommitStatusRepository implements CommitStatusRepository {
  private readonly col: DocCollection<CommitStatusDoc>;
  private counter = 0;
  constructor(db: Database) {
    this.col = db.collection<CommitStatusDoc>('commit_statuses');
  }

  async ensureIndexes(): Promise<void> {
    await this.col.createIndexes(COMMIT_STATUS_INDEXES);
  }

  async add(status: Omit<CommitStatus, 'seq'>): Promise<CommitStatus> {
    // Milliseconds since the epoch scaled, plus a per-process counter: monotonic within a process
    // and ordered by time across processes.
    const seq = status.createdAt.getTime() * 1000 + (this.counter++ % 1000);
    const { id, ...rest } = { ...status, seq };
    await this.col.insertOne({ _id: id, ...rest });
    return { ...status, seq };
  }

  async forCommit(orgId: string, repoKey: string, sha: string): Promise<CommitStatus[]> {
    return (await this.col.find({ orgId, repoKey, sha }, { sort: { seq: 1 } })).map(toStatus);
  }

  async forCommits(orgId: string, repoKey: string, shas: readonly string[]): Promise<Map<string, CommitStatus[]>> {
    const bySha = new Map<string, CommitStatus[]>(shas.map((sha) => [sha, []]));
    if (shas.length === 0) return bySha;
    for (const d of await this.col.find({ orgId, repoKey, sha: { $in: [...new Set(shas)] } }, { sort: { seq: 1 } })) {
      bySha.get(d.sha)?.push(toStatus(d));
    }
    return bySha;
  }
}
