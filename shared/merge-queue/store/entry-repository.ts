// Queue entries (the v1 "merge items"). Every state change is one compare-and-set on the
// entry's state (and version when given) that appends a history entry with its reason code and
// writes the event it announces into the entry's outbox (shared/events/outbox.ts).
import { isDuplicateKeyError } from '../../platform/database/collection.js';
import type { Database, DocCollection, Filter, IndexSpec, StoredDoc } from '../../platform/database/collection.js';
import type { Entry, EntryState, HistoryEntry, Reason, TestRun } from '../domain/model.js';
import { TERMINAL_ENTRY_STATES } from '../domain/model.js';
import type { EmittedEvent } from '../../platform/events/event-types.js';
import { collectionOutbox, outboxPush, OUTBOX_INDEX, toOutbox, type EventRelay, type OutboxEvent, type OutboxSource } from '../../platform/events/outbox.js';
import { batchArrivalEvent, isBatch, isBatchState, runOfTransition, submittedEvent, transitionEvent } from '../events/transition-events.js';
import type { QueueRevisions } from './queue-revisions.js';

/** `active` mirrors "state is not terminal" so a partial unique index can hold one active entry per PR. */
export type EntryDoc = StoredDoc & Omit<Entry, 'id'> & { active: boolean; outbox?: OutboxEvent[] };

export const ENTRY_INDEXES: IndexSpec[] = [
  {
    key: { queueId: 1, prNumber: 1 },
    name: 'one_active_entry_per_pr',
    unique: true,
    partialFilterExpression: { active: true },
    comment: 'idempotent submit: at most one active entry per pull request and queue',
  },
  { key: { queueId: 1, active: 1, priorityValue: 1, seq: 1 }, name: 'queue_order', comment: 'getQueue / planner snapshot in queue order' },
  { key: { queueId: 1, prNumber: 1, submittedAt: -1 }, name: 'pr_latest', comment: 'getSubmittedPullRequest by number' },
  { key: { queueId: 1, prHeadBranch: 1, submittedAt: -1 }, name: 'branch_latest', comment: 'getSubmittedPullRequest by branch' },
  { key: { queueId: 1, stateChangedAt: -1 }, name: 'queue_changed', comment: 'listPullRequests since / metrics history' },
  { key: { orgId: 1, active: 1 }, name: 'org_active', comment: 'provider poller: active entries of every queue; metrics gauges of an organisation' },
  { key: { orgId: 1, stateChangedAt: -1 }, name: 'org_changed', comment: 'metrics of every queue of an organisation: entries changed in the last hour' },
  { key: { mergedSha: 1 }, name: 'merged_sha', comment: 'verifyCommit: which merge made a target branch commit' },
  OUTBOX_INDEX,
];

/** The entries a read covers: an organisation's, optionally only those of some of its queues. */
/** An entry's history as the metrics read it, with the tree its merge was checked to produce. */
/**
 * On the embedded database the history is the stored one, not a copy (a 90-day chart reads tens of
 * thousands): read it, never change it or keep its parts.
 */
export interface EntryHistoryRow {
  id: string;
  queueId: string;
  history: readonly Readonly<HistoryEntry>[];
  mergedTestedTree: string | null;
}

export interface EntryScope {
  orgId: string;
  queueIds?: string[];
}

// orgId always leads: an equality both engines can use an index for, and it keeps one
// organisation's read from ever matching another's entries.
const scopeFilter = (scope: EntryScope): Filter<EntryDoc> =>
  scope.queueIds ? { orgId: scope.orgId, queueId: { $in: scope.queueIds } } : { orgId: scope.orgId };

export const toEntry = (d: EntryDoc): Entry => {
  const { _id, active: _active, outbox: _outbox, ...rest } = d;
  return { id: _id, ...rest };
};

/** A timeline entry that records something seen without changing the entry's state. */
export interface TimelineNote {
  reason: Extract<Reason, 'required_status_not_reported' | 'interaction_found' | 'waiting_for_merge_window'>;
  detail: string;
  /** The run the note is about (none for a wait for a merge window). */
  testRunId?: string;
}

