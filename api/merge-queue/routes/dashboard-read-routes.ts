// The dashboard's read endpoints (docs/api.md, "Dashboard reads"): like every /v1 route they
// need a token and show its organisation only.
import type { OperationRoutes } from '../../routing/operation-router.js';
import { actorOf } from '../../middleware/auth.js';
import { parseEmptyBody, parseListTestRuns, parseQueueHealth } from '../schemas/dashboard-read-schemas.js';
import { serializeQueueSummary, serializeTestRunView } from '../serializers/dashboard-reads.js';
import type { QueueReadService } from '../../../shared/merge-queue/services/queue-read-service.js';

const DEFAULT_WINDOW_HOURS = 24;
const DEFAULT_BUCKETS = 24;

export function registerDashboardReadRoutes(routes: OperationRoutes, reads: QueueReadService): void {
  routes.handle('getTokenInfo', async (ctx) => {
    parseEmptyBody(ctx.request.body ?? {});
    const { orgId, name, role } = actorOf(ctx.state);
    // The role lets the dashboard show controls only to tokens allowed to use them.
    ctx.body = { organization: { slug: await reads.organizationSlug(orgId) }, token: { name, role } };
  });

  routes.handle('listQueues', async (ctx) => {
    parseEmptyBody(ctx.request.body ?? {});
    const summaries = await reads.listQueues(actorOf(ctx.state).orgId);
    ctx.body = { queues: summaries.map(serializeQueueSummary) };
  });

  routes.handle('listTestRuns', async (ctx) => {
    const body = parseListTestRuns(ctx.request.body);
    const runs = await reads.listTestRuns(actorOf(ctx.state).orgId, body.repo, body.targetBranch);
    ctx.body = { testRuns: runs.map(serializeTestRunView) };
  });

  routes.handle('getQueueHealth', async (ctx) => {
    const body = parseQueueHealth(ctx.request.body);
    const windowHours = body.windowHours ?? DEFAULT_WINDOW_HOURS;
    ctx.body = await reads.queueHealth(actorOf(ctx.state).orgId, body.repo, body.targetBranch, windowHours, body.buckets ?? DEFAULT_BUCKETS);
  });
}
