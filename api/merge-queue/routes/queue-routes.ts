// Queue administration: createQueue, getQueue, updateQueue, deleteQueue.
import type { OperationRoutes } from '../../routing/operation-router.js';
import { parseCreateQueue, parseQueueRef, parseUpdateQueue } from '../schemas/queue-schemas.js';
import { serializeQueue, serializeQueueSettings } from '../serializers/queue.js';
import { actorOf } from '../../middleware/auth.js';
import type { QueueService } from '../../../shared/merge-queue/services/queue-service.js';
import type { StatusWatchService } from '../../../shared/merge-queue/services/status-watch-service.js';
import { orderForDisplay } from '../../../shared/merge-queue/domain/queue-order.js';
import { sendCachedAnswer, type QueueAnswerCache } from './queue-answer-cache.js';

export interface QueueRouteServices {
  queues: QueueService;
  statusWatch: StatusWatchService;
  /** getQueue's answers, kept until the queue's revision changes. */
  answers: QueueAnswerCache;
}

export function registerQueueRoutes(routes: OperationRoutes, { queues, statusWatch, answers }: QueueRouteServices): void {
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

  routes.handle('updateQueue', async (ctx) => {
    const { repo, targetBranch, ...patch } = parseUpdateQueue(ctx.request.body);
    const queue = await queues.update(actorOf(ctx.state), repo, targetBranch, patch);
    ctx.body = serializeQueueSettings(queue);
  });

  routes.handle('deleteQueue', async (ctx) => {
    const body = parseQueueRef(ctx.request.body);
    await queues.delete(actorOf(ctx.state), body.repo, body.targetBranch);
    ctx.body = {};
  });
}
