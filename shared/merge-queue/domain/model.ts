// The merge-queue domain model: plain data shared by the planner, the store and the API.
// Nothing here performs I/O. Wire names and enum values follow the compatible v1 API.

import type { RepoRef } from '../../platform/repo-ref.js';
import type { MergeSchedule } from './merge-schedule.js';
import type { QueueWindow } from './merge-window.js';
import type { ObjectiveStatus, QueueObjective } from './objectives.js';
import type { DigestSetting } from './digest.js';

export const QUEUE_STATES = ['running', 'paused', 'draining', 'switching_modes'] as const;
export type QueueState = (typeof QUEUE_STATES)[number];
/** States a client may set through updateQueue; `switching_modes` is only ever entered by the engine. */
export const SETTABLE_QUEUE_STATES = ['running', 'paused', 'draining'] as const;

export const QUEUE_MODES = ['single', 'parallel'] as const;
export type QueueMode = (typeof QUEUE_MODES)[number];

export const MERGE_METHODS = ['merge_commit', 'squash', 'rebase'] as const;
export type MergeMethod = (typeof MERGE_METHODS)[number];

/** What lands of a stack whose run fails: the members below the first failing one, or none of it. */
export const STACK_FAILURE_POLICIES = ['land_passing_prefix', 'land_nothing'] as const;
export type StackFailurePolicy = (typeof STACK_FAILURE_POLICIES)[number];

export const DIRECT_MERGE_MODES = ['off', 'always'] as const;
export type DirectMergeMode = (typeof DIRECT_MERGE_MODES)[number];

export const OPTIMIZATION_MODES = ['off', 'bisection_skip_redundant_tests'] as const;
export type OptimizationMode = (typeof OPTIMIZATION_MODES)[number];

export const TEST_BRANCH_CONSTRUCTION_MODES = ['rename_temp_branch', 'push_new_branch_from_temp'] as const;
export type TestBranchConstructionMode = (typeof TEST_BRANCH_CONSTRUCTION_MODES)[number];

/** Every queue setting the API reads and writes (spec §2.4 plus the fields the live API returns). */
export interface QueueSettings {
  concurrency: number;
  testingTimeoutMinutes: number;
  mode: QueueMode;
  canOptimisticallyMerge: boolean;
  pendingFailureDepth: number;
  batch: boolean;
  batchingMaxWaitTimeMinutes: number;
  batchingMinSize: number;
  createPrsForTestingBranches: boolean;
  commentsEnabled: boolean;
  commandsEnabled: boolean;
  statusCheckEnabled: boolean;
  extensionEnabled: boolean;
  bisectionConcurrency: number;
  /** Queue-level override of required statuses; null falls back to .trunk/trunk.yaml. */
  requiredStatuses: string[] | null;
  allowedBotSubmitters: string[];
  batchingRules: Record<string, unknown>[];
  directMergeMode: DirectMergeMode;
  optimizationMode: OptimizationMode;
  mergeMethod: MergeMethod;
  testBranchConstructionMode: TestBranchConstructionMode;
  enqueueingLabel: string;
  labelCommandsEnabled: boolean;
  stateLabelsEnabled: boolean;
  notReadyTimeoutHours: number;
  /** Re-tests of a group whose failed tests are all known flaky or quarantined (0 disables). */
  flakyRetries: number;
  /** How long a failed run waits for its linked test results before it is judged without them. */
  testResultsWaitSeconds: number;
  /**
   * Re-tests of a group whose failure is judged not its own — the infrastructure's or the target
   * branch's (docs/verdicts.md); beyond them the group waits with a warning instead of being
   * ejected. 0 ejects at once, as before verdicts.
   */
  notItsFaultRetries: number;
  /** Minutes a built run waits for every required status to be reported (even as pending) before the watchdog warns. */
  statusWaitMinutes: number;
  /** When a member of a stack fails or leaves: whether the members below it may still land (docs/pull-requests.md#stacks). */
  stackFailure: StackFailurePolicy;
  /**
   * A run whose test branch would be built from exactly what an earlier passing run of the queue
   * was built from, with the same required statuses, is not run: it passes with that run's result.
   */
  reuseTestedTrees: boolean;
  /**
   * Before a bisection condemns a pull request that failed only on top of other members of its
   * batch, test it alone on the batch's base; if it passes, find the member it fails with
   * (docs/verdicts.md#interactions).
   */
  checkInteractions: boolean;
  /** Merge windows, freezes and holidays (domain/merge-schedule.ts, docs/merge-windows.md); null: always open. */
  schedule: MergeSchedule | null;
  /** Levels of time in queue, head age, runs per merge and innocent ejections that page someone (docs/objectives.md). */
  objectives: QueueObjective[];
  /** A daily or weekly summary sent to webhooks and Slack (domain/digest.ts, docs/digests.md); null: none. */
  digest: DigestSetting | null;
}

