// The dashboard's read endpoints (docs/api.md, "Dashboard reads"): like every /v1 route they
// need a token and show its organisation only.
import type Router from '@koa/router';
import { authOf } from '../middleware/auth.js';
import { parseEmptyBody, parseListTestRuns, parseQueueHealth } from './dashboard-read-schemas.js';
import { serializeQueueSummary, serializeTestRunView } from './dashboard-read-serializers.js';
import type { QueueReadService } from '../../shared/merge-queue/services/queue-read-service.js';

const DEFAULT_WINDOW_HOURS = 24;
const DEFAULT_BUCKETS = 24;

export function registerDashboardReadRoutes(router: Router, reads: QueueReadService): void {
  router.post('/getTokenInfo', async (ctx) => {
    parseEmptyBody(ctx.request.body ?? {});
    const { orgId, tokenName, role } = authOf(ctx.state);
    // The role lets the dashboard show controls only to tokens allowed to use them.
    ctx.body = { organization: { slug: await reads.organizationSlug(orgId) }, token: { name: tokenName, role } };
  });

  router.post('/listQueues', async (ctx) => {
    parseEmptyBody(ctx.request.body ?? {});
    const summaries = await reads.listQueues(authOf(ctx.state).orgId);
    ctx.body = { queues: summaries.map(serializeQueueSummary) };
  });

  router.post('/listTestRuns', async (ctx) => {
    const body = parseListTestRuns(ctx.request.body);
    const runs = await reads.listTestRuns(authOf(ctx.state).orgId, body.repo, body.targetBranch);
    ctx.body = { testRuns: runs.map(serializeTestRunView) };
  });

  router.post('/getQueueHealth', async (ctx) => {
    const body = parseQueueHealth(ctx.request.body);
    const windowHours = body.windowHours ?? DEFAULT_WINDOW_HOURS;
    ctx.body = await reads.queueHealth(authOf(ctx.state).orgId, body.repo, body.targetBranch, windowHours, body.buckets ?? DEFAULT_BUCKETS);
  });
}
