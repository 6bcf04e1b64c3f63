// github-webhook: handles one recorded GitHub delivery (shared/providers/github/webhook-events.ts).
import { notFound } from '../../shared/errors.js';
import type { ServiceContext } from '../../shared/runtime/context.js';
import type { JobProcessor } from '../job-processor.js';

export function githubWebhookProcessor(ctx: ServiceContext): JobProcessor<'github-webhook'> {
  return async (job) => {
    const webhooks = ctx.github?.webhooks;
    if (!webhooks) throw notFound('github_not_configured', 'a GitHub delivery was queued but GitHub webhooks are not configured');
    await webhooks.process(job.data.deliveryId);
  };
}
