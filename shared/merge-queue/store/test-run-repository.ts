// Test runs. A run's status changes only by compare-and-set from `in_progress`, so a late CI
// status, a timeout and a cancellation can never both conclude the same run. A batch run's start
// and end write their events into the run's outbox with the write (shared/events/outbox.ts).
import type { Database, DocCollection, Filter, IndexSpec, StoredDoc } from '../../platform/database/collection.js';
import type { Reason, StatusWatch, TestRun, TestRunStatus } from '../domain/model.js';
import { collectionOutbox, outboxPush, OUTBOX_INDEX, toOutbox, type EventRelay, type OutboxEvent, type OutboxSource } from '../../platform/events/outbox.js';
import { batchConcludedEvent, batchStartedEvent } from '../events/transition-events.js';
import type { QueueRevisions } from './queue-revisions.js';

export type TestRunDoc = StoredDoc & Omit<TestRun, 'id'> & { outbox?: OutboxEvent[] };

export const TEST_RUN_INDEXES: IndexSpec[] = [
  { key: { queueId: 1, status: 1 }, name: 'queue_status', comment: 'planner snapshot: runs in progress of a queue' },
  { key: { queueId: 1, createdAt: -1 }, name: 'queue_created', comment: 'recent runs of a queue (snapshot, metrics)' },
  { key: { sha: 1, status: 1 }, name: 'sha_status', comment: 'setCommitStatus: runs testing this commit' },
  { key: { status: 1, deadlineAt: 1 }, name: 'status_deadline', comment: 'reconciler: runs past their deadline' },
  { key: { status: 1, branchDeleted: 1 }, name: 'branch_cleanup', comment: 'test branches still to delete' },
  { key: { entryIds: 1, createdAt: -1 }, name: 'entry_created', comment: "v2: a pull request's verification runs, newest first" },
  { key: { queueId: 1, recipe: 1 }, name: 'queue_recipe', comment: 'tested-tree reuse: an earlier passing run built from the same inputs' },
  OUTBOX_INDEX,
];

export const toTestRun = (d: TestRunDoc): TestRun => {
  const { _id, outbox: _outbox, ...rest } = d;
  return { id: _id, ...rest };
};

/** Test runs as the merge-queue services see them; a run concludes only by compare-and-set. */
export interface TestRunRepository {
  insert(run: TestRun): Promise<void>;
  findById(id: string): Promise<TestRun | null>;
  findByIds(ids: readonly string[]): Promise<TestRun[]>;
  /** Runs of the queue still in progress or whose test branch still exists. */
  listOpen(queueId: string): Promise<TestRun[]>;
  /** Bisection runs of the queue started for these (main) runs. */
  listBisectionsOf(queueId: string, rootRunIds: readonly string[]): Promise<TestRun[]>;
  /** Runs in progress whose test branch was never built (a crash between record and build). */
  listUnbuilt(queueId: string): Promise<TestRun[]>;
  /** Queues that have a run in progress or a test branch still to delete. */
  queueIdsWithOpenRuns(): Promise<string[]>;
  findInProgressBySha(sha: string): Promise<TestRun[]>;
  /** Runs whose test branch head is this commit, newest first. */
  findBySha(sha: string): Promise<TestRun[]>;
  /** Runs of the queue created at or after `since`, newest first, at most `limit` (history replays). */
  listCreatedSince(queueId: string, since: Date, limit: number): Promise<TestRun[]>;
  /**
   * The runs of `listCreatedSince` for a caller that only computes figures from them and keeps none
   * of their parts (a report over 90 days reads tens of thousands): on the embedded database the
   * stored runs themselves, not copies.
   */
  readCreatedSince(queueId: string, since: Date, limit: number): Promise<readonly Readonly<TestRun>[]>;
  /** When the runs of `listCreatedSince` were created, and nothing else (a chart reads only that). */
  listCreationTimesSince(queueId: string, since: Date, limit: number): Promise<Date[]>;
  /** Runs of the queue in progress, then the `limit` most recently concluded; newest first within each. */
  listCurrentAndRecent(queueId: string, limit: number): Promise<TestRun[]>;
  /** Null when the run already concluded. */
  conclude(
    id: string,
    status: Exclude<TestRunStatus, 'in_progress'>,
    reason: Reason,
    now?: Date,
    culpritEntryIds?: string[],
    detail?: string,
  ): Promise<TestRun | null>;
  /** Null when another build already recorded the branch's head. */
  recordBuild(id: string, sha: string, tree: string): Promise<TestRun | null>;
  /** The newest passing run of the queue built from `recipe` (domain/tested-tree-reuse.ts). */
  findPassedByRecipe(queueId: string, recipe: string): Promise<TestRun | null>;
  /** Concludes a run that was never built as passed with `earlier`'s result; null when it was built or concluded meanwhile. */
  recordReuse(id: string, earlier: TestRun, detail: string, now?: Date): Promise<TestRun | null>;
  markBranchDeleted(id: string): Promise<void>;
  /** Stores what the stall watchdog found on a run still in progress; null when it concluded. */
  recordStatusWatch(id: string, watch: StatusWatch): Promise<TestRun | null>;
}