/** Defaults for a queue made by createQueue (docs/queue-settings.md explains each choice). */
export const DEFAULT_QUEUE_SETTINGS: Readonly<QueueSettings> = Object.freeze({
  concurrency: 1,
  testingTimeoutMinutes: 300,
  mode: 'single',
  canOptimisticallyMerge: false,
  pendingFailureDepth: 0,
  batch: false,
  batchingMaxWaitTimeMinutes: 5,
  batchingMinSize: 4,
  createPrsForTestingBranches: true,
  commentsEnabled: true,
  commandsEnabled: true,
  statusCheckEnabled: true,
  extensionEnabled: false,
  /** createQueue sets it to the queue's concurrency (the hosted product's default mirrors it). */
  bisectionConcurrency: 1,
  requiredStatuses: null,
  allowedBotSubmitters: [],
  batchingRules: [],
  directMergeMode: 'off',
  optimizationMode: 'off',
  mergeMethod: 'squash',
  testBranchConstructionMode: 'rename_temp_branch',
  enqueueingLabel: '',
  labelCommandsEnabled: false,
  stateLabelsEnabled: false,
  notReadyTimeoutHours: 0,
  flakyRetries: 1,
  testResultsWaitSeconds: 120,
  notItsFaultRetries: 1,
  statusWaitMinutes: 15,
  stackFailure: 'land_passing_prefix',
  reuseTestedTrees: true,
  checkInteractions: true,
  schedule: null,
  objectives: [],
  digest: null,
} satisfies QueueSettings);

/** The target branch is broken (domain/target-health.ts): these tests fail on its head commit `sha`, since `since`. */
export interface TargetBreak {
  sha: string;
  tests: { id: string; name: string }[];
  since: Date;
}

/** A `merge.lanes` of .trunk/trunk.yaml the engine cannot use (domain/lanes-problem.ts). */
export interface LanesProblem {
  /** The target head whose file was read. */
  sha: string;
  /** What is wrong with the file, as the parser says it. */
  message: string;
  /** Since when the file has had this problem (kept while the target moves on with it). */
  since: Date;
}

