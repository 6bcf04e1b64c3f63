// sync (periodic): notice pushes to queued pull requests, closes, merges elsewhere and target moves.
import type { ServiceContext } from '../../shared/runtime/context.js';
import type { JobProcessor } from '../job-processor.js';

export function syncProcessor(ctx: ServiceContext): JobProcessor<'sync'> {
  return async () => {
    await ctx.services.sync.syncAll();
  };
}
