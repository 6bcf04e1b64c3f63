// Wire shapes the dashboard reads (docs/api.md). Only the fields the pages use.
import type { Reason } from '../../../shared/merge-queue/domain/model';
import type { QueueHealth } from '../../../shared/merge-queue/domain/metrics/queue-health';
import type { WireTest } from '../../../api/flaky-tests/serializers/tests';

export type { Reason };

/** getQueueHealth's answer, typed by the service's own definition (it holds JSON values only). */
export type { QueueHealth };

export interface RepoRef {
  host: string;
  owner: string;
  name: string;
}

export type EntryState = 'not_ready' | 'pending' | 'testing' | 'tests_passed' | 'pending_failure' | 'merged' | 'failed' | 'cancelled';
export type QueueState = 'running' | 'paused' | 'draining' | 'switching_modes';

export interface QueueSummary {
  repo: RepoRef;
  targetBranch: string;
  state: QueueState;
  mode: 'single' | 'parallel';
  concurrency: number;
  counts: Record<EntryState, number>;
  mergedLast24h: number[];
}

export interface EnqueuedPullRequest {
  id: string;
  state: EntryState;
  stateChangedAt: string;
  priorityValue: number;
  priorityName: string;
  skipTheLine: boolean;
  noBatch: boolean;
  prNumber: number;
  prTitle: string;
  prSha: string;
  prBaseBranch: string;
  prAuthor: string;
}

export interface QueueSettings {
  state: QueueState;
  branch: string;
  concurrency: number;
  testingTimeoutMinutes: number;
  mode: 'single' | 'parallel';
  canOptimisticallyMerge: boolean;
  pendingFailureDepth: number;
  batch: boolean;
  batchingMaxWaitTimeMinutes: number;
  batchingMinSize: number;
  bisectionConcurrency: number;
  requiredStatuses: string[];
}

export interface QueueWarning {
  code: 'required_status_not_reported' | 'required_status_never_reported';
  message: string;
  contexts: string[];
  testRunIds: string[];
  since: string;
}

export interface QueueBody extends QueueSettings {
  enqueuedPullRequests: EnqueuedPullRequest[];
  warnings: QueueWarning[];
}

export interface TimelineItem {
  timestamp: string;
  state: EntryState;
  previousState: EntryState | null;
  reason: Reason;
  detail?: string;
  testRunId?: string;
}

export interface SubmittedPullRequest extends EnqueuedPullRequest {
  readiness: {
    doesBaseBranchMatch: boolean;
    gitHubMergeability: 'unspecified' | 'in_progress' | 'mergeable' | 'not_mergeable';
    requiresImpactedTargets: boolean;
    hasImpactedTargets: boolean;
  };
  isCurrentlySubmittedToQueue: boolean;
  restartCount: number;
  verifiedByTestRun: string | null;
  timeline: TimelineItem[];
}

export interface TestRunSummary {
  id: string;
  kind: 'main' | 'bisection';
  status: 'in_progress' | 'succeeded' | 'failed' | 'cancelled';
  testBranch: string;
  testBranchSha: string;
  createdAt: string;
  concludedAt: string | null;
  conclusionReason: Reason | null;
  testedPrs: number[];
  basePrs: number[];
  bisectionOf: string | null;
}

export interface TestingDetails {
  requiredStatuses: string[];
  requiredStatusesSource?: string;
  testBranch: string;
  testBranchSha: string;
  createdAt: string;
  status: string;
  statusChecks: { context: string; url: string; state: string }[];
  testedPullRequests: { prNumber: number; prUrl: string; title: string }[];
  impactedTargets?: string[] | 'ALL';
  dependentPrs: number[];
  checkSuites?: { checkRuns: { name: string; url: string; status: string; conclusion: string | null }[] }[];
  /** JUnit results linked to the run (uploads whose commit is the test branch head); absent without any. */
  testResults?: RunTestResults;
}

export interface RunTestResults {
  uploads: number;
  runs: number;
  failed: number;
  failedTests: { id: string; name: string; classname: string | null; file: string | null; status: 'healthy' | 'flaky' | 'broken' | 'new'; quarantined: boolean }[];
}

/** A flaky-tests API test item, typed by the service's own wire definition. */
export type FlakyTest = WireTest;

export interface QuarantinedTest {
  name: string;
  parent?: string;
  file?: string;
  classname?: string;
  status: string;
  codeowners: string[];
  quarantine_setting: string;
  quarantined_at: string;
  test_case_id: string;
  variant: string;
}

export interface FlakyPage {
  total_rows: number;
  next_page_token: string;
  prev_page_token: string;
}

export interface QuarantineOverride {
  test_id: string;
  override: string;
  reason: string | null;
  updated_at: string | null;
  updated_by: string | null;
  expires_at: string | null;
  released_at: string | null;
  quarantining_enabled: boolean;
  quarantined: boolean;
  history: { at: string; actor: string; from: string; to: string; reason: string }[];
}
