// Check runs reported on the heads of test runs (webhooks and read-back), by repository and
// commit, so getMergeQueueTestingDetails can list them by check suite. One row per check run,
// holding its latest state: a delivery that arrives after a later one (GitHub does not order
// them) does not move a run back (completed > in progress > queued).
import type { Database, DocCollection, StoredDoc } from '../../platform/database/collection.js';
import { isDuplicateKeyError } from '../../platform/database/collection.js';
import type { GitHubCheckRun } from '../../providers/github/commit-checks.js';

export interface StoredCheckRun extends GitHubCheckRun {
  firstSeenAt: Date;
}

type CheckRunDoc = StoredDoc &
  StoredCheckRun & {
    repoKey: string;
    sha: string;
    /** queued (and other waiting statuses) 0, in_progress 1, completed 2. */
    rank: number;
  };

const rankOf = (status: string): number => (status === 'completed' ? 2 : status === 'in_progress' ? 1 : 0);

/** Check runs reported on test branch heads, as the services see them (DbCheckRunRepository is the database's). */
export interface CheckRunRepository {
  /** Records a check run's state unless a later state of it is recorded already. */
  record(repoKey: string, sha: string, run: Omit<StoredCheckRun, 'firstSeenAt'>, now?: Date): Promise<void>;
  /** A commit's check runs, first seen first. */
  forCommit(repoKey: string, sha: string): Promise<StoredCheckRun[]>;
}

export class DbCheckRunRepository implements CheckRunRepository {
  private readonly col: DocCollection<CheckRunDoc>;

  constructor(db: Database) {
    this.col = db.collection<CheckRunDoc>('github_check_runs');
  }

  async ensureIndexes(): Promise<void> {
    await this.col.createIndexes([{ key: { repoKey: 1, sha: 1 }, name: 'repo_sha', comment: 'check runs of one commit (testing details)' }]);
  }

  /** Records a check run's state unless a later state of it is recorded already. */
  async record(repoKey: string, sha: string, run: Omit<StoredCheckRun, 'firstSeenAt'>, now = new Date()): Promise<void> {
    const rank = rankOf(run.status);
    const _id = `${repoKey}|${sha}|${run.checkRunId}`;
    const fields = { suiteId: run.suiteId, name: run.name, url: run.url, status: run.status, conclusion: run.conclusion, rank };
    try {
      await this.col.updateOne(
        { _id, rank: { $lte: rank } },
        { $set: fields, $setOnInsert: { repoKey, sha, checkRunId: run.checkRunId, firstSeenAt: now } },
        { upsert: true },
      );
    } catch (err) {
      // The row exists with a later state: the filter missed it and the upsert collided. Nothing to do.
      if (!isDuplicateKeyError(err)) throw err;
    }
  }

  /** A commit's check runs, first seen first. */
  async forCommit(repoKey: string, sha: string): Promise<StoredCheckRun[]> {
    const docs = await this.col.find({ repoKey, sha }, { sort: { firstSeenAt: 1, checkRunId: 1 } });
    return docs.map((d) => ({
      checkRunId: d.checkRunId,
      suiteId: d.suiteId,
      name: d.name,
      url: d.url,
      status: d.status,
      conclusion: d.conclusion,
      firstSeenAt: d.firstSeenAt,
    }));
  }
}
