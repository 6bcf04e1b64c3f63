// The v2 operations on merge queues: list, create, read, delete, state and mode, config, metrics.
import type { V2Handler } from '../v2-router.js';
import type { components } from '../../../openapi/v2/types.js';
import { queueOf, type V2Deps } from './v2-deps.js';
import { serializeMergeQueue, serializeStateChange } from '../serializers/merge-queue.js';
import { MODE_OF_V2, snake } from '../serializers/wire-names.js';
import { pageOfList, pageRequest } from '../pagination.js';
import { repositoryIdOf } from '../../../shared/merge-queue/domain/resource-ids.js';
import type { Queue, QueueSettings } from '../../../shared/merge-queue/domain/model.js';
import type { QueueSettingsPatch } from '../../../shared/merge-queue/services/queue-service.js';
import { MERGE_QUEUE_METRICS_CONTENT_TYPE, renderMergeQueueMetrics } from '../../../shared/merge-queue/metrics/merge-queue-exposition.js';
import { validationFailed } from '../v2-errors.js';

type S = components['schemas'];

/** The queue as v2 answers it, its repository's id remembered so the id can be brought back. */
async function answerOf(deps: V2Deps, queue: Queue): Promise<S['MergeQueue']> {
  const repositoryId = await deps.services.resources.rememberRepository(queue.orgId, queue.repo);
  return serializeMergeQueue(queue, repositoryId);
}

/** A JSON Merge Patch of MergeQueueConfig as the engine's settings patch. */
export function settingsPatchOf(body: S['UpdateMergeQueueConfigRequest']): QueueSettingsPatch {
  const patch: QueueSettingsPatch = {};
  const copy = <K extends keyof QueueSettings>(key: K, value: QueueSettings[K] | undefined) => {
    if (value !== undefined) (patch as Partial<QueueSettings>)[key] = value;
  };
  copy('concurrency', body.concurrency);
  copy('bisectionConcurrency', body.bisectionConcurrency);
  copy('pendingFailureDepth', body.pendingFailureDepth);
  copy('canOptimisticallyMerge', body.canOptimisticallyMerge);
  copy('batch', body.allowBatching);
  copy('batchingMaxWaitTimeMinutes', body.batchingMaxWaitTimeMinutes);
  copy('batchingMinSize', body.batchingMinSize);
  copy('testingTimeoutMinutes', body.testingTimeoutMinutes);
  if (body.notReadyTimeoutMinutes !== undefined) {
    if (body.notReadyTimeoutMinutes % 60 !== 0)
      throw validationFailed('notReadyTimeoutMinutes must be a whole number of hours (a multiple of 60): this service keeps the timeout in hours');
    patch.notReadyTimeoutHours = body.notReadyTimeoutMinutes / 60;
  }
  copy('createPrsForTestingBranches', body.createsPrsForTestingBranches);
  copy('commentsEnabled', body.areCommentsEnabled);
  copy('commandsEnabled', body.areCommandsEnabled);
  copy('statusCheckEnabled', body.isStatusCheckEnabled);
  copy('extensionEnabled', body.isExtensionEnabled);
  copy('labelCommandsEnabled', body.areLabelCommandsEnabled);
  copy('stateLabelsEnabled', body.areStateLabelsEnabled);
  // An empty list hands the required statuses back to the repository's configuration (docs/api-v2.md#gaps).
  if (body.requiredStatuses !== undefined) {
    if (body.requiredStatuses.length === 0) patch.deleteRequiredStatuses = true;
    else patch.requiredStatuses = body.requiredStatuses;
  }
  copy('allowedBotSubmitters', body.allowedBotSubmitters);
  if (body.batchingRules !== undefined) patch.batchingRules = body.batchingRules.map((r) => ({ targetPattern: r.targetPattern, policy: r.policy }));
  copy('directMergeMode', body.directMergeMode);
  if (body.optimizationMode !== undefined) patch.optimizationMode = snake(body.optimizationMode) as QueueSettings['optimizationMode'];
  if (body.mergeMethod !== undefined) patch.mergeMethod = snake(body.mergeMethod) as QueueSettings['mergeMethod'];
  if (body.testBranchConstructionMode !== undefined)
    patch.testBranchConstructionMode = snake(body.testBranchConstructionMode) as QueueSettings['testBranchConstructionMode'];
  copy('enqueueingLabel', body.enqueueingLabel);
  return patch;
}

