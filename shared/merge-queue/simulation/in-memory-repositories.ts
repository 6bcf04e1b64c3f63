// In-memory merge-queue repositories: the simulator's store, and the service unit tests'. They
// implement the interfaces' semantics, not a script: compare-and-set on state and version with
// history, ordering, one active entry per pull request, a run concluding once. Stored objects are
// cloned in and out, as a database would; an entry's history, never changed once written, is
// frozen and shared instead.
import type { CommitStatus, CommitStatusRepository } from '../store/commit-status-repository.js';
import {
  timelineNoteEntry,
  type EntryHistoryRow,
  type EntryPageQuery,
  type EntryPatch,
  type EntryRepository,
  type EntryScope,
  type TimelineNote,
  type TransitionChange,
  type TransitionGuard,
} from '../store/entry-repository.js';
import { headKey, type ImpactedTargets, type ImpactedTargetsRepository, type PullRequestHead } from '../store/impacted-targets-repository.js';
import { newQueue, QueueExistsError, type QueueHistoryEntry, type QueuePatch, type QueueRef, type QueueRepository } from '../store/queue-repository.js';
import type { TestRunRepository } from '../store/test-run-repository.js';
import { targetHealthHistory } from '../domain/target-health.js';
import { lanesProblemHistory } from '../domain/lanes-problem.js';
import type { QueueWindow } from '../domain/merge-window.js';
import type { ObjectiveStatus } from '../domain/objectives.js';
import type { MergeQueueEvent } from '../events/event-types.js';
import type { MergeQueueRepositories } from '../store/store.js';
import {
  TERMINAL_ENTRY_STATES,
  type Entry,
  type EntryState,
  type HistoryEntry,
  type LanesProblem,
  type Queue,
  type QueueMode,
  type Reason,
  type StatusWatch,
  type TargetBreak,
  type TestRun,
  type TestRunStatus,
} from '../domain/model.js';
import { repoKey, type RepoRef } from '../../platform/repo-ref.js';

/**
 * Entry histories written here: frozen, each line frozen, and never changed again (a transition
 * stores a new array), so copies share them instead of copying every line on every read. A
 * reader that tried to change one would get a TypeError, not a corrupted store.
 */
const sealedHistories = new WeakSet<readonly HistoryEntry[]>();

function sealedHistory(lines: readonly HistoryEntry[]): HistoryEntry[] {
  const sealed = Object.freeze(lines.map((line) => (Object.isFrozen(line) ? line : Object.freeze(clone(line)))));
  sealedHistories.add(sealed);
  return sealed as HistoryEntry[];
}

/**
 * A deep copy of stored data: plain objects, arrays and Dates copied by hand, anything else by
 * structuredClone; a sealed history is shared. Every read copies what it returns, and
 * structuredClone's serialisation made those copies a fifth of a replay (an entry carries its
 * whole history).
 */
function clone<T>(value: T): T {
  if (value === null || typeof value !== 'object') return value;
  if (sealedHistories.has(value as readonly HistoryEntry[])) return value;
  if (Array.isArray(value)) return value.map(clone) as T;
  if (value instanceof Date) return new Date(value.getTime()) as T;
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return structuredClone(value);
  const out: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  for (const key of Object.keys(out)) {
    const field = out[key];
    if (field !== null && typeof field === 'object') out[key] = clone(field);
  }
  return out as T;
}

/**
 * Rows by id that also know which of them may still change state. A simulated day adds a row per
 * run and pull request while the engine asks, on every pass, only for the few in play: a scan of
 * every row made a replay slower with each pull request it had already merged (simulateQueue's
 * advice replays a history dozens of times). A row counts as live from the moment it is set or
 * touched until a scan finds it settled. Settled is final for the rows kept here (an entry in a
 * terminal state, a concluded run whose branch is gone), and an entry's transitions and patches
 * touch its row all the same, so a scan of the live rows misses none.
 */
class RowsWithLive<T> extends Map<string, T> {
  private readonly maybeLive = new Set<string>();

  constructor(private readonly settled: (row: T) => boolean) {
    super();
  }

  override set(id: string, row: T): this {
    super.set(id, row);
    this.maybeLive.add(id);
    return this;
  }

  /** Marks a row changed in place as possibly live again. */
  touch(id: string): void {
    if (this.has(id)) this.maybeLive.add(id);
  }

