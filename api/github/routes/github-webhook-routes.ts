// POST /webhooks/github: no API token — GitHub proves itself with X-Hub-Signature-256 over the
// raw body, which the use case reads from the request stream itself (bounded, verified before
// anything is decoded). A refused body is not drained: the connection is closed instead.
import type { GitHubWebhooks } from '../../../shared/github/services/github-webhooks.js';
import type { OperationRoutes } from '../../routing/operation-router.js';

export function registerGitHubWebhookRoutes(routes: OperationRoutes, webhooks: GitHubWebhooks): void {
  routes.handle('receiveGitHubWebhook', async (ctx) => {
    const declared = ctx.get('content-length');
    try {
      const outcome = await webhooks.receive({
        event: ctx.get('x-github-event') || undefined,
        deliveryId: ctx.get('x-github-delivery') || undefined,
        signature: ctx.get('x-hub-signature-256') || undefined,
        declaredLength: /^\d+$/.test(declared) ? Number(declared) : null,
        body: ctx.req,
      });
      ctx.status = outcome === 'accepted' ? 202 : 200;
      ctx.body = { delivery: outcome };
    } catch (err) {
      if (!ctx.req.readableEnded) ctx.set('Connection', 'close');
      throw err;
    }
  });
}
