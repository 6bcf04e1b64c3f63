// The 200 answers of the merge-queue endpoints, as api/merge-queue/serializers produce them. The
// OpenAPI document describes them and a test validates every real answer against them.
import Type, { type TSchema } from 'typebox';
import {
  DIRECT_MERGE_MODES,
  ENTRY_STATES,
  MERGE_METHODS,
  MERGEABILITY,
  OPTIMIZATION_MODES,
  QUEUE_MODES,
  QUEUE_STATES,
  REASONS,
  REQUIRED_STATUSES_SOURCES,
  STACK_FAILURE_POLICIES,
  STATUS_STATES,
  TEST_BRANCH_CONSTRUCTION_MODES,
  TEST_RUN_STATUSES,
} from '../../../shared/merge-queue/domain/model.js';
import { LINKED_TEST_STATUSES } from '../../../shared/merge-queue/services/run-test-results.js';
import { QUEUE_WARNING_CODES } from '../../../shared/merge-queue/domain/status-watch.js';
import { VERDICT_RULES } from '../../../shared/merge-queue/domain/verdict.js';
import { VERDICT_KINDS } from '../../../shared/merge-queue/domain/verdict-kinds.js';
import { MergeWindowResponse, ScheduleResponse } from './schedule-schemas.js';
import { ObjectiveStatusResponse, ObjectivesResponse } from './objective-schemas.js';
import { DigestSettingResponse } from './digest-schemas.js';

const closed = <P extends Record<string, TSchema>>(properties: P) => Type.Object(properties, { additionalProperties: false });
const oneOf = (values: readonly string[]) => Type.Enum([...values], { type: 'string' });
const dateTime = Type.String({ format: 'date-time' });

/** Mutations answer an empty object. */
export const EmptyResponse = closed({});

export const QueueSettingsResponse = closed({
  state: oneOf(QUEUE_STATES),
  branch: Type.String(),
  concurrency: Type.Integer(),
  testingTimeoutMinutes: Type.Integer(),
  mode: oneOf(QUEUE_MODES),
  canOptimisticallyMerge: Type.Boolean(),
  pendingFailureDepth: Type.Integer(),
  batch: Type.Boolean(),
  batchingMaxWaitTimeMinutes: Type.Integer(),
  batchingMinSize: Type.Integer(),
  createPrsForTestingBranches: Type.Boolean(),
  commentsEnabled: Type.Boolean(),
  commandsEnabled: Type.Boolean(),
  statusCheckEnabled: Type.Boolean(),
  extensionEnabled: Type.Boolean(),
  bisectionConcurrency: Type.Integer(),
  requiredStatuses: Type.Array(Type.String()),
  allowedBotSubmitters: Type.Array(Type.String()),
  batchingRules: Type.Array(Type.Record(Type.String(), Type.Unknown())),
  directMergeMode: oneOf(DIRECT_MERGE_MODES),
  optimizationMode: oneOf(OPTIMIZATION_MODES),
  mergeMethod: oneOf(MERGE_METHODS),
  testBranchConstructionMode: oneOf(TEST_BRANCH_CONSTRUCTION_MODES),
  enqueueingLabel: Type.String(),
  labelCommandsEnabled: Type.Boolean(),
  stateLabelsEnabled: Type.Boolean(),
  notReadyTimeoutHours: Type.Integer(),
  flakyRetries: Type.Integer(),
  testResultsWaitSeconds: Type.Integer(),
  notItsFaultRetries: Type.Integer(),
  statusWaitMinutes: Type.Integer(),
  stackFailure: oneOf(STACK_FAILURE_POLICIES),
  reuseTestedTrees: Type.Boolean(),
  checkInteractions: Type.Boolean(),
  /** Merge windows and freezes (an extension of the compatible API; docs/merge-windows.md). */
  schedule: Type.Union([ScheduleResponse, Type.Null()]),
  /** Objectives that page someone (an extension of the compatible API; docs/objectives.md). */
  objectives: ObjectivesResponse,
  /** The daily or weekly digest (an extension of the compatible API; docs/digests.md). */
  digest: DigestSettingResponse,
});

const entryProperties = {
  id: Type.String(),
  state: oneOf(ENTRY_STATES),
  stateChangedAt: dateTime,
  priorityValue: Type.Integer({ minimum: 0, maximum: 255 }),
  priorityName: Type.String(),
  usedDefaultPriorityName: Type.String(),
  skipTheLine: Type.Boolean(),
  noBatch: Type.Boolean(),
  prNumber: Type.Integer({ minimum: 0 }),
  prTitle: Type.String(),
  prSha: Type.String(),
  prBaseBranch: Type.String(),
  prAuthor: Type.String(),
  /** Present only for a member of a stack queued as one unit (an extension of the compatible API; docs/pull-requests.md#stacks). */
  stack: Type.Optional(
    closed({
      id: Type.String(),
      position: Type.Integer({ minimum: 1 }),
      size: Type.Integer({ minimum: 2 }),
      belowPrNumber: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()]),
    }),
  ),
};

export const EnqueuedPullRequest = closed(entryProperties);

/** Why the queue may not be doing what its users expect (the stall watchdog's findings). */
export const QueueWarning = closed({
  code: oneOf(QUEUE_WARNING_CODES),
  message: Type.String(),
  contexts: Type.Array(Type.String()),
  testRunIds: Type.Array(Type.String()),
  since: Type.String({ format: 'date-time' }),
});