/** A page of runs, newest first: of a queue, or testing any of some entries; `after` is the last run of the previous page. */
export interface TestRunPageQuery {
  scope: { queueId: string } | { entryIds: readonly string[] };
  status?: TestRunStatus;
  createdAfter?: Date;
  /** Concluded in this window (testing results). */
  concluded?: { since: Date; until: Date };
  after?: { createdAt: Date; id: string };
  limit: number;
}

const OPEN: Filter<TestRunDoc> = { $or: [{ status: 'in_progress' }, { branchDeleted: false }] };

export class DbTestRunRepository implements TestRunRepository {
  private readonly col: DocCollection<TestRunDoc>;
  /** The runs' outboxes, for the event relay's sweep. */
  readonly outbox: OutboxSource;
  constructor(
    db: Database,
    private readonly revisions: QueueRevisions,
    private readonly relay: EventRelay,
  ) {
    this.col = db.collection<TestRunDoc>('test_runs');
    this.outbox = collectionOutbox(db, 'test_runs');
  }

  /** A run's status and stall finding are in its queue's answer (getQueue warnings): their writes bump its revision. */
  private async changed(d: TestRunDoc | null): Promise<TestRun | null> {
    const written = await this.revisions.afterWrite(d);
    return written ? toTestRun(written) : null;
  }

  async ensureIndexes(): Promise<void> {
    await this.col.createIndexes(TEST_RUN_INDEXES);
  }

  async insert(run: TestRun): Promise<void> {
    const { id, ...rest } = run;
    const started = batchStartedEvent(run);
    const outbox = toOutbox(started ? [started] : [], run.createdAt);
    await this.col.insertOne({ _id: id, ...rest, ...(outbox.length > 0 ? { outbox } : {}) });
    await this.relay.relay(this.outbox, id, outbox);
  }

  async findById(id: string): Promise<TestRun | null> {
    const d = await this.col.findOne({ _id: id });
    return d ? toTestRun(d) : null;
  }

  async findByIds(ids: readonly string[]): Promise<TestRun[]> {
    if (ids.length === 0) return [];
    return (await this.col.find({ _id: { $in: [...ids] } })).map(toTestRun);
  }

  async listOpen(queueId: string): Promise<TestRun[]> {
    return (await this.col.find({ queueId, ...OPEN })).map(toTestRun);
  }

  async listBisectionsOf(queueId: string, rootRunIds: readonly string[]): Promise<TestRun[]> {
    if (rootRunIds.length === 0) return [];
    return (await this.col.find({ queueId, bisectionOf: { $in: [...rootRunIds] } })).map(toTestRun);
  }

  async listUnbuilt(queueId: string): Promise<TestRun[]> {
    return (await this.col.find({ queueId, status: 'in_progress', sha: null })).map(toTestRun);
  }

  async queueIdsWithOpenRuns(): Promise<string[]> {
    const docs = await this.col.find(OPEN, { projection: { _id: 0, queueId: 1 } });
    return [...new Set(docs.map((d) => d.queueId))];
  }

  async findBySha(sha: string): Promise<TestRun[]> {
    return (await this.col.find({ sha }, { sort: { createdAt: -1 } })).map(toTestRun);
  }

  async findInProgressBySha(sha: string): Promise<TestRun[]> {
    return (await this.col.find({ sha, status: 'in_progress' })).map(toTestRun);
  }

  async listCreatedSince(queueId: string, since: Date, limit: number): Promise<TestRun[]> {
    return this.createdSince(queueId, since, limit, false);
  }

  async readCreatedSince(queueId: string, since: Date, limit: number): Promise<readonly Readonly<TestRun>[]> {
    return this.createdSince(queueId, since, limit, true);
  }

  private async createdSince(queueId: string, since: Date, limit: number, readOnly: boolean): Promise<TestRun[]> {
    return (await this.col.find({ queueId, createdAt: { $gte: since } }, { sort: { createdAt: -1 }, limit, readOnly })).map(toTestRun);
  }