  /** The rows not settled, in the order they were set; forgets those that settled or went since the last scan. */
  live(): T[] {
    const out: T[] = [];
    for (const id of this.maybeLive) {
      const row = this.get(id);
      if (row === undefined || this.settled(row)) this.maybeLive.delete(id);
      else out.push(row);
    }
    return out;
  }
}

/** A duplicate-key error as both database engines raise it (isDuplicateKeyError). */
class DuplicateKeyError extends Error {
  readonly code = 11000;
}

export class InMemoryQueueRepository implements QueueRepository {
  readonly rows = new Map<string, Queue & { history: QueueHistoryEntry[] }>();

  async create(
    orgId: string,
    repo: RepoRef,
    branch: string,
    init: { mode: QueueMode; concurrency: number; targetSha: string },
    now = new Date(),
  ): Promise<Queue> {
    if ([...this.rows.values()].some((q) => q.orgId === orgId && repoKey(q.repo) === repoKey(repo) && q.branch === branch)) {
      throw new QueueExistsError(`a merge queue already exists for branch "${branch}"`);
    }
    const queue = { ...newQueue(orgId, repo, branch, init, now), history: [{ at: now, change: 'created' }] };
    this.rows.set(queue.id, queue);
    return this.out(queue);
  }

  private out(q: Queue & { history: QueueHistoryEntry[] }): Queue {
    const { history: _history, ...rest } = clone(q);
    return rest;
  }

  async find(orgId: string, repo: RepoRef, branch: string): Promise<Queue | null> {
    const q = [...this.rows.values()].find((r) => r.orgId === orgId && repoKey(r.repo) === repoKey(repo) && r.branch === branch);
    return q ? this.out(q) : null;
  }

  async findById(id: string): Promise<Queue | null> {
    const q = this.rows.get(id);
    return q ? this.out(q) : null;
  }

  /** The organisation's queues (of one repository), by repository key then branch, as the database sorts strings. */
  private listed(orgId: string, repo: RepoRef | null): (Queue & { history: QueueHistoryEntry[] })[] {
    const byCodeUnit = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
    return [...this.rows.values()]
      .filter((q) => q.orgId === orgId && (!repo || repoKey(q.repo) === repoKey(repo)))
      .sort((a, b) => byCodeUnit(repoKey(a.repo), repoKey(b.repo)) || byCodeUnit(a.branch, b.branch));
  }

  async listByOrg(orgId: string): Promise<Queue[]> {
    return this.listed(orgId, null).map((q) => this.out(q));
  }

  async listAll(): Promise<Queue[]> {
    return [...this.rows.values()].map((q) => this.out(q));
  }

  async listRefs(orgId: string, repo: RepoRef | null): Promise<QueueRef[]> {
    return this.listed(orgId, repo).map((q) => ({
      id: q.id,
      repo: { ...q.repo },
      branch: q.branch,
      targetBroken: q.targetBroken !== null,
      objectives: q.objectiveStatus.map((s) => ({ metric: s.metric, level: s.level, value: s.value })),
    }));
  }

  async update(id: string, expectedVersion: number, patch: QueuePatch, change: string, now = new Date()): Promise<Queue | null> {
    return this.writeVersioned(id, expectedVersion, patch, change, now);
  }

  async recordLanesProblem(id: string, expectedVersion: number, next: LanesProblem | null, headSha: string, now = new Date()): Promise<Queue | null> {
    return this.writeVersioned(id, expectedVersion, { lanesProblem: next }, lanesProblemHistory(next, headSha), now);
  }

  async recordTargetHealth(id: string, expectedVersion: number, next: TargetBreak | null, headSha: string, now = new Date()): Promise<Queue | null> {
    return this.writeVersioned(id, expectedVersion, { targetBroken: next }, targetHealthHistory(next, headSha), now);
  }

  /** A compare-and-set write on `version` (null when the queue moved on), with its line of history. */
  private writeVersioned(id: string, expectedVersion: number, set: Partial<Queue>, change: string, now: Date): Queue | null {
    const q = this.rows.get(id);
    if (!q || q.version !== expectedVersion) return null;
    Object.assign(q, clone(set), { updatedAt: now, version: q.version + 1 });
    q.history.push({ at: now, change });
    return this.out(q);
  }

