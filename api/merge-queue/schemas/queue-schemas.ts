// Request schemas of the queue administration endpoints (spec §4.1, wire-contract §2.8–§2.11).
import Type, { type Static } from 'typebox';
import {
  DIRECT_MERGE_MODES,
  MERGE_METHODS,
  OPTIMIZATION_MODES,
  QUEUE_MODES,
  SETTABLE_QUEUE_STATES,
  STACK_FAILURE_POLICIES,
  TEST_BRANCH_CONSTRUCTION_MODES,
} from '../../../shared/merge-queue/domain/model.js';
import { branchSchema, caseInsensitiveEnum, repoSchema, MAX_NAME } from '../../validation/common.js';
import { compileValidator } from '../../validation/validator.js';
import { ScheduleInputSchema } from './schedule-schemas.js';
import { ObjectivesInputSchema } from './objective-schemas.js';
import { DigestInputSchema } from './digest-schemas.js';

export const QUEUE_LIMITS = {
  concurrency: { minimum: 1, maximum: 1000 },
  bisectionConcurrency: { minimum: 1, maximum: 1000 },
  testingTimeoutMinutes: { minimum: 0, maximum: 525_600 },
  pendingFailureDepth: { minimum: 0, maximum: 1000 },
  batchingMaxWaitTimeMinutes: { minimum: 0, maximum: 10_080 },
  batchingMinSize: { minimum: 1, maximum: 100 },
  notReadyTimeoutHours: { minimum: 0, maximum: 8_760 },
  flakyRetries: { minimum: 0, maximum: 5 },
  testResultsWaitSeconds: { minimum: 0, maximum: 1_800 },
  notItsFaultRetries: { minimum: 0, maximum: 5 },
  statusWaitMinutes: { minimum: 1, maximum: 1_440 },
} as const;

const int = (range: { minimum: number; maximum: number }) => Type.Optional(Type.Integer({ ...range }));
const ciEnum = <const V extends readonly string[]>(values: V) => Type.Optional(caseInsensitiveEnum(values, 64));
const flag = () => Type.Optional(Type.Boolean());
const names = () => Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: MAX_NAME }), { maxItems: 100 }));

const queueRefProperties = { repo: repoSchema, targetBranch: branchSchema };

export const QueueRefSchema = Type.Object(queueRefProperties, { additionalProperties: false });
export type QueueRef = Static<typeof QueueRefSchema>;

export const parseQueueRef = compileValidator(QueueRefSchema);

export const CreateQueueSchema = Type.Object(
  { ...queueRefProperties, mode: ciEnum(QUEUE_MODES), concurrency: int(QUEUE_LIMITS.concurrency) },
  { additionalProperties: false },
);
export type CreateQueueBody = Static<typeof CreateQueueSchema>;

export const parseCreateQueue = compileValidator(CreateQueueSchema);

export const UpdateQueueSchema = Type.Object(
  {
    ...queueRefProperties,
    state: ciEnum(SETTABLE_QUEUE_STATES),
    mode: ciEnum(QUEUE_MODES),
    concurrency: int(QUEUE_LIMITS.concurrency),
    bisectionConcurrency: int(QUEUE_LIMITS.bisectionConcurrency),
    testingTimeoutMinutes: int(QUEUE_LIMITS.testingTimeoutMinutes),
    pendingFailureDepth: int(QUEUE_LIMITS.pendingFailureDepth),
    canOptimisticallyMerge: flag(),
    batch: flag(),
    batchingMaxWaitTimeMinutes: int(QUEUE_LIMITS.batchingMaxWaitTimeMinutes),
    batchingMinSize: int(QUEUE_LIMITS.batchingMinSize),
    createPrsForTestingBranches: flag(),
    commentsEnabled: flag(),
    commandsEnabled: flag(),
    statusCheckEnabled: flag(),
    extensionEnabled: flag(),
    labelCommandsEnabled: flag(),
    stateLabelsEnabled: flag(),
    directMergeMode: ciEnum(DIRECT_MERGE_MODES),
    optimizationMode: ciEnum(OPTIMIZATION_MODES),
    mergeMethod: ciEnum(MERGE_METHODS),
    testBranchConstructionMode: ciEnum(TEST_BRANCH_CONSTRUCTION_MODES),
    requiredStatuses: names(),
    deleteRequiredStatuses: flag(),
    enqueueingLabel: Type.Optional(Type.String({ maxLength: MAX_NAME })),
    notReadyTimeoutHours: int(QUEUE_LIMITS.notReadyTimeoutHours),
    flakyRetries: int(QUEUE_LIMITS.flakyRetries),
    testResultsWaitSeconds: int(QUEUE_LIMITS.testResultsWaitSeconds),
    notItsFaultRetries: int(QUEUE_LIMITS.notItsFaultRetries),
    statusWaitMinutes: int(QUEUE_LIMITS.statusWaitMinutes),
    stackFailure: ciEnum(STACK_FAILURE_POLICIES),
    reuseTestedTrees: flag(),
    checkInteractions: flag(),
    schedule: Type.Optional(ScheduleInputSchema),
    objectives: Type.Optional(ObjectivesInputSchema),
    digest: Type.Optional(DigestInputSchema),
    allowedBotSubmitters: names(),
    batchingRules: Type.Optional(Type.Array(Type.Record(Type.String(), Type.Unknown(), { maxProperties: 32 }), { maxItems: 100 })),
  },
  { additionalProperties: false },
);
export type UpdateQueueBody = Static<typeof UpdateQueueSchema>;

export const parseUpdateQueue = compileValidator(UpdateQueueSchema);
