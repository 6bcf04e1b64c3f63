// POST /v1/getQueueCostReport: CI runs and minutes per merged pull request, and the wasted runs by cause.
import type { OperationRoutes } from '../../routing/operation-router.js';
import { parseCostReport } from '../schemas/cost-report-schemas.js';
import { actorOf } from '../../middleware/auth.js';
import type { CostReportService } from '../../../shared/merge-queue/services/cost-report-service.js';
import type { CostReport } from '../../../shared/merge-queue/domain/metrics/cost-report.js';
import type { RepoRef } from '../../../shared/platform/repo-ref.js';

export function registerCostReportRoutes(routes: OperationRoutes, costs: CostReportService): void {
  routes.handle('getQueueCostReport', async (ctx) => {
    const body = parseCostReport(ctx.request.body);
    const window = {
      ...(body.since !== undefined ? { since: new Date(body.since) } : {}),
      ...(body.until !== undefined ? { until: new Date(body.until) } : {}),
    };
    const report = await costs.report(actorOf(ctx.state).orgId, body.repo, body.targetBranch, window);
    ctx.body = serializeCostReport(body.repo, body.targetBranch, report);
  });
}

function serializeCostReport(repo: RepoRef, targetBranch: string, r: CostReport) {
  return {
    repo: { host: repo.host, owner: repo.owner, name: repo.name },
    targetBranch,
    since: r.since.toISOString(),
    until: r.until.toISOString(),
    testRunsStarted: r.testRunsStarted,
    testRunsReused: r.testRunsReused,
    ciMinutes: r.ciMinutes,
    mergedPullRequests: r.mergedPullRequests,
    testRunsPerMergedPr: r.testRunsPerMergedPr,
    ciMinutesPerMergedPr: r.ciMinutesPerMergedPr,
    wasted: r.wasted,
  };
}