  async listCreationTimesSince(queueId: string, since: Date, limit: number): Promise<Date[]> {
    const docs = await this.col.find({ queueId, createdAt: { $gte: since } }, { sort: { createdAt: -1 }, limit, projection: { _id: 0, createdAt: 1 } });
    return docs.map((d) => d.createdAt);
  }

  /** One page of runs, newest first (the v2 API's lists). */
  async listPage(query: TestRunPageQuery): Promise<TestRun[]> {
    const and: Filter<TestRunDoc>[] = ['queueId' in query.scope ? { queueId: query.scope.queueId } : { entryIds: { $in: [...query.scope.entryIds] } }];
    if (query.status) and.push({ status: query.status });
    if (query.createdAfter) and.push({ createdAt: { $gt: query.createdAfter } });
    if (query.concluded) and.push({ concludedAt: { $gte: query.concluded.since, $lte: query.concluded.until } });
    if (query.after) {
      const { createdAt, id } = query.after;
      and.push({ $or: [{ createdAt: { $lt: createdAt } }, { createdAt, _id: { $lt: id } }] });
    }
    const docs = await this.col.find({ $and: and }, { sort: { createdAt: -1, _id: -1 }, limit: query.limit });
    return docs.map(toTestRun);
  }

  async listCurrentAndRecent(queueId: string, limit: number): Promise<TestRun[]> {
    const [inProgress, recent] = await Promise.all([
      this.col.find({ queueId, status: 'in_progress' }, { sort: { createdAt: -1 } }),
      this.col.find({ queueId, status: { $ne: 'in_progress' } }, { sort: { createdAt: -1 }, limit }),
    ]);
    return [...inProgress, ...recent].map(toTestRun);
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
    detail?: string,
  ): Promise<TestRun | null> {
    const set: Record<string, unknown> = { status, conclusionReason: reason, concludedAt: now };
    if (culpritEntryIds) set.culpritEntryIds = culpritEntryIds;
    if (detail !== undefined) set.conclusionDetail = detail;
    // Only a run of several pull requests has an event for its end: read what it is first.
    const run = await this.col.findOne({ _id: id, status: 'in_progress' }, { projection: { orgId: 1, queueId: 1, entryIds: 1 } });
    if (!run) return null;
    const ended = batchConcludedEvent({ ...run, id }, status, reason, now);
    const outbox = toOutbox(ended ? [ended] : [], now);
    const written = await this.changed(
      await this.col.findOneAndUpdate(
        { _id: id, status: 'in_progress' },
        { $set: set, $inc: { version: 1 }, ...(outbox.length > 0 ? { $push: outboxPush(outbox) } : {}) },
      ),
    );
    if (written) await this.relay.relay(this.outbox, id, outbox);
    return written;
  }

  /** Records the built test branch's head, once: null when another build already recorded it. */
  async recordBuild(id: string, sha: string, tree: string): Promise<TestRun | null> {
    const d = await this.col.findOneAndUpdate({ _id: id, sha: null }, { $set: { sha, tree }, $inc: { version: 1 } });
    return d ? toTestRun(d) : null;
  }

  async findPassedByRecipe(queueId: string, recipe: string): Promise<TestRun | null> {
    const d = await this.col.findOne({ queueId, recipe, status: 'succeeded' }, { sort: { createdAt: -1 } });
    return d ? toTestRun(d) : null;
  }

  async recordReuse(id: string, earlier: TestRun, detail: string, now = new Date()): Promise<TestRun | null> {
    // No branch was pushed: nothing to delete later.
    const set = {
      sha: earlier.sha,
      tree: earlier.tree ?? null,
      status: 'succeeded' as const,
      conclusionReason: 'test_run_passed' as const,
      conclusionDetail: detail,
      concludedAt: now,
      reusedFrom: earlier.id,
      branchDeleted: true,
    };
    return this.changed(await this.col.findOneAndUpdate({ _id: id, status: 'in_progress', sha: null }, { $set: set, $inc: { version: 1 } }));
  }

  async recordStatusWatch(id: string, watch: StatusWatch): Promise<TestRun | null> {
    return this.changed(await this.col.findOneAndUpdate({ _id: id, status: 'in_progress' }, { $set: { statusWatch: watch }, $inc: { version: 1 } }));
  }

  /** The run's test branch was removed (idempotent: deleting twice changes nothing). */
  async markBranchDeleted(id: string): Promise<void> {
    await this.col.updateOne({ _id: id, branchDeleted: false }, { $set: { branchDeleted: true } });
  }
}
