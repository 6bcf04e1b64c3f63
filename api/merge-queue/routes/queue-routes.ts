// Queue administration: createQueue, getQueue, updateQueue, deleteQueue. Every change is recorded
// in the audit trail with its actor.
import type Router from '@koa/router';
import { parseCreateQueue, parseQueueRef, parseUpdateQueue } from '../schemas/queue-schemas.js';
import { serializeQueue, serializeQueueSettings } from '../serializers/queue.js';
import { auditActorOf, authOf } from '../../middleware/auth.js';
import type { AuditTrail } from '../../../shared/audit/store/audit-log.js';
import { repoKey, type RepoRef } from '../../../shared/repo-ref.js';
import type { QueueService } from '../../../shared/merge-queue/services/queue-service.js';
import type { StatusWatchService } from '../../../shared/merge-queue/services/status-watch-service.js';
import { orderForDisplay } from '../../../shared/merge-queue/domain/queue-order.js';
import { sendCachedAnswer, type QueueAnswerCache } from '../queue-answer-cache.js';

const queueTarget = (repo: RepoRef, branch: string) => `${repoKey(repo)}:${branch}`;

export interface QueueRouteServices {
  queues: QueueService;
  statusWatch: StatusWatchService;
  /** getQueue's answers, kept until the queue's revision changes. */
  answers: QueueAnswerCache;
}

export function registerQueueRoutes(router: Router, { queues, statusWatch, answers }: QueueRouteServices, audit: AuditTrail): void {
  router.post('/createQueue', async (ctx) => {
    const body = parseCreateQueue(ctx.request.body);
    const { orgId } = authOf(ctx.state);
    const init: { mode?: 'single' | 'parallel'; concurrency?: number } = {};
    if (body.mode !== undefined) init.mode = body.mode;
    if (body.concurrency !== undefined) init.concurrency = body.concurrency;
    await queues.create(orgId, body.repo, body.targetBranch, init);
    await audit.record({ orgId, actor: auditActorOf(ctx.state), action: 'queue.created', target: queueTarget(body.repo, body.targetBranch), detail: init });
    ctx.body = {};
  });

  router.post('/getQueue', async (ctx) => {
    const body = parseQueueRef(ctx.request.body);
    const { orgId } = authOf(ctx.state);
    // The whole answer is computed inside the cache's `compute`, so a field added to it is cached
    // and invalidated with the rest; nothing in it may depend on the clock at read time.
    const answer = await answers.answer(orgId, body.repo, body.targetBranch, async () => {
      const queue = await queues.get(orgId, body.repo, body.targetBranch);
      const [entries, warnings] = await Promise.all([queues.listEntries(queue), statusWatch.warnings(queue)]);
      return serializeQueue(queue, orderForDisplay(entries), warnings);
    });
    sendCachedAnswer(ctx, answer);
  });

  router.post('/updateQueue', async (ctx) => {
    const { repo, targetBranch, ...patch } = parseUpdateQueue(ctx.request.body);
    const { orgId } = authOf(ctx.state);
    const queue = await queues.update(orgId, repo, targetBranch, patch);
    await audit.record({ orgId, actor: auditActorOf(ctx.state), action: 'queue.updated', target: queueTarget(repo, targetBranch), detail: patch });
    ctx.body = serializeQueueSettings(queue);
  });

  router.post('/deleteQueue', async (ctx) => {
    const body = parseQueueRef(ctx.request.body);
    const { orgId } = authOf(ctx.state);
    await queues.delete(orgId, body.repo, body.targetBranch);
    await audit.record({ orgId, actor: auditActorOf(ctx.state), action: 'queue.deleted', target: queueTarget(body.repo, body.targetBranch), detail: {} });
    ctx.body = {};
  });
}