export interface Queue extends QueueSettings {
  id: string;
  orgId: string;
  repo: RepoRef;
  branch: string;
  state: QueueState;
  /** While `switching_modes`: the mode the queue switches to once no run is active. */
  pendingMode: QueueMode | null;
  /** The target branch head the service last observed (a change outside the queue triggers a plan). */
  observedTargetSha: string | null;
  /** Set while CI's results for the target branch's head show tests failing there (domain/target-health.ts). */
  targetBroken: TargetBreak | null;
  /** Set while `merge.lanes` of .trunk/trunk.yaml at the target head cannot be used (parallel mode; domain/lanes-problem.ts). */
  lanesProblem: LanesProblem | null;
  /** The merge window as the schedule watcher last stored it (domain/merge-window.ts); null without a schedule. */
  mergeWindow: QueueWindow | null;
  /** Each objective's level as the objective watcher last stored it (domain/objectives.ts). */
  objectiveStatus: ObjectiveStatus[];
  /** The end of the last period whose digest was sent (each goes out once); null: none yet. */
  lastDigestAt: Date | null;
  /** Monotonic counter handing out admission sequence numbers to entries. */
  nextSeq: number;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

export const ENTRY_STATES = ['not_ready', 'pending', 'testing', 'tests_passed', 'pending_failure', 'merged', 'failed', 'cancelled'] as const;
export type EntryState = (typeof ENTRY_STATES)[number];
export const TERMINAL_ENTRY_STATES: readonly EntryState[] = ['merged', 'failed', 'cancelled'];
export const ACTIVE_ENTRY_STATES: readonly EntryState[] = ENTRY_STATES.filter((s) => !TERMINAL_ENTRY_STATES.includes(s));

export const PRIORITY_NAMES = ['urgent', 'high', 'medium', 'low'] as const;
export type PriorityName = (typeof PRIORITY_NAMES)[number];
export const PRIORITY_VALUES: Readonly<Record<PriorityName, number>> = { urgent: 0, high: 10, medium: 100, low: 200 };
export const DEFAULT_PRIORITY: PriorityName = 'medium';
export const MAX_PRIORITY_VALUE = 255;

export const MERGEABILITY = ['unspecified', 'in_progress', 'mergeable', 'not_mergeable'] as const;
export type Mergeability = (typeof MERGEABILITY)[number];

export interface Readiness {
  doesBaseBranchMatch: boolean;
  gitHubMergeability: Mergeability;
  requiresImpactedTargets: boolean;
  hasImpactedTargets: boolean;
}

export interface ReadinessBasis {
  targetSha: string;
  headSha: string;
  /** The queue mode judged in (parallel mode requires impacted targets). */
  mode: QueueMode;
}

/**
 * Reason codes recorded on every transition. They are the lowercase forms of the webhook reason
 * enums of the compatible API (wire-contract §5.1), plus `submitted` for a new entry.
 */
/** Reasons that send an entry back to `pending` (the wire's queued reasons). */
export const QUEUED_REASONS = [
  'merge_item_now_ready',
  'manual_push_to_target_branch',
  'prerequisite_merge_item_cancelled',
  'prerequisite_merge_item_failed',
  'prerequisite_merge_item_manually_merged',
  'tests_restarted_by_user',
  'tests_restarted_by_api_request',
  'skip_the_line_interrupted',
  'bisection_required',
  'bisection_test_run_passed',
  // a failed run whose failed tests are all known flaky or quarantined: its group is tested again
  'test_run_retried_known_flaky',
  // planner-internal: an entry's test run vanished from the store (restart; shown as a queued reason)
  'test_run_lost',
  // a failed run judged the infrastructure's or the target branch's fault: its group is tested again
  'test_run_retried_not_its_fault',
] as const;

export const REASONS = [
  // submitted
  'api_requested',
  ...QUEUED_REASONS,
  // back to not_ready
  'merge_item_no_longer_ready',
  // testing / passed / pending failure
  'test_run_started',
  'test_run_passed',
  'test_run_failed',
  // failed
  'start_test_run_merge_conflict',
  'start_test_run_config_parsing_failure',
  'start_test_run_no_required_statuses',
  'test_run_required_status_failed',
  'test_run_timeout',
  'github_api_merge_pr_failed',
  'github_api_direct_merge_pr_failed',
  'pr_updated_at_merge_time',
  'test_run_failed_by_optimization',
  // pending failure kept: judged not its fault again after its re-tests; it waits (with a queue warning)
  'test_run_held_not_its_fault',
  // pending failure kept: only tests that fail on the broken target branch failed; it waits until the branch is green
  'test_run_held_target_broken',
  // cancelled
  'user_requested',
  'pr_closed',
  // (a stack member pushed to goes back to not_ready instead, and the rest of its test run is restarted with this reason)
  'pr_pushed_to',
  'pr_base_branch_changed',
  'pr_converted_to_draft',
  'not_ready_timeout',
  // failed or cancelled with a member below it in its stack (it holds that member's commits)
  'stack_member_removed',
  // merged
  'merge_graph_merge',
  'manual_merge',
  'merge_graph_direct_merge',
  // timeline notes: recorded without a state change
  'required_status_not_reported',
  // a later pull request of its batch passes alone and fails only on top of it (the interaction check)
  'interaction_found',
  // a timeline note: a ready pull request waits for a merge window (closed for it, or closing before its run could finish)
  'waiting_for_merge_window',
] as const;
export type Reason = (typeof REASONS)[number];

export interface HistoryEntry {
  at: Date;
  from: EntryState | null;
  to: EntryState;
  reason: Reason;
  /** Human-readable detail, e.g. which pull request ahead failed. */
  detail?: string;
  testRunId?: string;
}

/** A pull request's submission to a queue (the v1 "merge item"). */
export interface Entry {
  id: string;
  orgId: string;
  queueId: string;
  prNumber: number;
  prTitle: string;
  prSha: string;
  prBaseBranch: string;
  prAuthor: string;
  prHeadBranch: string | null;
  /** Its labels at the forge, as last read (submission, then each sync); absent on entries stored before labels were kept. */
  prLabels?: string[];
  priorityValue: number;
  priorityName: string;
  usedDefaultPriorityName: string;
  noBatch: boolean;
  forceEnqueued: boolean;
  state: EntryState;
  stateChangedAt: Date;
  submittedAt: Date;
  /** Admission order among equal priorities; assigned at submission, kept across restarts. */
  seq: number;
  readiness: Readiness;
  /** What readiness was last computed for; it is recomputed only when one of these changes. */
  readinessBasis: ReadinessBasis | null;
  /** The run currently testing this entry (testing / tests_passed / pending_failure), if any. */
  currentRunId: string | null;
  /** Test run whose success verified the merge of this entry. */
  verifiedByTestRun: string | null;
  /**
   * Target branch head right after the queue merged this entry (null until merged, and for
   * entries merged outside the queue). With `mergedOntoSha` it lets the planner tell the queue's
   * own merges from pushes outside the queue (a run stays valid across merges of its base).
   */
  mergedSha?: string | null;
  /** Target branch head the queue merged this entry onto (null until merged by the queue). */
  mergedOntoSha?: string | null;
  /**
   * The tree of `mergedSha` when the forge's merge was checked to produce exactly the tree a
   * passing test run tested (the last pull request of a merge in single mode); null otherwise
   * (absent for merges recorded before it was kept). docs/verdicts.md#every-tree-tested-once.
   */
  mergedTestedTree?: string | null;
  /**
   * While the entry takes part in the bisection of a failed batch: the id of that batch's failed
   * main run. Such entries are tested only by that bisection's runs, never batched anew.
   */
  bisectionOf?: string | null;
  /**
   * Set when the entry failed by an interaction: it passed alone on its batch's base and failed
   * together with another member of the batch (docs/verdicts.md#interactions).
   */
  interaction?: EntryInteraction | null;
  /** Its place in a stack of pull requests queued as one unit (domain/stack.ts); null or absent for a lone pull request. */
  stack?: EntryStack | null;
  restartCount: number;
  /** Reason of the last transition (the last history entry's, unless timeline notes followed it). */
  lastReason: Reason;
  history: HistoryEntry[];
  version: number;
}

/** What an interaction check found: the run of the entry alone passed, the run with `withEntryId` below it failed. */
export interface EntryInteraction {
  withEntryId: string;
  withPrNumber: number | null;
  aloneRunId: string;
  togetherRunId: string;
}

/**
 * A member of a stack: a chain of pull requests, each based on the head branch of the one below,
 * the bottom based on the queue's branch. The members are tested as one run and land in order.
 */
export interface EntryStack {
  /** The same for every member of the stack: `<queue id>:<number of the bottom pull request>`. */
  id: string;
  /** 1 for the bottom member. */
  position: number;
  size: number;
  /** The member below it (null for the bottom), whose head branch is this member's base. */
  belowPr: number | null;
  belowHeadBranch: string | null;
}

export const TEST_RUN_STATUSES = ['in_progress', 'succeeded', 'failed', 'cancelled'] as const;
export type TestRunStatus = (typeof TEST_RUN_STATUSES)[number];
export type TestRunKind = 'main' | 'bisection';
export const REQUIRED_STATUSES_SOURCES = ['trunk_config', 'repo_provider_branch_protection', 'merge_instance'] as const;
export type RequiredStatusesSource = (typeof REQUIRED_STATUSES_SOURCES)[number];

export const STATUS_STATES = ['pending', 'success', 'failure', 'error'] as const;
export type StatusState = (typeof STATUS_STATES)[number];

/** One test run: a group (one entry, or a batch) tested on a predicted base. */
export interface TestRun {
  /** UUID; bisection runs end in `-bisection`. */
  id: string;
  orgId: string;
  queueId: string;
  kind: TestRunKind;
  /** The tested group, in queue order. */
  entryIds: string[];
  /** Entries ahead whose changes form the predicted base, in queue order (not tested by this run). */
  baseEntryIds: string[];
  /** Target branch head the predicted base starts from. */
  targetSha: string;
  /** Test branch name, `trunk-merge/pr-<N>[-<M>…]/<id>`. */
  branch: string;
  /** Head of the test branch, once built; null while building. */
  sha: string | null;
  /** Tree of the test branch head: a merge of this run's group must produce exactly this tree. */
  tree?: string | null;
  /**
   * What the test branch is built from: the target sha and the pull request heads merged onto it,
   * in order (domain/tested-tree-reuse.ts). The same recipe builds the same tree.
   */
  recipe?: string | null;
  /** A run that was not run: it passed by reusing this earlier passing run's result on the same recipe. */
  reusedFrom?: string | null;
  status: TestRunStatus;
  requiredStatuses: string[];
  requiredStatusesSource: RequiredStatusesSource | null;
  /** When the run times out (testingTimeoutMinutes); null when disabled. */
  deadlineAt: Date | null;
  createdAt: Date;
  concludedAt: Date | null;
  conclusionReason: Reason | null;
  /** Why, in words (for a cancelled run: what invalidated it, e.g. which pull request ahead failed). */
  conclusionDetail?: string | null;
  /** The test branch was removed from the repository. */
  branchDeleted: boolean;
  /** For bisection runs: the failed batch (main) run being bisected; null for main runs. */
  bisectionOf?: string | null;
  /**
   * For a bisection run of an interaction check: the entry it checks. Such a run is built on the
   * batch's own target sha with exactly its base entries, merged ones included.
   */
  interactionOf?: string | null;
  /**
   * For a run that could not be built (conclusionReason start_test_run_merge_conflict, …): the
   * entries the builder blamed. Empty or absent means every tested entry is to blame.
   */
  culpritEntryIds?: string[];
  /** Set by the stall watchdog when required statuses were not reported within statusWaitMinutes. */
  statusWatch?: StatusWatch | null;
  version: number;
}

/** What the stall watchdog found on a run; `missing` shrinks as the statuses arrive. */
export interface StatusWatch {
  firedAt: Date;
  /** Required contexts not reported on the test branch head (not even as pending). */
  missing: string[];
  /** Of those, the contexts never reported on any recent test branch of the queue. */
  neverReported: string[];
}
