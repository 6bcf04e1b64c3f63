// The planner's contract: what a processor hands it (a snapshot of one queue) and what it hands
// back (actions to apply with compare-and-set writes). The planner is pure: same input, same
// output; it reads no clock and performs no I/O.
import type { RunTestEvidence } from '../flaky-retest.js';
import type { Entry, EntryInteraction, EntryState, Queue, QueueMode, Reason, RequiredStatusesSource, TestRun, TestRunKind, TestRunStatus } from '../model.js';

/** The queue fields the planner reads. */
export type PlannerQueue = Pick<
  Queue,
  | 'id'
  | 'branch'
  | 'state'
  | 'mode'
  | 'pendingMode'
  | 'version'
  | 'concurrency'
  | 'bisectionConcurrency'
  | 'testingTimeoutMinutes'
  | 'canOptimisticallyMerge'
  | 'pendingFailureDepth'
  | 'batch'
  | 'batchingMinSize'
  | 'batchingMaxWaitTimeMinutes'
  | 'optimizationMode'
  | 'directMergeMode'
  | 'notReadyTimeoutHours'
  | 'flakyRetries'
  | 'testResultsWaitSeconds'
  | 'notItsFaultRetries'
  | 'stackFailure'
  | 'targetBroken'
  | 'checkInteractions'
  | 'schedule'
>;

/** Impacted targets uploaded for an entry's current head: a list, or `ALL` (a barrier). */
export type ImpactedTargetSet = readonly string[] | 'ALL';

/** Facts about a pull request the direct-merge rule needs (computed by the processor). */
export interface DirectMergeFacts {
  /** The pull request's head is based on the target branch's current head. */
  basedOnTargetTip: boolean;
  /** Every required status passes on the pull request's own head (evaluateRequiredStatuses). */
  requiredStatusesPassing: boolean;
}

/** The required statuses a new run waits for; an empty list means no source yields any. */
export interface RequiredStatusesInput {
  contexts: readonly string[];
  source: RequiredStatusesSource | null;
  /** Set when .trunk/trunk.yaml exists but cannot be used: new runs fail with a config error. */
  configError?: string | null;
}

export interface PlanInput {
  queue: PlannerQueue;
  /**
   * Every non-terminal entry of the queue, plus terminal entries that `runs` reference (tested or
   * base), plus (parallel mode) entries the queue merged since the oldest in-progress or
   * referenced run was created — they let the planner follow the target branch through the
   * queue's own merges.
   */
  entries: readonly Entry[];
  /**
   * Runs that are in progress; referenced by a non-terminal entry (`currentRunId`, `bisectionOf`);
   * bisection runs of a bisection root so referenced; and concluded runs whose branch is not
   * deleted yet.
   */
  runs: readonly TestRun[];
  /** The target branch head now; null when the branch is missing (nothing starts or merges). */
  targetSha: string | null;
  /** Parallel mode, or a schedule with freezes of given targets: targets of each entry's current head, by entry id (absent → `ALL`). */
  impactedTargets: Readonly<Record<string, ImpactedTargetSet>>;
  /**
   * With freezes scoped by paths: the files each pending or tested entry's pull request changes,
   * by entry id (absent or null: not known, so it may touch anything). Absent: not read.
   */
  changedPaths?: Readonly<Record<string, readonly string[] | null>>;
  /**
   * Lanes from paths with a cap (docs/lanes.md): at most this many main runs testing a pull
   * request of the lane at once, by the lane's target name (`lane:<name>`). Absent: no caps.
   */
  laneCaps?: Readonly<Record<string, number>>;
  /** directMergeMode `always`: facts for not-ready/pending entries, by entry id (absent → no). */
  directMerge: Readonly<Record<string, DirectMergeFacts>>;
  /** Required statuses resolved at the target head (queue override, else .trunk/trunk.yaml). */
  requiredStatuses: RequiredStatusesInput;
  /** Test results of failed main runs, by run id (absent: none linked, none expected). */
  testResults: Readonly<Record<string, RunTestEvidence>>;
  /**
   * With a schedule: how long a run is expected to take (the median of the queue's runs of the
   * last day, as the ETA estimates it); a run that could not finish before its window closes does
   * not start. Null: no estimate (only closed periods hold pull requests back).
   */
  runEstimateSeconds: number | null;
  now: Date;
}

