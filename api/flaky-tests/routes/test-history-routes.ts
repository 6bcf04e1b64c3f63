// POST /v1/flaky-tests/get-test-history: the dashboard's status history and run-history chart
// of one test (docs/api.md, "Dashboard reads").
import type { OperationRoutes } from '../../routing/operation-router.js';
import { actorOf } from '../../middleware/auth.js';
import { parseTestHistory } from '../../merge-queue/schemas/dashboard-read-schemas.js';
import type { TestHistoryService } from '../../../shared/flaky-tests/services/test-history-service.js';

const DEFAULT_DAYS = 14;

export function registerFlakyTestHistoryRoutes(routes: OperationRoutes, history: TestHistoryService): void {
  routes.handle('getTestHistory', async (ctx) => {
    const b = parseTestHistory(ctx.request.body);
    const h = await history.history(actorOf(ctx.state).orgId, { orgUrlSlug: b.org_url_slug, repo: b.repo, testId: b.test_id, days: b.days ?? DEFAULT_DAYS });
    ctx.body = {
      status_history: h.statusHistory.map((c) => ({ at: c.at.toISOString(), from: c.from, to: c.to, reason: c.reason })),
      daily_runs: h.dailyRuns.map((d) => ({ day: d.day.toISOString().slice(0, 10), passed: d.passed, failed: d.failed, skipped: d.skipped })),
    };
  });
}
