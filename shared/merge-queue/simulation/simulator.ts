// An in-memory applier for planner actions, with the same compare-and-set preconditions the real
// processor uses, and a scripted CI. It checks the engine's invariants as it applies actions:
// never more runs than slots, never a merge of an untested combination, never a double merge.
import type { Entry, Reason, TestRun } from '../domain/model.js';
import { plan } from '../domain/planner/plan.js';
import type { Action, ImpactedTargetSet, PlanInput, PlannerQueue } from '../domain/planner/types.js';
import { overlaps } from '../domain/planner/dependencies.js';
import { T0 } from './builders.js';

export class InvariantViolation extends Error {}

export interface SimOptions {
  queue: PlannerQueue;
  entries: Entry[];
  targets?: Record<string, ImpactedTargetSet>;
  /** Entries whose changes break the build: a run containing one fails. */
  bad?: ReadonlySet<string>;
  /** Entries that conflict with anything below them when a branch is built. */
  conflicts?: ReadonlySet<string>;
  requiredStatuses?: string[];
  directMerge?: PlanInput['directMerge'];
}

export class Simulator {
  queue: PlannerQueue;
  readonly entries = new Map<string, Entry>();
  readonly runs = new Map<string, TestRun>();
  head = 'sha0';
  /** The changes (entry ids) each known target sha holds. */
  readonly content = new Map<string, string[]>([['sha0', []]]);
  now = T0.getTime();
  readonly merges: { entryIds: string[]; proofRunId: string | null }[] = [];
  readonly mergeOrder: string[] = [];
  targets: Record<string, ImpactedTargetSet>;
  bad: ReadonlySet<string>;
  conflicts: ReadonlySet<string>;
  requiredStatuses: string[];
  directMerge: PlanInput['directMerge'];
  private runCounter = 0;
  private shaCounter = 0;
  maxMainRuns = 0;
  plans = 0;
  lastWake: Date | null = null;

  constructor(o: SimOptions) {
    this.queue = { ...o.queue };
    for (const e of o.entries) this.entries.set(e.id, { ...e });
    this.targets = o.targets ?? {};
    this.bad = o.bad ?? new Set();
    this.conflicts = o.conflicts ?? new Set();
    this.requiredStatuses = o.requiredStatuses ?? ['ci'];
    this.directMerge = o.directMerge ?? {};
  }

  /** The snapshot a processor would load (the input contract of PlanInput). */
  snapshot(): PlanInput {
    const active = (e: Entry): boolean => !['merged', 'failed', 'cancelled'].includes(e.state);
    const referenced = new Set<string>();
    for (const e of this.entries.values()) {
      if (!active(e)) continue;
      if (e.currentRunId) referenced.add(e.currentRunId);
      if (e.bisectionOf) referenced.add(e.bisectionOf);
    }
    const runs = [...this.runs.values()].filter(
      (r) => r.status === 'in_progress' || referenced.has(r.id) || (r.bisectionOf && referenced.has(r.bisectionOf)) || !r.branchDeleted,
    );
    const inRuns = new Set(runs.flatMap((r) => [...r.entryIds, ...r.baseEntryIds]));
    const oldest = Math.min(...runs.map((r) => r.createdAt.getTime()));
    const entries = [...this.entries.values()].filter(
      (e) => active(e) || inRuns.has(e.id) || (e.state === 'merged' && e.stateChangedAt.getTime() >= oldest),
    );
    return {
      queue: { ...this.queue },
      entries: entries.map((e) => ({ ...e })),
      runs: runs.map((r) => ({ ...r })),
      targetSha: this.head,
      impactedTargets: this.targets,
      directMerge: this.directMerge,
      requiredStatuses: { contexts: this.requiredStatuses, source: this.requiredStatuses.length ? 'merge_instance' : null },
      now: new Date(this.now),
    };
  }

  /** One planning pass, applied until the first failed precondition. Returns the actions applied. */
  step(): Action[] {
    this.plans++;
    const input = this.snapshot();
    const first = plan(input);
    const again = plan(input);
    if (JSON.stringify(first) !== JSON.stringify(again)) throw new InvariantViolation('plan is not deterministic');
    this.lastWake = first.wakeAt;
    const applied: Action[] = [];
    for (const a of first.actions) {
      if (!this.apply(a)) break;
      applied.push(a);
    }
    return applied;
  }

  /** Plans and applies until a pass has nothing to do; throws if that does not happen. */
  settle(maxPasses = 60): number {
    for (let i = 0; i < maxPasses; i++) {
      if (this.step().length === 0) return i;
    }
    throw new InvariantViolation(`no quiescence after ${maxPasses} passes`);
  }