export function mergeQueueHandlers(deps: V2Deps): Record<string, V2Handler> {
  const { queues, resources, metrics } = deps.services;

  const changeState =
    (state: 'running' | 'paused' | 'draining'): V2Handler =>
    async ({ params, caller }) => {
      const queue = await queueOf(deps, caller.actor.orgId, params.id ?? '');
      return { body: serializeStateChange(await queues.update(caller.actor, queue.repo, queue.branch, { state })) };
    };

  return {
    'mergeQueues.list': async ({ query, caller }) => {
      const { orgId } = caller.actor;
      const filters = { repositoryId: query.repositoryId, targetBranch: query.targetBranch };
      const page = pageRequest('mergeQueues.list', query, filters);
      const all = (await deps.store.queues.listByOrg(orgId))
        .filter((q) => filters.repositoryId === undefined || repositoryIdOf(orgId, q.repo) === filters.repositoryId)
        .filter((q) => filters.targetBranch === undefined || q.branch === filters.targetBranch)
        .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1));
      const listed = pageOfList('mergeQueues.list', filters, page, all, (q) => q);
      return { body: { ...listed, data: await Promise.all(listed.data.map((q) => answerOf(deps, q))) } };
    },

    'mergeQueues.create': async ({ body, caller }) => {
      const req = body as S['CreateMergeQueueRequest'];
      const { repo } = await resources.repository(caller.actor.orgId, req.repositoryId);
      const init: { mode?: 'single' | 'parallel'; concurrency?: number } = {};
      if (req.mode !== undefined) init.mode = MODE_OF_V2[req.mode];
      if (req.concurrency !== undefined) init.concurrency = req.concurrency;
      let queue = await queues.create(caller.actor, repo, req.targetBranch, init);
      // As on the hosted API, these two are a second write: a failure here leaves the queue created.
      const second: QueueSettingsPatch = {};
      if (req.bisectionConcurrency !== undefined) second.bisectionConcurrency = req.bisectionConcurrency;
      if (req.enqueueingLabel !== undefined) second.enqueueingLabel = req.enqueueingLabel;
      if (Object.keys(second).length > 0) queue = await queues.update(caller.actor, repo, req.targetBranch, second);
      return { body: await answerOf(deps, queue) };
    },

    'mergeQueues.get': async ({ params, caller }) => ({ body: await answerOf(deps, await queueOf(deps, caller.actor.orgId, params.id ?? '')) }),

    'mergeQueues.delete': async ({ params, caller }) => {
      const queue = await queueOf(deps, caller.actor.orgId, params.id ?? '');
      await queues.delete(caller.actor, queue.repo, queue.branch);
      return {};
    },

    'mergeQueues.switchModes': async ({ params, body, caller }) => {
      const queue = await queueOf(deps, caller.actor.orgId, params.id ?? '');
      const { mode } = body as S['SwitchModesRequest'];
      return { body: serializeStateChange(await queues.update(caller.actor, queue.repo, queue.branch, { mode: MODE_OF_V2[mode] })) };
    },
    'mergeQueues.pause': changeState('paused'),
    'mergeQueues.resume': changeState('running'),
    'mergeQueues.drain': changeState('draining'),

    'mergeQueues.updateConfig': async ({ params, body, caller }) => {
      const queue = await queueOf(deps, caller.actor.orgId, params.id ?? '');
      const patch = settingsPatchOf(body as S['UpdateMergeQueueConfigRequest']);
      return { body: await answerOf(deps, await queues.update(caller.actor, queue.repo, queue.branch, patch)) };
    },

    'mergeQueues.organizationMetrics': async ({ query, caller }) => {
      const { orgId } = caller.actor;
      const repo = typeof query.repositoryId === 'string' ? (await resources.repository(orgId, query.repositoryId)).repo : null;
      return { body: await renderMergeQueueMetrics(await metrics.collect(orgId, repo)), contentType: MERGE_QUEUE_METRICS_CONTENT_TYPE };
    },

    'mergeQueues.metrics': async ({ params, caller }) => {
      const queue = await queueOf(deps, caller.actor.orgId, params.id ?? '');
      const series = (await metrics.collect(queue.orgId, queue.repo)).filter((s) => s.labels.branch === queue.branch);
      return { body: await renderMergeQueueMetrics(series), contentType: MERGE_QUEUE_METRICS_CONTENT_TYPE };
    },
  };
}