/** An entry the action expects to find in `expectedState` at `expectedVersion`. */
export interface EntryGuard {
  entryId: string;
  expectedState: EntryState;
  expectedVersion: number;
}

/** Fields a transition sets besides the state (absent keys are left alone). */
export interface EntryTransitionSet {
  currentRunId?: string | null;
  bisectionOf?: string | null;
  interaction?: EntryInteraction | null;
}

/** Move one entry between states: one compare-and-set on state + version with a history entry. */
export interface TransitionEntryAction {
  kind: 'transition_entry';
  entry: EntryGuard;
  to: EntryState;
  reason: Reason;
  /** Human-readable cause, e.g. "PR #12 ahead failed". */
  detail: string;
  /** The run this transition is about (history `testRunId`). */
  testRunId: string | null;
  /** Counts as a restart: increment `restartCount`. */
  restart: boolean;
  set: EntryTransitionSet;
}

export interface PullRequestRef {
  entryId: string;
  prNumber: number;
  prSha: string;
}

/** Build a test branch and start a run (the applier makes the id and the branch name). */
export interface StartRunAction {
  kind: 'start_run';
  runKind: TestRunKind;
  /** The tested group in queue order; each must still be `pending` at the given version. */
  tested: (PullRequestRef & { expectedVersion: number })[];
  /** Entries ahead whose changes form the predicted base, in queue order (none merged yet). */
  base: PullRequestRef[];
  /** Target head the branch is built on. */
  targetSha: string;
  /** Bisection runs: the failed batch run being bisected. */
  bisectionOf: string | null;
  /** A run of an interaction check: the suspect (the run is then built on the batch's target sha). */
  interactionOf: string | null;
  requiredStatuses: string[];
  requiredStatusesSource: RequiredStatusesSource | null;
  /** 0: no deadline; otherwise deadlineAt = createdAt + minutes. */
  timeoutMinutes: number;
  reason: Reason;
  detail: string;
}

/** Conclude a run that is still in progress as cancelled. */
export interface CancelRunAction {
  kind: 'cancel_run';
  runId: string;
  expectedStatus: Extract<TestRunStatus, 'in_progress'>;
  reason: Reason;
  detail: string;
}

export interface MergeItem extends PullRequestRef {
  expectedState: EntryState;
  expectedVersion: number;
  /** Recorded on the merged entry. */
  verifiedByTestRun: string | null;
}

/**
 * Merge pull requests one by one, in order, each as its own commit, onto `expectedTargetSha`
 * (compare-and-swap on the target ref).
 */
export interface MergeAction {
  kind: 'merge';
  items: MergeItem[];
  /** The passed run whose tested combination these merges complete; null for a direct merge. */
  proofRunId: string | null;
  expectedTargetSha: string;
  /**
   * Single mode: after the merges the target's tree must equal the proof run's tested tree.
   * Parallel mode merges on a head other lanes may have moved, so only the lane was tested.
   */
  verifyTree: boolean;
  reason: Extract<Reason, 'merge_graph_merge' | 'merge_graph_direct_merge'>;
  detail: string;
}

/** A line on an entry's timeline without a state change (a wait for a merge window). */
export interface NoteEntryAction {
  kind: 'note_entry';
  entry: EntryGuard;
  reason: Extract<Reason, 'waiting_for_merge_window'>;
  detail: string;
}

/** switching_modes → running with the pending mode, once no work is in flight. */
export interface CompleteModeSwitchAction {
  kind: 'complete_mode_switch';
  queueId: string;
  expectedQueueVersion: number;
  mode: QueueMode;
}

/** Remove the test branch of a concluded run nothing needs any more. */
export interface DeleteBranchAction {
  kind: 'delete_branch';
  runId: string;
  branch: string;
}

export type Action = TransitionEntryAction | StartRunAction | CancelRunAction | MergeAction | NoteEntryAction | CompleteModeSwitchAction | DeleteBranchAction;

export interface PlanResult {
  /** Apply in order; stop at the first failed precondition and plan again. */
  actions: Action[];
  /**
   * When the planner next needs to run although nothing else happens (a run deadline, a batch's
   * max wait, a not-ready timeout); null when nothing is time-driven.
   */
  wakeAt: Date | null;
}
