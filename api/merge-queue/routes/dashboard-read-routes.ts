// The dashboard's read endpoints (docs/api.md, "Dashboard reads"): like every /v1 route they
// need a token and show its organisation only.
import type { OperationRoutes } from '../../routing/operation-router.js';
import { actorOf } from '../../middleware/auth.js';
import { parseEmptyBody, parseListTestRuns, parseQueueHealth, parseTokenInfo } from '../schemas/dashboard-read-schemas.js';
import { readableBy } from '../../middleware/repository-scope.js';
import { serializeQueueSummary, serializeTestRunView } from '../serializers/dashboard-reads.js';
import type { QueueReadService } from '../../../shared/merge-queue/services/queue-read-service.js';

const DEFAULT_WINDOW_HOURS = 24;
const DEFAULT_BUCKETS = 24;

export function registerDashboardReadRoutes(routes: OperationRoutes, reads: QueueReadService): void {
  routes.handle('getTokenInfo', async (ctx) => {
    // With `repo`, the role is the one held on that repository (repository-scope.ts gives a person
    // signed in with GitHub theirs there); the dashboard shows controls only to callers allowed to use them.
    parseTokenInfo(ctx.request.body ?? {});
    const { orgId, name, role } = actorOf(ctx.state);
    ctx.body = { organization: { slug: await reads.organizationSlug(orgId) }, token: { name, role } };
  });

  routes.handle('listQueues', async (ctx) => {
    parseEmptyBody(ctx.request.body ?? {});
    const summaries = await reads.listQueues(actorOf(ctx.state).orgId);
    // A person signed in with GitHub sees the queues of the repositories they may read.
    const readable = readableBy(ctx.state);
    const visible = await Promise.all(summaries.map(async (q) => ((await readable(q.queue.repo)) ? q : null)));
    ctx.body = { queues: visible.filter((q) => q !== null).map(serializeQueueSummary) };
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