  apply(a: Action): boolean {
    switch (a.kind) {
      case 'transition_entry': {
        const e = this.entries.get(a.entry.entryId);
        if (!e || e.state !== a.entry.expectedState || e.version !== a.entry.expectedVersion) return false;
        e.state = a.to;
        e.version++;
        e.lastReason = a.reason;
        e.stateChangedAt = new Date(this.now);
        if (a.restart) e.restartCount++;
        if (a.set.currentRunId !== undefined) e.currentRunId = a.set.currentRunId;
        if (a.set.bisectionOf !== undefined) e.bisectionOf = a.set.bisectionOf;
        return true;
      }
      case 'cancel_run': {
        const r = this.runs.get(a.runId);
        if (!r || r.status !== 'in_progress') return false;
        this.conclude(r.id, 'cancelled', a.reason);
        return true;
      }
      case 'start_run':
        return this.startRun(a);
      case 'merge':
        return this.merge(a);
      case 'complete_mode_switch': {
        if (this.queue.state !== 'switching_modes' || this.queue.version !== a.expectedQueueVersion) return false;
        this.queue = { ...this.queue, state: 'running', mode: a.mode, pendingMode: null, version: this.queue.version + 1 };
        return true;
      }
      case 'delete_branch': {
        const r = this.runs.get(a.runId);
        if (!r || r.status === 'in_progress') throw new InvariantViolation(`deleting the branch of a running run ${a.runId}`);
        r.branchDeleted = true;
        return true;
      }
    }
  }

  private startRun(a: Extract<Action, { kind: 'start_run' }>): boolean {
    const tested = a.tested.map((t) => this.entries.get(t.entryId));
    if (tested.some((e, i) => !e || e.state !== 'pending' || e.version !== a.tested[i]!.expectedVersion)) return false;
    if (a.targetSha !== this.head) return false;
    for (const b of a.base) {
      const e = this.entries.get(b.entryId)!;
      if (['merged', 'failed', 'cancelled', 'not_ready'].includes(e.state)) throw new InvariantViolation(`base holds ${e.id} in state ${e.state}`);
    }
    const id = `run${++this.runCounter}${a.runKind === 'bisection' ? '-bisection' : ''}`;
    const chain = [...a.base.map((b) => b.entryId), ...a.tested.map((t) => t.entryId)];
    const culprit = chain.slice(1).find((c) => this.conflicts.has(c));
    const run: TestRun = {
      id,
      orgId: 'o1',
      queueId: this.queue.id,
      kind: a.runKind,
      entryIds: a.tested.map((t) => t.entryId),
      baseEntryIds: a.base.map((b) => b.entryId),
      targetSha: a.targetSha,
      branch: `trunk-merge/pr-${a.tested.map((t) => t.prNumber).join('-')}/${id}`,
      sha: `sha-${id}`,
      status: culprit ? 'failed' : 'in_progress',
      requiredStatuses: a.requiredStatuses,
      requiredStatusesSource: a.requiredStatusesSource,
      deadlineAt: a.timeoutMinutes > 0 ? new Date(this.now + a.timeoutMinutes * 60_000) : null,
      createdAt: new Date(this.now),
      concludedAt: culprit ? new Date(this.now) : null,
      conclusionReason: culprit ? 'start_test_run_merge_conflict' : null,
      branchDeleted: false,
      bisectionOf: a.bisectionOf,
      culpritEntryIds: culprit ? [culprit] : [],
      version: 1,
    };
    this.runs.set(id, run);
    for (const e of tested) {
      e!.state = 'testing';
      e!.version++;
      e!.currentRunId = id;
      e!.lastReason = a.reason;
      e!.stateChangedAt = new Date(this.now);
    }
    const main = [...this.runs.values()].filter((r) => r.kind === 'main' && r.status === 'in_progress').length;
    const bis = [...this.runs.values()].filter((r) => r.kind === 'bisection' && r.status === 'in_progress').length;
    this.maxMainRuns = Math.max(this.maxMainRuns, main);
    if (main > this.queue.concurrency) throw new InvariantViolation(`${main} main runs with concurrency ${this.queue.concurrency}`);
    if (bis > Math.max(1, this.queue.bisectionConcurrency)) throw new InvariantViolation(`${bis} bisection runs`);
    return true;
  }

  /** Changes a run's branch holds: its target sha's content plus base and tested entries. */
  runContent(r: TestRun): string[] {
    return [...(this.content.get(r.targetSha) ?? []), ...r.baseEntryIds, ...r.entryIds];
  }

