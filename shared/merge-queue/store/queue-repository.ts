// Merge queues, one per (organisation, repository, branch). Every change is a compare-and-set on
// `version` and appends to the queue's own history.
import { randomUUID } from 'node:crypto';
import type { Database, DocCollection, IndexSpec, StoredDoc } from '../../platform/database/collection.js';
import { isDuplicateKeyError } from '../../platform/database/collection.js';
import type { LanesProblem, Queue, QueueMode, QueueSettings, QueueState, TargetBreak } from '../domain/model.js';
import type { RepoRef } from '../../platform/repo-ref.js';
import { DEFAULT_QUEUE_SETTINGS } from '../domain/model.js';
import { repoKey } from '../../platform/repo-ref.js';
import { collectionOutbox, outboxPush, OUTBOX_INDEX, toOutbox, type EventRelay, type OutboxEvent, type OutboxSource } from '../../platform/events/outbox.js';
import { queueStateChangedEvent, targetHealthEvent } from '../events/transition-events.js';
import type { MergeQueueEvent } from '../events/event-types.js';
import type { QueueWindow } from '../domain/merge-window.js';
import type { ObjectiveStatus } from '../domain/objectives.js';
import type { QueueObjectiveLevel } from '../domain/metrics/series.js';
import { targetHealthChange, targetHealthHistory } from '../domain/target-health.js';
import { lanesProblemHistory } from '../domain/lanes-problem.js';

export interface QueueHistoryEntry {
  at: Date;
  change: string;
  detail?: string;
}

// `revision`: see queue-revisions.ts; a settings or state change increments it in the same update.
// `outbox`: a state change writes its event there in the same update (shared/events/outbox.ts).
type QueueDoc = StoredDoc &
  Omit<Queue, 'id' | 'targetBroken' | 'lanesProblem'> & {
    targetBroken?: TargetBreak | null;
    lanesProblem?: LanesProblem | null;
    repoKey: string;
    history: QueueHistoryEntry[];
    revision?: number;
    outbox?: OutboxEvent[];
  };

/** Queue history kept per queue (oldest dropped first). */
const QUEUE_HISTORY_LIMIT = 500;

export const QUEUE_INDEXES: IndexSpec[] = [
  {
    key: { orgId: 1, repoKey: 1, branch: 1 },
    name: 'org_repo_branch_unique',
    unique: true,
    comment: 'one queue per repository branch; getQueue/submit lookups',
  },
  { key: { orgId: 1, repoKey: 1 }, name: 'org_repo', comment: 'metrics for one repository' },
  OUTBOX_INDEX,
];

const toQueue = (d: QueueDoc): Queue => {
  const {
    _id,
    repoKey: _key,
    history: _history,
    revision: _revision,
    outbox: _outbox,
    targetBroken,
    lanesProblem,
    mergeWindow,
    objectiveStatus,
    lastDigestAt,
    ...rest
  } = d;
  // A setting added after the queue was stored reads as its default (and a queue stored before
  // target health was recorded as a green one).
  return {
    id: _id,
    ...structuredClone(DEFAULT_QUEUE_SETTINGS),
    ...rest,
    targetBroken: targetBroken ?? null,
    lanesProblem: lanesProblem ?? null,
    mergeWindow: mergeWindow ?? null,
    objectiveStatus: objectiveStatus ?? [],
    lastDigestAt: lastDigestAt ?? null,
  };
};

export class QueueExistsError extends Error {}

/** A new running queue with the default settings (what createQueue stores). */
export function newQueue(orgId: string, repo: RepoRef, branch: string, init: { mode: QueueMode; concurrency: number; targetSha: string }, now: Date): Queue {
  return {
    id: randomUUID(),
    orgId,
    repo: { host: repo.host, owner: repo.owner, name: repo.name },
    branch,
    ...structuredClone(DEFAULT_QUEUE_SETTINGS),
    mode: init.mode,
    concurrency: init.concurrency,
    bisectionConcurrency: init.concurrency,
    state: 'running',
    pendingMode: null,
    observedTargetSha: init.targetSha,
    targetBroken: null,
    lanesProblem: null,
    mergeWindow: null,
    objectiveStatus: [],
    lastDigestAt: null,
    nextSeq: 1,
    version: 1,
    createdAt: now,
    updatedAt: now,
  };
}

