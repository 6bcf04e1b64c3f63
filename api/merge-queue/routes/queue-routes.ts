// Queue administration: createQueue, getQueue, updateQueue, deleteQueue.
import type { OperationRoutes } from '../../routing/operation-router.js';
import { parseCreateQueue, parseQueueRef, parseUpdateQueue } from '../schemas/queue-schemas.js';
import { serializeClosure, serializeMergeWindow, serializeQueue, serializeQueueSettings } from '../serializers/queue.js';
import { actorOf } from '../../middleware/auth.js';
import type { QueueService } from '../../../shared/merge-queue/services/queue-service.js';
import type { StatusWatchService } from '../../../shared/merge-queue/services/status-watch-service.js';
import type { MergeWindowService } from '../../../shared/merge-queue/services/merge-window-service.js';
import { orderForDisplay } from '../../../shared/merge-queue/domain/queue-order.js';
import { sendCachedAnswer, type QueueAnswerCache } from './queue-answer-cache.js';
import { scheduleFrom } from '../../../shared/merge-queue/domain/merge-schedule.js';
import { objectiveFrom } from '../../../shared/merge-queue/domain/objectives.js';
import { digestFrom } from '../../../shared/merge-queue/domain/digest.js';

export interface QueueRouteServices {
  queues: QueueService;
  statusWatch: StatusWatchService;
  /** getQueue's answers, kept until the queue's revision changes. */
  answers: QueueAnswerCache;
  mergeWindows: MergeWindowService;
}

export function registerQueueRoutes(routes: OperationRoutes, { queues, statusWatch, answers, mergeWindows }: QueueRouteServices): void {
  routes.handle('createQueue', async (ctx) => {
    const body = parseCreateQueue(ctx.request.body);
    const init: { mode?: 'single' | 'parallel'; concurrency?: number } = {};
    if (body.mode !== undefined) init.mode = body.mode;
    if (body.concurrency !== undefined) init.concurrency = body.concurrency;
    await queues.create(actorOf(ctx.state), body.repo, body.targetBranch, init);
    ctx.body = {};
  });

  routes.handle('getQueue', async (ctx) => {
    const body = parseQueueRef(ctx.request.body);
    const { orgId } = actorOf(ctx.state);
    // The whole answer is computed inside the cache's `compute`, so a field added to it is cached
    // and invalidated with the rest; nothing in it may depend on the clock at read time.
    const answer = await answers.answer(orgId, body.repo, body.targetBranch, async () => {
      const queue = await queues.get(orgId, body.repo, body.targetBranch);
      const [entries, warnings] = await Promise.all([queues.listEntries(queue), statusWatch.warnings(queue)]);
      return serializeQueue(queue, orderForDisplay(entries), warnings);
    });
    await sendCachedAnswer(ctx, answer);
  });

  routes.handle('getMergeWindowForecast', async (ctx) => {
    const body = parseQueueRef(ctx.request.body);
    const queue = await queues.get(actorOf(ctx.state).orgId, body.repo, body.targetBranch);
    const f = await mergeWindows.forecast(queue);
    ctx.body = {
      mergeWindow: serializeMergeWindow(f.window),
      closure: f.closure ? serializeClosure(f.closure) : null,
      pullRequests: f.pullRequests.map((p) => ({
        prNumber: p.prNumber,
        prTitle: p.prTitle,
        position: p.position,
        outcome: p.outcome,
        estimatedMergeAt: p.estimatedMergeAt?.toISOString() ?? null,
        earliest: p.earliest?.toISOString() ?? null,
        latest: p.latest?.toISOString() ?? null,
      })),
    };
  });

  routes.handle('updateQueue', async (ctx) => {
    const { repo, targetBranch, schedule, objectives, digest, ...rest } = parseUpdateQueue(ctx.request.body);
    const patch = {
      ...rest,
      ...(schedule === undefined ? {} : { schedule: schedule === null ? null : scheduleFrom(schedule) }),
      ...(objectives === undefined ? {} : { objectives: objectives.map(objectiveFrom) }),
      ...(digest === undefined ? {} : { digest: digest === null ? null : digestFrom(digest) }),
    };
    const queue = await queues.update(actorOf(ctx.state), repo, targetBranch, patch);
    ctx.body = serializeQueueSettings(queue);
  });

  routes.handle('deleteQueue', async (ctx) => {
    const body = parseQueueRef(ctx.request.body);
    await queues.delete(actorOf(ctx.state), body.repo, body.targetBranch);
    ctx.body = {};
  });
}