  private merge(a: Extract<Action, { kind: 'merge' }>): boolean {
    if (a.expectedTargetSha !== this.head) return false;
    for (const item of a.items) {
      const e = this.entries.get(item.entryId)!;
      if (e.state === 'merged' || item.expectedState === 'merged') throw new InvariantViolation(`${e.id} would merge twice`);
      if (e.state !== item.expectedState || e.version !== item.expectedVersion) return false;
    }
    const proof = a.proofRunId ? this.runs.get(a.proofRunId) : undefined;
    if (a.proofRunId && (!proof || proof.status !== 'succeeded')) throw new InvariantViolation(`merge without a passed proof run ${a.proofRunId}`);
    const before = this.content.get(this.head)!;
    const after = [...before, ...a.items.map((i) => i.entryId)];
    if (proof) this.checkTested(proof, after, a.items.map((i) => i.entryId), a.verifyTree);
    for (const item of a.items) {
      const e = this.entries.get(item.entryId)!;
      const sha = `sha${++this.shaCounter}`;
      this.content.set(sha, [...this.content.get(this.head)!, e.id]);
      e.state = 'merged';
      e.version++;
      e.mergedOntoSha = this.head;
      e.mergedSha = sha;
      e.verifiedByTestRun = item.verifiedByTestRun;
      e.lastReason = a.reason;
      e.stateChangedAt = new Date(this.now);
      this.head = sha;
      this.mergeOrder.push(e.id);
    }
    this.merges.push({ entryIds: a.items.map((i) => i.entryId), proofRunId: a.proofRunId });
    return true;
  }

  private checkTested(proof: TestRun, after: string[], mergedNow: string[], verifyTree: boolean): void {
    const tested = new Set(this.runContent(proof));
    const result = new Set(after);
    if (verifyTree) {
      const same = tested.size === result.size && [...tested].every((x) => result.has(x));
      if (!same) throw new InvariantViolation(`merged tree {${[...result]}} differs from tested {${[...tested]}}`);
      return;
    }
    // Parallel mode: the lane was tested; other lanes' changes may sit below it but must be independent.
    for (const x of mergedNow) if (!tested.has(x)) throw new InvariantViolation(`${x} merged without being tested by ${proof.id}`);
    for (const x of result) {
      if (tested.has(x)) continue;
      for (const m of mergedNow) {
        if (overlaps(this.targets[x] ?? 'ALL', this.targets[m] ?? 'ALL')) {
          throw new InvariantViolation(`${m} merged on top of untested dependent change ${x}`);
        }
      }
    }
  }

  conclude(runId: string, status: 'succeeded' | 'failed' | 'cancelled', reason: Reason): void {
    const r = this.runs.get(runId)!;
    r.status = status;
    r.conclusionReason = reason;
    r.concludedAt = new Date(this.now);
    r.version++;
  }

  /** What deterministic CI says about a run: it fails iff it holds a bad change. */
  verdict(r: TestRun): 'succeeded' | 'failed' {
    return this.runContent(r).some((id) => this.bad.has(id)) ? 'failed' : 'succeeded';
  }

  inProgress(): TestRun[] {
    return [...this.runs.values()].filter((r) => r.status === 'in_progress');
  }

  allTerminal(): boolean {
    return [...this.entries.values()].every((e) => ['merged', 'failed', 'cancelled'].includes(e.state));
  }

  stateOf(n: number): string {
    return this.entries.get(`e${n}`)!.state;
  }
}

/** Concludes the in-progress run that tests exactly these PRs (in order). */
export function finish(sim: Simulator, prs: number[], verdict: 'succeeded' | 'failed'): TestRun {
  const ids = prs.map((n) => `e${n}`).join(',');
  const r = sim.inProgress().find((x) => x.entryIds.join(',') === ids);
  if (!r) throw new Error(`no run in progress tests ${ids}; running: ${sim.inProgress().map((x) => x.entryIds.join(',')).join(' / ')}`);
  sim.conclude(r.id, verdict, verdict === 'succeeded' ? 'test_run_passed' : 'test_run_failed');
  return r;
}

/** Running runs as "tested|base" strings of PR numbers, in start order. */
export function running(sim: Simulator): string[] {
  const pr = (id: string): string => id.slice(1);
  return sim.inProgress().map((r) => `${r.entryIds.map(pr).join(',')}|${r.baseEntryIds.map(pr).join(',')}`);
}

export function states(sim: Simulator): Record<string, string> {
  return Object.fromEntries([...sim.entries.values()].map((e) => [e.id, e.state]));
}
