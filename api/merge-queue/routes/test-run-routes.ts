// CI integration: setCommitStatus, and the details of a test run.
import type Router from '@koa/router';
import { parseSetCommitStatus, parseTestingDetails } from '../schemas/test-run-schemas.js';
import { serializeTestingDetails } from '../serializers/testing-details.js';
import { authOf } from '../../middleware/auth.js';
import type { CommitStatusService } from '../../../shared/merge-queue/services/commit-status-service.js';
import type { TestingDetailsService } from '../../../shared/merge-queue/services/testing-details-service.js';

export function registerTestRunRoutes(router: Router, statuses: CommitStatusService, details: TestingDetailsService): void {
  router.post('/setCommitStatus', async (ctx) => {
    const body = parseSetCommitStatus(ctx.request.body);
    await statuses.record(authOf(ctx.state).orgId, body);
    ctx.body = {};
  });

  router.post('/getMergeQueueTestingDetails', async (ctx) => {
    const body = parseTestingDetails(ctx.request.body);
    const d = await details.get(authOf(ctx.state).orgId, body.repo, body.targetBranch, body.testRunId);
    ctx.body = serializeTestingDetails(d);
  });
}