/** The history entry of a timeline note: from and to are the state the entry stays in. */
export function timelineNoteEntry(state: EntryState, note: TimelineNote, at: Date): HistoryEntry {
  return { at, from: state, to: state, reason: note.reason, detail: note.detail, ...(note.testRunId ? { testRunId: note.testRunId } : {}) };
}

export interface TransitionChange {
  to: EntryState;
  reason: Reason;
  detail?: string;
  testRunId?: string;
  /** Extra fields to set with the transition (e.g. currentRunId, verifiedByTestRun). */
  set?: Partial<Omit<Entry, 'id' | 'state' | 'history' | 'version' | 'lastReason' | 'stateChangedAt'>>;
  /** Count this transition as a restart (testing/passed/pending-failure back to pending). */
  restart?: boolean;
}

export interface TransitionGuard {
  /** States the entry may be in for the change to apply. */
  from: readonly EntryState[];
  /** When given, the entry must also still be at this version. */
  version?: number;
}

/** One page of a queue's entries, newest submission first (listPullRequests). */
export interface EntryPageQuery {
  /** Only entries in these states. */
  states?: readonly EntryState[];
  /** Only entries whose last transition is at or after this time. */
  changedSince?: Date;
  /** Only entries whose last transition is at or before this time. */
  changedBefore?: Date;
  /** Only pull requests opened by this author. */
  author?: string;
  /** Only entries admitted before this sequence number (the previous page's last). */
  beforeSeq?: number;
  limit: number;
}

/** Queue entries as the merge-queue services see them: named reads and compare-and-set writes. */
export interface EntryRepository {
  /** 'exists' (and nothing written) when the pull request already has an active entry in the queue. */
  insert(entry: Entry, now?: Date): Promise<'inserted' | 'exists'>;
  findById(id: string): Promise<Entry | null>;
  findByIds(ids: readonly string[]): Promise<Entry[]>;
  findActiveByPr(queueId: string, prNumber: number): Promise<Entry | null>;
  findLatestByPr(queueId: string, prNumber: number): Promise<Entry | null>;
  /** The entry of one of these queues whose merge made the target branch's commit `sha`. */
  findMergedAs(queueIds: readonly string[], sha: string): Promise<Entry | null>;
  findLatestByBranch(queueId: string, branch: string): Promise<Entry | null>;
  /** Every entry of the queue that has not ended, in priority then admission order. */
  listActive(queueId: string): Promise<Entry[]>;
  listInStates(queueId: string, states: readonly EntryState[]): Promise<Entry[]>;
  /** not_ready entries whose mergeability is still to be decided (new submissions), in queue order. */
  listAwaitingMergeability(queueId: string): Promise<Entry[]>;
  /** not_ready and pending entries whose readiness was judged with(out) impacted targets required: after a mode change, those judged in the other mode. */
  listWaitingJudgedWith(queueId: string, impactedTargetsRequired: boolean): Promise<Entry[]>;
  /** Entries the queue merged at or after `since`. */
  listMergedSince(queueId: string, since: Date): Promise<Entry[]>;
  /** How many entries the queue merged in [since, until] (reports count them without reading them). */
  countMergedBetween(queueId: string, since: Date, until: Date): Promise<number>;
  listPage(queueId: string, query: EntryPageQuery): Promise<Entry[]>;
  listActiveAll(): Promise<Entry[]>;
  countInStates(queueId: string, states: readonly EntryState[]): Promise<number>;
  countActive(queueId: string): Promise<number>;
  listActiveStates(scope: EntryScope): Promise<{ queueId: string; state: EntryState; inBisection: boolean }[]>;
  listHistoriesChangedSince(scope: EntryScope, since: Date): Promise<EntryHistoryRow[]>;
  /** Null when the guard no longer holds. */
  transition(id: string, guard: TransitionGuard, change: TransitionChange, now?: Date): Promise<Entry | null>;
  /** Null when the entry is no longer at `version`. */
  patch(id: string, version: number, set: EntryPatch): Promise<Entry | null>;
  /** Appends a timeline note (no state change, lastReason kept); false when the entry is gone or changed meanwhile. */
  addTimelineNote(id: string, note: TimelineNote, now?: Date): Promise<boolean>;
}

export type EntryPatch = Partial<Omit<Entry, 'id' | 'state' | 'history' | 'version'>>;