  /** The simulator records no events: the window alone is stored. */
  async recordMergeWindow(
    id: string,
    expectedVersion: number,
    window: QueueWindow | null,
    _events: MergeQueueEvent[],
    now = new Date(),
  ): Promise<Queue | null> {
    const q = this.rows.get(id);
    if (!q || q.version !== expectedVersion) return null;
    Object.assign(q, { mergeWindow: clone(window), updatedAt: now, version: q.version + 1 });
    return this.out(q);
  }

  /** The simulator records no events: the levels alone are stored. */
  async recordObjectiveStatus(id: string, expectedVersion: number, status: ObjectiveStatus[], _events: MergeQueueEvent[]): Promise<boolean> {
    const q = this.rows.get(id);
    if (!q || q.version !== expectedVersion) return false;
    q.objectiveStatus = clone(status);
    return true;
  }

  /** The simulator records no events: the period alone is stored. */
  async recordDigest(id: string, periodEnd: Date): Promise<boolean> {
    const q = this.rows.get(id);
    if (!q || (q.lastDigestAt !== null && q.lastDigestAt >= periodEnd)) return false;
    q.lastDigestAt = periodEnd;
    return true;
  }

  async observeTargetHead(id: string, sha: string | null): Promise<boolean> {
    const q = this.rows.get(id);
    if (!q || q.observedTargetSha === sha) return false;
    q.observedTargetSha = sha;
    return true;
  }

  async allocateSeq(id: string): Promise<number> {
    const q = this.rows.get(id);
    if (!q) throw new Error(`queue ${id} vanished while allocating a sequence number`);
    return q.nextSeq++;
  }

  async history(id: string): Promise<QueueHistoryEntry[]> {
    return clone(this.rows.get(id)?.history ?? []);
  }

  async delete(id: string, expectedVersion: number): Promise<boolean> {
    if (this.rows.get(id)?.version !== expectedVersion) return false;
    return this.rows.delete(id);
  }
}

const byQueueOrder = (a: Entry, b: Entry) => a.priorityValue - b.priorityValue || a.seq - b.seq;
const isActive = (e: Entry) => !TERMINAL_ENTRY_STATES.includes(e.state);

export class InMemoryEntryRepository implements EntryRepository {
  readonly rows = new RowsWithLive<Entry>((e) => !isActive(e));

  private all(pred: (e: Entry) => boolean): Entry[] {
    return [...this.rows.values()].filter(pred).map(clone);
  }

  /** Like `all`, for a predicate that only active entries can meet. */
  private active(pred: (e: Entry) => boolean): Entry[] {
    return this.rows.live().filter(pred).map(clone);
  }

  async insert(entry: Entry): Promise<'inserted' | 'exists'> {
    if (this.rows.has(entry.id)) throw new DuplicateKeyError(`duplicate _id ${entry.id}`);
    if (isActive(entry) && this.rows.live().some((e) => e.queueId === entry.queueId && e.prNumber === entry.prNumber)) return 'exists';
    this.rows.set(entry.id, clone(entry));
    return 'inserted';
  }

  async findById(id: string): Promise<Entry | null> {
    const e = this.rows.get(id);
    return e ? clone(e) : null;
  }

  async findByIds(ids: readonly string[]): Promise<Entry[]> {
    return [...new Set(ids)].flatMap((id) => (this.rows.has(id) ? [clone(this.rows.get(id)!)] : []));
  }

  async findActiveByPr(queueId: string, prNumber: number): Promise<Entry | null> {
    return this.active((e) => e.queueId === queueId && e.prNumber === prNumber)[0] ?? null;
  }

  private latest(list: Entry[]): Entry | null {
    return list.sort((a, b) => b.submittedAt.getTime() - a.submittedAt.getTime() || b.seq - a.seq)[0] ?? null;
  }

  async findLatestByPr(queueId: string, prNumber: number): Promise<Entry | null> {
    return this.latest(this.all((e) => e.queueId === queueId && e.prNumber === prNumber));
  }

  async findLatestByBranch(queueId: string, branch: string): Promise<Entry | null> {
    const mine = this.all((e) => e.queueId === queueId && e.prHeadBranch === branch);
    return this.latest(mine.filter(isActive)) ?? this.latest(mine);
  }

  async listActive(queueId: string): Promise<Entry[]> {
    return this.active((e) => e.queueId === queueId).sort(byQueueOrder);
  }