/** A queue as lists and metrics name it, and whether its target branch is broken. */
export interface QueueRef {
  id: string;
  repo: RepoRef;
  branch: string;
  targetBroken: boolean;
  objectives: QueueObjectiveLevel[];
}

export type QueuePatch = Partial<QueueSettings> & { state?: QueueState; pendingMode?: QueueMode | null };

/** Merge queues as the services see them: named reads and compare-and-set writes on `version`. */
export interface QueueRepository {
  /** Throws QueueExistsError when the branch already has a queue of this organisation. */
  create(orgId: string, repo: RepoRef, branch: string, init: { mode: QueueMode; concurrency: number; targetSha: string }, now?: Date): Promise<Queue>;
  find(orgId: string, repo: RepoRef, branch: string): Promise<Queue | null>;
  findById(id: string): Promise<Queue | null>;
  listRefs(orgId: string, repo: RepoRef | null): Promise<QueueRef[]>;
  /** Every queue of an organisation, by repository then branch. */
  listByOrg(orgId: string): Promise<Queue[]>;
  /** Every queue of every organisation (the schedule watcher's round). */
  listAll(): Promise<Queue[]>;
  /** Null when the queue is no longer at `expectedVersion`. */
  update(id: string, expectedVersion: number, patch: QueuePatch, change: string, now?: Date): Promise<Queue | null>;
  /**
   * Records the target branch's health read from the results for its head `headSha`
   * (compare-and-set on `version`; null when the queue moved on). Breaking and recovering
   * announce themselves (queue.target_broken / .target_recovered).
   */
  recordTargetHealth(id: string, expectedVersion: number, next: TargetBreak | null, headSha: string, now?: Date): Promise<Queue | null>;
  /** Records whether `merge.lanes` at the target head `headSha` can be used (compare-and-set on `version`; null when the queue moved on). */
  recordLanesProblem(id: string, expectedVersion: number, next: LanesProblem | null, headSha: string, now?: Date): Promise<Queue | null>;
  /**
   * Stores the merge window the schedule watcher read (compare-and-set on `version`; null when
   * the queue moved on) with the events its changes announce, in one write.
   */
  recordMergeWindow(id: string, expectedVersion: number, window: QueueWindow | null, events: MergeQueueEvent[], now?: Date): Promise<Queue | null>;
  /**
   * Stores the objectives' levels with the events their changes announce, in one write, while the
   * queue is still at `expectedVersion` (its objectives as read). Not a change of the queue's
   * state or settings, so its version stays (a planning pass or an admin update is not made stale).
   */
  recordObjectiveStatus(id: string, expectedVersion: number, status: ObjectiveStatus[], events: MergeQueueEvent[], now?: Date): Promise<boolean>;
  /**
   * Records that the digest of the period ending at `periodEnd` was sent, with its event, in one
   * write; false when a digest of that period (or a later one) was recorded already, so each goes
   * out once whatever the number of processes. Like the objectives' levels, not a change of the
   * queue's state or settings: its version stays.
   */
  recordDigest(id: string, periodEnd: Date, events: MergeQueueEvent[], now?: Date): Promise<boolean>;
  /** True when the head differs from the one seen before. */
  observeTargetHead(id: string, sha: string | null): Promise<boolean>;
  allocateSeq(id: string): Promise<number>;
  history(id: string): Promise<QueueHistoryEntry[]>;
  /** False when the queue is no longer at `expectedVersion`. */
  delete(id: string, expectedVersion: number): Promise<boolean>;
}

export class DbQueueRepository implements QueueRepository {
  private readonly col: DocCollection<QueueDoc>;
  /** The queues' outboxes, for the event relay's sweep. */
  readonly outbox: OutboxSource;
  constructor(
    db: Database,
    private readonly relay: EventRelay,
  ) {
    this.col = db.collection<QueueDoc>('queues');
    this.outbox = collectionOutbox(db, 'queues');
  }