export class DbEntryRepository implements EntryRepository {
  private readonly col: DocCollection<EntryDoc>;
  /** The entries' outboxes, for the event relay's sweep. */
  readonly outbox: OutboxSource;
  constructor(
    db: Database,
    private readonly revisions: QueueRevisions,
    private readonly deps: {
      /** The run a transition is about (for its batch's events). */
      runs: { findById(id: string): Promise<TestRun | null> };
      relay: EventRelay;
    },
  ) {
    this.col = db.collection<EntryDoc>('entries');
    this.outbox = collectionOutbox(db, 'entries');
  }

  async ensureIndexes(): Promise<void> {
    await this.col.createIndexes(ENTRY_INDEXES);
  }

  /** Inserts a new entry with its `submitted` event; throws a duplicate-key error (11000) if the PR already has an active one. */
  async insert(entry: Entry, now = new Date()): Promise<'inserted' | 'exists'> {
    const { id, ...rest } = entry;
    const outbox = toOutbox([submittedEvent(entry)], now);
    try {
      await this.col.insertOne({ _id: id, ...rest, active: !TERMINAL_ENTRY_STATES.includes(entry.state), outbox });
    } catch (err) {
      // Ids are random: the only key two entries can share is one_active_entry_per_pr.
      if (isDuplicateKeyError(err)) return 'exists';
      throw err;
    }
    await this.revisions.bump(entry.queueId);
    await this.deps.relay.relay(this.outbox, id, outbox);
    return 'inserted';
  }

  /**
   * The events a transition announces: the pull request's own, and its batch's when it is the last
   * pull request of a batch run to reach merged or pending failure (read before the write: the
   * others are already there; a second writer that also sees itself last writes the same event id).
   */
  private async eventsOf(
    before: Pick<EntryDoc, '_id' | 'orgId' | 'queueId' | 'prNumber' | 'currentRunId' | 'verifiedByTestRun'>,
    change: TransitionChange,
    at: Date,
    version: number,
  ): Promise<(EmittedEvent & { id?: string })[]> {
    const entry = { ...before, id: before._id };
    const facts = {
      entry,
      to: change.to,
      reason: change.reason,
      at,
      version,
      ...(change.detail !== undefined ? { detail: change.detail } : {}),
      ...(change.testRunId !== undefined ? { testRunId: change.testRunId } : {}),
    };
    const events: (EmittedEvent & { id?: string })[] = [];
    const own = transitionEvent(facts);
    if (own) events.push(own);
    const runId = runOfTransition(facts);
    if (isBatchState(change.to) && runId) {
      const run = await this.deps.runs.findById(runId);
      const others = run && isBatch(run) ? run.entryIds.filter((id) => id !== before._id) : [];
      if (run && others.length > 0) {
        const siblings = await this.col.find({ _id: { $in: others } }, { projection: { state: 1 } });
        if (siblings.length === others.length && siblings.every((s) => s.state === change.to))
          events.push(batchArrivalEvent(run, change.to, change.reason, at));
      }
    }
    return events;
  }

  async findById(id: string): Promise<Entry | null> {
    const d = await this.col.findOne({ _id: id });
    return d ? toEntry(d) : null;
  }

  async findByIds(ids: readonly string[]): Promise<Entry[]> {
    if (ids.length === 0) return [];
    return (await this.col.find({ _id: { $in: [...ids] } })).map(toEntry);
  }

  /** Every entry of these pull requests in these queues, newest submission first (the v2 API's pull requests). */
  async listByPrs(queueIds: readonly string[], prNumbers: readonly number[]): Promise<Entry[]> {
    if (queueIds.length === 0 || prNumbers.length === 0) return [];
    return (await this.col.find({ queueId: { $in: [...queueIds] }, prNumber: { $in: [...prNumbers] } }, { sort: { submittedAt: -1 } })).map(toEntry);
  }

  async findActiveByPr(queueId: string, prNumber: number): Promise<Entry | null> {
    const d = await this.col.findOne({ queueId, prNumber, active: true });
    return d ? toEntry(d) : null;
  }

  async findLatestByPr(queueId: string, prNumber: number): Promise<Entry | null> {
    const d = await this.col.findOne({ queueId, prNumber }, { sort: { submittedAt: -1, seq: -1 } });
    return d ? toEntry(d) : null;
  }

