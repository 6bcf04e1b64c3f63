// Pull requests in a queue: submit, cancel, restart, status, impacted targets, list.
import type Router from '@koa/router';
import {
  parseGetSubmitted,
  parseListPullRequests,
  parsePrRef,
  parseSetImpactedTargets,
  parseSubmit,
} from '../schemas/pull-request-schemas.js';
import { serializeSubmittedPullRequest } from '../serializers/pull-request.js';
import { serializeEnqueuedEntry } from '../serializers/queue.js';
import { authOf } from '../../middleware/auth.js';
import type { PullRequestService } from '../../../shared/merge-queue/services/pull-request-service.js';
import type { QueueService } from '../../../shared/merge-queue/services/queue-service.js';
import type { TimeToMergeService } from '../../../shared/merge-queue/services/time-to-merge-service.js';

export function registerPullRequestRoutes(router: Router, prs: PullRequestService, estimates: { queues: QueueService; timeToMerge: TimeToMergeService }): void {
  router.post('/submitPullRequest', async (ctx) => {
    const body = parseSubmit(ctx.request.body);
    const { orgId } = authOf(ctx.state);
    await prs.submit(orgId, { repo: body.repo, branch: body.targetBranch, prNumber: body.pr.number, priority: body.priority, noBatch: body.noBatch });
    ctx.body = {};
  });

  router.post('/cancelPullRequest', async (ctx) => {
    const body = parsePrRef(ctx.request.body);
    await prs.cancel(authOf(ctx.state).orgId, body.repo, body.targetBranch, body.pr.number);
    ctx.body = {};
  });

  router.post('/restartTestsOnPullRequest', async (ctx) => {
    const body = parsePrRef(ctx.request.body);
    await prs.restartTests(authOf(ctx.state).orgId, body.repo, body.targetBranch, body.pr.number);
    ctx.body = {};
  });

  router.post('/getSubmittedPullRequest', async (ctx) => {
    const body = parseGetSubmitted(ctx.request.body);
    const { orgId } = authOf(ctx.state);
    const entry = await prs.getSubmitted(orgId, body.repo, body.targetBranch, body.pr);
    const standing = body.includeEstimatedTimeToMerge
      ? await estimates.timeToMerge.standing(await estimates.queues.get(orgId, body.repo, body.targetBranch), entry)
      : null;
    ctx.body = serializeSubmittedPullRequest(entry, { includeTimeline: body.includeTimeline === true, standing });
  });

  router.post('/setImpactedTargets', async (ctx) => {
    const body = parseSetImpactedTargets(ctx.request.body);
    await prs.setImpactedTargets(
      authOf(ctx.state).orgId,
      body.repo,
      body.targetBranch,
      Number(body.pr.number),
      body.pr.sha,
      body.impactedTargets,
    );
    ctx.body = {};
  });

  router.post('/listPullRequests', async (ctx) => {
    const body = parseListPullRequests(ctx.request.body);
    const opts: Parameters<PullRequestService['list']>[3] = { take: body.take ?? 50 };
    if (body.state) opts.state = body.state;
    if (body.since) opts.since = new Date(body.since);
    if (body.cursor) opts.cursor = body.cursor;
    const page = await prs.list(authOf(ctx.state).orgId, body.repo, body.targetBranch, opts);
    ctx.body = {
      pullRequests: page.entries.map(serializeEnqueuedEntry),
      ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}),
    };
  });
}