export const QueueResponse = closed({
  ...QueueSettingsResponse.properties,
  enqueuedPullRequests: Type.Array(EnqueuedPullRequest),
  warnings: Type.Array(QueueWarning),
  /** The closures holding pull requests now and the next to begin (docs/merge-windows.md). */
  mergeWindow: MergeWindowResponse,
  /** Each objective's level as last measured (docs/objectives.md). */
  objectiveStatus: ObjectiveStatusResponse,
});

export const ListPullRequestsResponse = closed({
  pullRequests: Type.Array(EnqueuedPullRequest),
  nextCursor: Type.Optional(Type.String({ format: 'uuid' })),
});

export const SubmittedPullRequestResponse = closed({
  ...entryProperties,
  readiness: closed({
    doesBaseBranchMatch: Type.Boolean(),
    gitHubMergeability: oneOf(MERGEABILITY),
    requiresImpactedTargets: Type.Boolean(),
    hasImpactedTargets: Type.Boolean(),
  }),
  forceEnqueued: Type.Boolean(),
  isCurrentlySubmittedToQueue: Type.Boolean(),
  verifiedByTestRun: Type.Union([Type.String(), Type.Null()]),
  restartCount: Type.Integer({ minimum: 0 }),
  /** Present while a pending pull request waits for a merge window (docs/merge-windows.md): until when (null: beyond 35 days), and why in words. */
  waitingForMergeWindow: Type.Optional(closed({ until: Type.Union([dateTime, Type.Null()]), detail: Type.String() })),
  /** With `includeEstimatedTimeToMerge: true`, while the pull request is in the queue: 1 = next to merge. */
  position: Type.Optional(Type.Integer({ minimum: 1 })),
  /** Seconds; absent while it cannot be estimated (no run in the last day, paused, not ready). */
  estimatedTimeToMerge: Type.Optional(Type.Integer({ minimum: 0 })),
  estimatedTimeToMergeRange: Type.Optional(closed({ low: Type.Integer({ minimum: 0 }), high: Type.Integer({ minimum: 0 }) })),
  /** For a failed pull request whose run failed, timed out or could not be built: was it its own fault (docs/verdicts.md). */
  verdict: Type.Optional(
    closed({
      kind: oneOf(VERDICT_KINDS),
      rule: oneOf(VERDICT_RULES),
      summary: Type.String(),
      missing: Type.Optional(Type.String()),
      /** For `interaction`: the pull request of its batch it fails with, and the run of it alone that passed. */
      interaction: Type.Optional(closed({ withPrNumber: Type.Union([Type.Integer(), Type.Null()]), withEntryId: Type.String(), aloneRunId: Type.String() })),
      testRunId: Type.String(),
      tests: Type.Array(
        closed({
          id: Type.String(),
          name: Type.String(),
          knownFlaky: Type.Boolean(),
          quarantined: Type.Boolean(),
          onTarget: Type.Union([oneOf(['passed', 'failed']), Type.Null()]),
          onHead: Type.Union([oneOf(['passed', 'failed']), Type.Null()]),
        }),
      ),
    }),
  ),
  /** Newest first; only with `includeTimeline: true`. */
  timeline: Type.Optional(
    Type.Array(
      closed({
        timestamp: dateTime,
        state: oneOf(ENTRY_STATES),
        previousState: Type.Union([oneOf(ENTRY_STATES), Type.Null()]),
        reason: oneOf(REASONS),
        detail: Type.Optional(Type.String()),
        testRunId: Type.Optional(Type.String()),
      }),
    ),
  ),
});

export const TestingDetailsResponse = closed({
  requiredStatuses: Type.Array(Type.String()),
  requiredStatusesSource: Type.Optional(oneOf(REQUIRED_STATUSES_SOURCES)),
  testBranch: Type.String(),
  testBranchSha: Type.String(),
  createdAt: dateTime,
  status: oneOf(TEST_RUN_STATUSES),
  checkSuites: Type.Array(
    closed({
      checkRuns: Type.Array(
        closed({
          name: Type.String(),
          url: Type.String(),
          status: Type.Optional(oneOf(['QUEUED', 'IN_PROGRESS', 'COMPLETED'])),
          conclusion: Type.Optional(oneOf(['ACTION_REQUIRED', 'CANCELLED', 'FAILURE', 'NEUTRAL', 'SUCCESS', 'SKIPPED', 'STALE', 'TIMED_OUT'])),
        }),
      ),
    }),
  ),
  statusChecks: Type.Array(closed({ context: Type.String(), url: Type.String(), state: oneOf(STATUS_STATES.map((s) => s.toUpperCase())) })),
  testedPullRequests: Type.Array(closed({ prNumber: Type.Integer({ minimum: 0 }), prUrl: Type.String(), title: Type.String() })),
  /** Present only when targets were uploaded; a union holding ALL is ["ALL"]. */
  impactedTargets: Type.Optional(Type.Array(Type.String())),
  impactedTargetsForTestedPrs: Type.Optional(Type.Array(Type.String())),
  dependentPrs: Type.Array(Type.Integer({ minimum: 0 })),
  /** Present only when at least one JUnit upload is linked to the run (its commit is the test branch head). */
  testResults: Type.Optional(
    closed({
      uploads: Type.Integer({ minimum: 1 }),
      runs: Type.Integer({ minimum: 0 }),
      failed: Type.Integer({ minimum: 0 }),
      failedTests: Type.Array(
        closed({
          id: Type.String(),
          name: Type.String(),
          classname: Type.Union([Type.String(), Type.Null()]),
          file: Type.Union([Type.String(), Type.Null()]),
          status: oneOf(LINKED_TEST_STATUSES),
          quarantined: Type.Boolean(),
        }),
      ),
    }),
  ),
});

/** The Prometheus text of GET /v1/getMergeQueueMetrics. */
export const MetricsTextResponse = Type.String();
