// sync (periodic): notice pushes to queued pull requests, closes, merges elsewhere and target moves.
import type { ServiceContext } from '../../shared/runtime/context.js';
import type { JobProcessor } from '../job-processor.js';

export function syncProcessor(ctx: ServiceContext): JobProcessor<'sync'> {
  return async () => {
    const outcome = await ctx.services.sync.poll();
    if (outcome.skipped > 0) ctx.logger.debug(outcome, 'provider poll: queues whose webhooks arrive were not due');
  };
}
