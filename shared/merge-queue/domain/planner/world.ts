// The planner's working copy of one queue's snapshot. Phases read it, decide, and record their
// decisions through it: each recorded action is also applied to the copy, so later phases (and
// later rounds of the same pass) decide on the state the applier will have produced. Only this
// private copy is mutated; the caller's input is never touched.
import type { Entry, EntryState, Reason, TestRun } from '../model.js';
import type { RunTestEvidence } from '../flaky-retest.js';
import { MergeCalendar } from '../merge-schedule.js';
import { compareEntries } from './order-key.js';
import { isActive } from './entry-states.js';
import type { Action, EntryGuard, EntryTransitionSet, PlanInput, PlannerQueue, RequiredStatusesInput, ImpactedTargetSet, DirectMergeFacts } from './types.js';

export interface TransitionOptions {
  restart?: boolean;
  set?: EntryTransitionSet;
  testRunId?: string | null;
}

export class World {
  readonly queue: PlannerQueue;
  readonly now: number;
  readonly head: string | null;
  readonly requiredStatuses: RequiredStatusesInput;
  readonly impactedTargets: Readonly<Record<string, ImpactedTargetSet>>;
  readonly changedPaths: Readonly<Record<string, readonly string[] | null>>;
  readonly laneCaps: Readonly<Record<string, number>>;
  readonly directMerge: Readonly<Record<string, DirectMergeFacts>>;
  readonly testResults: Readonly<Record<string, RunTestEvidence>>;
  /** The queue's schedule seen from `now`; null: no schedule, always open. */
  readonly calendar: MergeCalendar | null;
  /** How long a run is expected to take, in ms (PlanInput.runEstimateSeconds). */
  readonly runEstimateMs: number | null;
  /** Working copies, entries in queue-key order, runs by creation then id (determinism). */
  readonly entries = new Map<string, Entry>();
  readonly runs = new Map<string, TestRun>();
  readonly actions: Action[] = [];
  private wake: number | null = null;
  /** Entries a start_run action of this pass puts under test (they count as in flight). */
  readonly starting = new Set<string>();
  /** Runs this pass starts, per pool (they take slots). */
  readonly startedRuns = { main: 0, bisection: 0 };
  /** Entries merged by the queue, by the target sha their merge produced. */
  readonly mergedByResultSha = new Map<string, Entry>();

  constructor(input: PlanInput) {
    this.queue = input.queue;
    this.now = input.now.getTime();
    this.head = input.targetSha;
    this.requiredStatuses = input.requiredStatuses;
    this.impactedTargets = input.impactedTargets;
    this.changedPaths = input.changedPaths ?? {};
    this.laneCaps = input.laneCaps ?? {};
    this.directMerge = input.directMerge;
    this.testResults = input.testResults;
    this.calendar = input.queue.schedule ? new MergeCalendar(input.queue.schedule, input.now) : null;
    this.runEstimateMs = input.runEstimateSeconds === null ? null : input.runEstimateSeconds * 1000;
    for (const e of [...input.entries].sort(compareEntries)) this.entries.set(e.id, { ...e });
    const runs = [...input.runs].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || cmp(a.id, b.id));
    for (const r of runs) this.runs.set(r.id, { ...r });
    for (const e of this.entries.values()) {
      if (e.state === 'merged' && e.mergedSha) this.mergedByResultSha.set(e.mergedSha, e);
    }
  }

  entry(id: string): Entry | undefined {
    return this.entries.get(id);
  }

  run(id: string | null | undefined): TestRun | undefined {
    return id ? this.runs.get(id) : undefined;
  }

  guard(e: Entry): EntryGuard {
    return { entryId: e.id, expectedState: e.state, expectedVersion: e.version };
  }

  /** Records a transition and applies it to the working copy. */
  transition(e: Entry, to: EntryState, reason: Reason, detail: string, opts: TransitionOptions = {}): void {
    const set = opts.set ?? {};
    this.actions.push({
      kind: 'transition_entry',
      entry: this.guard(e),
      to,
      reason,
      detail,
      testRunId: opts.testRunId ?? null,
      restart: opts.restart ?? false,
      set,
    });
    e.state = to;
    e.version += 1;
    e.lastReason = reason;
    e.stateChangedAt = new Date(this.now);
    if (opts.restart) e.restartCount += 1;
    if (set.currentRunId !== undefined) e.currentRunId = set.currentRunId;
    if (set.bisectionOf !== undefined) e.bisectionOf = set.bisectionOf;
    if (set.interaction !== undefined) e.interaction = set.interaction;
    // The members above a stack member hold its commits: they cannot go on without it; with
    // `stackFailure: land_nothing` a failure takes the members below out too (a cancellation is a
    // decision about that pull request alone, so the members below it keep their place).
    if ((to === 'failed' || to === 'cancelled') && e.stack) this.removeStackMembers(e, to, opts.testRunId ?? null);
  }

  /** Fails or cancels, with `stack_member_removed`, the active members of `e`'s stack it takes out. */
  private removeStackMembers(e: Entry, to: 'failed' | 'cancelled', testRunId: string | null): void {
    const stack = e.stack!;
    const whole = to === 'failed' && this.queue.stackFailure === 'land_nothing';
    const out = this.unitOf(e).filter((m) => m.id !== e.id && (whole || m.stack!.position > stack.position));
    const why = to === 'failed' ? 'failed' : 'left the queue';
    for (const m of out) {
      const above = m.stack!.position > stack.position;
      const detail = above
        ? `PR #${e.prNumber} below it in its stack ${why}`
        : `PR #${e.prNumber} above it in its stack ${why}, and the queue lands this stack whole or not at all`;
      // The removal of another member may have taken it out already.
      if (isActive(m)) this.transition(m, to, 'stack_member_removed', detail, { testRunId });
    }
  }

  /** The active members of `e`'s stack, bottom first; `[e]` for a lone entry (planner/stacks.ts). */
  unitOf(e: Entry): Entry[] {
    const id = e.stack?.id;
    if (!id) return [e];
    return [...this.entries.values()].filter((m) => m.stack?.id === id && isActive(m)).sort((a, b) => a.stack!.position - b.stack!.position);
  }

  /** Back to `pending` without its run: the entry will be tested again on a new base. */
  restart(e: Entry, reason: Reason, detail: string, testRunId: string | null = null): void {
    this.transition(e, 'pending', reason, detail, {
      restart: e.state !== 'pending',
      set: { currentRunId: null, bisectionOf: null },
      testRunId,
    });
  }

  cancelRun(run: TestRun, reason: Reason, detail: string): void {
    if (run.status !== 'in_progress') return;
    this.actions.push({ kind: 'cancel_run', runId: run.id, expectedStatus: 'in_progress', reason, detail });
    run.status = 'cancelled';
    run.conclusionReason = reason;
    run.concludedAt = new Date(this.now);
  }

  /** Records a timeline note; the entry's version moves with it, as the store's does. */
  note(e: Entry, reason: 'waiting_for_merge_window', detail: string): void {
    this.actions.push({ kind: 'note_entry', entry: this.guard(e), reason, detail });
    e.version += 1;
    e.history = [...e.history, { at: new Date(this.now), from: e.state, to: e.state, reason, detail }];
  }

  push(action: Action): void {
    this.actions.push(action);
  }

  wakeAt(at: number): void {
    if (at <= this.now) return;
    if (this.wake === null || at < this.wake) this.wake = at;
  }

  nextWake(): Date | null {
    return this.wake === null ? null : new Date(this.wake);
  }

  actionCount(): number {
    return this.actions.length;
  }
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