  /** Entries of the queue in these states: from the live rows alone when none of the states is terminal. */
  private inStates(queueId: string, states: readonly EntryState[]): Entry[] {
    const pred = (e: Entry) => e.queueId === queueId && states.includes(e.state);
    return states.some((s) => TERMINAL_ENTRY_STATES.includes(s)) ? this.all(pred) : this.active(pred);
  }

  async listInStates(queueId: string, states: readonly EntryState[]): Promise<Entry[]> {
    return this.inStates(queueId, states).sort(byQueueOrder);
  }

  async listWaitingJudgedWith(queueId: string, impactedTargetsRequired: boolean): Promise<Entry[]> {
    return this.active(
      (e) => e.queueId === queueId && (e.state === 'not_ready' || e.state === 'pending') && e.readiness.requiresImpactedTargets === impactedTargetsRequired,
    ).sort(byQueueOrder);
  }

  async listAwaitingMergeability(queueId: string): Promise<Entry[]> {
    return this.active((e) => e.queueId === queueId && e.state === 'not_ready' && e.readiness.gitHubMergeability === 'in_progress').sort(byQueueOrder);
  }

  async findMergedAs(queueIds: readonly string[], sha: string): Promise<Entry | null> {
    return this.all((e) => queueIds.includes(e.queueId) && e.state === 'merged' && e.mergedSha === sha)[0] ?? null;
  }

  async listMergedSince(queueId: string, since: Date): Promise<Entry[]> {
    return this.all((e) => e.queueId === queueId && e.state === 'merged' && e.stateChangedAt >= since);
  }

  async countMergedBetween(queueId: string, since: Date, until: Date): Promise<number> {
    return this.all((e) => e.queueId === queueId && e.state === 'merged' && e.stateChangedAt >= since && e.stateChangedAt <= until).length;
  }

  async listPage(queueId: string, q: EntryPageQuery): Promise<Entry[]> {
    return this.all(
      (e) =>
        e.queueId === queueId &&
        (!q.states || q.states.includes(e.state)) &&
        (!q.changedSince || e.stateChangedAt >= q.changedSince) &&
        (!q.changedBefore || e.stateChangedAt <= q.changedBefore) &&
        (q.author === undefined || e.prAuthor === q.author) &&
        (q.beforeSeq === undefined || e.seq < q.beforeSeq),
    )
      .sort((a, b) => b.seq - a.seq)
      .slice(0, q.limit);
  }

  async listActiveAll(): Promise<Entry[]> {
    return this.active(() => true);
  }

  async countInStates(queueId: string, states: readonly EntryState[]): Promise<number> {
    return this.inStates(queueId, states).length;
  }

  async countActive(queueId: string): Promise<number> {
    return this.active((e) => e.queueId === queueId).length;
  }

  private inScope(scope: EntryScope) {
    return (e: Entry) => e.orgId === scope.orgId && (!scope.queueIds || scope.queueIds.includes(e.queueId));
  }

  async listActiveStates(scope: EntryScope): Promise<{ queueId: string; state: EntryState; inBisection: boolean }[]> {
    return this.active(this.inScope(scope)).map((e) => ({
      queueId: e.queueId,
      state: e.state,
      inBisection: typeof e.bisectionOf === 'string',
    }));
  }

  async listHistoriesChangedSince(scope: EntryScope, since: Date): Promise<EntryHistoryRow[]> {
    return this.all((e) => this.inScope(scope)(e) && e.stateChangedAt >= since).map((e) => ({
      id: e.id,
      queueId: e.queueId,
      history: e.history,
      mergedTestedTree: e.mergedTestedTree ?? null,
    }));
  }

  async transition(id: string, guard: TransitionGuard, change: TransitionChange, now = new Date()): Promise<Entry | null> {
    const e = this.rows.get(id);
    if (!e || !guard.from.includes(e.state)) return null;
    if (guard.version !== undefined && e.version !== guard.version) return null;
    const at = e.stateChangedAt > now ? e.stateChangedAt : now;
    const history: HistoryEntry = { at, from: e.state, to: change.to, reason: change.reason };
    if (change.detail !== undefined) history.detail = change.detail;
    if (change.testRunId !== undefined) history.testRunId = change.testRunId;
    Object.assign(e, clone(change.set ?? {}), { state: change.to, stateChangedAt: at, lastReason: change.reason, version: e.version + 1 });
    if (change.restart) e.restartCount += 1;
    e.history = sealedHistory([...e.history, history]);
    this.rows.touch(id);
    return clone(e);
  }

