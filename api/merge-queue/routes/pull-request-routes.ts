// Pull requests in a queue: submit, cancel, restart, status, impacted targets, list.
import type { OperationRoutes } from '../../routing/operation-router.js';
import { parseGetSubmitted, parseListPullRequests, parsePrRef, parseSetImpactedTargets, parseSubmit } from '../schemas/pull-request-schemas.js';
import { serializeSubmittedPullRequest } from '../serializers/pull-request.js';
import { serializeEnqueuedEntry } from '../serializers/queue.js';
import { actorOf } from '../../middleware/auth.js';
import type { PullRequestService } from '../../../shared/merge-queue/services/pull-request-service.js';
import type { QueueService } from '../../../shared/merge-queue/services/queue-service.js';
import type { TimeToMergeService } from '../../../shared/merge-queue/services/time-to-merge-service.js';
import type { MergeWindowService } from '../../../shared/merge-queue/services/merge-window-service.js';
import type { VerdictService } from '../../../shared/merge-queue/services/verdict-service.js';
import { mayHaveVerdict } from '../../../shared/merge-queue/domain/verdict.js';

export function registerPullRequestRoutes(
  routes: OperationRoutes,
  prs: PullRequestService,
  reads: { queues: QueueService; timeToMerge: TimeToMergeService; verdicts: VerdictService; mergeWindows: MergeWindowService },
): void {
  routes.handle('submitPullRequest', async (ctx) => {
    const body = parseSubmit(ctx.request.body);
    await prs.submit(actorOf(ctx.state), {
      repo: body.repo,
      branch: body.targetBranch,
      prNumber: body.pr.number,
      priority: body.priority,
      noBatch: body.noBatch,
    });
    ctx.body = {};
  });

  routes.handle('cancelPullRequest', async (ctx) => {
    const body = parsePrRef(ctx.request.body);
    await prs.cancel(actorOf(ctx.state), body.repo, body.targetBranch, body.pr.number);
    ctx.body = {};
  });

  routes.handle('restartTestsOnPullRequest', async (ctx) => {
    const body = parsePrRef(ctx.request.body);
    await prs.restartTests(actorOf(ctx.state), body.repo, body.targetBranch, body.pr.number);
    ctx.body = {};
  });

  routes.handle('getSubmittedPullRequest', async (ctx) => {
    const body = parseGetSubmitted(ctx.request.body);
    const { orgId } = actorOf(ctx.state);
    const entry = await prs.getSubmitted(orgId, body.repo, body.targetBranch, body.pr);
    const pending = entry.state === 'pending';
    const queue = body.includeEstimatedTimeToMerge || mayHaveVerdict(entry) || pending ? await reads.queues.get(orgId, body.repo, body.targetBranch) : null;
    const standing = queue && body.includeEstimatedTimeToMerge ? await reads.timeToMerge.standing(queue, entry) : null;
    const verdict = queue ? await reads.verdicts.of(queue, entry) : null;
    const windowHold = queue && pending ? await reads.mergeWindows.holdOf(queue, entry) : null;
    ctx.body = serializeSubmittedPullRequest(entry, { includeTimeline: body.includeTimeline === true, standing, verdict, windowHold });
  });

  routes.handle('setImpactedTargets', async (ctx) => {
    const body = parseSetImpactedTargets(ctx.request.body);
    await prs.setImpactedTargets(actorOf(ctx.state), body.repo, body.targetBranch, Number(body.pr.number), body.pr.sha, body.impactedTargets);
    ctx.body = {};
  });

  routes.handle('listPullRequests', async (ctx) => {
    const body = parseListPullRequests(ctx.request.body);
    const opts: Parameters<PullRequestService['list']>[3] = { take: body.take ?? 50 };
    if (body.state) opts.state = body.state;
    if (body.since) opts.since = new Date(body.since);
    if (body.cursor) opts.cursor = body.cursor;
    const page = await prs.list(actorOf(ctx.state).orgId, body.repo, body.targetBranch, opts);
    ctx.body = {
      pullRequests: page.entries.map(serializeEnqueuedEntry),
      ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}),
    };
  });
}