  async ensureIndexes(): Promise<void> {
    await this.col.createIndexes(QUEUE_INDEXES);
  }

  async create(
    orgId: string,
    repo: RepoRef,
    branch: string,
    init: { mode: QueueMode; concurrency: number; targetSha: string },
    now = new Date(),
  ): Promise<Queue> {
    const { id, ...queue } = newQueue(orgId, repo, branch, init, now);
    const doc: QueueDoc = {
      _id: id,
      ...queue,
      repoKey: repoKey(repo),
      history: [{ at: now, change: 'created', detail: `mode ${init.mode}, concurrency ${init.concurrency}` }],
    };
    try {
      await this.col.insertOne(doc);
    } catch (err) {
      if (isDuplicateKeyError(err)) throw new QueueExistsError(`a merge queue already exists for branch "${branch}"`);
      throw err;
    }
    return toQueue(doc);
  }

  async find(orgId: string, repo: RepoRef, branch: string): Promise<Queue | null> {
    const d = await this.col.findOne({ orgId, repoKey: repoKey(repo), branch });
    return d ? toQueue(d) : null;
  }

  async findById(id: string): Promise<Queue | null> {
    const d = await this.col.findOne({ _id: id });
    return d ? toQueue(d) : null;
  }

  /**
   * Id, repository and branch of the organisation's queues (of one repository when given): what
   * the metrics label series with. Projected, because a queue document carries its history.
   */
  async listByOrg(orgId: string): Promise<Queue[]> {
    return (await this.col.find({ orgId }, { sort: { repoKey: 1, branch: 1 } })).map(toQueue);
  }

  async listAll(): Promise<Queue[]> {
    return (await this.col.find({})).map(toQueue);
  }

  /** The organisations with a queue on the repository. */
  async orgsWithRepository(repo: RepoRef): Promise<string[]> {
    const docs = await this.col.find({ repoKey: repoKey(repo) }, { projection: { _id: 0, orgId: 1 } });
    return [...new Set(docs.map((d) => d.orgId))];
  }

  async listRefs(orgId: string, repo: RepoRef | null): Promise<QueueRef[]> {
    const filter = repo ? { orgId, repoKey: repoKey(repo) } : { orgId };
    const docs = await this.col.find(filter, {
      sort: { repoKey: 1, branch: 1 },
      projection: { _id: 1, repo: 1, branch: 1, targetBroken: 1, objectiveStatus: 1 },
    });
    return docs.map((d) => ({
      id: d._id,
      repo: d.repo,
      branch: d.branch,
      targetBroken: (d.targetBroken ?? null) !== null,
      objectives: (d.objectiveStatus ?? []).map((s) => ({ metric: s.metric, level: s.level, value: s.value })),
    }));
  }

  /**
   * Compare-and-set: applies `patch` only if the queue is still at `expectedVersion`.
   * Returns the new queue, or null when another writer got there first.
   */
  async update(id: string, expectedVersion: number, patch: QueuePatch, change: string, now = new Date()): Promise<Queue | null> {
    // A change of state announces itself: read the state it replaces (the version pins it).
    const before = patch.state !== undefined ? await this.col.findOne({ _id: id, version: expectedVersion }, { projection: { orgId: 1, state: 1 } }) : null;
    if (patch.state !== undefined && !before) return null;
    const changed = before && patch.state !== undefined && before.state !== patch.state;
    const outbox = toOutbox(
      changed && patch.state ? [queueStateChangedEvent({ id, orgId: before.orgId }, before.state, patch.state, now, expectedVersion + 1)] : [],
      now,
    );
    return this.writeVersioned(id, expectedVersion, patch, change, outbox, now);
  }

  /**
   * One compare-and-set write on `version` (null when the queue moved on): the fields, a line of
   * history when given, the events in the outbox in the same update, relayed after it.
   */
  private async writeVersioned(
    id: string,
    expectedVersion: number,
    set: Partial<QueueDoc>,
    change: string | null,
    outbox: OutboxEvent[],
    now: Date,
  ): Promise<Queue | null> {
    const history = change === null ? {} : { history: { $each: [{ at: now, change }], $slice: -QUEUE_HISTORY_LIMIT } };
    const d = await this.col.findOneAndUpdate(
      { _id: id, version: expectedVersion },
      { $set: { ...set, updatedAt: now }, $inc: { version: 1, revision: 1 }, $push: { ...history, ...outboxPush(outbox) } },
    );
    if (!d) return null;
    await this.relay.relay(this.outbox, id, outbox);
    return toQueue(d);
  }

