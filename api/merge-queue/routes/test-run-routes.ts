// CI integration: setCommitStatus, the details of a test run, and whether a target branch
// commit's tree was tested (verifyCommit).
import type { OperationRoutes } from '../../routing/operation-router.js';
import { parseSetCommitStatus, parseTestingDetails, parseVerifyCommit } from '../schemas/test-run-schemas.js';
import { serializeTestingDetails } from '../serializers/testing-details.js';
import { actorOf } from '../../middleware/auth.js';
import type { CommitStatusService } from '../../../shared/merge-queue/services/commit-status-service.js';
import type { TestingDetailsService } from '../../../shared/merge-queue/services/testing-details-service.js';
import type { CommitVerificationService } from '../../../shared/merge-queue/services/commit-verification-service.js';

export function registerTestRunRoutes(
  routes: OperationRoutes,
  statuses: CommitStatusService,
  details: TestingDetailsService,
  verification: CommitVerificationService,
): void {
  routes.handle('setCommitStatus', async (ctx) => {
    const body = parseSetCommitStatus(ctx.request.body);
    await statuses.record(actorOf(ctx.state).orgId, body);
    ctx.body = {};
  });

  routes.handle('getMergeQueueTestingDetails', async (ctx) => {
    const body = parseTestingDetails(ctx.request.body);
    const d = await details.get(actorOf(ctx.state).orgId, body.repo, body.targetBranch, body.testRunId);
    ctx.body = serializeTestingDetails(d);
  });

  routes.handle('verifyCommit', async (ctx) => {
    const body = parseVerifyCommit(ctx.request.body);
    ctx.body = await verification.verify(actorOf(ctx.state).orgId, body.repo, body.sha.toLowerCase());
  });
}