  async addTimelineNote(id: string, note: TimelineNote, now = new Date()): Promise<boolean> {
    const e = this.rows.get(id);
    if (!e) return false;
    e.history = sealedHistory([...e.history, timelineNoteEntry(e.state, note, now)]);
    e.version += 1;
    return true;
  }

  async patch(id: string, version: number, set: EntryPatch): Promise<Entry | null> {
    const e = this.rows.get(id);
    if (!e || e.version !== version) return null;
    Object.assign(e, clone(set), { version: e.version + 1 });
    this.rows.touch(id);
    return clone(e);
  }
}

const newestFirst = (runs: TestRun[]): TestRun[] => [...runs].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());

export class InMemoryTestRunRepository implements TestRunRepository {
  readonly rows = new RowsWithLive<TestRun>((r) => !InMemoryTestRunRepository.open(r));

  private all(pred: (r: TestRun) => boolean): TestRun[] {
    return [...this.rows.values()].filter(pred).map(clone);
  }

  /** Like `all`, for a predicate that only open runs can meet. */
  private ofOpen(pred: (r: TestRun) => boolean): TestRun[] {
    return this.rows.live().filter(pred).map(clone);
  }

  private static open(r: TestRun): boolean {
    return r.status === 'in_progress' || !r.branchDeleted;
  }

  async insert(run: TestRun): Promise<void> {
    if (this.rows.has(run.id)) throw new DuplicateKeyError(`duplicate _id ${run.id}`);
    this.rows.set(run.id, clone(run));
  }

  async findById(id: string): Promise<TestRun | null> {
    const r = this.rows.get(id);
    return r ? clone(r) : null;
  }

  async findByIds(ids: readonly string[]): Promise<TestRun[]> {
    return [...new Set(ids)].flatMap((id) => (this.rows.has(id) ? [clone(this.rows.get(id)!)] : []));
  }

  async listOpen(queueId: string): Promise<TestRun[]> {
    return this.ofOpen((r) => r.queueId === queueId);
  }

  async listBisectionsOf(queueId: string, rootRunIds: readonly string[]): Promise<TestRun[]> {
    return this.all((r) => r.queueId === queueId && typeof r.bisectionOf === 'string' && rootRunIds.includes(r.bisectionOf));
  }

  async listUnbuilt(queueId: string): Promise<TestRun[]> {
    return this.ofOpen((r) => r.queueId === queueId && r.status === 'in_progress' && r.sha === null);
  }

  async queueIdsWithOpenRuns(): Promise<string[]> {
    return [...new Set(this.rows.live().map((r) => r.queueId))];
  }

  async findBySha(sha: string): Promise<TestRun[]> {
    return newestFirst(this.all((r) => r.sha === sha));
  }

  async findInProgressBySha(sha: string): Promise<TestRun[]> {
    return this.ofOpen((r) => r.sha === sha && r.status === 'in_progress');
  }

  async listCreatedSince(queueId: string, since: Date, limit: number): Promise<TestRun[]> {
    return newestFirst(this.all((r) => r.queueId === queueId && r.createdAt >= since)).slice(0, limit);
  }

  async readCreatedSince(queueId: string, since: Date, limit: number): Promise<readonly Readonly<TestRun>[]> {
    return this.listCreatedSince(queueId, since, limit);
  }

  async listCreationTimesSince(queueId: string, since: Date, limit: number): Promise<Date[]> {
    return (await this.listCreatedSince(queueId, since, limit)).map((r) => r.createdAt);
  }

  async listCurrentAndRecent(queueId: string, limit: number): Promise<TestRun[]> {
    const runs = newestFirst(this.all((r) => r.queueId === queueId));
    return [...runs.filter((r) => r.status === 'in_progress'), ...runs.filter((r) => r.status !== 'in_progress').slice(0, limit)];
  }

  async conclude(
    id: string,
    status: Exclude<TestRunStatus, 'in_progress'>,
    reason: Reason,
    now = new Date(),
    culpritEntryIds?: string[],
    detail?: string,
  ): Promise<TestRun | null> {
    const r = this.rows.get(id);
    if (!r || r.status !== 'in_progress') return null;
    Object.assign(r, { status, conclusionReason: reason, concludedAt: now, version: r.version + 1 });
    if (culpritEntryIds) r.culpritEntryIds = [...culpritEntryIds];
    if (detail !== undefined) r.conclusionDetail = detail;
    return clone(r);
  }