  async recordTargetHealth(id: string, expectedVersion: number, next: TargetBreak | null, headSha: string, now = new Date()): Promise<Queue | null> {
    const before = await this.col.findOne({ _id: id, version: expectedVersion }, { projection: { orgId: 1, targetBroken: 1 } });
    if (!before) return null;
    const was = before.targetBroken ?? null;
    const change = targetHealthChange(was, next);
    const outbox = toOutbox(change ? [targetHealthEvent({ id, orgId: before.orgId }, change, headSha, (next ?? was)!, now, expectedVersion + 1)] : [], now);
    return this.writeVersioned(id, expectedVersion, { targetBroken: next }, targetHealthHistory(next, headSha), outbox, now);
  }

  async recordLanesProblem(id: string, expectedVersion: number, next: LanesProblem | null, headSha: string, now = new Date()): Promise<Queue | null> {
    return this.writeVersioned(id, expectedVersion, { lanesProblem: next }, lanesProblemHistory(next, headSha), [], now);
  }

  async recordMergeWindow(id: string, expectedVersion: number, window: QueueWindow | null, events: MergeQueueEvent[], now = new Date()): Promise<Queue | null> {
    return this.writeVersioned(id, expectedVersion, { mergeWindow: window }, null, toOutbox(events, now), now);
  }

  async recordObjectiveStatus(id: string, expectedVersion: number, status: ObjectiveStatus[], events: MergeQueueEvent[], now = new Date()): Promise<boolean> {
    const outbox = toOutbox(events, now);
    const d = await this.col.findOneAndUpdate(
      { _id: id, version: expectedVersion },
      { $set: { objectiveStatus: status }, $inc: { revision: 1 }, $push: outboxPush(outbox) },
    );
    if (!d) return false;
    await this.relay.relay(this.outbox, id, outbox);
    return true;
  }

  async recordDigest(id: string, periodEnd: Date, events: MergeQueueEvent[], now = new Date()): Promise<boolean> {
    const outbox = toOutbox(events, now);
    const d = await this.col.findOneAndUpdate(
      { _id: id, $or: [{ lastDigestAt: null }, { lastDigestAt: { $lt: periodEnd } }] },
      { $set: { lastDigestAt: periodEnd }, $inc: { revision: 1 }, $push: outboxPush(outbox) },
    );
    if (!d) return false;
    await this.relay.relay(this.outbox, id, outbox);
    return true;
  }

  /**
   * Records the target head seen at the forge; true when it differs from the one seen before.
   * Not a state change of the queue, so no version bump (it would only make admin updates retry).
   */
  async observeTargetHead(id: string, sha: string | null): Promise<boolean> {
    const res = await this.col.updateOne({ _id: id, observedTargetSha: { $ne: sha } }, { $set: { observedTargetSha: sha } });
    return res.modifiedCount === 1;
  }

  /** Hands out the next admission sequence number (atomic, never reused). */
  async allocateSeq(id: string): Promise<number> {
    const d = await this.col.findOneAndUpdate({ _id: id }, { $inc: { nextSeq: 1 } }, { returnDocument: 'before' });
    if (!d) throw new Error(`queue ${id} vanished while allocating a sequence number`);
    return d.nextSeq;
  }

  async history(id: string): Promise<QueueHistoryEntry[]> {
    const d = await this.col.findOne({ _id: id }, { projection: { history: 1 } });
    return d?.history ?? [];
  }

  /** Deletes the queue only if it is still at `expectedVersion`. */
  async delete(id: string, expectedVersion: number): Promise<boolean> {
    const res = await this.col.deleteOne({ _id: id, version: expectedVersion });
    return res.deletedCount === 1;
  }
}