  async findMergedAs(queueIds: readonly string[], sha: string): Promise<Entry | null> {
    if (queueIds.length === 0) return null;
    const d = await this.col.findOne({ mergedSha: sha, queueId: { $in: [...queueIds] }, state: 'merged' });
    return d ? toEntry(d) : null;
  }

  /** The latest entry for a head branch, preferring an active one (wire-contract §2.5). */
  async findLatestByBranch(queueId: string, branch: string): Promise<Entry | null> {
    const active = await this.col.findOne({ queueId, prHeadBranch: branch, active: true }, { sort: { submittedAt: -1 } });
    if (active) return toEntry(active);
    const d = await this.col.findOne({ queueId, prHeadBranch: branch }, { sort: { submittedAt: -1, seq: -1 } });
    return d ? toEntry(d) : null;
  }

  /** Every entry of the queue that has not ended, in priority then admission order. */
  async listActive(queueId: string): Promise<Entry[]> {
    const docs = await this.col.find({ queueId, active: true }, { sort: { priorityValue: 1, seq: 1 } });
    return docs.map(toEntry);
  }

  async listInStates(queueId: string, states: readonly EntryState[]): Promise<Entry[]> {
    return (await this.col.find({ queueId, state: { $in: [...states] } }, { sort: { priorityValue: 1, seq: 1 } })).map(toEntry);
  }

  async listAwaitingMergeability(queueId: string): Promise<Entry[]> {
    const filter: Filter<EntryDoc> = { queueId, state: 'not_ready', 'readiness.gitHubMergeability': 'in_progress' };
    return (await this.col.find(filter, { sort: { priorityValue: 1, seq: 1 } })).map(toEntry);
  }

  async listWaitingJudgedWith(queueId: string, impactedTargetsRequired: boolean): Promise<Entry[]> {
    const filter: Filter<EntryDoc> = { queueId, state: { $in: ['not_ready', 'pending'] }, 'readiness.requiresImpactedTargets': impactedTargetsRequired };
    return (await this.col.find(filter, { sort: { priorityValue: 1, seq: 1 } })).map(toEntry);
  }

  async listMergedSince(queueId: string, since: Date): Promise<Entry[]> {
    return (await this.col.find({ queueId, state: 'merged', stateChangedAt: { $gte: since } })).map(toEntry);
  }

  async countMergedBetween(queueId: string, since: Date, until: Date): Promise<number> {
    return this.col.countDocuments({ queueId, state: 'merged', stateChangedAt: { $gte: since, $lte: until } });
  }

  async listPage(queueId: string, query: EntryPageQuery): Promise<Entry[]> {
    return (await this.col.find(pageFilter(queueId, query), { sort: { seq: -1 }, limit: query.limit })).map(toEntry);
  }

  /** How many entries the pages of `query` hold in all (its `beforeSeq` and `limit` aside). */
  async countPage(queueId: string, query: Omit<EntryPageQuery, 'beforeSeq' | 'limit'>): Promise<number> {
    return this.col.countDocuments(pageFilter(queueId, query));
  }

  async countInStates(queueId: string, states: readonly EntryState[]): Promise<number> {
    return this.col.countDocuments({ queueId, state: { $in: [...states] } });
  }

  async countActive(queueId: string): Promise<number> {
    return this.col.countDocuments({ queueId, active: true });
  }

  async listActiveAll(): Promise<Entry[]> {
    return (await this.col.find({ active: true })).map(toEntry);
  }

  /**
   * State of every active entry in scope, and whether it takes part in a bisection (metrics
   * gauges). Served by `org_active` (a whole organisation) or `queue_order` (some queues).
   */
  async listActiveStates(scope: EntryScope): Promise<{ queueId: string; state: EntryState; inBisection: boolean }[]> {
    const docs = await this.col.find({ ...scopeFilter(scope), active: true }, { projection: { _id: 0, queueId: 1, state: 1, bisectionOf: 1 } });
    return docs.map((d) => ({ queueId: d.queueId, state: d.state, inBisection: typeof d.bisectionOf === 'string' }));
  }

