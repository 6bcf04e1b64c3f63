// POST /v1/getQueueDigest: the queue's digest of its last ended period, as it would go out now.
import type { OperationRoutes } from '../../routing/operation-router.js';
import { parseQueueRef } from '../schemas/queue-schemas.js';
import { actorOf } from '../../middleware/auth.js';
import type { DigestService } from '../../../shared/merge-queue/services/digest-service.js';
import { digestJson } from '../../../shared/merge-queue/domain/digest.js';

export function registerDigestRoutes(routes: OperationRoutes, digests: DigestService): void {
  routes.handle('getQueueDigest', async (ctx) => {
    const body = parseQueueRef(ctx.request.body);
    const digest = await digests.preview(actorOf(ctx.state).orgId, body.repo, body.targetBranch);
    ctx.body = { digest: digest ? digestJson(digest) : null };
  });
}
