// A queue as the v2 contract's MergeQueue, and its settings as MergeQueueConfig.
import type { Queue } from '../../../shared/merge-queue/domain/model.js';
import type { components } from '../../../openapi/v2/types.js';
import { camel, MODE_V2, QUEUE_STATE_V2 } from './wire-names.js';

type S = components['schemas'];

const POLICY_OF_NAME: Readonly<Record<string, S['BatchingRulePolicy']>> = { isolate: 'isolate' };

/** The queue's batching rules that have the contract's shape (a target pattern and a known policy). */
function batchingRules(queue: Queue): S['BatchingRule'][] {
  return queue.batchingRules.flatMap((rule) => {
    const policy = typeof rule.policy === 'string' ? POLICY_OF_NAME[rule.policy.toLowerCase()] : undefined;
    return typeof rule.targetPattern === 'string' && policy ? [{ targetPattern: rule.targetPattern, policy }] : [];
  });
}

export function serializeMergeQueueConfig(queue: Queue): S['MergeQueueConfig'] {
  return {
    concurrency: queue.concurrency,
    bisectionConcurrency: queue.bisectionConcurrency,
    pendingFailureDepth: queue.pendingFailureDepth,
    canOptimisticallyMerge: queue.canOptimisticallyMerge,
    allowBatching: queue.batch,
    batchingMaxWaitTimeMinutes: queue.batchingMaxWaitTimeMinutes,
    batchingMinSize: queue.batchingMinSize,
    testingTimeoutMinutes: queue.testingTimeoutMinutes,
    notReadyTimeoutMinutes: queue.notReadyTimeoutHours * 60,
    createsPrsForTestingBranches: queue.createPrsForTestingBranches,
    areCommentsEnabled: queue.commentsEnabled,
    areCommandsEnabled: queue.commandsEnabled,
    isStatusCheckEnabled: queue.statusCheckEnabled,
    isExtensionEnabled: queue.extensionEnabled,
    areLabelCommandsEnabled: queue.labelCommandsEnabled,
    areStateLabelsEnabled: queue.stateLabelsEnabled,
    // No override: the repository's .trunk/trunk.yaml (or branch protection) decides (docs/api-v2.md#gaps).
    requiredStatuses: queue.requiredStatuses ?? [],
    allowedBotSubmitters: queue.allowedBotSubmitters,
    batchingRules: batchingRules(queue),
    directMergeMode: queue.directMergeMode,
    optimizationMode: camel(queue.optimizationMode) as S['OptimizationMode'],
    mergeMethod: camel(queue.mergeMethod) as S['MergeMethod'],
    testBranchConstructionMode: camel(queue.testBranchConstructionMode) as S['TestBranchConstructionMode'],
    enqueueingLabel: queue.enqueueingLabel,
  };
}

export const repositoryUrlOf = (queue: Pick<Queue, 'repo'>): string => `https://${queue.repo.host}/${queue.repo.owner}/${queue.repo.name}`;

export const pullRequestsUrlOf = (queueId: string): string => `/v2/merge-queues/${encodeURIComponent(queueId)}/pull-requests`;

export function serializeMergeQueue(queue: Queue, repositoryId: string): S['MergeQueue'] {
  return {
    id: queue.id,
    repositoryId,
    targetBranch: queue.branch,
    state: QUEUE_STATE_V2[queue.state],
    mode: MODE_V2[queue.mode],
    // Queues are managed through this service's API, dashboard and CLI; it has no Terraform provider.
    managedState: 'manual',
    createdAt: queue.createdAt.toISOString(),
    updatedAt: queue.updatedAt.toISOString(),
    repositoryUrl: repositoryUrlOf(queue),
    pullRequestsUrl: pullRequestsUrlOf(queue.id),
    config: serializeMergeQueueConfig(queue),
  };
}

export function serializeStateChange(queue: Queue): S['MergeQueueStateChange'] {
  return { id: queue.id, state: QUEUE_STATE_V2[queue.state], mode: MODE_V2[queue.mode], pullRequestsUrl: pullRequestsUrlOf(queue.id) };
}
