// Short builders for planner tests and simulated workloads: entries are `e<N>` for PR #N (seq N),
// runs are named by the test, the clock is T0 plus minutes.
import type { Entry, EntryState, TestRun } from '../domain/model.js';
import { plan } from '../domain/planner/plan.js';
import type { Action, PlanInput, PlanResult, PlannerQueue } from '../domain/planner/types.js';

export const T0 = new Date('2026-01-01T00:00:00Z');
export const at = (minutes: number): Date => new Date(T0.getTime() + minutes * 60_000);
export const HEAD = 'head0';

export function queue(over: Partial<PlannerQueue> = {}): PlannerQueue {
  return {
    id: 'q1',
    branch: 'main',
    state: 'running',
    mode: 'single',
    pendingMode: null,
    version: 1,
    concurrency: 3,
    bisectionConcurrency: 3,
    testingTimeoutMinutes: 0,
    canOptimisticallyMerge: false,
    pendingFailureDepth: 0,
    batch: false,
    batchingMinSize: 4,
    batchingMaxWaitTimeMinutes: 5,
    optimizationMode: 'off',
    directMergeMode: 'off',
    notReadyTimeoutHours: 0,
    flakyRetries: 1,
    notItsFaultRetries: 1,
    testResultsWaitSeconds: 120,
    stackFailure: 'land_passing_prefix',
    targetBroken: null,
    checkInteractions: true,
    schedule: null,
    ...over,
  };
}

export const id = (n: number): string => `e${n}`;

export function entry(n: number, over: Partial<Entry> = {}): Entry {
  return {
    id: id(n),
    orgId: 'o1',
    queueId: 'q1',
    prNumber: n,
    prTitle: `PR ${n}`,
    prSha: `sha-pr-${n}`,
    prBaseBranch: 'main',
    prAuthor: 'dev',
    prHeadBranch: `feature-${n}`,
    priorityValue: 100,
    priorityName: 'medium',
    usedDefaultPriorityName: 'medium',
    noBatch: false,
    forceEnqueued: false,
    state: 'pending',
    stateChangedAt: T0,
    submittedAt: T0,
    seq: n,
    readiness: { doesBaseBranchMatch: true, gitHubMergeability: 'mergeable', requiresImpactedTargets: false, hasImpactedTargets: false },
    readinessBasis: null,
    currentRunId: null,
    verifiedByTestRun: null,
    mergedSha: null,
    mergedOntoSha: null,
    bisectionOf: null,
    restartCount: 0,
    lastReason: 'merge_item_now_ready',
    history: [],
    version: 1,
    ...over,
  };
}

/** An entry under a run: `state` with currentRunId set. */
export function held(n: number, runId: string, state: EntryState = 'testing', over: Partial<Entry> = {}): Entry {
  return entry(n, { state, currentRunId: runId, ...over });
}

export function merged(n: number, onto: string, sha: string, over: Partial<Entry> = {}): Entry {
  return entry(n, { state: 'merged', mergedOntoSha: onto, mergedSha: sha, lastReason: 'merge_graph_merge', ...over });
}

export function run(runId: string, tested: number[], base: number[] = [], over: Partial<TestRun> = {}): TestRun {
  return {
    id: runId,
    orgId: 'o1',
    queueId: 'q1',
    kind: 'main',
    entryIds: tested.map(id),
    baseEntryIds: base.map(id),
    targetSha: HEAD,
    branch: `trunk-merge/pr-${tested.join('-')}/${runId}`,
    sha: `sha-${runId}`,
    status: 'in_progress',
    requiredStatuses: ['ci'],
    requiredStatusesSource: 'merge_instance',
    deadlineAt: null,
    createdAt: T0,
    concludedAt: null,
    conclusionReason: null,
    branchDeleted: false,
    bisectionOf: null,
    culpritEntryIds: [],
    version: 1,
    ...over,
  };
}

export const passed = (r: TestRun): TestRun => ({ ...r, status: 'succeeded', conclusionReason: 'test_run_passed', concludedAt: T0 });
export const failed = (r: TestRun): TestRun => ({ ...r, status: 'failed', conclusionReason: 'test_run_failed', concludedAt: T0 });

export interface Scenario {
  queue?: Partial<PlannerQueue>;
  entries: Entry[];
  runs?: TestRun[];
  head?: string | null;
  now?: Date;
  targets?: PlanInput['impactedTargets'];
  changedPaths?: PlanInput['changedPaths'];
  laneCaps?: PlanInput['laneCaps'];
  directMerge?: PlanInput['directMerge'];
  testResults?: PlanInput['testResults'];
  requiredStatuses?: string[];
  runEstimateSeconds?: number | null;
}

export function input(s: Scenario): PlanInput {
  const contexts = s.requiredStatuses ?? ['ci'];
  return {
    queue: queue(s.queue),
    entries: s.entries,
    runs: s.runs ?? [],
    targetSha: s.head === undefined ? HEAD : s.head,
    impactedTargets: s.targets ?? {},
    ...(s.changedPaths ? { changedPaths: s.changedPaths } : {}),
    ...(s.laneCaps ? { laneCaps: s.laneCaps } : {}),
    directMerge: s.directMerge ?? {},
    testResults: s.testResults ?? {},
    requiredStatuses: { contexts, source: contexts.length > 0 ? 'merge_instance' : null },
    runEstimateSeconds: s.runEstimateSeconds ?? null,
    now: s.now ?? T0,
  };
}

export function planOf(s: Scenario): PlanResult {
  return plan(input(s));
}

// ---- reading actions back ---------------------------------------------------------------------

export type Moves = Record<string, string>;

/** Final state per entry id after the plan's transitions (only entries that moved), e.g. {e1: 'failed'}. */
export function moves(actions: Action[]): Moves {
  const out: Moves = {};
  for (const a of actions) if (a.kind === 'transition_entry') out[a.entry.entryId] = a.to;
  return out;
}

export function reasons(actions: Action[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const a of actions) if (a.kind === 'transition_entry') out[a.entry.entryId] = a.reason;
  return out;
}

/** Started runs as "tested|base" strings of PR numbers, e.g. "3|1,2". */
export function starts(actions: Action[]): string[] {
  return actions
    .filter((a) => a.kind === 'start_run')
    .map((a) => (a.kind === 'start_run' ? `${a.tested.map((t) => t.prNumber).join(',')}|${a.base.map((b) => b.prNumber).join(',')}` : ''));
}

export function cancels(actions: Action[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const a of actions) if (a.kind === 'cancel_run') out[a.runId] = a.reason;
  return out;
}

/** The merge, as PR numbers in order with the proof run, e.g. "1,2@r2". */
export function mergeOf(actions: Action[]): string | null {
  const m = actions.find((a) => a.kind === 'merge');
  return m && m.kind === 'merge' ? `${m.items.map((i) => i.prNumber).join(',')}@${m.proofRunId ?? 'direct'}` : null;
}

export function kinds(actions: Action[]): string[] {
  return actions.map((a) => a.kind);
}