  /**
   * Histories of the entries in scope whose last transition is at or after `since` (metrics
   * `_1h` series: history is append-only, so an entry unchanged since then has no transition in
   * the window, and older entries are never read). Served by `org_changed` or `queue_changed`.
   */
  async listHistoriesChangedSince(scope: EntryScope, since: Date): Promise<EntryHistoryRow[]> {
    const docs = await this.col.find(
      { ...scopeFilter(scope), stateChangedAt: { $gte: since } },
      { projection: { _id: 1, queueId: 1, history: 1, mergedTestedTree: 1 }, readOnly: true },
    );
    return docs.map((d) => ({ id: d._id, queueId: d.queueId, history: d.history, mergedTestedTree: d.mergedTestedTree ?? null }));
  }

  /**
   * Compare-and-set transition. Returns the updated entry, or null when the guard no longer
   * holds (another writer changed the entry first): callers reload and decide again.
   */
  async transition(id: string, guard: TransitionGuard, change: TransitionChange, now = new Date()): Promise<Entry | null> {
    // Read, check the guard, then write conditioned on the version read: the version pins the
    // state too, so the history entry's `from` is exactly the state that was replaced.
    const before = await this.col.findOne(
      { _id: id },
      { projection: { state: 1, version: 1, stateChangedAt: 1, orgId: 1, queueId: 1, prNumber: 1, currentRunId: 1, verifiedByTestRun: 1 } },
    );
    if (!before || !guard.from.includes(before.state)) return null;
    if (guard.version !== undefined && before.version !== guard.version) return null;
    // A planning pass stamps its transitions with the time it started, which can precede a
    // transition another writer (an API call) made while the pass loaded its snapshot: never let
    // the history go back in time, or durations read from it (metrics, timeline) turn negative.
    const at = before.stateChangedAt instanceof Date && before.stateChangedAt > now ? before.stateChangedAt : now;
    const history: HistoryEntry = { at, from: before.state, to: change.to, reason: change.reason };
    if (change.detail !== undefined) history.detail = change.detail;
    if (change.testRunId !== undefined) history.testRunId = change.testRunId;
    const inc: Record<string, number> = { version: 1 };
    if (change.restart) inc.restartCount = 1;
    const outbox = toOutbox(await this.eventsOf(before, change, at, before.version + 1), now);
    const d = await this.col.findOneAndUpdate(
      { _id: id, version: before.version },
      {
        $set: {
          ...(change.set ?? {}),
          state: change.to,
          active: !TERMINAL_ENTRY_STATES.includes(change.to),
          stateChangedAt: at,
          lastReason: change.reason,
        },
        $inc: inc,
        $push: { history, ...outboxPush(outbox) },
      },
    );
    const written = await this.revisions.afterWrite(d);
    if (!written) return null;
    await this.deps.relay.relay(this.outbox, id, outbox);
    return toEntry(written);
  }

  /** Updates fields that are not a state change (priority, readiness) under a version guard. */
  async addTimelineNote(id: string, note: TimelineNote, now = new Date()): Promise<boolean> {
    const before = await this.col.findOne({ _id: id }, { projection: { state: 1, version: 1 } });
    if (!before) return false;
    const history = timelineNoteEntry(before.state, note, now);
    const d = await this.col.findOneAndUpdate({ _id: id, version: before.version }, { $push: { history }, $inc: { version: 1 } });
    return d !== null;
  }

  async patch(id: string, version: number, set: EntryPatch): Promise<Entry | null> {
    const written = await this.revisions.afterWrite(await this.col.findOneAndUpdate({ _id: id, version }, { $set: set, $inc: { version: 1 } }));
    return written ? toEntry(written) : null;
  }
}

/** The filter of a page query (listPage and countPage). */
function pageFilter(queueId: string, query: Omit<EntryPageQuery, 'limit'>): Filter<EntryDoc> {
  const filter: Filter<EntryDoc> = { queueId };
  if (query.states) filter.state = { $in: [...query.states] };
  if (query.changedSince || query.changedBefore) {
    filter.stateChangedAt = { ...(query.changedSince ? { $gte: query.changedSince } : {}), ...(query.changedBefore ? { $lte: query.changedBefore } : {}) };
  }
  if (query.author !== undefined) filter.prAuthor = query.author;
  if (query.beforeSeq !== undefined) filter.seq = { $lt: query.beforeSeq };
  return filter;
}
