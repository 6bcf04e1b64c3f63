// Request schemas of the queue administration endpoints (spec §4.1, wire-contract §2.8–§2.11).
import { DIRECT_MERGE_MODES, MERGE_METHODS, OPTIMIZATION_MODES, QUEUE_MODES, SETTABLE_QUEUE_STATES, TEST_BRANCH_CONSTRUCTION_MODES } from '../../../shared/merge-queue/domain/model.js';
import type { QueueMode } from '../../../shared/merge-queue/domain/model.js';
import type { RepoRef } from '../../../shared/repo-ref.js';
import { branchSchema, repoSchema, MAX_NAME } from '../../validation/common.js';
import { compileValidator } from '../../validation/validator.js';
import type { QueueSettingsPatch } from '../../../shared/merge-queue/services/queue-service.js';

export const QUEUE_LIMITS = {
  concurrency: { minimum: 1, maximum: 1000 },
  bisectionConcurrency: { minimum: 1, maximum: 1000 },
  testingTimeoutMinutes: { minimum: 0, maximum: 525_600 },
  pendingFailureDepth: { minimum: 0, maximum: 1000 },
  batchingMaxWaitTimeMinutes: { minimum: 0, maximum: 10_080 },
  batchingMinSize: { minimum: 1, maximum: 100 },
  notReadyTimeoutHours: { minimum: 0, maximum: 8_760 },
} as const;

const int = (range: { minimum: number; maximum: number }) => ({ type: 'integer', ...range });
const ciEnum = (values: readonly string[]) => ({ type: 'string', maxLength: 64, caseInsensitiveEnum: [...values] });

export interface QueueRef {
  repo: RepoRef;
  targetBranch: string;
}

const queueRefProperties = { repo: repoSchema, targetBranch: branchSchema };

export const parseQueueRef = compileValidator<QueueRef>({
  type: 'object',
  additionalProperties: false,
  required: ['repo', 'targetBranch'],
  properties: queueRefProperties,
});

export interface CreateQueueBody extends QueueRef {
  mode?: QueueMode;
  concurrency?: number;
}

export const parseCreateQueue = compileValidator<CreateQueueBody>({
  type: 'object',
  additionalProperties: false,
  required: ['repo', 'targetBranch'],
  properties: {
    ...queueRefProperties,
    mode: ciEnum(QUEUE_MODES),
    concurrency: int(QUEUE_LIMITS.concurrency),
  },
});

export type UpdateQueueBody = QueueRef & QueueSettingsPatch;

export const parseUpdateQueue = compileValidator<UpdateQueueBody>({
  type: 'object',
  additionalProperties: false,
  required: ['repo', 'targetBranch'],
  properties: {
    ...queueRefProperties,
    state: ciEnum(SETTABLE_QUEUE_STATES),
    mode: ciEnum(QUEUE_MODES),
    concurrency: int(QUEUE_LIMITS.concurrency),
    bisectionConcurrency: int(QUEUE_LIMITS.bisectionConcurrency),
    testingTimeoutMinutes: int(QUEUE_LIMITS.testingTimeoutMinutes),
    pendingFailureDepth: int(QUEUE_LIMITS.pendingFailureDepth),
    canOptimisticallyMerge: { type: 'boolean' },
    batch: { type: 'boolean' },
    batchingMaxWaitTimeMinutes: int(QUEUE_LIMITS.batchingMaxWaitTimeMinutes),
    batchingMinSize: int(QUEUE_LIMITS.batchingMinSize),
    createPrsForTestingBranches: { type: 'boolean' },
    commentsEnabled: { type: 'boolean' },
    commandsEnabled: { type: 'boolean' },
    statusCheckEnabled: { type: 'boolean' },
    extensionEnabled: { type: 'boolean' },
    labelCommandsEnabled: { type: 'boolean' },
    stateLabelsEnabled: { type: 'boolean' },
    directMergeMode: ciEnum(DIRECT_MERGE_MODES),
    optimizationMode: ciEnum(OPTIMIZATION_MODES),
    mergeMethod: ciEnum(MERGE_METHODS),
    testBranchConstructionMode: ciEnum(TEST_BRANCH_CONSTRUCTION_MODES),
    requiredStatuses: {
      type: 'array',
      maxItems: 100,
      items: { type: 'string', minLength: 1, maxLength: MAX_NAME },
    },
    deleteRequiredStatuses: { type: 'boolean' },
    enqueueingLabel: { type: 'string', maxLength: MAX_NAME },
    notReadyTimeoutHours: int(QUEUE_LIMITS.notReadyTimeoutHours),
    allowedBotSubmitters: {
      type: 'array',
      maxItems: 100,
      items: { type: 'string', minLength: 1, maxLength: MAX_NAME },
    },
    batchingRules: {
      type: 'array',
      maxItems: 100,
      items: { type: 'object', maxProperties: 32 },
    },
  },
});