  async recordBuild(id: string, sha: string, tree: string): Promise<TestRun | null> {
    const r = this.rows.get(id);
    if (!r || r.sha !== null) return null;
    Object.assign(r, { sha, tree, version: r.version + 1 });
    return clone(r);
  }

  async findPassedByRecipe(queueId: string, recipe: string): Promise<TestRun | null> {
    const found = this.all((r) => r.queueId === queueId && r.recipe === recipe && r.status === 'succeeded');
    return found.sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())[0] ?? null;
  }

  async recordReuse(id: string, earlier: TestRun, detail: string, now = new Date()): Promise<TestRun | null> {
    const r = this.rows.get(id);
    if (!r || r.status !== 'in_progress' || r.sha !== null) return null;
    Object.assign(r, {
      sha: earlier.sha,
      tree: earlier.tree ?? null,
      status: 'succeeded',
      conclusionReason: 'test_run_passed',
      conclusionDetail: detail,
      concludedAt: now,
      reusedFrom: earlier.id,
      branchDeleted: true,
      version: r.version + 1,
    });
    return clone(r);
  }

  async markBranchDeleted(id: string): Promise<void> {
    const r = this.rows.get(id);
    if (r) r.branchDeleted = true;
  }

  async recordStatusWatch(id: string, watch: StatusWatch): Promise<TestRun | null> {
    const r = this.rows.get(id);
    if (!r || r.status !== 'in_progress') return null;
    Object.assign(r, { statusWatch: clone(watch), version: r.version + 1 });
    return clone(r);
  }
}

export class InMemoryCommitStatusRepository implements CommitStatusRepository {
  readonly rows: CommitStatus[] = [];

  async add(status: Omit<CommitStatus, 'seq'>): Promise<CommitStatus> {
    const stored = { ...clone(status), seq: this.rows.length + 1 };
    this.rows.push(stored);
    return clone(stored);
  }

  async forCommit(orgId: string, key: string, sha: string): Promise<CommitStatus[]> {
    return this.rows.filter((s) => s.orgId === orgId && s.repoKey === key && s.sha === sha).map(clone);
  }

  async forCommits(orgId: string, key: string, shas: readonly string[]): Promise<Map<string, CommitStatus[]>> {
    const out = new Map<string, CommitStatus[]>();
    for (const sha of shas) out.set(sha, await this.forCommit(orgId, key, sha));
    return out;
  }
}

export class InMemoryImpactedTargetsRepository implements ImpactedTargetsRepository {
  readonly rows = new Map<string, ImpactedTargets>();
  private key = (queueId: string, prNumber: number, sha: string) => `${queueId}|${headKey({ prNumber, sha })}`;

  async set(queueId: string, prNumber: number, sha: string, targets: ImpactedTargets): Promise<void> {
    this.rows.set(this.key(queueId, prNumber, sha), targets === 'ALL' ? 'ALL' : [...new Set(targets)]);
  }

  async has(queueId: string, prNumber: number, sha: string): Promise<boolean> {
    return this.rows.has(this.key(queueId, prNumber, sha));
  }

  async get(queueId: string, prNumber: number, sha: string): Promise<ImpactedTargets | null> {
    return clone(this.rows.get(this.key(queueId, prNumber, sha)) ?? null);
  }

  async getMany(queueId: string, heads: readonly PullRequestHead[]): Promise<Map<string, ImpactedTargets>> {
    const out = new Map<string, ImpactedTargets>();
    for (const h of heads) {
      const t = await this.get(queueId, h.prNumber, h.sha);
      if (t !== null) out.set(headKey(h), t);
    }
    return out;
  }
}

export interface InMemoryRepositories extends MergeQueueRepositories {
  queues: InMemoryQueueRepository;
  entries: InMemoryEntryRepository;
  testRuns: InMemoryTestRunRepository;
  commitStatuses: InMemoryCommitStatusRepository;
  impactedTargets: InMemoryImpactedTargetsRepository;
}

export function inMemoryRepositories(): InMemoryRepositories {
  return {
    queues: new InMemoryQueueRepository(),
    entries: new InMemoryEntryRepository(),
    testRuns: new InMemoryTestRunRepository(),
    commitStatuses: new InMemoryCommitStatusRepository(),
    impactedTargets: new InMemoryImpactedTargetsRepository(),
  };
}
