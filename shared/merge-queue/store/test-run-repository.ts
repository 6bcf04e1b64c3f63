// Test runs. A run's status changes only by compare-and-set from `in_progress`, so a late CI
// status, a timeout and a cancellation can never both conclude the same run.
import type { Database, DocCollection, Filter, IndexSpec, StoredDoc } from '../../database/collection.js';
import type { Reason, TestRun, TestRunStatus } from '../domain/model.js';

export type TestRunDoc = StoredDoc & Omit<TestRun, 'id'>;

export const TEST_RUN_INDEXES: IndexSpec[] = [
  { key: { queueId: 1, status: 1 }, name: 'queue_status', comment: 'planner snapshot: runs in progress of a queue' },
  { key: { queueId: 1, createdAt: -1 }, name: 'queue_created', comment: 'recent runs of a queue (snapshot, metrics)' },
  { key: { sha: 1, status: 1 }, name: 'sha_status', comment: 'setCommitStatus: runs testing this commit' },
  { key: { status: 1, deadlineAt: 1 }, name: 'status_deadline', comment: 'reconciler: runs past their deadline' },
  { key: { status: 1, branchDeleted: 1 }, name: 'branch_cleanup', comment: 'test branches still to delete' },
];

export const toTestRun = (d: TestRunDoc): TestRun => {
  const { _id, ...rest } = d;
  return { id: _id, ...rest };
};

export class TestRunRepository {
  readonly col: DocCollection<TestRunDoc>;
  constructor(db: Database) {
    this.col = db.collection<TestRunDoc>('test_runs');
  }

  async ensureIndexes(): Promise<void> {
    await this.col.createIndexes(TEST_RUN_INDEXES);
  }

  async insert(run: TestRun): Promise<void> {
    const { id, ...rest } = run;
    await this.col.insertOne({ _id: id, ...rest });
  }

  async findById(id: string): Promise<TestRun | null> {
    const d = await this.col.findOne({ _id: id });
    return d ? toTestRun(d) : null;
  }

  async find(filter: Filter<TestRunDoc>, options: { sort?: Record<string, 1 | -1>; limit?: number } = {}): Promise<TestRun[]> {
    return (await this.col.find(filter, options)).map(toTestRun);
  }

  async findInProgressBySha(sha: string): Promise<TestRun[]> {
    return this.find({ sha, status: 'in_progress' });
  }

  /**
   * Concludes a run that is still in progress; null when it already concluded. A run that could
   * not be built records the entries to blame in the same write.
   */
  async conclude(
    id: string,
    status: Exclude<TestRunStatus, 'in_progress'>,
    reason: Reason,
    now = new Date(),
    culpritEntryIds?: string[],
  ): Promise<TestRun | null> {
    const set: Record<string, unknown> = { status, conclusionReason: reason, concludedAt: now };
    if (culpritEntryIds) set.culpritEntryIds = culpritEntryIds;
    const d = await this.col.findOneAndUpdate({ _id: id, status: 'in_progress' }, { $set: set, $inc: { version: 1 } });
    return d ? toTestRun(d) : null;
  }

  /** Records the built test branch's head, once: null when another build already recorded it. */
  async recordBuild(id: string, sha: string, tree: string): Promise<TestRun | null> {
    const d = await this.col.findOneAndUpdate({ _id: id, sha: null }, { $set: { sha, tree }, $inc: { version: 1 } });
    return d ? toTestRun(d) : null;
  }

  /** The run's test branch was removed (idempotent: deleting twice changes nothing). */
  async markBranchDeleted(id: string): Promise<void> {
    await this.col.updateOne({ _id: id, branchDeleted: false }, { $set: { branchDeleted: true } });
  }

  /** Sets fields of a run under a version guard. */
  async patch(id: string, version: number, set: Partial<Omit<TestRun, 'id' | 'version'>>): Promise<TestRun | null> {
    const d = await this.col.findOneAndUpdate({ _id: id, version }, { $set: set, $inc: { version: 1 } });
    return d ? toTestRun(d) : null;
  }
}
