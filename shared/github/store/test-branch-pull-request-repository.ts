// The draft pull requests opened for test branches (createPrsForTestingBranches), one per test
// run. A row is written as `opening` before GitHub is asked, so a pull request whose creation was
// interrupted (a crash, a lost answer) is still known and closed when its run ends.
import type { Database, DocCollection, StoredDoc } from '../../platform/database/collection.js';
import { isDuplicateKeyError } from '../../platform/database/collection.js';
import type { RepoRef } from '../../platform/repo-ref.js';

export type TestBranchPullRequestState = 'opening' | 'open' | 'closed';

export interface TestBranchPullRequest {
  testRunId: string;
  queueId: string;
  /** Kept on the row, so the pull request is closed even if its queue is gone. */
  repo: RepoRef;
  branch: string;
  /** Null while `opening`: GitHub has not answered with its number yet. */
  prNumber: number | null;
  state: TestBranchPullRequestState;
}

interface TestBranchPullDoc extends StoredDoc {
  queueId: string;
  repo: RepoRef;
  branch: string;
  prNumber: number | null;
  state: TestBranchPullRequestState;
  updatedAt: Date;
}

const toRecord = (d: TestBranchPullDoc): TestBranchPullRequest => ({
  testRunId: d._id,
  queueId: d.queueId,
  repo: d.repo,
  branch: d.branch,
  prNumber: d.prNumber,
  state: d.state,
});

/** Draft pull requests of test branches, as the services see them (DbTestBranchPullRequestRepository is the database's). */
export interface TestBranchPullRequestRepository {
  find(testRunId: string): Promise<TestBranchPullRequest | null>;
  /** Records the intent to open one; false when the run has a row already (another pass got there first). */
  begin(r: Pick<TestBranchPullRequest, 'testRunId' | 'queueId' | 'repo' | 'branch'>, now?: Date): Promise<boolean>;
  markOpen(testRunId: string, prNumber: number, now?: Date): Promise<void>;
  markClosed(testRunId: string, now?: Date): Promise<void>;
  /** Rows not closed yet, of one queue or of all. */
  listUnclosed(queueId?: string): Promise<TestBranchPullRequest[]>;
}

export class DbTestBranchPullRequestRepository implements TestBranchPullRequestRepository {
  private readonly col: DocCollection<TestBranchPullDoc>;

  constructor(db: Database) {
    this.col = db.collection<TestBranchPullDoc>('github_test_branch_pull_requests');
  }

  async ensureIndexes(): Promise<void> {
    await this.col.createIndexes([{ key: { state: 1 }, name: 'state', comment: 'pull requests not closed yet (each reconciliation pass)' }]);
  }

  async find(testRunId: string): Promise<TestBranchPullRequest | null> {
    const d = await this.col.findOne({ _id: testRunId });
    return d ? toRecord(d) : null;
  }

  /** Records the intent to open one; false when the run has a row already (another pass got there first). */
  async begin(r: Pick<TestBranchPullRequest, 'testRunId' | 'queueId' | 'repo' | 'branch'>, now = new Date()): Promise<boolean> {
    try {
      await this.col.insertOne({ _id: r.testRunId, queueId: r.queueId, repo: r.repo, branch: r.branch, prNumber: null, state: 'opening', updatedAt: now });
      return true;
    } catch (err) {
      if (isDuplicateKeyError(err)) return false;
      throw err;
    }
  }

  async markOpen(testRunId: string, prNumber: number, now = new Date()): Promise<void> {
    await this.col.updateOne({ _id: testRunId, state: 'opening' }, { $set: { prNumber, state: 'open', updatedAt: now } });
  }

  async markClosed(testRunId: string, now = new Date()): Promise<void> {
    await this.col.updateOne({ _id: testRunId }, { $set: { state: 'closed', updatedAt: now } });
  }

  /** Rows not closed yet, of one queue or of all. */
  async listUnclosed(queueId?: string): Promise<TestBranchPullRequest[]> {
    const unclosed: TestBranchPullRequestState[] = ['opening', 'open'];
    return (await this.col.find({ ...(queueId === undefined ? {} : { queueId }), state: { $in: unclosed } })).map(toRecord);
  }
}
